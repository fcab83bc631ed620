/**
 * The watch cache (kube's Cacher), one per server: a Storage decorator that keeps every object under
 * the server's prefix in memory, fed by ONE etcd watch over the whole keyspace (so the cache knows
 * etcd's current revision exactly), with a bounded event history. Watches and the reads kube serves
 * from its cache are answered here; writes, continue/Exact lists and watches older than the
 * history go to etcd, which alone decides what is compacted (410). Two feature gates move reads
 * between the two as in kube 1.32 (CacherOptions): ConsistentListFromCache (consistent lists) and
 * WatchFromStorageWithoutResourceVersion (watches without a resourceVersion).
 */
import { markSharedItems, type KubeObject } from '../../api';
import { StorageError, tooLargeResourceVersionError, watchErrorStatus } from '../errors';
import { withRevision } from '../revision';
import { CorruptValue, corruptWatchError } from '../corrupt';
import type { EtcdStore } from '../etcd/etcd-store';
import type { FeedEvent } from '../etcd/etcd-feed';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  Storage,
  UpdateOptions,
  Watch,
  WatchOptions,
  WatchSink,
  WriteContext,
} from '../interface';
import { CacheWatcher } from './cache-watcher';
import { CacheEvent, EventHistory, type ToldEvents } from './history';
import { SortedKeyIndex, compareKeys } from './sorted-key-index';

export interface CacherOptions {
  /** The etcd store every write and every delegated read goes to. */
  etcd: EtcdStore;
  /** The server's key prefix (e.g. /registry): only keys below it are cached. */
  prefix: string;
  /** History bounds (kube keeps ~75 s, at most 102400 events per resource). */
  historyWindowMs?: number;
  maxHistoryEvents?: number;
  /** How long a read or watch at a revision the cache has not reached waits (kube: 3 s). */
  futureRevisionWaitMs?: number;
  /** Interval of BOOKMARK events to watchers that allow them (kube: 1 min). */
  bookmarkIntervalMs?: number;
  /** Called when the cache relists after its etcd watch broke. */
  onRestart?: (reason: unknown) => void;
  /**
   * Gate ConsistentListFromCache (kube 1.32: beta, on; default true). On: a list with
   * resourceVersion unset is served here once the cache has reached etcd's current revision, its
   * limit honoured; when it cannot within futureRevisionWaitMs the list goes to etcd (kube's
   * fallback). Off: such lists go to etcd (kube's shouldDelegateList). kube also requires etcd's
   * progress notifications for it; this cache follows the whole keyspace and knows etcd's
   * revision without them, so it behaves as kube does on an etcd that supports them.
   */
  consistentListFromCache?: boolean;
  /**
   * Gate WatchFromStorageWithoutResourceVersion (kube 1.32: beta, off; default false). On: a legacy
   * watch (no resourceVersion, no sendInitialEvents: WatchOptions.withoutResourceVersion) goes to
   * etcd instead of starting from the cache's current state.
   */
  watchFromStorageWithoutResourceVersion?: boolean;
}

const initialListPageSize = 10000;

export class Cacher implements Storage {
  private readonly objects = new Map<string, KubeObject>();
  /**
   * Keys whose stored value cannot be read back (see ../corrupt.ts). They are not in `objects`:
   * reads that would include them go to etcd, which answers with kube's errors, and watchers of
   * them end with an ERROR. The cache itself stays up for every other key.
   */
  private corrupt = new Map<string, CorruptValue>();
  /** The keys of `corrupt`, sorted: an etcd holding many (e.g. kinds this server cannot read) keeps reads cheap. */
  private corruptKeys: string[] = [];
  /** The keys in etcd's order, for lists and a watch's initial state (sorted-key-index.ts). */
  private readonly keyIndex = new SortedKeyIndex();
  private history: EventHistory;
  private revision = 0n;
  private readonly watchers = new Set<CacheWatcher>();
  private waiters: Array<{ revision: bigint; resolve: () => void }> = [];
  private feed?: { stop(): void };
  private readyPromise: Promise<void>;
  /** False until the initial list is loaded (and again while relisting): reads then go to etcd. */
  private isReady = false;
  private stopped = false;
  private readonly bookmarkTimer: NodeJS.Timeout;
  private readonly keyPrefix: string;

