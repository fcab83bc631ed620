/**
 * The fields a value specifies (smd typed/tofieldset.go), and smd's EnsureNamedFieldsAreMembers.
 */
import { ApplySchema, ApplySchemaResolver, ApplyTypes, DEDUCED, TypeRef, deduceAtom, fieldType } from './apply-type';
import { FieldSet } from './field-set';
import { isJsonObject } from './json-value';
import { listItemElement } from './list-item';
import { FieldPath, PathElement, fieldElement, pathElementKey } from './path-element';

const deduced: TypeRef = () => DEDUCED;

/**
 * The set of fields a value specifies, per its type: scalars and atomic lists/maps are members;
 * struct fields are members only when null or `{}`; map keys and list items always are (their
 * contents too). Never throws; items it cannot identify are skipped.
 */
export function fieldSetOfValue(value: unknown, type: TypeRef): FieldSet {
  const set = FieldSet.empty();
  walk(value, type, [], set);
  return set;
}

/** fieldSetOfValue for a schema (e.g. an apply configuration against the Secret schema). */
export function fieldSetOf(obj: unknown, schema: ApplySchema, resolve: ApplySchemaResolver): FieldSet {
  return fieldSetOfValue(obj, new ApplyTypes(resolve).root(schema));
}

function walk(v: unknown, type: TypeRef, path: PathElement[], set: FieldSet): void {
  const atom = deduceAtom(type(), v);
  if (atom.map) {
    if (atom.map.atomic) return void set.insert(path);
    if (!isJsonObject(v)) return;
    const map = atom.map;
    // `path` is a working stack: FieldSet.insert keeps the elements, not the array.
    for (const key of Object.keys(v)) {
      const child = v[key];
      path.push(fieldElement(key));
      walk(child, fieldType(map, key) ?? deduced, path, set);
      if (child === null || !map.fields.has(key) || (isJsonObject(child) && Object.keys(child).length === 0)) set.insert(path);
      path.pop();
    }
    return;
  }
  if (atom.scalar) return void set.insert(path);
  if (atom.list) {
    if (atom.list.relationship === 'atomic') return void set.insert(path);
    if (!Array.isArray(v)) return;
    const pes = v.map((item) => listItemElement(atom.list!, item).pe);
    const keys = pes.map((pe) => (pe ? pathElementKey(pe) : ''));
    const seen = new Set<string>();
    const dup = new Set<string>();
    pes.forEach((pe, i) => {
      if (!pe) return;
      const k = keys[i] as string;
      if (!seen.has(k)) seen.add(k);
      else if (!dup.has(k)) {
        dup.add(k);
        set.insert([...path, pe]); // a duplicated item is owned as a whole
      }
    });
    v.forEach((item, i) => {
      const pe = pes[i];
      if (!pe || dup.has(keys[i] as string)) return;
      path.push(pe);
      walk(item, atom.list!.elem, path, set);
      set.insert(path);
      path.pop();
    });
  }
}

/**
 * smd EnsureNamedFieldsAreMembers: adds, as members, the declared struct fields that have
 * members below them (so removing them removes the struct field itself, not just its contents).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: TypeRef | undefined): FieldSet {
  const out = FieldSet.empty();
  visit(set, type, [], out);
  return out;
}

function visit(set: FieldSet, type: TypeRef | undefined, prefix: FieldPath, out: FieldSet): void {
  const atom = type?.();
  for (const m of set.memberElements()) out.insert([...prefix, m]);
  for (const { pe, set: child } of set.childEntries()) {
    let childType: TypeRef | undefined;
    if (pe.kind === 'field' && atom?.map) {
      if (atom.map.fields.has(pe.name)) out.insert([...prefix, pe]);
      childType = fieldType(atom.map, pe.name);
    } else if (pe.kind === 'key' && atom?.list) childType = atom.list.elem;
    visit(child, childType, [...prefix, pe], out);
  }
}
