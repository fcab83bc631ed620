/**
 * Building blocks of the strategic merge patch: kube's error texts and classes, Go value
 * comparisons, and list ordering (apimachinery strategicpatch normalizeElementOrder and friends).
 */
import { goSliceStable } from './go-sort';
import { JsonObject, getOwn, goSprint, goSprintS, goTypeName, hasOwn, isObject } from './json-value';

/** Kind of the elements of a merged list. */
export type ElementKind = 'map' | 'scalar';

export const DIRECTIVE = '$patch';

/** mergepatch error sentinels kube maps to 400 / 422; everything else is a plain Go error (500). */
export const BAD_REQUEST = {
  primitiveList: 'invalid patch format of primitive list',
  retainKeys: 'invalid patch format of retainKeys',
  setElementOrder: 'invalid patch format of setElementOrder list',
} as const;
export const NO_LIST_OF_LISTS = 'lists of lists are not supported';

export type SmpErrorKind = 'badRequest' | 'unprocessable' | 'plain';

/** A strategicpatch error, classified the way interpretStrategicMergePatchError classifies it. */
export class SmpError extends Error {
  constructor(
    readonly kind: SmpErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export const plain = (m: string) => new SmpError('plain', m);
export const errBadArgType = (expected: string, actual: unknown) =>
  plain(`expected a ${expected}, but received a ${goTypeName(actual) === '<nil>' ? '%!s(<nil>)' : goTypeName(actual)}`);
export const errNoMergeKey = (m: unknown, key: string) => plain(`map: ${goSprint(m)} does not contain declared merge key: ${key}`);
export const errBadPatchType = (t: unknown, m: unknown) => plain(`unknown patch type: ${goSprintS(t)} in map: ${goSprint(m)}`);

export const MAP_TYPE = 'map[string]interface {}';
export const SLICE_TYPE = '[]interface {}';

/** Go `==` on interface values holding decoded JSON scalars (null == null). */
export function goEq(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null);
}

/** sliceElementType: 'map' or 'scalar' for the common element type of the lists. */
export function sliceElementKind(...slices: unknown[][]): ElementKind {
  let prev: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const t = goTypeName(v);
      if (prev === undefined) {
        prev = t;
        if (t === SLICE_TYPE) throw new SmpError('unprocessable', NO_LIST_OF_LISTS);
      } else if (prev !== t) {
        throw plain(`list element types are not identical: ${goSprint(slices)}`);
      }
    }
  }
  if (prev === undefined) throw plain('no elements in any of the given slices');
  return prev === MAP_TYPE ? 'map' : 'scalar';
}

/** index(): position of the item (or of its merge key value, for maps) in `l`, or -1. */
export function indexOf(l: unknown[], item: unknown, mergeKey: string, kind: ElementKind): number {
  const val = (x: unknown) => (kind === 'map' ? (isObject(x) ? getOwn(x, mergeKey) : null) : x);
  const want = val(item);
  return l.findIndex((x) => goEq(val(x), want));
}

export function findMapByKey(l: unknown[], key: string, value: unknown): [JsonObject, number] | undefined {
  for (let i = 0; i < l.length; i++) {
    const m = l[i];
    if (!isObject(m)) throw plain(`value for key ${i} is not a map`);
    if (hasOwn(m, key) && goEq(m[key], value)) return [m, i];
  }
  return undefined;
}

export function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw errBadArgType(MAP_TYPE, item);
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** normalizeSliceOrder: stable-sorts `toSort` by positions in `order`; `$patch: delete` maps last. */
export function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let sorted = toSort.slice();
  const toDelete: unknown[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    sorted = [];
    for (const v of toSort) {
      if (!isObject(v)) throw errBadArgType(MAP_TYPE, v);
      if (hasOwn(v, DIRECTIVE) && v[DIRECTIVE] === 'delete') toDelete.push(v);
      else sorted.push(v);
    }
  }
  goSliceStable(sorted, (a, b) => {
    const ia = indexOf(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexOf(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true; // kube's comparator: "less" whenever either item is not in the order list
  });
  return sorted.concat(toDelete);
}

/** mergeSortedSlice: interleaves server-only items into the patch items by live order. */
export function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

export function normalizeElementOrder(
  patch: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

/** Splits `merged` into items present in `by` and server-only items. */
export function partition(merged: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  if (mergeKey === '') {
    for (const v of merged) (by.some((x) => goEq(x, v)) ? inPatch : serverOnly).push(v);
    return [inPatch, serverOnly];
  }
  for (const v of merged) {
    if (!isObject(v)) throw errBadArgType(MAP_TYPE, v);
    if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapByKey(by, mergeKey, v[mergeKey]) ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/** deduplicateScalars, including its order-changing "move the last item into the hole" step. */
export function deduplicateScalars(s: unknown[]): unknown[] {
  const out = s.slice();
  let length = out.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goEq(out[i], out[j])) {
        out[j] = out[length];
        out.length = length;
        length--;
        j--;
      }
    }
  }
  return out;
}

