/**
 * The watch cache's key index for ordered reads (lists, a watch's initial state): the keys of every
 * resource the cache holds (one cache serves them all), in etcd's order, in a B+ tree
 * (sorted-btree), so a write costs O(log n) whatever the number of objects and a read walks only
 * the keys under its prefix. A sorted array cost an O(n) move per create with 10⁵ objects, and
 * merging writes in lazily still cost O(n) whenever another resource was listed (ResourceQuota
 * admission lists a namespace's quotas on every create). Built on the first ordered read; until
 * then writes cost nothing.
 */
import BTree from 'sorted-btree';

/**
 * etcd orders keys by bytes. Keys here are built from DNS names (ASCII), where UTF-16 code-unit
 * order is byte order, so plain string comparison agrees with etcd.
 */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class SortedKeyIndex {
  private tree: BTree<string, undefined> | null = null;

  /** Forgets the index; the next read builds it from the cache's keys. */
  reset(): void {
    this.tree = null;
  }

  /**
   * The keys from `low` (included) up to `high` (excluded; undefined: to the end), in order.
   * `allKeys` is asked only when the index is built.
   */
  range(low: string, high: string | undefined, allKeys: () => Iterable<string>): string[] {
    const tree = (this.tree ??= new BTree<string, undefined>(
      Array.from(allKeys(), (k): [string, undefined] => [k, undefined]),
      compareKeys,
    ));
    const out: string[] = [];
    if (high === undefined) {
      for (const k of tree.keys(low)) out.push(k);
    } else {
      tree.forRange(low, high, false, (k) => void out.push(k));
    }
    return out;
  }

  /** A key new to the cache. */
  add(key: string): void {
    this.tree?.set(key, undefined);
  }

  /** A key gone from the cache. */
  remove(key: string): void {
    this.tree?.delete(key);
  }
}
