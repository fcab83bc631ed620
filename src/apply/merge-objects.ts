/**
 * Merging an apply configuration into the live object (smd typed/merge.go with ruleKeepRHS):
 * granular maps and structs merge key by key; scalars, atomic lists and atomic maps are replaced;
 * associative lists (sets, list maps) merge item by item, keeping live order and placing the
 * configuration's items in its order.
 */
import { DEDUCED, ListAtom, TypeRef, deduceAtom, fieldType } from './apply-type';
import { isJsonObject } from './json-value';
import { listItemElement } from './list-item';
import { PathElement, comparePathElements, equalPathElements } from './path-element';

const deduced: TypeRef = () => DEDUCED;

/**
 * lhs merged with rhs (rhs wins on leaves); undefined when both are absent. The result may share
 * unchanged subtrees with its inputs. rhs must have been validated (duplicate keys are skipped).
 */
export function mergeValues(lhs: unknown, rhs: unknown, type: TypeRef): unknown {
  if (lhs === undefined && rhs === undefined) return undefined;
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const t = type();
  const atom = deduceAtom(t, rhs);
  const map = atom.map;
  if (map && isMapOrNull(lhs) && isMapOrNull(rhs)) return mergeMaps(lhs, rhs, map.atomic, (k) => fieldType(map, k) ?? deduced);
  if (atom.list && Array.isArray(lhs) && Array.isArray(rhs)) {
    if (atom.list.relationship === 'atomic' || (lhs.length === 0 && rhs.length === 0)) return rhs;
    return mergeLists(atom.list, lhs, rhs);
  }
  return rhs;
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
  if (atomic || (lEmpty && rEmpty)) return rhs;
  const out: Record<string, unknown> = {};
  // A null in the configuration clears the field: kube's typed objects drop null members.
  for (const key of Object.keys(l)) {
    if (!(key in r)) out[key] = l[key];
    else if (r[key] !== null) out[key] = mergeValues(l[key], r[key], typeOf(key));
    else {
      const v = mergeValues(l[key], null, typeOf(key));
      if (v !== null) out[key] = v;
    }
  }
  for (const key of Object.keys(r)) if (!(key in l) && r[key] !== null) out[key] = r[key];
  return out;
}

// smd visitListItems: walk live items, emitting the configuration's items where they fall.
function mergeLists(list: ListAtom, lhs: unknown[], rhs: unknown[]): unknown[] {
  const rPEs: PathElement[] = [];
  const rItems: Array<{ pe: PathElement; item: unknown }> = [];
  for (const item of rhs) {
    const { pe } = listItemElement(list, item);
    if (!pe || rItems.some((x) => comparePathElements(x.pe, pe) === 0)) continue;
    rPEs.push(pe);
    rItems.push({ pe, item });
  }
  const lPEs: PathElement[] = [];
  const lIndex: number[] = [];
  const lItems: Array<{ pe: PathElement; item: unknown }> = [];
  lhs.forEach((item, i) => {
    const { pe } = listItemElement(list, item);
    if (!pe) return;
    const seen = lItems.find((x) => comparePathElements(x.pe, pe) === 0);
    if (seen) seen.item = null; // duplicated live items are not merged with the configuration
    else lItems.push({ pe, item });
    lPEs.push(pe);
    lIndex.push(i);
  });
  const inR = (pe: PathElement): unknown => rItems.find((x) => comparePathElements(x.pe, pe) === 0);
  const lGet = (pe: PathElement): unknown => lItems.find((x) => comparePathElements(x.pe, pe) === 0)?.item;
  const rGet = (pe: PathElement): unknown => rItems.find((x) => comparePathElements(x.pe, pe) === 0)?.item;
  const inL = (pe: PathElement): boolean => lItems.some((x) => comparePathElements(x.pe, pe) === 0);

  const shared = rPEs.filter(inL);
  let nextShared = shared.shift();
  const mergedR: PathElement[] = [];
  const isMerged = (pe: PathElement): boolean => mergedR.some((x) => comparePathElements(x, pe) === 0);
  const out: unknown[] = [];
  const push = (v: unknown): void => {
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lPEs.length || ri < rPEs.length) {
    if (li < lPEs.length && ri < rPEs.length) {
      const pe = lPEs[li] as PathElement;
      if (equalPathElements(pe, rPEs[ri] as PathElement)) {
        mergedR.push(pe);
        push(mergeValues(lGet(pe), rGet(pe), list.elem));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (inR(pe) && nextShared && !equalPathElements(nextShared, pe)) {
        li++;
        continue;
      }
    }
    if (li < lPEs.length) {
      const pe = lPEs[li] as PathElement;
      if (!inR(pe)) {
        push(mergeValues(lhs[lIndex[li] as number], undefined, list.elem));
        li++;
        continue;
      } else if (isMerged(pe)) li++;
    }
    if (ri < rPEs.length) {
      const pe = rPEs[ri] as PathElement;
      mergedR.push(pe);
      push(mergeValues(inL(pe) ? lGet(pe) : undefined, rGet(pe), list.elem));
      ri++;
      if (nextShared && equalPathElements(nextShared, pe)) nextShared = shared.shift();
    }
  }
  return out;
}
