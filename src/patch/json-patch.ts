/**
 * RFC 6902 JSON patch as kube-apiserver applies it: gopkg.in/evanphx/json-patch.v4 (v4.12.0)
 * behind pkg/endpoints/handlers/patch.go (jsonPatcher.applyJSPatch).
 *
 * The engine is our own rather than fast-json-patch because evanphx v4 deviates from the RFC in
 * ways a client can observe (replace of a missing object key adds it, negative array indices,
 * `add` at the root is refused, a `test` for null passes on a missing key), and kube hides every
 * application failure behind one generic 422, so only success/failure must match.
 */
import { equalJson, stringifyJson } from '../api/json-clone';
import { JsonObject, deepClone, getOwn, hasOwn, isObject, jsonKind, setKey } from './json-value';
import { badRequest, genericUnprocessable, tooManyOperations, unmarshalTypeMessage } from './patch-errors';

/** patch.go maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** apiserver JSONPatchMaxCopyBytes default (3 MiB), evanphx AccumulatedCopySizeLimit. */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/** The request's fieldValidation directive; only `Ignore` changes how a JSON patch is decoded. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Options of applyJsonPatch. */
export interface JsonPatchOptions {
  /** Defaults to kube's default, `Warn` (strict decoding of the operations list). */
  fieldValidation?: FieldValidation;
  /** Accumulated `copy` size limit in bytes; defaults to JSON_PATCH_MAX_COPY_BYTES. */
  maxCopyBytes?: number;
}

/** A failure inside one operation; mapped to kube's generic 422 by applyJsonPatch. */
class OpFailure extends Error {}

const fail = (msg: string): never => {
  throw new OpFailure(msg);
};

const OP_FIELDS = ['op', 'path', 'from'] as const;

/** Checks the body the way kube decodes it before applying and returns the operations. */
function decodeOperations(body: unknown, validation: FieldValidation): unknown[] {
  const strict = validation !== 'Ignore';
  // strict: kjson.UnmarshalStrict into []handlers.jsonPatchOp, errors prefixed "error decoding patch: "
  const wrap = (m: string) => badRequest(strict ? `error decoding patch: ${m}` : m);
  if (body === null || body === undefined) return [];
  if (!Array.isArray(body)) {
    throw wrap(unmarshalTypeMessage(jsonKind(body), strict ? '[]handlers.jsonPatchOp' : 'jsonpatch.Patch'));
  }
  for (const op of body) {
    if (op === null) continue;
    if (!isObject(op)) {
      throw wrap(unmarshalTypeMessage(jsonKind(op), strict ? 'handlers.jsonPatchOp' : 'jsonpatch.Operation'));
    }
    if (!strict) continue;
    for (const k of Object.keys(op)) {
      const v = op[k];
      if ((OP_FIELDS as readonly string[]).includes(k) && v !== null && typeof v !== 'string') {
        throw wrap(unmarshalTypeMessage(jsonKind(v), 'string', { struct: 'jsonPatchOp', name: k }));
      }
    }
  }
  return body;
}

/**
 * The strict-decoding complaints kube collects for a JSON patch body (unknown members of an
 * operation), worded as kube words them (`json patch unknown field "[0].foo"`). The handler turns
 * them into warnings (fieldValidation=Warn) or a 422 (Strict). Returns [] for a malformed body.
 */
export function jsonPatchStrictErrors(body: unknown): string[] {
  if (!Array.isArray(body)) return [];
  const out: string[] = [];
  body.forEach((op, i) => {
    if (!isObject(op)) return;
    for (const k of Object.keys(op)) {
      if (!['op', 'path', 'from', 'value'].includes(k) && out.length < 100) out.push(`json patch unknown field "[${i}].${k}"`);
    }
  });
  return out;
}

type Container = JsonObject | unknown[];

/** Go strconv.Atoi over an array key; undefined when it is not an integer. */
function atoi(key: string): number | undefined {
  if (!/^[+-]?\d+$/.test(key)) return undefined;
  const n = Number(key);
  return Number.isSafeInteger(n) ? n : undefined;
}

const decodeToken = (t: string): string => t.replace(/~1/g, '/').replace(/~0/g, '~');

/** Array index for get/set/remove, negative indices counting from the end (evanphx v4). */
function existingIndex(arr: unknown[], key: string): number {
  const idx = atoi(key) ?? fail(`invalid array index ${key}`);
  if (idx < 0) {
    if (idx < -arr.length) fail(`Unable to access invalid index: ${idx}`);
    return idx + arr.length;
  }
  if (idx >= arr.length) fail(`Unable to access invalid index: ${idx}`);
  return idx;
}

/** Value at `key`; missing object keys read as null (evanphx partialDoc.get never fails). */
function getIn(c: Container, key: string): unknown {
  if (Array.isArray(c)) return c[existingIndex(c, key)] ?? null;
  return getOwn(c, key) ?? null;
}

