import { SortedKeyIndex } from '../../../src/storage/cache/sorted-key-index';

describe('the watch cache key index', () => {
  test('agrees with a sort of the live keys after any sequence of adds, removes and range reads', () => {
    // A seeded generator: the same sequence every run.
    let seed = 12345;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const live = new Set<string>();
    const index = new SortedKeyIndex();
    const range = (low: string, high: string | undefined) => index.range(low, high, () => live.keys());
    const expected = (low: string, high: string | undefined) => [...live].sort().filter((k) => k >= low && (high === undefined || k < high));
    for (let step = 0; step < 20_000; step++) {
      const key = `/registry/secrets/ns${next(3)}/s-${next(200)}`;
      const op = next(10);
      if (op < 5 && !live.has(key)) {
        live.add(key);
        index.add(key);
      } else if (op < 9 && live.has(key)) {
        live.delete(key);
        index.remove(key);
      } else if (op === 9) {
        const ns = `/registry/secrets/ns${next(3)}/`;
        expect(range(ns, `${ns.slice(0, -1)}0`)).toEqual(expected(ns, `${ns.slice(0, -1)}0`));
        expect(range('/registry/', undefined)).toEqual(expected('/registry/', undefined));
      }
      if (step === 10_000) index.reset();
    }
    expect(range('', undefined)).toEqual([...live].sort());
  });

  test('before the first read, writes cost nothing and the first read sorts what is there', () => {
    const index = new SortedKeyIndex();
    index.add('/b');
    index.remove('/zz');
    expect(index.range('/', undefined, () => ['/c', '/a'])).toEqual(['/a', '/c']);
    expect(index.range('/a', '/c', () => [])).toEqual(['/a']);
  });
});
