import { SortedKeyIndex, mergeSortedKeys } from '../../../src/storage/cache/sorted-key-index';

describe('the watch cache key index', () => {
  test('merges removed and added keys into the sorted keys', () => {
    expect(mergeSortedKeys(['/a', '/c', '/e'], new Set(['/c']), ['/b', '/d', '/f'])).toEqual(['/a', '/b', '/d', '/e', '/f']);
    expect(mergeSortedKeys([], new Set(), ['/a'])).toEqual(['/a']);
    expect(mergeSortedKeys(['/a'], new Set(['/a']), [])).toEqual([]);
  });

  test('agrees with a sort of the live keys after any sequence of adds, removes and reads', () => {
    // A seeded generator: the same sequence every run.
    let seed = 12345;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const live = new Set<string>();
    const index = new SortedKeyIndex();
    const read = () => [...index.sorted(() => live.keys())];
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
        expect(read()).toEqual([...live].sort());
      }
      if (step === 10_000) index.reset();
    }
    expect(read()).toEqual([...live].sort());
  });

  test('before the first ordered read, writes cost nothing and the first read sorts what is there', () => {
    const index = new SortedKeyIndex();
    index.add('/b');
    index.remove('/zz');
    expect(index.sorted(() => ['/c', '/a'])).toEqual(['/a', '/c']);
  });
});
