/**
 * Read-only views of a local copy of one resource (client-go's cache.Indexer and listers), and the
 * in-memory indexed store behind them (client-go's threadSafeStore). Admission plugins and
 * authorizers, which may import only `api`, depend on the `Lister` / `Indexer` interfaces; the
 * informer that fills the store from the registry's watch lives in `controllers/informer.ts`.
 *
 * Objects handed out are SHARED: with the store, with every other reader and (through the watch
 * cache) with every watcher of the server. Callers must not mutate them, nor anything reachable
 * from them; copy first (`cloneJson`) to change one. The arrays returned are fresh and the
 * caller's to keep or sort. Lookups never do I/O.
 */
import { LabelSelector, parseLabelSelector } from './labels';
import type { KubeObject } from './types';

/** Values an object is indexed under (client-go's IndexFunc). Must be pure: same object, same values. */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => readonly string[];

/** Named index functions (client-go's Indexers). */
export type Indexers<T extends KubeObject = KubeObject> = Readonly<Record<string, IndexFunc<T>>>;

/** The index every store keeps: an object's namespace ("" when cluster-scoped). client-go's NamespaceIndex. */
export const NAMESPACE_INDEX = 'namespace';

/** client-go's MetaNamespaceIndexFunc. */
export const namespaceIndexFunc: IndexFunc = (obj) => [obj.metadata.namespace ?? ''];

/** The store key of an object (client-go's MetaNamespaceKeyFunc): `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(namespace: string | undefined, name: string | undefined): string {
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** A label selector: parsed, or as a query string (`app=web,tier!=db`), parsed on every call. */
export type ListSelector = LabelSelector | string;

/** Read access to a synced local copy of one resource. */
export interface Lister<T extends KubeObject = KubeObject> {
  /** The object, or undefined. Cluster-scoped objects: namespace "". Shared: do not mutate. */
  get(namespace: string, name: string): T | undefined;
  /** The object under `objectKey(namespace, name)`, or undefined. */
  getByKey(key: string): T | undefined;
  /** Every object (matching the label selector), in no particular order. */
  list(selector?: ListSelector): T[];
  /** The objects of one namespace (every namespace when ""), through the namespace index. */
  listInNamespace(namespace: string, selector?: ListSelector): T[];
  /**
   * True once the copy holds a complete list (and from then on, also while it relists or its
   * watch reconnects). Before that, reads answer from a partial or empty copy: a plugin should
   * refuse (or fall back) rather than decide on it.
   */
  hasSynced(): boolean;
  /** The number of objects held. */
  readonly size: number;
}

/** A Lister with named indexes (client-go's Indexer, read side). */
export interface Indexer<T extends KubeObject = KubeObject> extends Lister<T> {
  /** The objects indexed under `value` by `indexName`. Throws for an index that does not exist. */
  byIndex(indexName: string, value: string): T[];
  /** Their keys. Throws for an index that does not exist. */
  indexKeys(indexName: string, value: string): string[];
  /** Every value the index holds at least one object under. Throws for an index that does not exist. */
  indexValues(indexName: string): string[];
  /** The names of the indexes (the namespace index included). */
  indexNames(): string[];
}

/** What a replace (relist) changed. */
export interface ReplaceResult<T> {
  added: T[];
  /** [previous, current] pairs whose resourceVersion changed. */
  updated: Array<[T, T]>;
  /** Objects no longer present (their last known state). */
  deleted: T[];
}

export interface IndexedStoreOptions {
  /** Told of an index function that threw (the object is then indexed under no value of that index). */
  onError?: (err: unknown) => void;
}

function toSelector(s: ListSelector | undefined): LabelSelector | undefined {
  if (s === undefined) return undefined;
  const sel = typeof s === 'string' ? parseLabelSelector(s) : s;
  return sel.empty ? undefined : sel;
}

function noIndex(name: string): Error {
  return new Error(`index with name ${name} does not exist`);
}

/**
 * The local copy: objects by key, the namespace index and any number of named indexes, each a map
 * value → keys kept up to date on every add, update and delete (an update moves the key only
 * between the values that changed). Index values of the stored (immutable) object are recomputed
 * to remove it, as client-go does, so index functions must be pure.
 */
