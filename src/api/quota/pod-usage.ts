/**
 * What a pod charges to quota, as kube v1.32's pod evaluator measures it (kubernetes
 * pkg/quota/v1/evaluator/core/pods.go, component-helpers resource.PodRequests/PodLimits, the QoS
 * helper): its object count always; while it is not terminal, `pods` and its compute requests and
 * limits (init containers counted as the max against the app containers' sum, overhead added).
 * The one home for these rules: ResourceQuota admission and the quota controller both call here,
 * and the pod registry takes a new pod's status.qosClass from computePodQOS.
 */
import { compareGoStrings } from '../go-format';
import { isQualifiedName } from '../labels';
import { Quantity, QuantityParseError, parseQuantity } from '../quantity';
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
    activeDeadlineSeconds?: number | null;
    priorityClassName?: string;
    affinity?: { podAffinity?: PodAffinityShape | null; podAntiAffinity?: PodAffinityShape | null } | null;
  };
  status?: {
    phase?: string;
    qosClass?: string;
  };
}

const podObjectCountName = 'count/pods';
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

/**
 * AggregateContainerRequests/Limits: app containers summed; each init container is the max
 * against that sum, restartable (sidecar) init containers adding to the sum and to every later
 * init container. The gates that change this (InPlacePodVerticalScaling: status resources count;
 * PodLevelResources: spec.resources counts) are alpha and off in 1.32, and the pod registry drops
 * their fields, so they are not modelled.
 */
function aggregate(pod: PodShape, pick: (r: ResourceRequirementsShape) => QuantityMap | null | undefined): ResourceList {
  const total: ResourceList = new Map();
  for (const c of pod.spec?.containers ?? []) addInto(total, toResourceList(pick(c.resources ?? {})));
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

/** resource.PodRequests: aggregated container requests plus overhead. */
function podRequests(pod: PodShape): ResourceList {
  const reqs = aggregate(pod, (r) => r.requests);
  addInto(reqs, toResourceList(pod.spec?.overhead));
  return reqs;
}

/** resource.PodLimits: as requests, but overhead is added only to names already limited (non-zero). */
function podLimits(pod: PodShape): ResourceList {
  const limits = aggregate(pod, (r) => r.limits);
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
function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
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
export function podUsage(pod: PodShape, now: Date): ResourceList {
  const out: ResourceList = new Map([[podObjectCountName, Quantity.of(1)]]);
  if (!isQuotaV1Pod(pod, now)) return out;
  return addLists(out, podComputeUsage(podRequests(pod), podLimits(pod)));
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
export function podConstraintsError(required: Iterable<string>, pod: PodShape): string | undefined {
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

const qosNames = new Set(['cpu', 'memory']);

/** The positive cpu and memory quantities of a list; a quantity that does not parse is validation's to report. */
function positiveQoSQuantities(list: QuantityMap | null | undefined): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, raw] of Object.entries(list ?? {})) {
    if (!qosNames.has(name)) continue;
    let q: Quantity;
    try {
      q = parseQuantity(raw);
    } catch (e) {
      if (e instanceof QuantityParseError) continue;
      throw e;
    }
    if (q.sign() > 0) out.set(name, q);
  }
  return out;
}

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/**
 * qos.ComputePodQOS (PodLevelResources off): the positive cpu and memory requests and limits of
 * the containers and init containers, summed. None → BestEffort; every container limiting both,
 * with the summed requests equal to the summed limits → Guaranteed; anything else → Burstable.
 */
export function computePodQOS(pod: PodShape): QOSClass {
  const requests: ResourceList = new Map();
  const limits: ResourceList = new Map();
  let guaranteed = true;
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    addInto(requests, positiveQoSQuantities(c.resources?.requests));
    const found = positiveQoSQuantities(c.resources?.limits);
    addInto(limits, found);
    if (found.size !== qosNames.size) guaranteed = false;
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

/** qos.GetPodQOS: the class status already carries (fixed at creation), else the computed one. */
export function podQOSClass(pod: PodShape): string {
  return pod.status?.qosClass || computePodQOS(pod);
}

export function isBestEffortPod(pod: PodShape): boolean {
  return podQOSClass(pod) === 'BestEffort';
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
