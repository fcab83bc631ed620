/**
 * Kube's strategic merge patch (k8s.io/apimachinery pkg/util/strategicpatch, server side:
 * StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls), driven by the OpenAPI
 * markers `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` where kube reads Go
 * struct tags. Errors are mapped as pkg/endpoints/handlers/patch.go interpretStrategicMergePatchError.
 */
import { ApiError } from '../api';
import { Steps, runSteps } from '../api/steps';
import { JsonObject, deepClone, goSprint, goTypeName, hasOwn, isObject, jsonKind, setKey } from './json-value';
import { badRequest, genericUnprocessable, unconvertedError, unmarshalTypeMessage } from './patch-errors';
import { Schema, SchemaResolver, resolveSchema } from './schema';
import {
  BAD_REQUEST,
  DIRECTIVE,
  MAP_TYPE,
  SLICE_TYPE,
  SmpError,
  deduplicateScalars,
  errBadArgType,
  errBadPatchType,
  errNoMergeKey,
  findMapByKey,
  goEq,
  normalizeElementOrder,
  partition,
  plain,
  sliceElementKind,
} from './strategic-merge-order';

const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** Patch metadata of one field. */
interface PatchMeta {
  strategies: string[];
  mergeKey: string;
}

/** Everything the recursion needs besides the values: the resolver. */
interface Ctx {
  resolve: SchemaResolver;
  /** Keys left to merge before the next stage boundary (steps.ts). */
  budget: number;
}

/** Keys merged between two stages: a patch of hundreds of thousands of keys is merged in parts. */
const keysPerStage = 32 * 1024;

function fieldSchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  if (schema.properties && Object.prototype.hasOwnProperty.call(schema.properties, key)) return schema.properties[key];
  return isObject(schema.additionalProperties) ? (schema.additionalProperties as Schema) : undefined;
}

function metaOf(s: Schema | undefined): PatchMeta {
  const strategy = s?.['x-kubernetes-patch-strategy'];
  return { strategies: strategy ? strategy.split(',') : [], mergeKey: s?.['x-kubernetes-patch-merge-key'] ?? '' };
}

/** LookupPatchMetadataForStruct: markers from the property, schema of its value. Unknown → none. */
function lookupForStruct(ctx: Ctx, schema: Schema | undefined, key: string): [Schema | undefined, PatchMeta] {
  const prop = fieldSchema(schema, key);
  return [resolveSchema(prop, ctx.resolve), metaOf(prop)];
}

/** LookupPatchMetadataForSlice: markers from the property, schema of its items. */
function lookupForSlice(ctx: Ctx, schema: Schema | undefined, key: string): [Schema | undefined, PatchMeta] {
  const prop = fieldSchema(schema, key);
  return [resolveSchema(prop?.items ?? prop, ctx.resolve), metaOf(prop)];
}

/** extractRetainKeysPatchStrategy: the strategy other than retainKeys. */
function patchStrategy(strategies: string[]): string {
  if (strategies.length === 0) return '';
  if (strategies.length === 1) return strategies[0] === 'retainKeys' ? '' : (strategies[0] as string);
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return strategies[1] as string;
    if (strategies[1] === 'retainKeys') return strategies[0] as string;
  }
  throw plain(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) throw new SmpError('badRequest', BAD_REQUEST.primitiveList);
    throw new SmpError('badRequest', BAD_REQUEST.setElementOrder);
  }
  return s.slice(slash + 1);
}

const isDirectiveMap = (v: unknown): boolean => isObject(v) && hasOwn(v, DIRECTIVE);

/**
 * removeDirectives: drops maps carrying `$patch` (and list items that are such maps). Objects are
 * changed in place, lists replaced by filtered copies; `keep` is false when `v` itself is such a
 * map. Iterative (any depth).
 */