  constructor(private readonly opts: CacherOptions) {
    this.keyPrefix = opts.prefix.endsWith('/') ? opts.prefix : `${opts.prefix}/`;
    this.history = new EventHistory(0n, opts.maxHistoryEvents ?? 102400, opts.historyWindowMs ?? 75_000);
    this.readyPromise = this.initialize();
    this.bookmarkTimer = setInterval(() => this.sendBookmarks(), opts.bookmarkIntervalMs ?? 60_000);
    this.bookmarkTimer.unref();
  }

  /** Resolves once the initial list is loaded and the feed runs. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  // ---- writes go to etcd; the feed brings them back into the cache ----

  create(key: string, obj: KubeObject, o?: CreateOptions): Promise<KubeObject> {
    return this.opts.etcd.create(key, obj, o);
  }

  /** kube's cacher: the cached object is the update's first guess (one etcd round trip when it is current). */
  guaranteedUpdate(key: string, o: UpdateOptions): Promise<{ object: KubeObject; created: boolean }> {
    const cached = this.isReady && key.startsWith(this.keyPrefix) ? this.objects.get(key) : undefined;
    // Object.assign, not a spread: V8 gives an object spread, then extended, a hidden class of its own.
    return this.opts.etcd.guaranteedUpdate(key, cached ? Object.assign({}, o, { cachedExisting: cached }) : o);
  }

  delete(key: string, o?: DeleteOptions): Promise<KubeObject> {
    return this.opts.etcd.delete(key, o);
  }

  deleteIgnoringReadError(key: string, o?: { ctx?: WriteContext }): Promise<boolean> {
    return this.opts.etcd.deleteIgnoringReadError(key, o);
  }

  currentRevision(): Promise<bigint> {
    return this.opts.etcd.currentRevision();
  }

