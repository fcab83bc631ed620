/**
 * RFC 7386 JSON merge patch as kube-apiserver applies it: evanphx/json-patch.v4 MergePatch behind
 * pkg/endpoints/handlers/patch.go (applyJSPatch, MergePatchType).
 */
import { Steps, runSteps } from '../api/steps';
import { JsonObject, deepClone, hasOwn, isObject, jsonKind, setKey } from './json-value';
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
      for (const k of Object.keys(o)) if (o[k] !== null) setKey(dst as JsonObject, k, copy(o[k]));
    }
  }
  return root;
}

/** Keys merged between two stages: a patch of hundreds of thousands of keys is merged in parts. */
const keysPerStage = 32 * 1024;

/**
 * evanphx mergeDocs, in stages: null deletes; a key `doc` lacks (or holds null) takes the patch
 * value with nulls pruned; two objects merge; otherwise evanphx merge() takes the patch value
 * verbatim (no null pruning inside arrays).
 */
function* mergeInto(doc: JsonObject, patch: JsonObject, budget: { left: number }): Steps<void> {
  for (const k of Object.keys(patch)) {
    if (--budget.left <= 0) {
      budget.left = keysPerStage;
      yield;
    }
    const v = patch[k];
    if (v === null) {
      delete doc[k];
    } else if (!hasOwn(doc, k) || doc[k] === null) {
      setKey(doc, k, pruneNulls(v));
    } else {
      const cur = doc[k];
      if (!isObject(cur)) setKey(doc, k, pruneNulls(v));
      else if (!isObject(v)) setKey(doc, k, deepClone(v));
      else yield* mergeInto(cur, v, budget);
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
  return runSteps(applyMergePatchSteps(original, patch, options));
}

/** applyMergePatch in stages (steps.ts): the copy, then the merge in parts. */
export function* applyMergePatchSteps(original: unknown, patch: unknown, options: MergePatchOptions = {}): Steps<unknown> {
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
  yield;
  yield* mergeInto(doc, patch, { left: keysPerStage });
  return doc;
}
