/**
 * Which quota applies to which object: a quota's `scopes` and `scopeSelector.matchExpressions`
 * become one list of requirements that must all hold (kube's getScopeSelectorsFromQuota), and the
 * pod evaluator decides each of them for a pod (podMatchesScopeFunc).
 */
import { aggregateMessages } from '../errors';
import { labelSelectorRequirement, LabelSelector } from '../labels';
import type { KubeObject } from '../types';
import { PodShape, isBestEffortPod, isTerminatingPod, usesCrossNamespacePodAffinity } from './pod-usage';

/** A ScopedResourceSelectorRequirement. */
export interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[] | null;
}

/** The ResourceQuota fields the quota system reads. */
export interface QuotaShape {
  spec?: {
    hard?: Record<string, string | number>;
    scopes?: string[] | null;
    scopeSelector?: { matchExpressions?: ScopeRequirement[] | null } | null;
  };
  status?: { hard?: Record<string, string | number>; used?: Record<string, string | number> };
}

export const quotaShape = (q: KubeObject): QuotaShape => q as unknown as QuotaShape;

/** Every requirement of a quota: each of `spec.scopes` as `Exists`, then the selector's expressions. */
export function quotaScopeSelectors(q: KubeObject): ScopeRequirement[] {
  const spec = quotaShape(q).spec;
  return [...(spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' })), ...(spec?.scopeSelector?.matchExpressions ?? [])];
}

/** A requirement kube cannot turn into a selector (a value that is no label value): the request fails with this text. */
export class ScopeMatchError extends Error {}

/** Go's %v of the requirement struct: `{PriorityClass In [a b]}`. */
export function scopeRequirementText(r: ScopeRequirement): string {
  return `{${r.scopeName ?? ''} ${r.operator ?? ''} [${(r.values ?? []).join(' ')}]}`;
}

const scopeOperators = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** ScopedResourceSelectorRequirementsAsSelector over the pod's one pseudo-label `PriorityClass=<name>`. */
function podMatchesSelector(pod: PodShape, r: ScopeRequirement): boolean {
  let reason: string | undefined;
  let selector: LabelSelector | undefined;
  if (!scopeOperators.has(r.operator ?? '')) {
    reason = `"${r.operator ?? ''}" is not a valid scope selector operator`;
  } else {
    const req = labelSelectorRequirement({ key: r.scopeName ?? '', operator: r.operator, values: r.values ?? [] });
    if ('errors' in req) reason = aggregateMessages(req.errors);
    else selector = LabelSelector.of([req]);
  }
  if (!selector) throw new ScopeMatchError(`error on matching scope ${scopeRequirementText(r)}: failed to parse and convert selector: ${reason ?? ''}`);
  const name = pod.spec?.priorityClassName;
  return selector.matches(name ? { PriorityClass: name } : {});
}

/**
 * podMatchesScopeFunc: Terminating/NotTerminating (activeDeadlineSeconds), BestEffort/NotBestEffort
 * (QoS), PriorityClass (Exists, or the selector over spec.priorityClassName),
 * CrossNamespacePodAffinity; an unknown scope never matches. Throws ScopeMatchError.
 */
export function podMatchesScope(r: ScopeRequirement, pod: PodShape): boolean {
  switch (r.scopeName) {
    case 'Terminating':
      return isTerminatingPod(pod);
    case 'NotTerminating':
      return !isTerminatingPod(pod);
    case 'BestEffort':
      return isBestEffortPod(pod);
    case 'NotBestEffort':
      return !isBestEffortPod(pod);
    case 'PriorityClass':
      // Existence needs no selector.
      if (r.operator === 'Exists') return !!pod.spec?.priorityClassName;
      return podMatchesSelector(pod, r);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}
