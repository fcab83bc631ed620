/**
 * JSON merge patch: the RFC 7386 Appendix A examples, and kube's handling of bodies that are not
 * objects (apiserver@v0.32.13 pkg/endpoints/handlers/patch.go, evanphx/json-patch.v4 merge.go).
 */
import { ApiError, isApiError } from '../../../src/api';
import { applyMergePatch } from '../../../src/patch';

function caught(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (isApiError(e)) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('applyMergePatch: RFC 7386 Appendix A (object targets and patches)', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('%j + %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });
});

describe('applyMergePatch: kube specifics', () => {
  it('merges a kubectl-style secret patch and deletes with null', () => {
    const original = { kind: 'Secret', metadata: { name: 's', labels: { a: '1', b: '2' } }, data: { x: 'eA==' } };
    const out = applyMergePatch(original, { metadata: { labels: { a: null, c: '3' } }, data: { y: 'eQ==' } });
    expect(out).toEqual({ kind: 'Secret', metadata: { name: 's', labels: { b: '2', c: '3' } }, data: { x: 'eA==', y: 'eQ==' } });
    expect(original.metadata.labels).toEqual({ a: '1', b: '2' });
  });

  it('replaces lists wholesale', () => {
    expect(applyMergePatch({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['c'] } })).toEqual({ metadata: { finalizers: ['c'] } });
  });

  it('prunes nulls inside objects of a new list (evanphx pruneNulls)', () => {
    expect(applyMergePatch({}, { a: [{ b: null, c: 1 }, null] })).toEqual({ a: [{ c: 1 }, null] });
  });

  it('never mutates the patch', () => {
    const patch = { a: { b: { c: 1 } } };
    const out = applyMergePatch({}, patch) as { a: { b: { c: number } } };
    out.a.b.c = 2;
    expect(patch.a.b.c).toBe(1);
  });

  const bad: [string, unknown, string][] = [
    ['array', ['c'], 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['string', 'bar', 'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['number', 1, 'error decoding patch: json: cannot unmarshal number into Go value of type map[string]interface {}'],
    ['bool', true, 'error decoding patch: json: cannot unmarshal bool into Go value of type map[string]interface {}'],
    ['null', null, 'Invalid JSON Patch'],
  ];
  it.each(bad)('a %s body → 400', (_n, body, message) => {
    expect(caught(() => applyMergePatch({ a: 1 }, body)).status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'BadRequest',
      code: 400,
    });
  });

  it('with fieldValidation=Ignore an array body becomes the document, a scalar is Invalid JSON Patch', () => {
    expect(applyMergePatch({ a: 1 }, [{ b: null }], { fieldValidation: 'Ignore' })).toEqual([{}]);
    expect(caught(() => applyMergePatch({ a: 1 }, 'x', { fieldValidation: 'Ignore' })).status.message).toBe('Invalid JSON Patch');
  });
});
