/**
 * scheduling.k8s.io facts shared by the PriorityClass declaration, the Priority admission plugin and
 * the start-time bootstrap of the system classes (kube v1.32: pkg/apis/scheduling/types.go and
 * pkg/apis/scheduling/v1/helpers.go).
 */
import type { KubeObject } from './types';

export const SCHEDULING_GROUP = 'scheduling.k8s.io';

/** The highest value a class other than the system ones may have (kube's HighestUserDefinablePriority). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;

/** Where the system classes start (kube's SystemCriticalPriority). */
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;

/** Names with this prefix are reserved for the system classes. */
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

/** A pod's priority when it names no class and no class is the global default. */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0;

/** The PriorityClass fields read here. */
export interface PriorityClassShape {
  metadata: { name?: string };
  value?: number;
  globalDefault?: boolean;
  description?: string;
  preemptionPolicy?: string;
}

export const priorityClassShape = (o: KubeObject): PriorityClassShape => o as unknown as PriorityClassShape;

/** A system class: its name, value and description (never a global default). */
export interface SystemPriorityClass {
  name: string;
  value: number;
  description: string;
}

/** kube's SystemPriorityClasses, in kube's order (the post-start hook creates them in this order). */
export const SYSTEM_PRIORITY_CLASSES: readonly SystemPriorityClass[] = [
  {
    name: 'system-node-critical',
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    name: 'system-cluster-critical',
    value: SYSTEM_CRITICAL_PRIORITY,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

export function isSystemPriorityClassName(name: string): boolean {
  return SYSTEM_PRIORITY_CLASSES.some((c) => c.name === name);
}

/**
 * kube's IsKnownSystemPriorityClass: undefined when `name` is a system class with its value and no
 * global default, else kube's reason.
 */
export function unknownSystemPriorityClassReason(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${known.name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${known.name} PriorityClass must be false`;
  return undefined;
}

/** A system class as its bootstrap creates it (defaults are the store's). */
export function systemPriorityClassObject(c: SystemPriorityClass): KubeObject {
  return { apiVersion: `${SCHEDULING_GROUP}/v1`, kind: 'PriorityClass', metadata: { name: c.name }, value: c.value, description: c.description } as KubeObject;
}

/**
 * The global default class (kube's getDefaultPriorityClass): of those marked globalDefault, the one
 * with the lowest value (more than one can exist after a race), or undefined.
 */
export function defaultPriorityClass(classes: Iterable<KubeObject>): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const c of classes) {
    const pc = priorityClassShape(c);
    if (!pc.globalDefault) continue;
    if (!found || (priorityClassShape(found).value ?? 0) > (pc.value ?? 0)) found = c;
  }
  return found;
}