function addIn(c: Container, key: string, value: unknown): void {
  if (!Array.isArray(c)) return setKey(c, key, value);
  if (key === '-') {
    c.push(value);
    return;
  }
  let idx = atoi(key) ?? fail(`value was not a proper array index: '${key}'`);
  const size = c.length + 1;
  if (idx >= size) fail(`Unable to access invalid index: ${idx}`);
  if (idx < 0) {
    if (idx < -size) fail(`Unable to access invalid index: ${idx}`);
    idx += size;
  }
  c.splice(idx, 0, value);
}

function removeIn(c: Container, key: string): void {
  if (Array.isArray(c)) {
    c.splice(existingIndex(c, key), 1);
    return;
  }
  if (!hasOwn(c, key)) fail(`Unable to remove nonexistent key: ${key}`);
  delete c[key];
}

/** evanphx findObject: the container holding the last token, or undefined. */
function findParent(root: Container, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  // evanphx ignores whatever precedes the first "/" ("a/b" addresses "/b").
  let cur: Container = root;
  for (const part of split.slice(1, -1)) {
    let next: unknown;
    try {
      next = getIn(cur, decodeToken(part));
    } catch {
      return undefined;
    }
    if (!Array.isArray(next) && !isObject(next)) return undefined;
    cur = next;
  }
  return { con: cur, key: decodeToken(split[split.length - 1] as string) };
}

function stringField(op: JsonObject, name: string): string {
  const v = getOwn(op, name);
  return typeof v === 'string' ? v : fail(`operation missing ${name} field`);
}


interface ApplyState {
  root: Container;
  copied: number;
  maxCopyBytes: number;
}

function applyOne(st: ApplyState, rawOp: unknown): void {
  const op = isObject(rawOp) ? rawOp : {};
  const kind = getOwn(op, 'op');
  // a missing "value" decodes to a nil node, which evanphx stores as null
  const value = deepClone(getOwn(op, 'value') ?? null);
  const target = (p: string) => findParent(st.root, p) ?? fail(`doc is missing path: ${p}`);
  switch (kind) {
    case 'add': {
      const { con, key } = target(stringField(op, 'path'));
      return addIn(con, key, value);
    }
    case 'remove': {
      const { con, key } = target(stringField(op, 'path'));
      return removeIn(con, key);
    }
    case 'replace': {
      const path = stringField(op, 'path');
      if (path === '') {
        if (!Array.isArray(value) && !isObject(value)) fail('replace operation value must be object or array');
        st.root = value as Container;
        return;
      }
      const { con, key } = target(path);
      if (Array.isArray(con)) con[existingIndex(con, key)] = value;
      else setKey(con, key, value); // evanphx v4: replace of a missing object key adds it
      return;
    }
    case 'move': {
      const from = target(stringField(op, 'from'));
      const val = getIn(from.con, from.key);
      removeIn(from.con, from.key);
      const { con, key } = target(stringField(op, 'path'));
      return addIn(con, key, val);
    }
    case 'copy': {
      const from = target(stringField(op, 'from'));
      const val = getIn(from.con, from.key);
      const { con, key } = target(stringField(op, 'path'));
      st.copied += val === null ? 0 : Buffer.byteLength(stringifyJson(val));
      if (st.maxCopyBytes > 0 && st.copied > st.maxCopyBytes) fail('accumulated copy size exceeds the limit');
      return addIn(con, key, deepClone(val));
    }
    case 'test': {
      const path = stringField(op, 'path');
      const hasValue = hasOwn(op, 'value');
      if (path === '') {
        if (!equalJson(st.root, value)) fail('test failed');
        return;
      }
      const { con, key } = target(path);
      const actual = getIn(con, key);
      // evanphx v4: a null/missing target passes when the test value is null
      if (actual === null ? !hasValue || value !== null : !hasValue || !equalJson(actual, value)) {
        fail(`testing value ${path} failed`);
      }
      return;
    }
    default:
      fail(`Unexpected kind: ${typeof kind === 'string' ? kind : 'unknown'}`);
  }
}

/**
 * Applies an RFC 6902 patch (already JSON-decoded) to `original` the way kube does and returns
 * the patched document. All-or-nothing; never mutates `original` or `patchBody`.
 *
 * Throws ApiError: 400 for a body that does not decode as a list of operations (kube's decoder
 * wording), 413 for more than 10000 operations, and 422 Invalid "the server rejected our request
 * due to an error in our request" for any operation that does not apply (failed `test`, missing
 * path on remove, bad index, copy over 3 MiB, unknown op).
 */
export function applyJsonPatch(original: unknown, patchBody: unknown, options: JsonPatchOptions = {}): unknown {
  const ops = decodeOperations(patchBody, options.fieldValidation ?? 'Warn');
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(MAX_JSON_PATCH_OPERATIONS, ops.length);
  const root = deepClone(original);
  if (!Array.isArray(root) && !isObject(root)) throw genericUnprocessable();
  const st: ApplyState = { root, copied: 0, maxCopyBytes: options.maxCopyBytes ?? JSON_PATCH_MAX_COPY_BYTES };
  try {
    for (const op of ops) applyOne(st, op);
  } catch (e) {
    // The operation's failure rides along as `cause`: kube hides it from clients, but reports it
    // for a patch an admission webhook made.
    if (e instanceof OpFailure) throw Object.assign(genericUnprocessable(), { cause: e.message });
    throw e;
  }
  return st.root;
}
