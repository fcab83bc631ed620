/**
 * A pod's QoS class (kube's pkg/apis/core/helper/qos ComputePodQOS, PodLevelResources off): only
 * cpu and memory count, and only quantities above zero, summed over containers and init containers.
 * BestEffort: nothing requested or limited. Guaranteed: every container limits both cpu and memory
 * and the summed requests equal the summed limits. Anything else is Burstable.
 */
import { Quantity, QuantityParseError, parseQuantity } from '../../../api';
import type { Pod, ResourceList } from './pod-types';

const qosResources = new Set(['cpu', 'memory']);

/** The positive cpu and memory quantities of a list (unparseable ones are validation's business). */
function positiveQoS(list: ResourceList | undefined): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [name, raw] of Object.entries(list ?? {})) {
    if (!qosResources.has(name)) continue;
    try {
      const q = parseQuantity(raw);
      if (q.sign() > 0) out.set(name, q);
    } catch (e) {
      if (!(e instanceof QuantityParseError)) throw e;
    }
  }
  return out;
}

function addInto(sum: Map<string, Quantity>, add: Map<string, Quantity>): void {
  for (const [name, q] of add) sum.set(name, sum.get(name)?.add(q) ?? q);
}

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export function computePodQOS(pod: Pod): QOSClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    addInto(requests, positiveQoS(c.resources?.requests));
    const found = positiveQoS(c.resources?.limits);
    addInto(limits, found);
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || lim.cmp(req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** kube's GetPodQOS: the class the status already carries, else the computed one. */
export function getPodQOS(pod: Pod): string {
  return pod.status?.qosClass || computePodQOS(pod);
}
