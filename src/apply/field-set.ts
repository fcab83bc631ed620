/**
 * FieldSet: structured-merge-diff's fieldpath.Set — a trie of path elements. Each node holds its
 * members (paths that end here) and its children (subtrees), both sorted by comparePathElements.
 * Parents are not implied by children: `.data.a` does not make `.data` a member.
 */
import { FieldPath, PathElement, comparePathElements, pathString } from './path-element';

interface ChildNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/** Index of pe in a sorted array, or -(insertion point) - 1. */
function search<T>(items: readonly T[], pe: PathElement, key: (t: T) => PathElement): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = comparePathElements(key(items[mid] as T), pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}
const self = (pe: PathElement): PathElement => pe;
const nodePe = (n: ChildNode): PathElement => n.pe;

/**
 * A set of field paths. `insert` mutates (use it only on a set you built with `empty`/`of`);
 * every other operation returns a new set, which may share subtrees with its inputs.
 */
export class FieldSet {
  /**
   * True while members or children are out of order or hold duplicates: `insert` appends what does
   * not sort after the last element and the set is sorted once, on its next read (building a set
   * of n paths costs O(n log n), not the O(n²) of sorted insertion).
   */
  private unsorted = false;

  private constructor(
    private members: PathElement[],
    private children: ChildNode[],
  ) {}

  /** A new empty set. */
  static empty(): FieldSet {
    return new FieldSet([], []);
  }

