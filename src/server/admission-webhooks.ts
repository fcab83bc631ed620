/**
 * What the admission webhook plugins read of the server (AdmissionDeps): the stored webhook
 * configurations, through the server's shared informers (started and synced before the server
 * listens, so no request lists them), and which served resources hold the same objects as a
 * request's (matchPolicy Equivalent), with the conversions between their forms. Both are read on
 * every write, so both answer from what they worked out before until something changes.
 */
import type { KubeObject } from '../api';
import type { EquivalentResource, EquivalentResourceMapper, WebhookConfigurationLister } from '../admission';
import type { SharedInformers } from '../controllers/informer';
import { decodeForAdmission, type Registry, type ResourceDefinition } from '../registry';
import type { SchemaRegistry } from '../registry/schema';

const ADMISSIONREGISTRATION = 'admissionregistration.k8s.io';

const NONE: readonly KubeObject[] = Object.freeze([]);

/**
 * The objects of one configuration kind: one array, made again only after the informer changed
 * (its handlers run as its store changes), so every write in between (and, with none stored,
 * every write) gets the same array at no cost, and the plugins see at once that nothing changed.
 */
function snapshotOf(informers: SharedInformers, resource: string): () => readonly KubeObject[] {
  const informer = informers.forResource(ADMISSIONREGISTRATION, 'v1', resource);
  let snapshot: readonly KubeObject[] | undefined;
  const changed = (): void => void (snapshot = undefined);
  informer.addEventHandler({ onAdd: changed, onUpdate: (old, cur) => old !== cur && changed(), onDelete: changed });
  return () => (snapshot ??= informer.indexer.size === 0 ? NONE : informer.indexer.list());
}

/** The configurations' informers; none when admissionregistration.k8s.io/v1 is not served (--runtime-config). */
export function webhookConfigurationLister(registry: Pick<Registry, 'get'>, informers: SharedInformers): WebhookConfigurationLister {
  const lister = (resource: string) => (registry.get(ADMISSIONREGISTRATION, 'v1', resource) ? snapshotOf(informers, resource) : () => NONE);
  return { mutating: lister('mutatingwebhookconfigurations'), validating: lister('validatingwebhookconfigurations') };
}

/** The objects a declaration serves are kept as this group/resource (kube keys equivalence on storage). */
const storageIdentity = (d: ResourceDefinition): string => (d.storedAs ? `${d.storedAs.group}/${d.storedAs.resource}` : `${d.group}/${d.resource}`);

const toStored = (d: ResourceDefinition, obj: KubeObject): KubeObject => (d.storedAs ? d.storedAs.toStored(obj) : obj);
const fromStored = (d: ResourceDefinition, obj: KubeObject): KubeObject => (d.storedAs ? d.storedAs.fromStored(obj) : obj);

/**
 * kube's EquivalentResourceMapper over the registry: the other served resources whose objects are
 * kept where the request's are (events.k8s.io/v1 events and core/v1 events), with the subresource
 * asked for; each converts through the stored form. Worked out once per resource and subresource,
 * again after the registry changes (a custom resource's versions come and go).
 */
export function equivalentResourceMapper(registry: Pick<Registry, 'get' | 'all' | 'onChange'>, schemas: Pick<SchemaRegistry, 'decode'>): EquivalentResourceMapper {
  const known = new Map<string, readonly EquivalentResource[]>();
  registry.onChange(() => known.clear());
  return (group, version, resource, subresource) => {
    const key = `${group}/${version}/${resource}/${subresource}`;
    let found = known.get(key);
    if (!found) known.set(key, (found = findEquivalents(registry, schemas, group, version, resource, subresource)));
    return found;
  };
}

function findEquivalents(
  registry: Pick<Registry, 'get' | 'all'>,
  schemas: Pick<SchemaRegistry, 'decode'>,
  group: string,
  version: string,
  resource: string,
  subresource: string,
): EquivalentResource[] {
  const own = registry.get(group, version, resource);
  if (!own?.stored) return [];
  const id = storageIdentity(own.def);
  const out: EquivalentResource[] = [];
  for (const store of registry.all()) {
    const d = store.def;
    if (store === own || !store.stored || storageIdentity(d) !== id) continue;
    if (subresource && !d.subresources.some((sub) => sub.name === subresource)) continue;
    out.push({
      group: d.group,
      version: d.version,
      resource: d.resource,
      kind: d.kind,
      fromRequest: (obj) => fromStored(d, toStored(own.def, obj)),
      toRequest: (obj) => fromStored(own.def, toStored(d, obj)),
      decode: (raw) => decodeForAdmission(schemas, d.schemaName, raw),
    });
  }
  return out;
}

/** The mapper of each registry, for callers that pass the registry on every call. */
const mappers = new WeakMap<object, EquivalentResourceMapper>();

/** {@link equivalentResourceMapper}'s answer for `registry` (its mapper made on the first call). */
export function equivalentResources(
  registry: Pick<Registry, 'get' | 'all' | 'onChange'>,
  schemas: Pick<SchemaRegistry, 'decode'>,
  group: string,
  version: string,
  resource: string,
  subresource: string,
): readonly EquivalentResource[] {
  let mapper = mappers.get(registry);
  if (!mapper) mappers.set(registry, (mapper = equivalentResourceMapper(registry, schemas)));
  return mapper(group, version, resource, subresource);
}
