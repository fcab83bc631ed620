/**
 * JSON nesting depth (kube-limits §5): Go's decoders stop at 10000 levels; every walker over client
 * data must hold at that depth without overflowing Node's stack.
 */
import { MAX_JSON_DEPTH, JsonDepthError, cloneJson, equalJson, jsonDepthError, jsonValueDepth, keyCountOf, parseJsonBounded, scanJson, stringifyJson } from '../../../src/api';
import { decodeContinueToken } from '../../../src/api/continue-token';

const arr = (d: number): string => '['.repeat(d) + ']'.repeat(d);
const obj = (d: number): string => '{"a":'.repeat(d) + '1' + '}'.repeat(d);
const deep = (d: number): unknown => JSON.parse(obj(d));

describe('scanJson / parseJsonBounded', () => {
  test.each([
    ['[', arr],
    ['{', obj],
  ] as const)('%s: 10000 levels pass, the 10001st fails with Go\'s text', (bracket, f) => {
    expect(MAX_JSON_DEPTH).toBe(10000);
    expect(jsonDepthError(f(9999))).toBeUndefined();
    expect(jsonDepthError(f(10000))).toBeUndefined();
    expect(jsonDepthError(f(10001))).toBe(`invalid character '${bracket}' exceeded max depth`);
    expect(() => parseJsonBounded(f(10001))).toThrow(new JsonDepthError(`invalid character '${bracket}' exceeded max depth`));
    expect(jsonValueDepth(parseJsonBounded(f(10000)))).toBe(10000);
  });

  test('brackets and colons inside strings do not count', () => {
    const text = `{"k":"${'[{:'.repeat(20000)}","e":"\\"[:"}`;
    expect(scanJson(text)).toEqual({ depth: 1, keys: 2 });
  });

  test('the key count is remembered for the parse result', () => {
    const v = parseJsonBounded('{"a":{"b":1,"b":2},"c":[{"d":1}]}');
    expect(keyCountOf(v)).toBe(5);
    expect(keyCountOf({})).toBeUndefined();
  });

  test('a 3 MiB body is scanned in one linear pass (well under 2 s)', () => {
    const body = `{"k":[${'{"a":"x:y","b":[1,2,{"c":null}]},'.repeat(90000)}1]}`;
    const t0 = performance.now();
    scanJson(body);
    // 20-100 ms on a loaded 2-core machine (JSON.parse of the same body: 90-170 ms); a scan that
    // were not linear would take hours. 2 s is far from both, so load cannot flip it.
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('cloneJson, stringifyJson, equalJson at any depth', () => {
  test.each([10000, 100000])('depth %i', (d) => {
    for (const text of [obj(d), arr(d)]) {
      const v = JSON.parse(text) as unknown;
      const c = cloneJson(v);
      expect(c).not.toBe(v);
      expect(stringifyJson(c)).toBe(text);
      expect(equalJson(v, c)).toBe(true);
      expect(jsonValueDepth(c)).toBe(d);
    }
    expect(equalJson(deep(d), JSON.parse(obj(d).replace('1}', '2}')))).toBe(false);
  });

  test('stringifyJson matches JSON.stringify on shallow values', () => {
    const v = { a: [1, 'x', null, true, { b: undefined, c: 1.5 }], __proto__x: {}, 'q"': [[]] };
    expect(stringifyJson(v)).toBe(JSON.stringify(v));
  });

  test('a __proto__ key is copied as a plain key at every depth', () => {
    const text = '{"__proto__":'.repeat(600) + '{"x":1}' + '}'.repeat(600);
    const c = cloneJson(JSON.parse(text) as unknown);
    expect(stringifyJson(c)).toBe(text);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
  });
});

describe('continue tokens nested deeply', () => {
  const token = (json: string): string => Buffer.from(json).toString('base64url');
  test('10000 levels decode (type error), the 10001st is Go\'s depth error', () => {
    expect(() => decodeContinueToken(token(arr(10000)), '/registry/')).toThrow(
      'invalid continue token: continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken',
    );
    expect(() => decodeContinueToken(token(`{"v":${obj(9999)}}`), '/registry/')).toThrow(
      'continue key is not valid: json: cannot unmarshal object into Go struct field continueToken.v of type string',
    );
    expect(() => decodeContinueToken(token(arr(10001)), '/registry/')).toThrow(
      "invalid continue token: continue key is not valid: invalid character '[' exceeded max depth",
    );
    expect(() => decodeContinueToken(token(`[${arr(50000)}`), '/registry/')).toThrow("invalid character '[' exceeded max depth");
  });
});