function removeDirectives(v: unknown): [unknown, boolean] {
  if (isDirectiveMap(v)) return [null, false];
  if (!isObject(v) && !Array.isArray(v)) return [v, true];
  const root = Array.isArray(v) ? v.slice() : v;
  const stack: Array<JsonObject | unknown[]> = [root];
  const visit = (x: unknown): unknown => {
    if (Array.isArray(x)) {
      const copy = x.slice();
      stack.push(copy);
      return copy;
    }
    if (isObject(x)) stack.push(x);
    return x;
  };
  while (stack.length) {
    const c = stack.pop() as JsonObject | unknown[];
    if (Array.isArray(c)) {
      let w = 0;
      for (const x of c) if (!isDirectiveMap(x)) c[w++] = visit(x);
      c.length = w;
    } else {
      for (const k of Object.keys(c)) {
        if (isDirectiveMap(c[k])) delete c[k];
        else setKey(c, k, visit(c[k]));
      }
    }
  }
  return [root, true];
}

/** discardNullValuesFromPatch: deletes null members of every nested map. Iterative (any depth). */
function discardNulls(v: unknown): void {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (isObject(x)) {
      for (const k of Object.keys(x)) {
        if (x[k] === null) delete x[k];
        else stack.push(x[k]);
      }
    } else if (Array.isArray(x)) {
      for (const y of x) stack.push(y);
    }
  }
}

/** The patch value as stored when there is nothing to merge with (absent or different type). */
function takePatchValue(original: JsonObject, key: string, patchV: unknown): void {
  if (typeof patchV !== 'object' || patchV === null) {
    setKey(original, key, patchV); // a scalar: nothing to discard or remove
    return;
  }
  discardNulls(patchV);
  const [v, keep] = removeDirectives(patchV);
  if (keep) setKey(original, key, v);
  else delete original[key];
}

/**
 * The live list as a Go slice: merging deletes in place (compacting the backing array) and
 * appends into the freed capacity, and kube's `$setElementOrder` step later reads the original
 * slice header, i.e. this backing array. `view` reproduces that aliasing (capacity = length).
 */
interface LiveList {
  view: unknown[];
}

/** mergeSliceWithSpecialElements + mergeSliceWithoutSpecialElements for lists of maps. */
function mergeMapList(
  ctx: Ctx,
  patch: unknown[],
  schema: Schema | undefined,
  mergeKey: string,
  live: LiveList,
): [unknown[], unknown[], unknown[]] {
  const backing = live.view;
  let len = backing.length;
  const cap = backing.length;
  const plainItems: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasOwn(m, DIRECTIVE)) {
      plainItems.push(v);
      continue;
    }
    const directive = m[DIRECTIVE];
    if (directive === 'delete') {
      if (!hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      for (;;) {
        const found = findMapByKey(backing.slice(0, len), mergeKey, m[mergeKey]);
        if (!found) break;
        backing.copyWithin(found[1], found[1] + 1, len); // Go: append(s[:i], s[i+1:]...)
        len--;
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw plain('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  if (replace) return [plainItems, [], plainItems.slice()];
  const orig = backing.slice(0, len);
  const merged = orig.slice();
  for (const v of plainItems) {
    const item = v as JsonObject;
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    // kube searches the growing list, so a repeated key merges into the item appended before
    const found = findMapByKey(merged, mergeKey, item[mergeKey]);
    if (found) {
      merged[found[1]] = runSteps(mergeMap(ctx, found[0], item, schema));
    } else {
      if (merged.length < cap) backing[merged.length] = v;
      merged.push(v);
    }
  }
  return [orig, plainItems, merged];
}

function mergeSlice(
  ctx: Ctx,
  original: unknown[],
  patch: unknown[],
  schema: Schema | undefined,
  mergeKey: string,
  isDeleteList: boolean,
  live: LiveList,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: unknown[];
  let orig = original;
  let pat = patch;
  if (kind !== 'map') {
    if (isDeleteList) return orig.filter((v) => !pat.some((d) => goEq(d, v)));
    merged = deduplicateScalars([...orig, ...pat]);
  } else {
    if (mergeKey === '') throw plain(`cannot merge lists without merge key for ${schema?.properties ? 'struct' : 'map'}`);
    [orig, pat, merged] = mergeMapList(ctx, patch, schema, mergeKey, live);
  }
  const [inPatch, serverOnly] = partition(merged, pat, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, pat, orig, mergeKey, kind);
}

function mergeSliceHandler(
  ctx: Ctx,
  original: unknown[],
  patch: unknown[],
  schema: Schema | undefined,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
  live: LiveList = { view: original.slice() },
): unknown[] {
  if (strategy === 'merge' || isDeleteList) return mergeSlice(ctx, original, patch, schema, mergeKey, isDeleteList, live);
  return patch;
}

/** applyRetainKeysDirective with MergeParallelList: clears original keys not retained. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new SmpError('badRequest', BAD_REQUEST.retainKeys);
  const retained = (k: string) => list.some((x) => x === k);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retained(k)) throw new SmpError('badRequest', BAD_REQUEST.retainKeys);
  }
  for (const k of Object.keys(original)) if (!retained(k)) delete original[k];
}

/** validatePatchWithSetOrderList: patch items must appear in the order list, in that order. */
function validateSetOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey !== '') {
    items = patchList.filter((v) => {
      if (!isObject(v)) throw errBadArgType(MAP_TYPE, v);
      return !(hasOwn(v, DIRECTIVE) && v[DIRECTIVE] === 'delete');
    });
  }
  const keyOf = (x: unknown, side: unknown): unknown => {
    if (!isObject(x)) throw errBadArgType(MAP_TYPE, side);
    if (!hasOwn(x, mergeKey)) throw errNoMergeKey(x, mergeKey);
    return x[mergeKey];
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isObject(items[p]) && hasOwn(items[p] as JsonObject, DIRECTIVE)) {
      p++;
      continue;
    }
    const equal = mergeKey === '' ? goEq(items[p], order[o]) : goEq(keyOf(items[p], items[p]), keyOf(order[o], order[o]));
    if (equal) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw plain(`The order in patch list:\n${goSprint(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goSprint(order)}\n`);
  }
}

