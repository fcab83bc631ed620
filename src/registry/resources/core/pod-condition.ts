/**
 * kube's podutil.UpdatePodCondition (pkg/api/pod): what a binding (PodScheduled) and an eviction
 * (DisruptionTarget) write into a pod's status.
 */
import { timestamp } from '../../../api';
import type { PodCondition, PodStatus } from './pod-types';

/**
 * Sets the condition of `type` to the given one, whole: a new one is appended; an existing one is
 * replaced, keeping its lastTransitionTime when the status did not change. The probe time is Go's
 * zero time (null), as the callers leave it.
 */
export function updatePodCondition(status: PodStatus, condition: { type: string; status: string; reason?: string; message?: string }, now: Date): void {
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === condition.type);
  const old = i >= 0 ? conditions[i] : undefined;
  // Go's field order: type, status, lastProbeTime, lastTransitionTime, reason, message.
  const next: PodCondition = {
    type: condition.type,
    status: condition.status,
    lastProbeTime: null,
    lastTransitionTime: old && old.status === condition.status ? (old.lastTransitionTime ?? null) : timestamp(now),
  };
  if (condition.reason) next.reason = condition.reason;
  if (condition.message) next.message = condition.message;
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}