  /** A new set holding the given paths. */
  static of(...paths: FieldPath[]): FieldSet {
    const s = FieldSet.empty();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (not its parents); the empty path is ignored (no one owns the whole object). */
  insert(path: FieldPath): this {
    if (path.length === 0) return this;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i] as PathElement);
    const last = path[path.length - 1] as PathElement;
    const members = node.members;
    const n = members.length;
    const c = n === 0 ? -1 : comparePathElements(members[n - 1] as PathElement, last);
    if (c === 0) return this;
    if (c > 0) {
      if (!node.unsorted && search(members, last, self) >= 0) return this;
      node.unsorted = true;
    }
    members.push(last);
    return this;
  }

  private descend(pe: PathElement): FieldSet {
    const children = this.children;
    const n = children.length;
    const lastChild = children[n - 1];
    const c = lastChild ? comparePathElements(lastChild.pe, pe) : -1;
    if (c === 0) return (lastChild as ChildNode).set;
    if (c > 0) {
      if (!this.unsorted) {
        const at = search(children, pe, nodePe);
        if (at >= 0) return (children[at] as ChildNode).set;
      }
      // Out of order: a second node for pe may be made; sorting merges them.
      this.unsorted = true;
    }
    const set = FieldSet.empty();
    children.push({ pe, set });
    return set;
  }

  /** Sorts what insert appended out of order, dropping duplicate members and merging duplicate children. */
  private sorted(): this {
    if (!this.unsorted) return this;
    this.unsorted = false;
    const members = this.members.sort(comparePathElements);
    let w = 0;
    for (let r = 0; r < members.length; r++) {
      if (w > 0 && comparePathElements(members[w - 1] as PathElement, members[r] as PathElement) === 0) continue;
      members[w++] = members[r] as PathElement;
    }
    members.length = w;
    const children = this.children.sort((a, b) => comparePathElements(a.pe, b.pe));
    w = 0;
    for (let r = 0; r < children.length; ) {
      const first = children[r] as ChildNode;
      let end = r + 1;
      while (end < children.length && comparePathElements(first.pe, (children[end] as ChildNode).pe) === 0) end++;
      if (end - r === 1) children[w++] = first;
      else {
        // Only insert makes duplicates, so these sets are all built by insert and not shared.
        const merged = FieldSet.empty();
        merged.unsorted = true;
        for (let k = r; k < end; k++) {
          const dup = (children[k] as ChildNode).set;
          for (const m of dup.members) merged.members.push(m);
          for (const ch of dup.children) merged.children.push(ch);
        }
        children[w++] = { pe: first.pe, set: merged };
      }
      r = end;
    }
    children.length = w;
    return this;
  }

  /** True when the path is a member. */
  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.child(path[i] as PathElement);
    return !!node && node.hasMember(path[path.length - 1] as PathElement);
  }

  /** True when the element is a member of this node. */
  hasMember(pe: PathElement): boolean {
    return search(this.sorted().members, pe, self) >= 0;
  }

  /** The subtree under pe, if any. */
  child(pe: PathElement): FieldSet | undefined {
    const at = search(this.sorted().children, pe, nodePe);
    return at >= 0 ? (this.sorted().children[at] as ChildNode).set : undefined;
  }

  /** The paths under pe with pe removed (smd WithPrefix); empty when none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? FieldSet.empty();
  }

  /** This node's members, sorted. */
  memberElements(): readonly PathElement[] {
    return this.sorted().members;
  }

  /** This node's children, sorted. */
  childEntries(): ReadonlyArray<{ readonly pe: PathElement; readonly set: FieldSet }> {
    return this.sorted().children;
  }

  /** True when no path is a member. */
  isEmpty(): boolean {
    return this.sorted().members.length === 0 && this.sorted().children.every((c) => c.set.isEmpty());
  }

  /** Number of member paths. */
  size(): number {
    return this.sorted().members.length + this.sorted().children.reduce((n, c) => n + c.set.size(), 0);
  }

  /** Paths in either set. */
  union(other: FieldSet): FieldSet {
    return new FieldSet(
      mergeSorted(this.sorted().members, other.sorted().members, self, 'union', (a) => a),
      mergeSorted(this.sorted().children, other.sorted().children, nodePe, 'union', (a, b) => (b ? { pe: a.pe, set: a.set.union(b.set) } : a)),
    );
  }

  /** Paths in both sets (leaf-wise, as smd: a parent member does not cover its children). */
  intersection(other: FieldSet): FieldSet {
    const children: ChildNode[] = [];
    for (const c of this.sorted().children) {
      const o = other.child(c.pe);
      if (!o) continue;
      const set = c.set.intersection(o);
      if (!set.isEmpty()) children.push({ pe: c.pe, set });
    }
    return new FieldSet(
      this.sorted().members.filter((m) => other.hasMember(m)),
      children,
    );
  }

  /** Paths in this set and not in other (a parent in other does not remove its children). */
  difference(other: FieldSet): FieldSet {
    const children: ChildNode[] = [];
    for (const c of this.sorted().children) {
      const o = other.child(c.pe);
      if (!o) {
        children.push(c);
        continue;
      }
      const set = c.set.difference(o);
      if (!set.isEmpty()) children.push({ pe: c.pe, set });
    }
    return new FieldSet(
      this.sorted().members.filter((m) => !other.hasMember(m)),
      children,
    );
  }

  /** Like difference, but a member of other also removes everything under it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const children: ChildNode[] = [];
    for (const c of this.sorted().children) {
      if (other.hasMember(c.pe)) continue;
      const o = other.child(c.pe);
      if (!o) {
        children.push(c);
        continue;
      }
      const set = c.set.recursiveDifference(o);
      if (!set.isEmpty()) children.push({ pe: c.pe, set });
    }
    return new FieldSet(
      this.sorted().members.filter((m) => !other.hasMember(m)),
      children,
    );
  }

  /** Only the members that have no member below them. */
  leaves(): FieldSet {
    return new FieldSet(
      this.sorted().members.filter((m) => !this.child(m)),
      this.sorted().children.map((c) => ({ pe: c.pe, set: c.set.leaves() })),
    );
  }

  /** True when both sets hold the same paths. */
  equals(other: FieldSet): boolean {
    const a = this.paths().map(pathString);
    const b = other.paths().map(pathString);
    return a.length === b.length && a.every((p, i) => p === b[i]);
  }

  /** Calls fn for each member path, in smd's order: a node's members, then its children (pre-order). */
  iterate(fn: (path: FieldPath) => void, prefix: FieldPath = []): void {
    for (const m of this.sorted().members) fn([...prefix, m]);
    for (const c of this.sorted().children) c.set.iterate(fn, [...prefix, c.pe]);
  }

  /** All member paths in iteration order. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    this.iterate((p) => out.push(p));
    return out;
  }

  /** One path string per line (smd Set.String). */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}

function mergeSorted<T>(
  a: readonly T[],
  b: readonly T[],
  key: (t: T) => PathElement,
  _op: 'union',
  combine: (x: T, y?: T) => T,
): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as T;
    const y = b[j] as T;
    const c = comparePathElements(key(x), key(y));
    if (c < 0) {
      out.push(combine(x));
      i++;
    } else if (c > 0) {
      out.push(y);
      j++;
    } else {
      out.push(combine(x, y));
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(combine(a[i++] as T));
  while (j < b.length) out.push(b[j++] as T);
  return out;
}