export class IndexedStore<T extends KubeObject = KubeObject> implements Indexer<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** indexName → value → keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private synced = false;

  constructor(indexers: Indexers<T> = {}, private readonly opts: IndexedStoreOptions = {}) {
    this.addIndexers({ [NAMESPACE_INDEX]: namespaceIndexFunc as IndexFunc<T>, ...indexers });
  }

  /** A synced store holding `items` (for tests of plugins, and for fixed data). */
  static of<U extends KubeObject>(items: readonly U[], indexers: Indexers<U> = {}): IndexedStore<U> {
    const s = new IndexedStore<U>(indexers);
    s.replace(items);
    return s;
  }

  get size(): number {
    return this.items.size;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Adds indexes, computed at once over the objects held. Adding a name again with the same
   * function does nothing; with another function throws (client-go refuses to redefine an index).
   */
  addIndexers(indexers: Indexers<T>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      const existing = this.indexers.get(name);
      if (existing === fn) continue;
      if (existing) throw new Error(`indexer conflict: ${name}`);
      this.indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const v of this.valuesOf(fn, obj)) addTo(index, v, key);
    }
  }

  // ---- reads ----

  get(namespace: string, name: string): T | undefined {
    return this.items.get(objectKey(namespace, name));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  list(selector?: ListSelector): T[] {
    const sel = toSelector(selector);
    const out: T[] = [];
    for (const obj of this.items.values()) if (!sel || sel.matches(obj.metadata.labels)) out.push(obj);
    return out;
  }

  listInNamespace(namespace: string, selector?: ListSelector): T[] {
    if (namespace === '') return this.list(selector);
    const sel = toSelector(selector);
    const out: T[] = [];
    for (const key of this.bucket(NAMESPACE_INDEX, namespace) ?? []) {
      const obj = this.items.get(key);
      if (obj && (!sel || sel.matches(obj.metadata.labels))) out.push(obj);
    }
    return out;
  }

  byIndex(indexName: string, value: string): T[] {
    const out: T[] = [];
    for (const key of this.bucket(indexName, value) ?? []) {
      const obj = this.items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  indexKeys(indexName: string, value: string): string[] {
    return [...(this.bucket(indexName, value) ?? [])];
  }

  indexValues(indexName: string): string[] {
    const index = this.indices.get(indexName);
    if (!index) throw noIndex(indexName);
    return [...index.keys()];
  }

  indexNames(): string[] {
    return [...this.indexers.keys()];
  }

  // ---- writes (the informer's) ----

  /** Adds or replaces the object under its key; returns the previous one. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name);
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.reindex(key, old, obj);
    return old;
  }

  /** Removes the object under `key`; returns it (undefined when absent). */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.items.delete(key);
    this.reindex(key, old, undefined);
    return old;
  }

  /**
   * Makes the store hold exactly `items` (a relist) and marks it synced. An object whose
   * resourceVersion is unchanged keeps its stored instance and is not reported.
   */
  replace(items: readonly T[]): ReplaceResult<T> {
    const result: ReplaceResult<T> = { added: [], updated: [], deleted: [] };
    const incoming = new Map<string, T>();
    for (const obj of items) incoming.set(objectKey(obj.metadata.namespace, obj.metadata.name), obj);
    for (const key of [...this.items.keys()]) {
      if (incoming.has(key)) continue;
      const old = this.delete(key);
      if (old) result.deleted.push(old);
    }
    for (const [key, obj] of incoming) {
      const old = this.items.get(key);
      if (old === undefined) {
        this.upsert(obj);
        result.added.push(obj);
      } else if (old !== obj && (old.metadata.resourceVersion === undefined || old.metadata.resourceVersion !== obj.metadata.resourceVersion)) {
        this.upsert(obj);
        result.updated.push([old, obj]);
      }
    }
    this.synced = true;
    return result;
  }

  // ---- indexing ----

  private bucket(indexName: string, value: string): Set<string> | undefined {
    const index = this.indices.get(indexName);
    if (!index) throw noIndex(indexName);
    return index.get(value);
  }

  private valuesOf(fn: IndexFunc<T>, obj: T): readonly string[] {
    try {
      return fn(obj);
    } catch (e) {
      try {
        this.opts.onError?.(e);
      } catch {
        // an error reporter that throws must not break the store
      }
      return [];
    }
  }

  /** Moves `key` from the values of `old` to those of `cur` in every index (only what changed). */
  private reindex(key: string, old: T | undefined, cur: T | undefined): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name) as Map<string, Set<string>>;
      const before = old ? this.valuesOf(fn, old) : [];
      const after = cur ? this.valuesOf(fn, cur) : [];
      // The common case (the same values, e.g. the namespace) touches nothing.
      if (sameValues(before, after)) continue;
      for (const v of before) if (!after.includes(v)) removeFrom(index, v, key);
      for (const v of after) addTo(index, v, key);
    }
  }
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}

function removeFrom(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(value);
}
