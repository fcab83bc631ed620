/**
 * `--runtime-config`: which built-in group versions and resources are served, with kube-apiserver
 * 1.32's keys, precedence and messages (its APIEnablementOptions: ConvertLegacyGroup, Validate and
 * MergeAPIResourceConfigs). Keys: `api/all`, `api/ga`, `api/beta`, `api/alpha` (all versions, or
 * those named v<N>, v<N>beta<M>, v<N>alpha<M>), `<group>/<version>`, `<group>/<version>/<resource>`;
 * the core group is `v1` or `api/v1`, and kube turns `v1/<resource>` into `v1` too (the core group
 * switches only as a whole). A version's setting beats a matcher's, a resource's beats its
 * version's. By default GA versions are served and beta and alpha ones are not, as kube's default
 * resource config has it.
 */
import type { ResourceDefinition } from './resource';

/** A `--runtime-config` kube-apiserver refuses at start; the message is kube's. */
export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

/**
 * The API groups kube-apiserver 1.32 compiles in (its legacy scheme, apiextensions and the
 * aggregator). `--runtime-config` may name them although this server serves few of them: kube
 * accepts such keys, and so does this server (they change nothing here). Other groups are refused.
 */
const KUBE_BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admission.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'imagepolicy.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

const MATCHERS: ReadonlyArray<readonly [string, (version: string) => boolean]> = [
  ['api/all', () => true],
  ['api/ga', (v) => /^v\d+$/.test(v)],
  ['api/beta', (v) => /^v\d+beta\d+$/.test(v)],
  ['api/alpha', (v) => /^v\d+alpha\d+$/.test(v)],
];

/** Which resources are served: `enabled(def)` for each built-in declaration. */
export interface ResourceConfig {
  enabled(def: Pick<ResourceDefinition, 'group' | 'version' | 'resource'>): boolean;
}

/**
 * kube-apiserver's Options.Complete: `api/legacy` is dropped, and every core key (`v1`, `v1/…`,
 * `api/v1`, `api/v1/…`) becomes the core group version `/v1` with that key's value, so the core
 * group switches as a whole (`v1/configmaps=false` turns off all of v1, as in kube). Where several
 * core keys are given, kube keeps one at random (a Go map); here the last one given wins.
 */
function convertLegacyGroup(input: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of input) {
    if (key === 'api/legacy') continue;
    if (key === 'v1' || key.startsWith('v1/') || key === 'api/v1' || key.startsWith('api/v1/')) out.set('/v1', value);
    else out.set(key, value);
  }
  return out;
}

/** Go's strconv.ParseBool, as kube reads a group version's or resource's value ('' = true). */
function parseValue(key: string, value: string): boolean {
  if (value === '') return true;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new RuntimeConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** schema.ParseGroupVersion of `<group>/<version>` (always one slash here). */
function groupVersionOf(tokens: string[]): { group: string; version: string } {
  return { group: tokens[0] ?? '', version: tokens[1] ?? '' };
}

/**
 * Resolves `--runtime-config` (parsed `key=value` pairs, a bare key mapping to '') against the
 * declarations this server may serve. Throws RuntimeConfigError with kube's message for a key or
 * value kube refuses: only `api/all=false`, a key of the wrong shape, an unknown group, a version
 * of a served group that does not exist, a non-lowercase resource, a value that is not a bool.
 */
export function resolveRuntimeConfig(runtimeConfig: ReadonlyMap<string, string>, defs: readonly ResourceDefinition[]): ResourceConfig {
  const overrides = convertLegacyGroup(runtimeConfig);
  if (overrides.get('api/all') === 'false' && overrides.size === 1) throw new RuntimeConfigError('invalid key with only api/all=false');

  // Validate: the shape of every key, and its group known.
  const unknownGroups: string[] = [];
  for (const key of overrides.keys()) {
    if (MATCHERS.some(([m]) => m === key)) continue;
    const tokens = key.split('/');
    if (tokens.length !== 2 && tokens.length !== 3) throw new RuntimeConfigError(`runtime-config invalid key ${key}`);
    const { group } = groupVersionOf(tokens);
    if (!KUBE_BUILTIN_GROUPS.has(group) && !defs.some((d) => d.group === group)) unknownGroups.push(group);
  }
  if (unknownGroups.length > 0) throw new RuntimeConfigError(`unknown api groups ${unknownGroups.join(',')}`);

  // The default: GA versions on, beta and alpha off.
  const versions = new Map<string, boolean>();
  const gvKey = (group: string, version: string) => `${group}/${version}`;
  for (const d of defs) versions.set(gvKey(d.group, d.version), /^v\d+$/.test(d.version));
  const resources = new Map<string, boolean>();
  const dropResourcesOf = (gv: string) => {
    for (const r of [...resources.keys()]) if (r.startsWith(`${gv}/`)) resources.delete(r);
  };

  for (const [matcher, matches] of MATCHERS) {
    const value = overrides.get(matcher);
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(`invalid value ${matcher}=${value}`);
    for (const gv of versions.keys()) {
      if (!matches(gv.slice(gv.indexOf('/') + 1))) continue;
      versions.set(gv, value === 'true');
      dropResourcesOf(gv);
    }
  }

  const versionPrefs: Array<[string, boolean]> = [];
  const resourcePrefs: Array<[string, boolean]> = [];
  for (const [key, value] of overrides) {
    if (MATCHERS.some(([m]) => m === key)) continue;
    const tokens = key.split('/');
    if (tokens.length < 2 || tokens.length > 3) continue;
    const { group, version } = groupVersionOf(tokens);
    // Groups kube knows and this server does not serve: accepted (their value checked as kube
    // would), nothing to switch. kube would also refuse a version it lacks; not known here.
    if (!defs.some((d) => d.group === group)) {
      parseValue(key, value);
      continue;
    }
    if (!defs.some((d) => d.group === group && d.version === version)) {
      throw new RuntimeConfigError(`group version ${group ? `${group}/${version}` : version} that has not been registered`);
    }
    const enabled = parseValue(key, value);
    if (tokens.length === 2) {
      versionPrefs.push([gvKey(group, version), enabled]);
    } else {
      const resource = tokens[2] ?? '';
      if (resource.toLowerCase() !== resource) {
        throw new RuntimeConfigError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
      }
      resourcePrefs.push([`${gvKey(group, version)}/${resource}`, enabled]);
    }
  }
  for (const [gv, enabled] of versionPrefs) {
    versions.set(gv, enabled);
    dropResourcesOf(gv);
  }
  for (const [gvr, enabled] of resourcePrefs) resources.set(gvr, enabled);

  return {
    enabled(def) {
      const gv = gvKey(def.group, def.version);
      return resources.get(`${gv}/${def.resource}`) ?? versions.get(gv) ?? false;
    },
  };
}
