/**
 * Merging an apply configuration into the live object (smd typed/merge.go with ruleKeepRHS):
 * granular maps and structs merge key by key; scalars, atomic lists and atomic maps are replaced;
 * associative lists (sets, list maps) merge item by item, keeping live order and placing the
 * configuration's items in its order.
 */
import { cloneJson } from '../api/json-clone';
import { DEDUCED, ListAtom, TypeRef, deduceAtom, fieldType } from './apply-type';
import { isJsonObject } from './json-value';
import { listItemElement } from './list-item';
import { PathElement, equalPathElements, pathElementKey } from './path-element';

const deduced: TypeRef = () => DEDUCED;

/**
 * lhs merged with rhs (rhs wins on leaves); undefined when both are absent. The result shares
 * nothing with its inputs: what is taken whole from either side is copied as it is taken (cheaper
 * than copying the merged result again). rhs must have been validated (duplicate keys are skipped).
 */
export function mergeValues(lhs: unknown, rhs: unknown, type: TypeRef): unknown {
  if (lhs === undefined && rhs === undefined) return undefined;
  if (rhs === undefined) return cloneJson(lhs);
  if (lhs === undefined) return cloneJson(rhs);
  const t = type();
  const atom = deduceAtom(t, rhs);
  const map = atom.map;
  if (map && isMapOrNull(lhs) && isMapOrNull(rhs)) return mergeMaps(lhs, rhs, map.atomic, (k) => fieldType(map, k) ?? deduced);
  if (atom.list && Array.isArray(lhs) && Array.isArray(rhs)) {
    if (atom.list.relationship === 'atomic' || (lhs.length === 0 && rhs.length === 0)) return cloneJson(rhs);
    return mergeLists(atom.list, lhs, rhs);
  }
  return cloneJson(rhs);
}

const isMapOrNull = (v: unknown): v is Record<string, unknown> | null => v === null || isJsonObject(v);

function mergeMaps(
  lhs: Record<string, unknown> | null,
  rhs: Record<string, unknown> | null,
  atomic: boolean,
  typeOf: (key: string) => TypeRef,
): unknown {
  const l = lhs ?? {};
  const r = rhs ?? {};
  const lEmpty = Object.keys(l).length === 0;
  const rEmpty = Object.keys(r).length === 0;
  if (atomic || (lEmpty && rEmpty)) return cloneJson(rhs);
  const out: Record<string, unknown> = {};
  // A null in the configuration clears the field: kube's typed objects drop null members.
  for (const key of Object.keys(l)) {
    if (!(key in r)) out[key] = cloneJson(l[key]);
    else if (r[key] !== null) out[key] = mergeValues(l[key], r[key], typeOf(key));
    else {
      const v = mergeValues(l[key], null, typeOf(key));
      if (v !== null) out[key] = v;
    }
  }
  for (const key of Object.keys(r)) if (!(key in l) && r[key] !== null) out[key] = cloneJson(r[key]);
  return out;
}

// smd visitListItems: walk live items, emitting the configuration's items where they fall.
function mergeLists(list: ListAtom, lhs: unknown[], rhs: unknown[]): unknown[] {
  // Items are matched by pathElementKey (a Map lookup, so n items cost O(n)).
  const rPEs: PathElement[] = [];
  const rKeys: string[] = [];
  const rItems = new Map<string, { item: unknown }>();
  for (const item of rhs) {
    const { pe } = listItemElement(list, item);
    if (!pe) continue;
    const k = pathElementKey(pe);
    if (rItems.has(k)) continue;
    rPEs.push(pe);
    rKeys.push(k);
    rItems.set(k, { item });
  }
  const lPEs: PathElement[] = [];
  const lKeys: string[] = [];
  const lIndex: number[] = [];
  const lItems = new Map<string, { item: unknown }>();
  lhs.forEach((item, i) => {
    const { pe } = listItemElement(list, item);
    if (!pe) return;
    const k = pathElementKey(pe);
    const seen = lItems.get(k);
    if (seen) seen.item = null; // duplicated live items are not merged with the configuration
    else lItems.set(k, { item });
    lPEs.push(pe);
    lKeys.push(k);
    lIndex.push(i);
  });
  const inR = (k: string): boolean => rItems.has(k);
  const lGet = (k: string): unknown => lItems.get(k)?.item;
  const rGet = (k: string): unknown => rItems.get(k)?.item;
  const inL = (k: string): boolean => lItems.has(k);

  const shared = rPEs.filter((_pe, i) => inL(rKeys[i] as string));
  let si = 0;
  let nextShared = shared[si++];
  const mergedR = new Set<string>();
  const isMerged = (k: string): boolean => mergedR.has(k);
  const out: unknown[] = [];
  const push = (v: unknown): void => {
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lPEs.length || ri < rPEs.length) {
    if (li < lPEs.length && ri < rPEs.length) {
      const pe = lPEs[li] as PathElement;
      const k = lKeys[li] as string;
      if (equalPathElements(pe, rPEs[ri] as PathElement)) {
        mergedR.add(k);
        push(mergeValues(lGet(k), rGet(k), list.elem));
        li++;
        ri++;
        nextShared = shared[si++];
        continue;
      }
      if (inR(k) && nextShared && !equalPathElements(nextShared, pe)) {
        li++;
        continue;
      }
    }
    if (li < lPEs.length) {
      const k = lKeys[li] as string;
      if (!inR(k)) {
        push(mergeValues(lhs[lIndex[li] as number], undefined, list.elem));
        li++;
        continue;
      } else if (isMerged(k)) li++;
    }
    if (ri < rPEs.length) {
      const pe = rPEs[ri] as PathElement;
      const k = rKeys[ri] as string;
      mergedR.add(k);
      push(mergeValues(inL(k) ? lGet(k) : undefined, rGet(k), list.elem));
      ri++;
      if (nextShared && equalPathElements(nextShared, pe)) nextShared = shared[si++];
    }
  }
  return out;
}
