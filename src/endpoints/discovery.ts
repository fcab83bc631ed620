/**
 * Discovery documents built from the resource table: legacy (/api, /api/v1, /apis, /apis/<g>[/<v>])
 * and aggregated (apidiscovery.k8s.io/v2 and v2beta1, as kubectl 1.32 asks first).
 */
import { createHash } from 'node:crypto';
import type { GroupVersionInfo, Registry } from '../registry';
import type { ResourceDefinition, SubresourceAnswer, SubresourceDefinition } from '../registry';
import { parseAccept } from './negotiation';

/**
 * kube's storageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<Kind>") of the
 * version objects are stored in (a declaration `storedAs` another: that one's).
 */
export function storageVersionHash(def: ResourceDefinition): string {
  const stored = def.storedAs ?? def;
  return createHash('sha256').update(`${stored.group}/${stored.version}/${def.kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * Whether an answered subresource's kind lives in another group version than its resource (kube's
 * GroupVersionKindProvider: serviceaccounts/token, pods/eviction); only then does discovery name them.
 */
function otherGroupVersion(def: ResourceDefinition, answer: SubresourceAnswer | undefined): answer is SubresourceAnswer {
  return !!answer && (answer.group !== def.group || answer.version !== def.version);
}

/** A subresource's kind: the answered kind (pods/binding: Binding), a connect one's options kind, else the resource's. */
function subresourceKind(def: ResourceDefinition, s: SubresourceDefinition): string {
  return s.answer?.kind ?? s.connect?.kind ?? def.kind;
}

function apiResource(def: ResourceDefinition, withStorageVersionHash: boolean): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: def.resource,
    singularName: def.singularName,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
  };
  if (def.shortNames.length) main.shortNames = def.shortNames;
  if (def.categories.length) main.categories = def.categories;
  // kube's installer gives it only to resources with storage (a review has none).
  if (withStorageVersionHash && def.store !== 'review') main.storageVersionHash = storageVersionHash(def);
  // An answered subresource names its own kind, with its group and version (kube: serviceaccounts/token);
  // a connect subresource its options kind (pods/exec: PodExecOptions).
  const subs = def.subresources.map((s) => ({
    name: `${def.resource}/${s.name}`,
    singularName: '',
    namespaced: def.namespaced,
    ...(otherGroupVersion(def, s.answer) ? { group: s.answer.group, version: s.answer.version, kind: s.answer.kind } : { kind: subresourceKind(def, s) }),
    verbs: s.verbs,
  }));
  return [main, ...subs];
}

function sortedByName(gv: GroupVersionInfo): ResourceDefinition[] {
  return gv.stores.map((s) => s.def).sort((a, b) => a.resource.localeCompare(b.resource));
}

/** `storageVersionHash`: gate StorageVersionHash (kube 1.32: beta, on); off, kube's installer leaves the field out. */
export function apiResourceList(gv: GroupVersionInfo, opts: { storageVersionHash?: boolean } = {}): Record<string, unknown> {
  const groupVersion = gv.group ? `${gv.group}/${gv.version}` : gv.version;
  const doc: Record<string, unknown> = { kind: 'APIResourceList' };
  if (gv.group) doc.apiVersion = 'v1';
  doc.groupVersion = groupVersion;
  const withHash = opts.storageVersionHash ?? true;
  doc.resources = sortedByName(gv).flatMap((def) => apiResource(def, withHash));
  return doc;
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

interface GroupEntry {
  name: string;
  versions: GroupVersionInfo[];
}

function namedGroups(registry: Registry): GroupEntry[] {
  const groups = new Map<string, GroupEntry>();
  for (const gv of registry.groupVersions()) {
    if (!gv.group) continue;
    let g = groups.get(gv.group);
    if (!g) groups.set(gv.group, (g = { name: gv.group, versions: [] }));
    g.versions.push(gv);
  }
  return [...groups.values()];
}

function apiGroup(g: GroupEntry): Record<string, unknown> {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiGroupList(registry: Registry): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: namedGroups(registry).map(apiGroup) };
}

export function apiGroupDoc(registry: Registry, group: string): Record<string, unknown> | undefined {
  const g = namedGroups(registry).find((x) => x.name === group);
  return g && { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) };
}

function discoveryResource(def: ResourceDefinition): Record<string, unknown> {
  const r: Record<string, unknown> = {
    resource: def.resource,
    responseKind: { group: '', version: '', kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singularName,
    verbs: def.verbs,
  };
  if (def.shortNames.length) r.shortNames = def.shortNames;
  if (def.categories.length) r.categories = def.categories;
  if (def.subresources.length) {
    r.subresources = def.subresources.map((s) => ({
      subresource: s.name,
      responseKind: otherGroupVersion(def, s.answer) ? { group: s.answer.group, version: s.answer.version, kind: s.answer.kind } : { group: '', version: '', kind: subresourceKind(def, s) },
      verbs: s.verbs,
    }));
  }
  return r;
}

function discoveryGroup(name: string, versions: GroupVersionInfo[]): Record<string, unknown> {
  return {
    metadata: name ? { name, creationTimestamp: null } : { creationTimestamp: null },
    versions: versions.map((v) => ({
      version: v.version,
      resources: sortedByName(v).map(discoveryResource),
      freshness: 'Current',
    })),
  };
}

/** The aggregated document for /api (core group only) or /apis (every named group). */
export function aggregatedDiscovery(registry: Registry, legacy: boolean, version: 'v2' | 'v2beta1'): Record<string, unknown> {
  const items = legacy
    ? [discoveryGroup('', registry.groupVersions().filter((gv) => !gv.group))]
    : namedGroups(registry).map((g) => discoveryGroup(g.name, g.versions));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

/** Which aggregated discovery version the Accept header asks for, if any (first match wins). */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const m of parseAccept(accept)) {
    if (m.type === 'application/json' && m.params.g === 'apidiscovery.k8s.io' && m.params.as === 'APIGroupDiscoveryList') {
      if (m.params.v === 'v2' || m.params.v === 'v2beta1') return m.params.v;
    }
    if (!m.params.as && (m.type === 'application/json' || m.type === '*/*')) return undefined;
  }
  return undefined;
}

/** kube's discovery ETag: hex SHA-512 of the body, quoted. */
export function discoveryETag(body: Buffer): string {
  return `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
}
