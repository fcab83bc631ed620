/**
 * The copies the write path makes key by key instead of by spread (V8 gives an object made by
 * spread, then extended, a hidden class of its own): they must be what the spread would give.
 */
import { copyWith, copyWithout, orderObjectMeta, type ObjectMeta } from '../../../src/api';

const meta = (): ObjectMeta & Record<string, unknown> => ({
  zeta: 'unknown first',
  labels: { a: 'b' },
  resourceVersion: '7',
  name: 'n',
  uid: 'u',
  alpha: 'unknown last',
});

describe('orderObjectMeta with a resourceVersion override', () => {
  test('is the order of the spread with the override', () => {
    for (const rv of ['42', undefined]) {
      const m = meta();
      const got = orderObjectMeta(m, { resourceVersion: rv });
      const spread = orderObjectMeta({ ...m, resourceVersion: rv });
      expect(JSON.stringify(got)).toBe(JSON.stringify(spread));
      expect(Object.keys(got)).toEqual(Object.keys(spread));
    }
    expect(Object.keys(orderObjectMeta(meta(), { resourceVersion: '42' }))).toEqual(['name', 'uid', 'resourceVersion', 'labels', 'zeta', 'alpha']);
    expect(Object.keys(orderObjectMeta(meta(), { resourceVersion: undefined }))).toEqual(['name', 'uid', 'labels', 'zeta', 'alpha']);
  });

  test('adds the override to metadata without one, and leaves the input alone', () => {
    const m = { name: 'n' };
    expect(orderObjectMeta(m, { resourceVersion: '3' })).toEqual({ name: 'n', resourceVersion: '3' });
    expect(m).toEqual({ name: 'n' });
  });

  test('without an override, known keys in Go order, unknown keys after, undefined values dropped', () => {
    const got = orderObjectMeta({ ...meta(), generation: undefined } as ObjectMeta);
    expect(Object.keys(got)).toEqual(['name', 'uid', 'resourceVersion', 'labels', 'zeta', 'alpha']);
  });
});

describe('copyWith and copyWithout', () => {
  test('are the spreads they stand for, key order included', () => {
    const o = { a: 1, metadata: { x: 1 }, b: 2 };
    expect(Object.entries(copyWith(o, 'metadata', 'm'))).toEqual(Object.entries({ ...o, metadata: 'm' }));
    expect(Object.entries(copyWith(o, 'c', 3))).toEqual(Object.entries({ ...o, c: 3 }));
    const { metadata: _m, ...rest } = o;
    expect(Object.entries(copyWithout(o, 'metadata'))).toEqual(Object.entries(rest));
    expect(o).toEqual({ a: 1, metadata: { x: 1 }, b: 2 });
  });

  test('keep an own __proto__ key a property, as spread does', () => {
    const o = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    for (const copy of [copyWith(o, 'b', 2), copyWithout(o, 'a')]) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(copy, '__proto__')).toBe(true);
      expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    }
  });
});
