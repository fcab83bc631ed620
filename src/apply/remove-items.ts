/** Removing fields and items from a value (smd typed/remove.go, RemoveItems). */
import { DEDUCED, TypeRef, deduceAtom, fieldType } from './apply-type';
import { FieldSet } from './field-set';
import { isJsonObject } from './json-value';
import { listItemElement } from './list-item';
import { fieldElement } from './path-element';

const deduced: TypeRef = () => DEDUCED;

/**
 * value without the members of `remove` (each removed with everything under it). A map or list
 * left empty by the removal disappears from its parent. Atomic lists and maps are only removed
 * whole. Does not mutate value.
 */
export function removeItems(value: unknown, remove: FieldSet, type: TypeRef): unknown {
  const atom = deduceAtom(type(), value);
  if (atom.map) {
    if (!isJsonObject(value) || Object.keys(value).length === 0 || atom.map.atomic) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const pe = fieldElement(key);
      if (remove.hasMember(pe)) continue;
      const sub = remove.child(pe);
      if (sub && !sub.isEmpty()) {
        const v = removeItems(child, sub, fieldType(atom.map, key) ?? deduced);
        if (v !== undefined) out[key] = v;
      } else out[key] = child;
    }
    return Object.keys(out).length ? out : undefined;
  }
  if (atom.list) {
    if (!Array.isArray(value) || value.length === 0 || atom.list.relationship === 'atomic') return value;
    const out: unknown[] = [];
    for (const item of value) {
      const { pe } = listItemElement(atom.list, item);
      if (pe && remove.hasMember(pe)) continue;
      const sub = pe && remove.child(pe);
      if (sub && !sub.isEmpty()) {
        const v = removeItems(item, sub, atom.list.elem);
        if (v !== undefined) out.push(v);
      } else out.push(item);
    }
    return out.length ? out : undefined;
  }
  return value;
}
