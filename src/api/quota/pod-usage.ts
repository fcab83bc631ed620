/**
 * What a pod charges to quota, as kube v1.32's pod evaluator measures it (kubernetes
 * pkg/quota/v1/evaluator/core/pods.go, component-helpers resource.PodRequests/PodLimits, the QoS
 * helper): its object count always; while it is not terminal, `pods` and its compute requests and
 * limits (init containers counted as the max against the app containers' sum, overhead added).
 * The one home for these rules: ResourceQuota admission and the quota controller both call here.
 */
import { compareGoStrings } from '../go-format';
import { isQualifiedName } from '../labels';
import { Quantity, parseQuantity } from '../quantity';
import { ResourceList, addInto, addLists, maxInto, toResourceList } from './resource-list';

type QuantityMap = Record<string, string | number>;

export interface ResourceRequirementsShape {
  requests?: QuantityMap | null;
  limits?: QuantityMap | null;
}

export interface ContainerShape {
  name?: string;
  resources?: ResourceRequirementsShape | null;
  restartPolicy?: string;
}

interface PodAffinityTermShape {
  namespaces?: string[] | null;
  namespaceSelector?: unknown;
}
interface PodAffinityShape {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTermShape[] | null;
  preferredDuringSchedulingIgnoredDuringExecution?: Array<{ podAffinityTerm?: PodAffinityTermShape }> | null;
}

/** The fields of a v1 Pod the quota rules read. */
export interface PodShape {
  metadata?: { name?: string; deletionTimestamp?: string | null; deletionGracePeriodSeconds?: number | null };
  spec?: {
    containers?: ContainerShape[] | null;
    initContainers?: ContainerShape[] | null;
    overhead?: QuantityMap | null;
    resources?: ResourceRequirementsShape | null;
    activeDeadlineSeconds?: number | null;
    priorityClassName?: string;
    affinity?: { podAffinity?: PodAffinityShape | null; podAntiAffinity?: PodAffinityShape | null } | null;
  };
  status?: {
    phase?: string;
    qosClass?: string;
    resize?: string;
    containerStatuses?: Array<{ name?: string; resources?: ResourceRequirementsShape | null }> | null;
  };
}

/**
 * The feature gates kube's pod evaluator consults, all off by default in v1.32 (alpha):
 * InPlacePodVerticalScaling (usage also from status.containerStatuses[].resources) and
 * PodLevelResources (spec.resources counts, and containers need not name cpu/memory).
 */
export interface PodQuotaGates {
  inPlacePodVerticalScaling?: boolean;
  podLevelResources?: boolean;
}

export const podObjectCountName = 'count/pods';
const requestsPrefix = 'requests.';
const hugePagesPrefix = 'hugepages-';

/** The pod evaluator's fixed names (podResources). */
const podResources = new Set([
  podObjectCountName,
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
]);

/** helper.IsNativeResource: unprefixed, or in the kubernetes.io domain. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** helper.IsExtendedResourceName: not native, no `requests.` prefix, and a qualified name once prefixed. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(requestsPrefix)) return false;
  return isQualifiedName(requestsPrefix + name).length === 0;
}

/** isExtendedResourceNameForQuota: only `requests.<domain>/<name>` quotas an extended resource. */
function isExtendedResourceNameForQuota(name: string): boolean {
  return !isNativeResource(name) && name.startsWith(requestsPrefix);
}

/** The pod evaluator's MatchingResources: the names of `input` it can measure. */
export function podMatchingResources(input: Iterable<string>): string[] {
  const out: string[] = [];
  for (const n of input) {
    // kube appends prefixed names after its intersection, so a name can repeat; a set is what callers use.
    if (podResources.has(n) || n.startsWith(hugePagesPrefix) || n.startsWith(requestsPrefix + hugePagesPrefix) || isExtendedResourceNameForQuota(n)) out.push(n);
  }
  return out;
}

/**
 * QuotaV1Pod: false for a pod that no longer consumes compute quota: a terminal phase (Succeeded,
 * Failed), or marked for deletion longer ago than its grace period (a pod stuck on a lost node).
 */
export function isQuotaV1Pod(pod: PodShape, now: Date): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const ts = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (ts && grace !== undefined && grace !== null) {
    const deadline = Date.parse(ts) + grace * 1000;
    if (now.getTime() > deadline) return false;
  }
  return true;
}

const requestsOf = (c: ContainerShape) => toResourceList(c.resources?.requests);
const limitsOf = (c: ContainerShape) => toResourceList(c.resources?.limits);

