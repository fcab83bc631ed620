/**
 * JSON patch as kube applies it (apiserver@v0.32.13 pkg/endpoints/handlers/patch.go over
 * gopkg.in/evanphx/json-patch.v4 v4.12.0). Expected values follow RFC 6902 where evanphx
 * follows it, and evanphx v4's documented deviations where it does not.
 */
import { ApiError, isApiError } from '../../../src/api';
import { applyJsonPatch, jsonPatchStrictErrors } from '../../../src/patch';

const secret = () => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', namespace: 'default', labels: { app: 'x' }, finalizers: ['a', 'b'] },
  data: { k: 'dg==' },
  type: 'Opaque',
});

function caught(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (isApiError(e)) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

const GENERIC_422 = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server rejected our request due to an error in our request',
  reason: 'Invalid',
  details: {},
  code: 422,
};

describe('applyJsonPatch: operations that apply', () => {
  const cases: [string, unknown[], (o: ReturnType<typeof secret>) => void][] = [
    ['add a map key', [{ op: 'add', path: '/metadata/labels/tier', value: 'web' }], (o) => (o.metadata.labels = { app: 'x', tier: 'web' } as never)],
    ['add replaces an existing key', [{ op: 'add', path: '/type', value: 'Other' }], (o) => (o.type = 'Other')],
    ['add appends with -', [{ op: 'add', path: '/metadata/finalizers/-', value: 'c' }], (o) => (o.metadata.finalizers = ['a', 'b', 'c'])],
    ['add inserts at an index', [{ op: 'add', path: '/metadata/finalizers/0', value: 'z' }], (o) => (o.metadata.finalizers = ['z', 'a', 'b'])],
    ['add at index == length appends', [{ op: 'add', path: '/metadata/finalizers/2', value: 'c' }], (o) => (o.metadata.finalizers = ['a', 'b', 'c'])],
    ['remove a key', [{ op: 'remove', path: '/metadata/labels/app' }], (o) => (o.metadata.labels = {} as never)],
    ['remove an array item', [{ op: 'remove', path: '/metadata/finalizers/0' }], (o) => (o.metadata.finalizers = ['b'])],
    ['replace a value', [{ op: 'replace', path: '/data/k', value: 'eA==' }], (o) => (o.data.k = 'eA==')],
    ['test then replace', [{ op: 'test', path: '/metadata/labels/app', value: 'x' }, { op: 'replace', path: '/metadata/labels/app', value: 'y' }], (o) => (o.metadata.labels.app = 'y')],
    ['move', [{ op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/name' }], (o) => (o.metadata.labels = { name: 'x' } as never)],
    ['copy', [{ op: 'copy', from: '/data/k', path: '/data/k2' }], (o) => (o.data = { k: 'dg==', k2: 'dg==' } as never)],
    ['escaped tokens ~1 and ~0', [{ op: 'add', path: '/metadata/labels/a~1b~0c', value: 'v' }], (o) => ((o.metadata.labels as Record<string, string>)['a/b~c'] = 'v')],
    ['test of an object', [{ op: 'test', path: '/metadata/labels', value: { app: 'x' } }], () => undefined],
    // evanphx v4 deviations kube inherits
    ['replace of a missing object key adds it (evanphx v4)', [{ op: 'replace', path: '/metadata/labels/new', value: 'v' }], (o) => ((o.metadata.labels as Record<string, string>).new = 'v')],
    ['negative index reads from the end (evanphx v4)', [{ op: 'remove', path: '/metadata/finalizers/-1' }], (o) => (o.metadata.finalizers = ['a'])],
    ['test null on a missing key passes (evanphx v4)', [{ op: 'test', path: '/metadata/labels/nope', value: null }], () => undefined],
    ['add without value stores null (evanphx v4)', [{ op: 'add', path: '/metadata/labels/n' }], (o) => ((o.metadata.labels as Record<string, unknown>).n = null)],
    ['path without leading slash addresses the last token (evanphx v4)', [{ op: 'add', path: 'x/type', value: 'T' }], (o) => (o.type = 'T')],
    ['null body is no operations', [], () => undefined],
  ];
  it.each(cases)('%s', (_name, ops, mutate) => {
    const original = secret();
    const expected = secret();
    mutate(expected);
    expect(applyJsonPatch(original, ops)).toEqual(expected);
    expect(original).toEqual(secret()); // input untouched
  });

  it('replace of the whole document with path ""', () => {
    expect(applyJsonPatch(secret(), [{ op: 'replace', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
  });

  it('does not mutate the patch body', () => {
    const ops = [{ op: 'add', path: '/data/o', value: { nested: [1] } }];
    const out = applyJsonPatch(secret(), ops) as { data: { o: { nested: number[] } } };
    out.data.o.nested.push(2);
    expect(ops[0]?.value).toEqual({ nested: [1] });
  });

  it('a null body changes nothing', () => {
    expect(applyJsonPatch(secret(), null)).toEqual(secret());
  });
});

describe('applyJsonPatch: operations that fail → 422 with kube generic message', () => {
  const cases: [string, unknown[]][] = [
    ['failed test', [{ op: 'test', path: '/metadata/labels/app', value: 'nope' }]],
    ['test of a missing key with a value', [{ op: 'test', path: '/metadata/labels/nope', value: 'x' }]],
    ['remove of a missing key', [{ op: 'remove', path: '/metadata/labels/nope' }]],
    ['remove of an index out of range', [{ op: 'remove', path: '/metadata/finalizers/5' }]],
    ['replace of an index out of range', [{ op: 'replace', path: '/metadata/finalizers/2', value: 'x' }]],
    ['replace under a missing parent', [{ op: 'replace', path: '/spec/x', value: 1 }]],
    ['add under a missing parent', [{ op: 'add', path: '/spec/x', value: 1 }]],
    ['add beyond the end', [{ op: 'add', path: '/metadata/finalizers/3', value: 'x' }]],
    ['add at the root path', [{ op: 'add', path: '', value: {} }]],
    ['replace of the root with a scalar', [{ op: 'replace', path: '', value: 1 }]],
    ['move from a missing key', [{ op: 'move', from: '/metadata/labels/nope', path: '/x' }]],
    ['copy without from', [{ op: 'copy', path: '/x' }]],
    ['missing path', [{ op: 'add', value: 1 }]],
    ['unknown op', [{ op: 'frobnicate', path: '/x' }]],
    ['missing op', [{ path: '/x', value: 1 }]],
    ['null operation', [null]],
    ['non-integer array index', [{ op: 'replace', path: '/metadata/finalizers/x', value: 'y' }]],
    ['through a scalar', [{ op: 'add', path: '/type/x', value: 1 }]],
  ];
  it.each(cases)('%s', (_name, ops) => {
    const e = caught(() => applyJsonPatch(secret(), ops));
    expect(e.code).toBe(422);
    expect(e.status).toEqual(GENERIC_422);
    expect(JSON.stringify(e.status)).toBe(JSON.stringify(GENERIC_422)); // kube key order
  });

  it('is all-or-nothing: an early op is not kept when a later one fails', () => {
    const original = secret();
    caught(() => applyJsonPatch(original, [{ op: 'add', path: '/metadata/labels/t', value: '1' }, { op: 'test', path: '/type', value: 'x' }]));
    expect(original).toEqual(secret());
  });

  it('copy beyond the accumulated copy limit fails', () => {
    const big = { data: { k: 'x'.repeat(100) } };
    const ops = [
      { op: 'copy', from: '/data/k', path: '/data/a' },
      { op: 'copy', from: '/data/k', path: '/data/b' },
    ];
    expect(applyJsonPatch(big, ops, { maxCopyBytes: 300 })).toBeDefined();
    expect(caught(() => applyJsonPatch(big, ops, { maxCopyBytes: 150 })).code).toBe(422);
  });
});

describe('applyJsonPatch: bodies kube cannot decode → 400', () => {
  const cases: [string, unknown, string | undefined, string][] = [
    ['object body', { op: 'add' }, undefined, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['string body', 'x', 'Strict', 'error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp'],
    ['number item', [1], undefined, 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
    ['op not a string', [{ op: 1, path: '/a' }], undefined, 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string'],
    ['path not a string', [{ op: 'add', path: true }], 'Warn', 'error decoding patch: json: cannot unmarshal bool into Go struct field jsonPatchOp.path of type string'],
    ['object body, fieldValidation=Ignore', { op: 'add' }, 'Ignore', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['array item, fieldValidation=Ignore', [[1]], 'Ignore', 'json: cannot unmarshal array into Go value of type jsonpatch.Operation'],
  ];
  it.each(cases)('%s', (_name, body, fv, message) => {
    const e = caught(() => applyJsonPatch(secret(), body, fv ? { fieldValidation: fv as 'Ignore' } : {}));
    expect(e.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  });

  it('a wrongly typed op member with fieldValidation=Ignore is an application failure (422)', () => {
    expect(caught(() => applyJsonPatch(secret(), [{ op: 1, path: '/a' }], { fieldValidation: 'Ignore' })).code).toBe(422);
  });

  it('more than 10000 operations → 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/type', value: 'Opaque' }));
    const e = caught(() => applyJsonPatch(secret(), ops));
    expect(e.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
    expect(applyJsonPatch(secret(), ops.slice(1))).toEqual(secret());
  });
});

describe('jsonPatchStrictErrors', () => {
  it('names unknown operation members with their index', () => {
    expect(jsonPatchStrictErrors([{ op: 'add', path: '/a', value: 1 }, { op: 'add', path: '/b', value: 1, extra: true }])).toEqual([
      'json patch unknown field "[1].extra"',
    ]);
  });
  it('is empty for well-formed or undecodable bodies', () => {
    expect(jsonPatchStrictErrors([{ op: 'move', from: '/a', path: '/b' }])).toEqual([]);
    expect(jsonPatchStrictErrors({})).toEqual([]);
  });
});
