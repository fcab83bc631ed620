/**
 * Validation of an apply configuration against its type, as smd's typed conversion does before an
 * apply (typed/validate.go): undeclared fields, scalar kinds, list-map keys, duplicate items.
 */
import { goSprintWith } from '../api/go-format';
import { TypeRef, deduceAtom, fieldType } from './apply-type';
import { isJsonObject } from './json-value';
import { listItemElement } from './list-item';
import { pathElementKey, pathElementString } from './path-element';

/** One smd validation error: a path string (e.g. `.spec.x`) and a message. */
export interface TypeError {
  path: string;
  message: string;
}

/** smd ValidationErrors.Error(): one error bare, several under `errors:` one per line. */
export function typeErrorsMessage(errs: readonly TypeError[]): string {
  const one = (e: TypeError): string => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errs.length === 1) return one(errs[0] as TypeError);
  return ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

/** Validates value against type; returns the errors (empty when valid). `allowDuplicates` for live objects. */
export function validateValue(value: unknown, type: TypeRef, allowDuplicates = false): TypeError[] {
  const errs: TypeError[] = [];
  walk(value, type, '', errs, allowDuplicates);
  return errs;
}

function walk(v: unknown, type: TypeRef, path: string, errs: TypeError[], allowDup: boolean): void {
  const atom = deduceAtom(type(), v);
  if (atom.map) {
    if (v === null || v === undefined) return;
    if (!isJsonObject(v)) return void errs.push({ path, message: `expected map, got ${goValueText(v)}` });
    for (const [key, child] of Object.entries(v)) {
      const ft = fieldType(atom.map, key);
      const p = `${path}.${key}`;
      if (!ft) {
        errs.push({ path: p, message: 'field not declared in schema' });
        return; // smd stops at the first undeclared field of a map
      }
      walk(child, ft, p, errs, allowDup);
    }
    return;
  }
  if (atom.scalar) {
    const m = scalarError(atom.scalar, v);
    if (m) errs.push({ path, message: m });
    return;
  }
  if (atom.list) {
    if (v === null || v === undefined) return;
    if (!Array.isArray(v)) return void errs.push({ path, message: `expected list, got ${goValueText(v)}` });
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      let pe = `[${i}]`;
      if (atom.list.relationship === 'associative') {
        const item = listItemElement(atom.list, v[i]);
        if (!item.pe) return void errs.push({ path, message: `element ${i}: ${item.error}` });
        const key = pathElementKey(item.pe);
        if (seen.has(key) && !allowDup) {
          errs.push({ path, message: `duplicate entries for key ${pathElementString(item.pe)}` });
        }
        seen.add(key);
        pe = pathElementString(item.pe);
      }
      walk(v[i], atom.list.elem, path + pe, errs, allowDup);
    }
    return;
  }
  errs.push({ path, message: 'schema error: invalid atom: inlined' });
}

// smd validateScalar (null is valid for every scalar).
function scalarError(kind: string, v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  switch (kind) {
    case 'numeric':
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goTypeName(v)}`;
    case 'string':
      return typeof v === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goValueText(v)}}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected boolean, got &{${goValueText(v)}}`;
    default:
      return typeof v === 'object' ? `expected any scalar, got &{${goValueText(v)}}` : undefined;
  }
}

// Go's %T of an unstructured value.
function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

// smd's rendering of an unstructured value in a type error: Go's %v with strings quoted.
function goValueText(root: unknown): string {
  return goSprintWith(root, (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v)));
}