/**
 * mergePatchIntoOriginal: applies every `$setElementOrder/<field>` with its list. `keys` are the
 * patch's keys; true when any was such a directive (the patch has lost keys then).
 */
function applySetElementOrder(ctx: Ctx, original: JsonObject, patch: JsonObject, schema: Schema | undefined, keys: string[]): boolean {
  let found = false;
  for (const key of keys) {
    if (key.charCodeAt(0) !== 36 /* $ */ || !key.startsWith(SET_ELEMENT_ORDER)) continue;
    found = true;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType(SLICE_TYPE, order);
    const field = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = hasOwn(original, field);
    const foundPatch = hasOwn(patch, field);
    const originalList = foundOriginal ? original[field] : undefined;
    const patchList = foundPatch ? patch[field] : undefined;
    if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType(SLICE_TYPE, originalList);
    if (foundPatch && !Array.isArray(patchList)) throw errBadArgType(SLICE_TYPE, patchList);
    const origArr = (originalList ?? []) as unknown[];
    const patchArr = (patchList ?? []) as unknown[];
    const live: LiveList = { view: origArr.slice() };
    const [sub, meta] = lookupForSlice(ctx, schema, field);
    const strategy = patchStrategy(meta.strategies);
    validateSetOrder(patchArr, order, meta.mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = origArr;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchArr)[0] as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(ctx, origArr, patchArr, sub, strategy, meta.mergeKey, false, live);
    else continue;

    const [inOrder, serverOnly] = partition(merged, order, meta.mergeKey);
    const kind = sliceElementKind(origArr, patchArr);
    // kube orders server-only items by the original slice, which merging may have rewritten in place
    setKey(original, field, normalizeElementOrder(inOrder, serverOnly, order, live.view, meta.mergeKey, kind));
    delete patch[field];
  }
  return found;
}

