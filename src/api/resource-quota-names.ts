/**
 * The quota resource names kube's evaluators answer to (kube v1.32: apiserver pkg/quota/v1/generic,
 * kubernetes pkg/quota/v1/evaluator/core and pkg/quota/v1/install): one home for the ResourceQuota
 * admission plugin and the quota controller, so they always agree on what a name counts.
 */
import { podMatchingResources } from './quota/pod-usage';

/** kube's DefaultIgnoredResources (`<group>/<resource>`): never counted, by admission nor by the controller. */
const ignoredResources = new Set([
  '/bindings',
  '/componentstatuses',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  '/events',
  'events.k8s.io/events',
]);

/** True for the resources kube's quota system ignores (events, the virtual review resources). */
export function isQuotaIgnoredResource(group: string, resource: string): boolean {
  return ignoredResources.has(`${group}/${resource}`);
}

/** The verbs discovery must list for the quota controller to count a resource (kube's GetQuotableResources). */
export const quotableVerbs: readonly string[] = ['create', 'list', 'watch', 'delete'];

/** kube's legacyObjectCountAliases: core resources whose count also answers to the bare plural. */
const legacyObjectCountAliases = new Set(['configmaps', 'resourcequotas', 'replicationcontrollers', 'secrets']);

/** kube's ObjectCountQuotaResourceNameFor: `count/<resource>` in the core group, `count/<resource>.<group>` elsewhere. */
export function objectCountQuotaResourceName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/**
 * The quota resource names one created object of (group, resource) consumes (the object-count
 * evaluator's usage): `count/secrets` and `secrets`, `count/widgets.example.com`, ...
 */
export function objectCountResourceNames(group: string, resource: string): string[] {
  const names = [objectCountQuotaResourceName(group, resource)];
  if (!group && legacyObjectCountAliases.has(resource)) names.push(resource);
  return names;
}

/**
 * The (group, resource) whose objects a quota name counts: `count/<resource>[.<group>]` or a legacy
 * alias; undefined for any other name. Resource names hold no dot, so the first dot starts the group.
 */
export function countedGroupResource(name: string): { group: string; resource: string } | undefined {
  if (legacyObjectCountAliases.has(name)) return { group: '', resource: name };
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** The service evaluator's names (serviceResources). */
const serviceResources = new Set(['count/services', 'services', 'services.nodeports', 'services.loadbalancers']);
/** The PVC evaluator's names (pvcResources plus its object count), also per storage class as `<class>.storageclass.storage.k8s.io/<name>`. */
const pvcResources = ['persistentvolumeclaims', 'requests.storage'];
const storageClassSuffix = '.storageclass.storage.k8s.io/';

function pvcEvaluatorMatches(name: string): boolean {
  if (name === 'count/persistentvolumeclaims' || pvcResources.includes(name)) return true;
  return pvcResources.some((r) => name.endsWith(storageClassSuffix + r));
}

/**
 * True when one of the evaluators kube always registers matches the name: pods, services,
 * persistentvolumeclaims, or the object count of a legacy-aliased core resource. A quota
 * controller that serves none of those kinds reports their usage as 0 (kube lists an empty informer).
 */
export function matchedByBuiltinEvaluator(name: string): boolean {
  if (podMatchingResources([name]).length > 0 || serviceResources.has(name) || pvcEvaluatorMatches(name)) return true;
  const counted = countedGroupResource(name);
  return !!counted && !counted.group && legacyObjectCountAliases.has(counted.resource);
}