/** kube's `max` of two lists: the larger quantity per name, names of either. */
function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  maxInto(out, b);
  return out;
}

/**
 * AggregateContainerRequests/Limits: app containers summed; each init container is the max
 * against that sum, restartable (sidecar) init containers adding to the sum and to every later
 * init container. With in-place resize, an app container counts the larger of spec and status
 * (only status when the resize is Infeasible).
 */
function aggregate(pod: PodShape, pick: (r: ResourceRequirementsShape) => QuantityMap | null | undefined, gates: PodQuotaGates): ResourceList {
  const total: ResourceList = new Map();
  const statuses = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  for (const c of pod.spec?.containers ?? []) {
    let own = toResourceList(pick(c.resources ?? {}));
    const st = gates.inPlacePodVerticalScaling ? statuses.get(c.name)?.resources : undefined;
    if (st) {
      const fromStatus = toResourceList(pick(st));
      own = pod.status?.resize === 'Infeasible' ? fromStatus : maxLists(own, fromStatus);
    }
    addInto(total, own);
  }
  const sidecars: ResourceList = new Map();
  const init: ResourceList = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const own = toResourceList(pick(c.resources ?? {}));
    let effective: ResourceList;
    if (c.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      effective = sidecars;
    } else {
      effective = addLists(own, sidecars);
    }
    maxInto(init, effective);
  }
  maxInto(total, init);
  return total;
}

const podLevelNames = ['cpu', 'memory'];
const podLevel = (list: QuantityMap | null | undefined) => Object.keys(list ?? {}).some((n) => podLevelNames.includes(n));

/** IsPodLevelResourcesSet: spec.resources names cpu or memory. */
export function isPodLevelResourcesSet(pod: PodShape): boolean {
  const r = pod.spec?.resources;
  return podLevel(r?.requests) || podLevel(r?.limits);
}

/** resource.PodRequests: aggregated container requests, pod-level cpu/memory (gated), plus overhead. */
export function podRequests(pod: PodShape, gates: PodQuotaGates = {}): ResourceList {
  const reqs = aggregate(pod, (r) => r.requests, gates);
  if (gates.podLevelResources && podLevel(pod.spec?.resources?.requests)) {
    for (const [k, v] of toResourceList(pod.spec?.resources?.requests)) if (podLevelNames.includes(k)) reqs.set(k, v);
  }
  addInto(reqs, toResourceList(pod.spec?.overhead));
  return reqs;
}

/** resource.PodLimits: as requests, but overhead is added only to names already limited (non-zero). */
export function podLimits(pod: PodShape, gates: PodQuotaGates = {}): ResourceList {
  const limits = aggregate(pod, (r) => r.limits, gates);
  if (gates.podLevelResources && isPodLevelResourcesSet(pod)) {
    for (const [k, v] of toResourceList(pod.spec?.resources?.limits)) if (podLevelNames.includes(k)) limits.set(k, v);
  }
  for (const [k, v] of toResourceList(pod.spec?.overhead)) {
    const have = limits.get(k);
    if (have && !have.isZero()) limits.set(k, have.add(v));
  }
  return limits;
}

/**
 * podComputeUsageHelper: `pods` = 1; cpu, memory and ephemeral-storage requests under their bare
 * and `requests.` names, limits under `limits.`; hugepages requests under both names; extended
 * resources only as `requests.<name>`.
 */
export function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', Quantity.of(1)]]);
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(name);
    if (req) {
      out.set(name, req);
      out.set(requestsPrefix + name, req);
    }
    const lim = limits.get(name);
    if (lim) out.set(`limits.${name}`, lim);
  }
  for (const [name, req] of requests) {
    if (name.startsWith(hugePagesPrefix)) {
      out.set(name, req);
      out.set(requestsPrefix + name, req);
    }
    if (isExtendedResourceName(name)) out.set(requestsPrefix + name, req);
  }
  return out;
}

/**
 * PodUsageFunc: `count/pods` = 1 for every pod in storage; the compute usage only while
 * isQuotaV1Pod (so `pods` counts pods not yet terminal while `count/pods` counts them all).
 */
export function podUsage(pod: PodShape, now: Date, gates: PodQuotaGates = {}): ResourceList {
  const out: ResourceList = new Map([[podObjectCountName, Quantity.of(1)]]);
  if (!isQuotaV1Pod(pod, now)) return out;
  return addLists(out, podComputeUsage(podRequests(pod, gates), podLimits(pod, gates)));
}

