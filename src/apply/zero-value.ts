/** The empty object kube's field manager compares a create against (its `New(kind)`). */
import { TypeRef } from './apply-type';
import { isJsonObject } from './json-value';

/**
 * The zero value of a struct type as kube's typed objects serialize it: non-pointer struct fields
 * (marked `default: {}` in kube's OpenAPI) present as `{}`, recursively; everything else absent.
 * So a create "adds" `spec.hard` but not `spec` itself (no `"."` under `f:spec`).
 */
export function zeroValue(type: TypeRef, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const map = type().map;
  if (!map || depth > 16) return out;
  for (const [name, def] of map.fields) {
    if (isJsonObject(def.default) && Object.keys(def.default).length === 0 && def.type().map?.fields.size) {
      out[name] = zeroValue(def.type, depth + 1);
    }
  }
  return out;
}

/** Zero values by type (its atom), frozen: built once per kind, not once per create. */
const sharedZeros = new WeakMap<object, Readonly<Record<string, unknown>>>();

function deepFreeze<T extends object>(v: T): T {
  for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) deepFreeze(x);
  return Object.freeze(v);
}

/** zeroValue, shared and frozen: for a comparison, which only reads it. */
export function sharedZeroValue(type: TypeRef): Readonly<Record<string, unknown>> {
  const atom = type();
  let zero = sharedZeros.get(atom);
  if (!zero) {
    zero = deepFreeze(zeroValue(type));
    sharedZeros.set(atom, zero);
  }
  return zero;
}
