/**
 * The difference between two values of a type (smd typed/compare.go): the fields added,
 * modified and removed. A map or list that appears or disappears is itself added or removed.
 */
import { DEDUCED, ListAtom, TypeRef, deduceAtom, fieldType } from './apply-type';
import { FieldSet } from './field-set';
import { equalValues, isJsonObject, JsonValue } from './json-value';
import { listItemElement } from './list-item';
import { PathElement, pathElementKey } from './path-element';

/** Fields added, modified (leaf value changed) and removed from lhs to rhs. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const deduced: TypeRef = () => DEDUCED;

/** Compares lhs (before) with rhs (after); undefined means absent. Never throws. */
export function compareObjects(lhs: unknown, rhs: unknown, type: TypeRef): Comparison {
  const cmp: Comparison = { added: FieldSet.empty(), modified: FieldSet.empty(), removed: FieldSet.empty() };
  compare(lhs, rhs, type, [], cmp);
  return cmp;
}

/** True when the comparison holds no change. */
export function isSame(c: Comparison): boolean {
  return c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();
}

/** The comparison with the given fields (and everything under them) left out. */
export function excludeFields(c: Comparison, fields: FieldSet | undefined): Comparison {
  if (!fields || fields.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(fields),
    modified: c.modified.recursiveDifference(fields),
    removed: c.removed.recursiveDifference(fields),
  };
}

const isEmptyList = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
const isEmptyMap = (v: unknown): boolean => v === undefined || v === null || (isJsonObject(v) && Object.keys(v).length === 0);

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

// `path` is a working stack (pushed and popped here); FieldSet.insert keeps its elements, not the array.
function compare(lhs: unknown, rhs: unknown, type: TypeRef, path: PathElement[], cmp: Comparison): void {
  const t = type();
  const al = deduceAtom(t, lhs);
  const ar = deduceAtom(t, rhs);
  // When the two sides have different kinds, smd walks both; the net effect is a changed leaf.
  const atom = rhs === undefined ? al : ar;
  let inLeaf = false;
  if (lhs !== undefined && rhs !== undefined && kindOf(al) !== kindOf(ar)) inLeaf = true;
  else if (atom.map) {
    if (atom.map.atomic || (isEmptyMap(lhs) && isEmptyMap(rhs))) inLeaf = true;
    else {
      const map = atom.map;
      const l = isJsonObject(lhs) ? lhs : {};
      const r = isJsonObject(rhs) ? rhs : {};
      // Every key of l, then the keys only r has.
      for (const key of Object.keys(l)) {
        path.push({ kind: 'field', name: key });
        compare(l[key], hasOwn(r, key) ? r[key] : undefined, fieldType(map, key) ?? deduced, path, cmp);
        path.pop();
      }
      for (const key of Object.keys(r)) {
        if (hasOwn(l, key)) continue;
        path.push({ kind: 'field', name: key });
        compare(undefined, r[key], fieldType(map, key) ?? deduced, path, cmp);
        path.pop();
      }
    }
  } else if (atom.list) {
    if (atom.list.relationship === 'atomic' || (isEmptyList(lhs) && isEmptyList(rhs))) inLeaf = true;
    else compareLists(atom.list, Array.isArray(lhs) ? lhs : [], Array.isArray(rhs) ? rhs : [], path, cmp);
  } else inLeaf = true;
  if (inLeaf && lhs !== undefined && rhs !== undefined) {
    if (!equalValues(lhs as JsonValue, rhs as JsonValue)) cmp.modified.insert(path);
  } else if (lhs === undefined) cmp.added.insert(path);
  else if (rhs === undefined) cmp.removed.insert(path);
}

const kindOf = (a: { map?: unknown; list?: unknown }): string => (a.map ? 'map' : a.list ? 'list' : 'scalar');

function compareLists(list: ListAtom, lhs: unknown[], rhs: unknown[], path: PathElement[], cmp: Comparison): void {
  const order: PathElement[] = [];
  const lv = groupItems(list, lhs, order);
  const rv = groupItems(list, rhs, order, lv);
  for (const pe of order) {
    const k = pathElementKey(pe);
    const l = lv.get(k) ?? [];
    const r = rv.get(k) ?? [];
    const p = path;
    p.push(pe);
    if (l.length <= 1 && r.length <= 1) {
      compare(l[0], r[0], list.elem, p, cmp);
    } else if (l.length >= 2 && r.length >= 2) {
      if (l.length !== r.length || !l.every((x, i) => equalValues(x as JsonValue, r[i] as JsonValue))) cmp.modified.insert(p);
    } else if (l.length >= 2) {
      if (r.length) compare(undefined, r[0], list.elem, p, cmp);
      cmp.removed.insert(p);
    } else {
      if (l.length) compare(l[0], undefined, list.elem, p, cmp);
      cmp.added.insert(p);
    }
    p.pop();
  }
}

/** Items by pathElementKey of their element. */
type Groups = Map<string, unknown[]>;

// Items grouped by path element, first-seen order appended to `order` (skipping those in `known`).
function groupItems(list: ListAtom, items: unknown[], order: PathElement[], known?: Groups): Groups {
  const groups: Groups = new Map();
  for (const item of items) {
    const { pe } = listItemElement(list, item);
    if (!pe) continue;
    const k = pathElementKey(pe);
    const g = groups.get(k);
    if (g) g.push(item);
    else {
      groups.set(k, [item]);
      if (!known || !known.has(k)) order.push(pe);
    }
  }
  return groups;
}
