/**
 * RFC 7386 JSON merge patch as kube-apiserver applies it: evanphx/json-patch.v4 MergePatch behind
 * pkg/endpoints/handlers/patch.go (applyJSPatch, MergePatchType).
 */
import { JsonObject, deepClone, hasOwn, isObject, jsonKind, setOwn } from './json-value';
import type { FieldValidation } from './json-patch';
import { badRequest, unmarshalTypeMessage } from './patch-errors';

/** Options of applyMergePatch. */
export interface MergePatchOptions {
  /** Defaults to kube's default, `Warn` (the body is strictly decoded as a map first). */
  fieldValidation?: FieldValidation;
}

/**
 * evanphx pruneNulls: drops null members of objects, through objects and arrays (nulls inside
 * arrays stay). Returns a copy; iterative, so any depth.
 */
function pruneNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  // Two parallel stacks and no per-container closure: a wide list of small objects (a 3 MiB body
  // holds 1.5M of them) should leave no garbage beyond the copies themselves.
  const root: object = Array.isArray(v) ? [] : {};
  const srcs: object[] = [v];
  const dsts: object[] = [root];
  const copy = (x: unknown): unknown => {
    if (typeof x !== 'object' || x === null) return x;
    const c: object = Array.isArray(x) ? [] : {};
    srcs.push(x);
    dsts.push(c);
    return c;
  };
  while (srcs.length) {
    const src = srcs.pop() as object;
    const dst = dsts.pop() as object;
    if (Array.isArray(src)) {
      const d = dst as unknown[];
      for (let i = 0; i < src.length; i++) {
        const x: unknown = src[i];
        d.push(x === null ? null : copy(x));
      }
    } else {
      const o = src as JsonObject;
      for (const k of Object.keys(o)) if (o[k] !== null) setOwn(dst as JsonObject, k, copy(o[k]));
    }
  }
  return root;
}

/** evanphx merge(): objects merge; a non-object current takes the patch with nulls pruned. */
function mergeValue(cur: unknown, patch: unknown): unknown {
  if (!isObject(cur)) return pruneNulls(patch);
  // evanphx v4 returns a non-object patch verbatim here (no null pruning inside arrays)
  if (!isObject(patch)) return deepClone(patch);
  mergeInto(cur, patch);
  return cur;
}

function mergeInto(doc: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null) {
      delete doc[k];
    } else if (!hasOwn(doc, k) || doc[k] === null) {
      setOwn(doc, k, pruneNulls(v));
    } else {
      setOwn(doc, k, mergeValue(doc[k], v));
    }
  }
}

/**
 * Applies an RFC 7386 merge patch (already JSON-decoded) to `original` the way kube does: null
 * deletes, objects merge recursively, anything else replaces. Never mutates its inputs.
 *
 * Throws ApiError 400: for a body that is not an object, kube's strict decoder message
 * (`error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}`);
 * for a `null` body, `Invalid JSON Patch`. With fieldValidation=Ignore kube skips the strict
 * decode: an array body then becomes the (null-pruned) result, other non-objects are
 * `Invalid JSON Patch`.
 */
export function applyMergePatch(original: unknown, patch: unknown, options: MergePatchOptions = {}): unknown {
  const strict = (options.fieldValidation ?? 'Warn') !== 'Ignore';
  if (patch === null || patch === undefined) throw badRequest('Invalid JSON Patch');
  if (!isObject(patch)) {
    if (strict) {
      throw badRequest(`error decoding patch: ${unmarshalTypeMessage(jsonKind(patch), 'map[string]interface {}')}`);
    }
    // evanphx doMergePatch: an array patch is returned (nulls pruned) as the whole document
    if (Array.isArray(patch)) return pruneNulls(patch);
    throw badRequest('Invalid JSON Patch');
  }
  if (!isObject(original)) return pruneNulls(patch);
  const doc = deepClone(original);
  mergeInto(doc, patch);
  return doc;
}