/**
 * kube requires every container to name the cpu/memory requests and limits a quota constrains
 * (a historical coupling it keeps for those six names only, never for newer resources).
 */
const constrainedNames = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/**
 * The pod evaluator's Constraints: undefined when every container (and init container) sets what
 * the quota's `required` names need, else kube's reason, e.g. `must specify limits.cpu for: c1;
 * requests.cpu for: c1,c2` (names and containers sorted).
 */
export function podConstraintsError(required: Iterable<string>, pod: PodShape, gates: PodQuotaGates = {}): string | undefined {
  if (gates.podLevelResources && isPodLevelResourcesSet(pod)) return undefined;
  const needed = [...new Set(required)].filter((n) => constrainedNames.has(n));
  if (!needed.length) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const has = podComputeUsage(requestsOf(c), limitsOf(c));
    for (const n of needed) {
      if (has.has(n)) continue;
      const names = missing.get(n) ?? new Set<string>();
      names.add(c.name ?? '');
      missing.set(n, names);
    }
  }
  if (!missing.size) return undefined;
  const sorted = (xs: Iterable<string>) => [...xs].sort(compareGoStrings);
  return `must specify ${sorted(missing.keys())
    .map((n) => `${n} for: ${sorted(missing.get(n) ?? []).join(',')}`)
    .join('; ')}`;
}

/** isTerminating: spec.activeDeadlineSeconds set and not negative. */
export function isTerminatingPod(pod: PodShape): boolean {
  const d = pod.spec?.activeDeadlineSeconds;
  return typeof d === 'number' && d >= 0;
}

const qosNames = ['cpu', 'memory'];

/**
 * qos.GetPodQOS: status.qosClass when set, else computed from the containers' (or, gated, the
 * pod's) positive cpu/memory requests and limits: none → BestEffort; limits on both for every
 * container, equal to the requests → Guaranteed; anything else → Burstable.
 */
export function podQOSClass(pod: PodShape, gates: PodQuotaGates = {}): string {
  if (pod.status?.qosClass) return pod.status.qosClass;
  const requests: ResourceList = new Map();
  const limits: ResourceList = new Map();
  let guaranteed = true;
  const collect = (into: ResourceList, list: QuantityMap | null | undefined): Set<string> => {
    const found = new Set<string>();
    for (const [k, v] of Object.entries(list ?? {})) {
      if (!qosNames.includes(k)) continue;
      const q = parseQuantity(v);
      if (q.sign() <= 0) continue;
      found.add(k);
      const have = into.get(k);
      into.set(k, have ? have.add(q) : q);
    }
    return found;
  };
  const podRes = pod.spec?.resources;
  if (gates.podLevelResources && podRes) {
    collect(requests, podRes.requests);
    if (Object.keys(podRes.limits ?? {}).length) {
      const found = collect(limits, podRes.limits);
      if (!qosNames.every((n) => found.has(n))) guaranteed = false;
    }
  } else {
    for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
      collect(requests, c.resources?.requests);
      const found = collect(limits, c.resources?.limits);
      if (!qosNames.every((n) => found.has(n))) guaranteed = false;
    }
  }
  if (!requests.size && !limits.size) return 'BestEffort';
  if (guaranteed) {
    for (const [k, req] of requests) {
      const lim = limits.get(k);
      if (!lim || lim.cmp(req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

export function isBestEffortPod(pod: PodShape, gates: PodQuotaGates = {}): boolean {
  return podQOSClass(pod, gates) === 'BestEffort';
}

const crossNamespaceTerm = (t: PodAffinityTermShape | undefined) => !!t && ((t.namespaces?.length ?? 0) > 0 || (t.namespaceSelector !== undefined && t.namespaceSelector !== null));

function crossNamespaceAffinity(a: PodAffinityShape | null | undefined): boolean {
  if (!a) return false;
  return (a.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(crossNamespaceTerm) || (a.preferredDuringSchedulingIgnoredDuringExecution ?? []).some((w) => crossNamespaceTerm(w.podAffinityTerm));
}

/** usesCrossNamespacePodAffinity: an (anti-)affinity term naming namespaces or a namespace selector. */
export function usesCrossNamespacePodAffinity(pod: PodShape): boolean {
  const aff = pod.spec?.affinity;
  return !!aff && (crossNamespaceAffinity(aff.podAffinity) || crossNamespaceAffinity(aff.podAntiAffinity));
}