/** mergeMap: merges `patch` into `original` (both already private copies; mutated), in stages. */
function* mergeMap(ctx: Ctx, original: JsonObject | null, patch: JsonObject, schema: Schema | undefined): Steps<JsonObject> {
  if (hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (directive === 'delete') return {};
    throw errBadPatchType(directive, patch);
  }
  const orig = original ?? {};
  applyRetainKeys(orig, patch);
  // One enumeration of the patch's keys serves both passes unless directives removed some.
  let keys = Object.keys(patch);
  if (applySetElementOrder(ctx, orig, patch, schema, keys)) keys = Object.keys(patch);

  for (const rawKey of keys) {
    if (--ctx.budget <= 0) {
      ctx.budget = keysPerStage;
      yield;
    }
    const patchV = patch[rawKey];
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete orig[key];
      continue;
    }
    if (!hasOwn(orig, key)) {
      if (!isDeleteList) takePatchValue(orig, key, patchV);
      continue;
    }
    const current = orig[key];
    if (goTypeName(current) !== goTypeName(patchV)) {
      if (!isDeleteList) takePatchValue(orig, key, patchV);
      continue;
    }
    if (isObject(current) && isObject(patchV)) {
      const [sub, meta] = lookupForStruct(ctx, schema, key);
      const strategy = patchStrategy(meta.strategies);
      setKey(orig, key, strategy === 'replace' ? patchV : yield* mergeMap(ctx, current, patchV, sub));
    } else if (Array.isArray(current) && Array.isArray(patchV)) {
      const [sub, meta] = lookupForSlice(ctx, schema, key);
      const strategy = patchStrategy(meta.strategies);
      setKey(orig, key, mergeSliceHandler(ctx, current, patchV, sub, strategy, meta.mergeKey, isDeleteList));
    } else {
      setKey(orig, key, patchV);
    }
  }
  return orig;
}

function toApiError(e: SmpError): ApiError {
  if (e.kind === 'badRequest') return badRequest(e.message);
  if (e.kind === 'unprocessable') return genericUnprocessable();
  return unconvertedError(e.message);
}

/**
 * Applies a strategic merge patch (already JSON-decoded) to `original` as kube-apiserver does for
 * built-in types, and returns the new object. `schema` is the object's schema (may be a `$ref`);
 * fields without a schema merge like a JSON merge patch (maps merge, lists are replaced). Only the
 * SMP markers (`x-kubernetes-patch-strategy`, `-patch-merge-key`) steer merging, as Go struct tags
 * do in kube; `x-kubernetes-list-type` is not consulted. A `$patch: merge` directive is rejected,
 * as in kube. Never mutates its inputs.
 *
 * Throws ApiError: 400 `json: cannot unmarshal ... map[string]interface {}` for a non-object
 * body; 400 for malformed `$retainKeys`, `$deleteFromPrimitiveList/`, `$setElementOrder/`
 * directives; 422 (generic message) for lists of lists; 500 with kube's Go error text (empty
 * reason) for other failures, e.g. `unknown patch type: foo in map: map[$patch:foo]` or
 * `map: map[value:b] does not contain declared merge key: name`.
 */
export function applyStrategicMergePatch(
  original: unknown,
  patch: unknown,
  schema: Schema | undefined,
  resolve: SchemaResolver,
): unknown {
  return runSteps(applyStrategicMergePatchSteps(original, patch, schema, resolve));
}

/** applyStrategicMergePatch in stages (steps.ts): the copies, then the merge in parts. */
export function* applyStrategicMergePatchSteps(
  original: unknown,
  patch: unknown,
  schema: Schema | undefined,
  resolve: SchemaResolver,
): Steps<unknown> {
  // kube decodes null into a nil map: the patch is a no-op
  if (patch === null || patch === undefined) return deepClone(original);
  if (!isObject(patch)) throw badRequest(unmarshalTypeMessage(jsonKind(patch), MAP_TYPE));
  const ctx: Ctx = { resolve, budget: keysPerStage };
  const root = isObject(original) ? deepClone(original) : null;
  yield;
  const own = deepClone(patch);
  yield;
  try {
    return yield* mergeMap(ctx, root, own, resolveSchema(schema, resolve));
  } catch (e) {
    if (e instanceof SmpError) throw toApiError(e);
    throw e;
  }
}