  ping(timeoutMs?: number): Promise<boolean> {
    return this.opts.etcd.ping(timeoutMs);
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.bookmarkTimer);
    this.feed?.stop();
    for (const w of this.watchers) w.close();
    this.watchers.clear();
    await this.opts.etcd.close();
  }

  // ---- reads ----

  async get(key: string, o: GetOptions = {}): Promise<KubeObject> {
    const c = o.consistency ?? { kind: 'latest' };
    // kube: a get with resourceVersion unset is a quorum read from etcd.
    if (c.kind === 'latest' || !key.startsWith(this.keyPrefix) || !this.isReady) return this.opts.etcd.get(key, o);
    if (c.kind === 'notOlderThan') await this.waitForRevision(key, c.revision);
    // etcd answers a read of a value that cannot be read back with kube's error.
    if (this.corrupt.has(key)) return this.opts.etcd.get(key, o);
    const obj = this.objects.get(key);
    if (!obj) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
    return obj;
  }

  async list(prefix: string, o: ListOptions): Promise<ListResult> {
    const c = o.consistency ?? { kind: 'latest' };
    // kube's shouldDelegateList: continuations and Exact go to etcd, and so does a consistent list
    // while ConsistentListFromCache is off.
    const delegate =
      o.startKey !== undefined ||
      o.exactRevision !== undefined ||
      (c.kind === 'latest' && !(this.opts.consistentListFromCache ?? true)) ||
      !prefix.startsWith(this.keyPrefix) ||
      !this.isReady;
    if (delegate) return this.opts.etcd.list(prefix, o);
    if (c.kind === 'notOlderThan') await this.waitForRevision(prefix, c.revision);
    if (c.kind === 'latest' && !(await this.catchUpWithEtcd())) return this.opts.etcd.list(prefix, o);
    // etcd answers a list that meets a value that cannot be read back with kube's error.
    if (this.corruptUnder(prefix) !== undefined) return this.opts.etcd.list(prefix, o);
    // kube's computeListLimit: RV=0 lists from the cache ignore limit; consistent and not-older-than ones are paged.
    const limit = c.kind === 'any' ? 0 : o.limit;
    const keys = this.keysWithPrefix(prefix);
    const items: KubeObject[] = [];
    let lastKey: string | undefined;
    let more = false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const obj = this.objects.get(key) as KubeObject;
      if (!o.predicate || o.predicate(obj)) {
        items.push(obj);
        lastKey = key;
      }
      if (limit > 0 && items.length >= limit) {
        // As kube's cacher: more when any key (matching or not) follows.
        more = i < keys.length - 1;
        break;
      }
    }
    // The items are the cache's own immutable values: encoders may memoise them per object.
    const result: ListResult = { items: markSharedItems(items), revision: this.revision };
    if (more && lastKey !== undefined) {
      result.continueKey = lastKey;
      // kube's PrepareContinueToken: the keys under the prefix less the limit, only without selectors.
      if (!o.hasSelector) result.remainingItemCount = keys.length - limit;
    }
    return result;
  }

  watch(prefix: string, o: WatchOptions, sink: WatchSink): Watch {
    // kube's cacher hands a legacy watch to etcd under WatchFromStorageWithoutResourceVersion.
    if (o.withoutResourceVersion && this.opts.watchFromStorageWithoutResourceVersion) return this.opts.etcd.watch(prefix, o, sink);
    const w = new CacheWatcher(prefix, !!o.exactKey, o.predicate, sink, !!o.bookmarks);
    let delegated: Watch | undefined;
    void this.startWatch(w, o, sink).then(
      (d) => {
        delegated = d;
        if (w.stopped) d?.stop();
      },
      (err) => w.error(watchErrorStatus(err)),
    );
    return {
      stop: () => {
        w.stopped = true;
        this.watchers.delete(w);
        delegated?.stop();
      },
      requestBookmark: () => {
        if (delegated) delegated.requestBookmark?.();
        // Only to a watch that allows bookmarks, as kube (and the etcd path) does.
        else if (this.watchers.has(w) && w.bookmarks) w.bookmark(this.revision);
      },
    };
  }

  private async startWatch(w: CacheWatcher, o: WatchOptions, sink: WatchSink): Promise<Watch | undefined> {
    if (!this.isReady) return this.opts.etcd.watch(w.prefix, o, sink);
    const start = o.start;
    if (start.kind === 'after') {
      if (start.revision > this.revision) await this.waitForRevision(w.prefix, start.revision);
      if (w.stopped) return undefined;
      // Older than the history window: etcd replays it (or answers 410 if compacted).
      if (!this.history.covers(start.revision)) return this.opts.etcd.watch(w.prefix, o, sink);
      // The cache never serves history etcd no longer holds: a compacted start is 410 as from etcd.
      if (start.revision < this.revision) await this.opts.etcd.assertRevisionAvailable(start.revision + 1n);
      if (w.stopped) return undefined;
      for (const e of this.history.after(start.revision)) w.deliver(e);
      this.watchers.add(w);
      return undefined;
    }
    const c = start.consistency;
    if (c.kind === 'notOlderThan') await this.waitForRevision(w.prefix, c.revision);
    // A consistent watch from a cache that cannot catch up: ERROR 504 naming etcd's revision. A
    // legacy watch (no resourceVersion, no sendInitialEvents) starts from the cache's current
    // state unconfirmed, as kube's cacher does (getWatchCacheResourceVersion's legacy case).
    if (c.kind === 'latest' && !o.withoutResourceVersion) await this.waitForRevision(w.prefix, await this.opts.etcd.currentRevision());
    if (w.stopped) return undefined;
    // kube's etcd3 watcher: a state it cannot read ends the watch with an ERROR.
    const corrupt = w.exactKey ? this.corrupt.get(w.prefix) : this.corruptUnder(w.prefix);
    if (corrupt) {
      w.error(watchErrorStatus(corruptWatchError(corrupt, false, this.opts.etcd.corruptErrors)));
      return undefined;
    }
    // No await from here on: the state and the live stream join at exactly this.revision.
    for (const key of w.exactKey ? [w.prefix].filter((k) => this.objects.has(k)) : this.keysWithPrefix(w.prefix)) {
      w.added(this.objects.get(key) as KubeObject);
    }
    if (o.initialEventsEndBookmark) w.bookmark(this.revision, { 'k8s.io/initial-events-end': 'true' });
    this.watchers.add(w);
    return undefined;
  }

  // ---- the feed ----

  private async initialize(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      try {
        await this.loadAndFollow();
        return;
      } catch {
        // etcd not reachable yet: try again shortly (reads fall back to etcd meanwhile).
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async loadAndFollow(): Promise<void> {
    const objects = new Map<string, KubeObject>();
    const corrupt = new Map<string, CorruptValue>();
    let startKey: string | undefined;
    let revision: bigint | undefined;
    for (;;) {
      const page = await this.opts.etcd.listEntries(this.keyPrefix, { limit: initialListPageSize, startKey, revision });
      revision = page.revision;
      for (const e of page.entries) {
        if (e.object instanceof CorruptValue) corrupt.set(e.key, e.object);
        else objects.set(e.key, e.object);
      }
      if (!page.more) break;
      startKey = `${page.entries[page.entries.length - 1]?.key ?? ''}\x00`;
    }
    this.objects.clear();
    for (const [k, v] of objects) this.objects.set(k, v);
    this.corrupt = corrupt;
    this.corruptKeys = [...corrupt.keys()].sort(compareKeys);
    this.keyIndex.reset();
    this.revision = revision;
    this.history = new EventHistory(revision, this.opts.maxHistoryEvents ?? 102400, this.opts.historyWindowMs ?? 75_000);
    this.feed = this.opts.etcd.feed(this.keyPrefix, revision, {
      events: (events, newest) => this.apply(events, newest),
      failed: (err) => this.restart(err),
    });
    this.isReady = true;
  }

  /** The feed broke (e.g. compacted while etcd was away): drop watchers (they re-watch or relist) and reload. */
  private restart(reason: unknown): void {
    if (this.stopped) return;
    this.opts.onRestart?.(reason);
    this.isReady = false;
    for (const w of this.watchers) w.close();
    this.watchers.clear();
    this.readyPromise = this.initialize();
  }

  private apply(events: FeedEvent[], newest: bigint): void {
    const now = Date.now();
    for (const ev of events) {
      const e = this.change(ev, now);
      if (!e) continue;
      this.history.push(e);
      for (const w of this.watchers) {
        w.deliver(e);
        if (w.stopped) this.watchers.delete(w);
      }
    }
    if (newest > this.revision) this.revision = newest;
    this.history.trim(now);
    this.releaseWaiters();
  }

  /** Applies one feed event to the cache; returns what watchers are told (nothing for a key never held). */
  private change(ev: FeedEvent, now: number): CacheEvent | undefined {
    const last = this.objects.get(ev.key);
    const lastCorrupt = this.corrupt.get(ev.key);
    if (ev.type === 'PUT' && ev.object instanceof CorruptValue) {
      if (last) {
        this.objects.delete(ev.key);
        this.removeSortedKey(ev.key);
      }
      if (!lastCorrupt) this.corruptKeys.splice(lowerBoundIn(this.corruptKeys, ev.key), 0, ev.key);
      this.corrupt.set(ev.key, ev.object);
      return this.corruptEvent(ev.object, false, now);
    }
    if (lastCorrupt) {
      this.corrupt.delete(ev.key);
      this.corruptKeys.splice(lowerBoundIn(this.corruptKeys, ev.key), 1);
    }
    if (ev.type === 'PUT') {
      const object = ev.object as KubeObject;
      if (!last) this.insertSortedKey(ev.key);
      this.objects.set(ev.key, object);
      return { type: 'PUT', key: ev.key, revision: ev.revision, object, prev: last, at: now, told: noneTold() };
    }
    // The deletion of a value that could not be read: kube's watcher cannot tell its last state.
    if (lastCorrupt) return this.corruptEvent(new CorruptValue(ev.key, ev.revision, lastCorrupt.step, lastCorrupt.cause), true, now);
    // A key the cache never held (deleted before it was loaded) has nothing to tell watchers.
    if (!last) return undefined;
    this.objects.delete(ev.key);
    this.removeSortedKey(ev.key);
    // The last state, stamped with the delete's revision (kube's watch cache does the same).
    return { type: 'DELETE', key: ev.key, revision: ev.revision, object: withRevision(last, ev.revision), at: now, told: noneTold() };
  }

  private corruptEvent(c: CorruptValue, deleted: boolean, now: number): CacheEvent {
    const status = watchErrorStatus(corruptWatchError(c, deleted, this.opts.etcd.corruptErrors));
    return { type: 'CORRUPT', key: c.key, revision: c.revision, status, at: now };
  }

  /** The first corrupt value under `prefix`, if any. */
  private corruptUnder(prefix: string): CorruptValue | undefined {
    const key = this.corruptKeys[lowerBoundIn(this.corruptKeys, prefix)];
    return key !== undefined && key.startsWith(prefix) ? this.corrupt.get(key) : undefined;
  }

  private sendBookmarks(): void {
    for (const w of this.watchers) if (w.bookmarks) w.bookmark(this.revision);
  }

  // ---- freshness ----

  private releaseWaiters(): void {
    if (!this.waiters.length) return;
    const still: typeof this.waiters = [];
    for (const wt of this.waiters) (wt.revision <= this.revision ? wt.resolve() : still.push(wt));
    this.waiters = still;
  }

  /**
   * kube's waitUntilFreshAndBlock: waits until the cache has applied `revision`, else
   * TooLargeResourceVersion naming the cache's revision, retry 1 (504 + Retry-After / ERROR event).
   */
  private async waitForRevision(key: string, revision: bigint): Promise<void> {
    if (revision <= this.revision) return;
    const reached = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, this.opts.futureRevisionWaitMs ?? 3000);
      const waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiters.push(waiter);
    });
    if (!reached) throw tooLargeResourceVersionError(key, revision, this.revision, 1);
  }

  /** A consistent read from the cache first confirms it has caught up with etcd's current revision. */
  private async catchUpWithEtcd(): Promise<boolean> {
    const current = await this.opts.etcd.currentRevision();
    try {
      await this.waitForRevision('', current);
      return true;
    } catch {
      return false;
    }
  }

  private insertSortedKey(key: string): void {
    this.keyIndex.add(key);
  }

  private removeSortedKey(key: string): void {
    this.keyIndex.remove(key);
  }

  /** The keys under `prefix`, in order: the range [prefix, prefixEnd) of the key index. */
  private keysWithPrefix(prefix: string): string[] {
    return this.keyIndex.range(prefix, keyPrefixEnd(prefix), () => this.objects.keys());
  }
}

/** An event's ToldEvents before any watcher is told (every field present: one hidden class). */
function noneTold(): ToldEvents {
  return { added: undefined, modified: undefined, deleted: undefined };
}

/** The position in sorted `keys` of the first key not less than `key`. */
function lowerBoundIn(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keys[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The least string above every string starting with `prefix` (its last code unit plus one, as
 * etcd's prefix range end); undefined when there is none.
 */
function keyPrefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xffff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
  }
  return undefined;
}
