import {
  CONTINUE_EXPIRED_MESSAGE,
  INCONSISTENT_CONTINUE_MESSAGE,
  continueExpiredError,
  decodeContinueToken,
  encodeContinueToken,
  inconsistentContinueToken,
} from '../../../src/api/continue-token';
import { isApiError } from '../../../src/api/errors';

const b64 = (json: string): string => Buffer.from(json, 'utf8').toString('base64url');
// encodeContinueOrDie of apiserver continue_test.go.
const token = (v: string, rv: number, start: string): string => b64(JSON.stringify({ v, rv, start }));

function decodeError(t: string, prefix = '/test/'): string | undefined {
  try {
    decodeContinueToken(t, prefix);
    return undefined;
  } catch (e) {
    if (!isApiError(e)) throw e;
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    return e.status.message;
  }
}

describe('encodeContinueToken', () => {
  test('kube wire format: base64url, no padding, keys v/rv/start, NUL escaped', () => {
    const t = encodeContinueToken('/registry/secrets/ns/name\u0000', '/registry/secrets/ns/', 42n);
    expect(t).not.toMatch(/[=+/]/);
    expect(Buffer.from(t, 'base64url').toString('utf8')).toBe('{"v":"meta.k8s.io/v1","rv":42,"start":"name\\u0000"}');
    expect(t).toBe('eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDIsInN0YXJ0IjoibmFtZVx1MDAwMCJ9');
  });

  test('64-bit revisions survive', () => {
    const rv = 9223372036854775807n;
    const t = encodeContinueToken('/p/a', '/p/', rv);
    expect(decodeContinueToken(t, '/p/')).toEqual({ startKey: '/p/a', rv });
  });

  test('HTML-sensitive characters are escaped as Go does', () => {
    const t = encodeContinueToken('/p/<&>', '/p/', 1n);
    expect(Buffer.from(t, 'base64url').toString()).toBe('{"v":"meta.k8s.io/v1","rv":1,"start":"\\u003c\\u0026\\u003e"}');
  });

  test('a key outside the prefix is a programming error', () => {
    expect(() => encodeContinueToken('/other/x', '/p/', 1n)).toThrow(
      'unable to encode next field: the key and key prefix do not match',
    );
  });
});

describe('decodeContinueToken (apiserver Test_decodeContinue)', () => {
  test('valid', () => {
    expect(decodeContinueToken(token('meta.k8s.io/v1', 1, 'key'), '/test/')).toEqual({ startKey: '/test/key', rv: 1n });
  });
  test('root path', () => {
    expect(decodeContinueToken(token('meta.k8s.io/v1', 1, '/'), '/test/')).toEqual({ startKey: '/test/', rv: 1n });
  });
  test('all-namespaces start key with NUL', () => {
    expect(decodeContinueToken(token('meta.k8s.io/v1', 7, 'ns/name\u0000'), '/registry/secrets/')).toEqual({
      startKey: '/registry/secrets/ns/name\u0000',
      rv: 7n,
    });
  });
  test('rv -1 (continue at latest) is accepted', () => {
    expect(decodeContinueToken(token('meta.k8s.io/v1', -1, 'a'), '/test/').rv).toBe(-1n);
  });

  const p = 'invalid continue token: continue key is not valid';
  test.each([
    ['empty version', token('', 1, 'key'), `${p}: server does not recognize this encoded version `],
    ['invalid version', token('v1', 1, 'key'), `${p}: server does not recognize this encoded version v1`],
    ['invalid RV', token('meta.k8s.io/v1', 0, 'key'), `${p}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`],
    ['no start key', token('meta.k8s.io/v1', 1, ''), `${p}: encoded start key empty (version meta.k8s.io/v1)`],
    ['parent', token('meta.k8s.io/v1', 1, '../key'), `${p}: ../key`],
    ['local', token('meta.k8s.io/v1', 1, './key'), `${p}: ./key`],
    ['double parent', token('meta.k8s.io/v1', 1, './../key'), `${p}: ./../key`],
    ['after parent', token('meta.k8s.io/v1', 1, 'key/../..'), `${p}: key/../..`],
    ['trailing slash', token('meta.k8s.io/v1', 1, 'a/'), `${p}: a/`],
    ['double slash', token('meta.k8s.io/v1', 1, 'a//b'), `${p}: a//b`],
    ['bad base64 char', 'abc$', `${p}: illegal base64 data at input byte 3`],
    ['padding is not allowed', `${b64('{}')}==`, `${p}: illegal base64 data at input byte 3`],
    ['dangling base64 char', 'eyJ2I', `${p}: illegal base64 data at input byte 4`],
    ['not JSON', b64('hello'), `${p}: invalid character 'h' looking for beginning of value`],
    ['truncated JSON', b64('{"v":'), `${p}: unexpected end of JSON input`],
    ['trailing garbage', b64('{} x'), `${p}: invalid character 'x' after top-level value`],
    ['array', b64('[]'), `${p}: json: cannot unmarshal array into Go value of type storage.continueToken`],
    ['string rv', b64('{"v":"meta.k8s.io/v1","rv":"1","start":"a"}'), `${p}: json: cannot unmarshal string into Go struct field continueToken.rv of type int64`],
    ['fractional rv', b64('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'), `${p}: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64`],
    ['numeric start', b64('{"v":"meta.k8s.io/v1","rv":1,"start":5}'), `${p}: json: cannot unmarshal number into Go struct field continueToken.start of type string`],
    ['null', b64('null'), `${p}: server does not recognize this encoded version `],
  ])('%s', (_name, t, msg) => {
    expect(decodeError(t)).toBe(msg);
  });

  test('keys match case-insensitively and unknown keys are ignored, as in encoding/json', () => {
    const t = b64('{"V":"meta.k8s.io/v1","RV":3,"Start":"x","other":[1,{"a":null}]}');
    expect(decodeContinueToken(t, '/p/')).toEqual({ startKey: '/p/x', rv: 3n });
  });

  test('newlines inside base64 are skipped like Go', () => {
    const t = token('meta.k8s.io/v1', 1, 'key');
    expect(decodeContinueToken(`${t.slice(0, 5)}\n${t.slice(5)}`, '/test/').startKey).toBe('/test/key');
  });
});

describe('compacted continue token (410)', () => {
  test('inconsistent token keeps the start key and uses rv -1', () => {
    const t = inconsistentContinueToken('/registry/secrets/ns/b\u0000', '/registry/secrets/ns/');
    expect(Buffer.from(t, 'base64url').toString()).toBe('{"v":"meta.k8s.io/v1","rv":-1,"start":"b\\u0000"}');
  });

  test('continueExpiredError carries the fresh token', () => {
    const e = continueExpiredError('/registry/secrets/ns/b\u0000', '/registry/secrets/ns/');
    expect(e.code).toBe(410);
    expect(e.reason).toBe('Expired');
    expect(e.status.message).toBe(INCONSISTENT_CONTINUE_MESSAGE);
    expect(e.status.metadata.continue).toBe(inconsistentContinueToken('/registry/secrets/ns/b\u0000', '/registry/secrets/ns/'));
  });

  test('falls back to the short message when no token can be built', () => {
    const e = continueExpiredError('/elsewhere/x', '/registry/secrets/ns/');
    expect(e.status.message).toBe(CONTINUE_EXPIRED_MESSAGE);
    expect(e.status.metadata.continue).toBeUndefined();
  });
});
