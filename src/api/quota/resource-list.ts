/**
 * ResourceList arithmetic as kube's quota helpers do it (apiserver pkg/quota/v1/resources.go):
 * the one copy the ResourceQuota admission plugin, the quota controller and the evaluators share.
 * A list maps a resource name to a Quantity; functions never mutate their inputs.
 */
import { compareGoStrings } from '../go-format';
import { Quantity, parseQuantity } from '../quantity';

export type ResourceList = Map<string, Quantity>;

/** A JSON map of quantities (`spec.hard`, `status.used`, a container's requests) as a list. */
export function toResourceList(map: Record<string, unknown> | null | undefined): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(map ?? {})) out.set(k, parseQuantity(v as string | number));
  return out;
}

/** The list as JSON, every quantity in kube's canonical form. */
export function fromResourceList(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of list) out[k] = v.toString();
  return out;
}

/** quota.Add: the union, summing the names both hold. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) {
    const have = out.get(k);
    out.set(k, have ? have.add(v) : v);
  }
  return out;
}

/** quota.SubtractWithNonNegativeResult: a − b, zero where that is not positive; names only b holds read zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const diff = other ? v.sub(other) : v;
    out.set(k, diff.sign() > 0 ? diff : Quantity.zero());
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, Quantity.zero());
  return out;
}

/** quota.Mask: only the given names. */
export function maskList(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const v = list.get(n);
    if (v) out.set(n, v);
  }
  return out;
}

/** quota.Equals: the same names with equal quantities. */
export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!b.get(k)?.equals(v)) return false;
  return true;
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, v]) => !v.isZero()));
}

/** quota.IsNegative: the names whose quantity is below zero. */
export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, v]) => v.sign() < 0).map(([k]) => k);
}

/** quota.LessThanOrEqual's second result: the names of a above their limit in b (names b lacks are never exceeded). */
export function exceededNames(a: ResourceList, b: ResourceList): string[] {
  return [...a].filter(([k, v]) => {
    const limit = b.get(k);
    return limit !== undefined && v.cmp(limit) > 0;
  }).map(([k]) => k);
}

/** Adds b into a in place (component-helpers' addResourceList). */
export function addInto(a: ResourceList, b: ResourceList): void {
  for (const [k, v] of b) {
    const have = a.get(k);
    a.set(k, have ? have.add(v) : v);
  }
}

/** Raises each of a's quantities to b's where b's is larger, in place (maxResourceList). */
export function maxInto(a: ResourceList, b: ResourceList): void {
  for (const [k, v] of b) {
    const have = a.get(k);
    if (!have || v.cmp(have) > 0) a.set(k, v);
  }
}

/** kube's prettyPrint: `name=quantity`, names in Go's string order, joined by ",". */
export function prettyPrintList(list: ResourceList): string {
  return [...list.keys()]
    .sort(compareGoStrings)
    .map((k) => `${k}=${(list.get(k) as Quantity).toString()}`)
    .join(',');
}

/** kube's prettyPrintResourceNames: sorted names joined by ",". */
export function prettyPrintNames(names: Iterable<string>): string {
  return [...names].sort(compareGoStrings).join(',');
}
