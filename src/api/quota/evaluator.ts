/**
 * kube's quota Evaluator (apiserver pkg/quota/v1): what one kind of object charges and which
 * quotas it answers to. Pods have kube's pod evaluator; every other quotable resource the generic
 * object-count evaluator, which matches no scope (so a quota with scopes never counts it).
 * Admission (check and charge) and the quota controller (recalculate) use the same evaluators.
 */
import type { KubeObject } from '../types';
import { objectCountResourceNames } from '../resource-quota-names';
import { Quantity } from '../quantity';
import { ResourceList, addLists } from './resource-list';
import { PodShape, podConstraintsError, podMatchingResources, podUsage } from './pod-usage';
import { ScopeMatchError, ScopeRequirement, podMatchesScope, quotaScopeSelectors } from './scopes';

export interface QuotaEvaluator {
  readonly group: string;
  readonly resource: string;
  /** Handles: whether a write (operation, subresource) can change this kind's usage. */
  handles(operation: string, subresource: string): boolean;
  /** MatchingResources: the names of `input` this evaluator measures. */
  matchingResources(input: Iterable<string>): string[];
  /** One scope requirement decided for an object; throws ScopeMatchError for a requirement kube cannot evaluate. */
  matchesScope(r: ScopeRequirement, obj: KubeObject): boolean;
  /** Usage: what the object charges. */
  usage(obj: KubeObject, now: Date): ResourceList;
  /** Constraints: why the object may not be admitted under a quota limiting `required`, or undefined. */
  constraintsError(required: string[], obj: KubeObject): string | undefined;
}

/** generic.NewObjectCountEvaluator: CREATE charges 1 to `count/<resource>[.<group>]` (and a legacy alias). */
function objectCountEvaluator(group: string, resource: string): QuotaEvaluator {
  const names = objectCountResourceNames(group, resource);
  return {
    group,
    resource,
    handles: (operation, subresource) => !subresource && operation === 'CREATE',
    matchingResources: (input) => [...input].filter((n) => names.includes(n)),
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, Quantity.of(1)])),
    constraintsError: () => undefined,
  };
}

const asPod = (o: KubeObject) => o as unknown as PodShape;

/**
 * kube's pod evaluator: CREATE of a pod, and UPDATE of its `resize` subresource (served only with
 * InPlacePodVerticalScaling, which changes what the pod requests). Stateless, so one serves all.
 */
const podEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  handles: (operation, subresource) => (subresource === '' ? operation === 'CREATE' : subresource === 'resize' && operation === 'UPDATE'),
  matchingResources: podMatchingResources,
  matchesScope: (r, obj) => podMatchesScope(r, asPod(obj)),
  usage: (obj, now) => podUsage(asPod(obj), now),
  constraintsError: (required, obj) => podConstraintsError(required, asPod(obj)),
};

/** The evaluator kube registers for a resource: the pod evaluator for core pods, else an object count. */
export function quotaEvaluatorFor(group: string, resource: string): QuotaEvaluator {
  return !group && resource === 'pods' ? podEvaluator : objectCountEvaluator(group, resource);
}

/**
 * generic.CalculateUsageStats: the usage of the objects meeting every scope requirement of the
 * quota, `resources` reading 0 when nothing counts. A requirement kube cannot evaluate ends the
 * sum where it is, as kube's does.
 */
export function usageStats(ev: QuotaEvaluator, quota: KubeObject, objects: Iterable<KubeObject>, resources: string[], now: Date): ResourceList {
  let used: ResourceList = new Map(resources.map((n) => [n, Quantity.zero()]));
  const selectors = quotaScopeSelectors(quota);
  for (const obj of objects) {
    let matches = true;
    try {
      for (const r of selectors) matches = ev.matchesScope(r, obj) && matches;
    } catch (e) {
      if (e instanceof ScopeMatchError) return used;
      throw e;
    }
    if (matches) used = addLists(used, ev.usage(obj, now));
  }
  return used;
}
