/**
 * An informer (client-go's SharedIndexInformer, run in-process): lists one resource through the
 * registry, then watches it from the list's resourceVersion, keeping an `IndexedStore` (objects by
 * key, the namespace index, named indexes) that plugins and controllers read on every request
 * without any I/O. Controllers get add/update/delete callbacks.
 *
 * Sync and recovery (client-go's Reflector):
 * - start: a consistent list (served by the watch cache once it has caught up with etcd), applied
 *   as one replace, then a watch from its resourceVersion with bookmarks (which keep that version
 *   fresh when the resource itself is quiet);
 * - the watch ends without an error (the cache restarted, the server stops a watch): it is reopened
 *   from the last resourceVersion seen, so nothing is missed and nothing listed again;
 * - the watch ends with an ERROR event (410 Expired: the version was compacted; 504; a corrupt
 *   value) or fails to open: the next attempt lists again and replaces the store, telling handlers
 *   what changed meanwhile (deletions with `finalStateUnknown`);
 * - reopening goes through WatchKeeper: one watch at a time, backoff 800 ms doubling to 30 s.
 *
 * Bounded: events are applied and dispatched synchronously as the watch delivers them (no queue,
 * no buffer: a handler that needs to do work should put a key into a WorkQueue, which holds each
 * key once); the store holds one entry per object. A handler that throws (or rejects) is reported
 * to onError and never reaches the watch; so is an index function that throws.
 *
 * Objects are the watch cache's own, shared with every reader: never mutate them (see api/lister.ts).
 */
import type { Indexer, IndexFunc, Indexers, KubeList, KubeObject, Status } from '../api';
import { ApiError, IndexedStore, objectKey } from '../api';
import type { GenericStore, ListQuery, Registry, RequestContext, Watch, WatchEvent, WatchSink } from '../registry';
import { controllerContext } from './context';
import { WatchKeeper } from './watch-keeper';

/** What an informer lists and watches (client-go's ListerWatcher); a GenericStore is one. */
export interface ListWatcher {
  list(ctx: RequestContext, query: ListQuery): Promise<KubeList>;
  watch(ctx: RequestContext, query: ListQuery & { allowWatchBookmarks?: boolean }, sink: WatchSink): Promise<Watch>;
}

/**
 * Controller callbacks (client-go's ResourceEventHandler). Called synchronously, after the store
 * changed; may be async (a rejection is reported to onError like a throw).
 */
export interface InformerEventHandler<T extends KubeObject = KubeObject> {
  /** `isInInitialList`: part of the first list (or the replay to a handler added after it). */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** Also called with old === new on every resync period. */
  onUpdate?(oldObj: T, newObj: T): void;
  /**
   * `finalStateUnknown`: the deletion was found by a relist, so `obj` is the last state the store
   * held, not the state it was deleted in (client-go's DeletedFinalStateUnknown).
   */
  onDelete?(obj: T, finalStateUnknown: boolean): void;
}

export interface HandlerRegistration {
  remove(): void;
}

export interface InformerOptions<T extends KubeObject = KubeObject> {
  source: ListWatcher;
  /** Only this namespace (default: every namespace). */
  namespace?: string;
  /** Server-side selectors: only matching objects are held. */
  labelSelector?: string;
  fieldSelector?: string;
  /** Named indexes besides the namespace index. */
  indexers?: Indexers<T>;
  /**
   * Applied to each object before it is stored (client-go's TransformFunc), e.g. to drop
   * managedFields. It must not mutate its argument (the cache's shared object): return a copy.
   * Without it the store holds the cache's objects themselves and costs no memory for them.
   */
  transform?: (obj: KubeObject) => T;
  /** Calls every handler's onUpdate(obj, obj) for every object this often (default 0: never). */
  resyncPeriodMs?: number;
  /** First delay before reopening a watch that ended or failed (doubling; default 800 ms). */
  retryDelayMs?: number;
  /** Ceiling of that delay (default 30 s). */
  maxRetryDelayMs?: number;
  /** Handler, transform, index function and list/watch errors (410s, which only cause a relist, excepted). */
  onError?: (err: unknown) => void;
}

/** Counters for tests and diagnostics. */
export interface InformerStats {
  /** Lists applied (the first one, then relists). */
  lists: number;
  /** Watches opened. */
  watches: number;
  /** Watch events applied (bookmarks excluded). */
  events: number;
}

const isExpired = (e: unknown) => e instanceof ApiError && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');

export class Informer<T extends KubeObject = KubeObject> {
  private readonly store: IndexedStore<T>;
  private readonly keeper: WatchKeeper;
  private handlers: Array<InformerEventHandler<T>> = [];
  private needList = true;
  private resourceVersion = '';
  private started = false;
  private stopped = false;
  private resyncTimer?: NodeJS.Timeout;
  private resolveSynced!: (synced: boolean) => void;
  private readonly syncedPromise: Promise<boolean>;
  readonly stats: InformerStats = { lists: 0, watches: 0, events: 0 };

  constructor(private readonly opts: InformerOptions<T>) {
    this.store = new IndexedStore<T>(opts.indexers ?? {}, { onError: (e) => this.report(e) });
    this.keeper = new WatchKeeper({
      baseDelayMs: opts.retryDelayMs,
      maxDelayMs: opts.maxRetryDelayMs,
      onError: (e) => {
        if (!isExpired(e)) this.report(e);
      },
    });
    this.syncedPromise = new Promise<boolean>((r) => (this.resolveSynced = r));
  }

  /** The read side, for plugins (typed so they cannot write to it). */
  get indexer(): Indexer<T> {
    return this.store;
  }

  /** Starts listing and watching (once; an informer cannot be restarted after stop). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.keeper.keep('informer', (e) => this.onEvent(e), (sink) => this.open(sink));
    const period = this.opts.resyncPeriodMs ?? 0;
    if (period > 0) {
      this.resyncTimer = setInterval(() => this.resync(), period);
      this.resyncTimer.unref();
    }
  }

  /** Stops the watch and any pending reopen; the store keeps its last state. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.resolveSynced(false);
    await this.keeper.stop();
  }

  hasSynced(): boolean {
    return this.store.hasSynced();
  }

  /**
   * Resolves once the pending list and watch have opened or failed (a failed attempt is retried
   * with backoff): what a caller that must not hang while etcd is away waits for instead of waitForSync.
   */
  idle(): Promise<void> {
    return this.keeper.idle();
  }

  /** Resolves true once the first list is in, false if the informer stops before (client-go's WaitForCacheSync). */
  waitForSync(): Promise<boolean> {
    return this.syncedPromise;
  }

  /** The resourceVersion of the last list, event or bookmark applied. */
  lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Adds indexes, computed at once over the objects held (see IndexedStore.addIndexers). */
  addIndexers(indexers: Indexers<T>): void {
    this.store.addIndexers(indexers);
  }

  /**
   * Registers callbacks. Added after the first list, the handler is first told of every object
   * held (onAdd with isInInitialList), synchronously, as client-go replays them.
   */
  addEventHandler(handler: InformerEventHandler<T>): HandlerRegistration {
    this.handlers = [...this.handlers, handler];
    if (this.store.hasSynced()) for (const obj of this.store.list()) this.call(() => handler.onAdd?.(obj, true));
    return {
      remove: () => {
        this.handlers = this.handlers.filter((h) => h !== handler);
      },
    };
  }

  private ctx(): RequestContext {
    return controllerContext('system:apiserver', ['system:masters'], this.opts.namespace ?? '');
  }

  private selectors(): Pick<ListQuery, 'labelSelector' | 'fieldSelector'> {
    const q: Pick<ListQuery, 'labelSelector' | 'fieldSelector'> = {};
    if (this.opts.labelSelector) q.labelSelector = this.opts.labelSelector;
    if (this.opts.fieldSelector) q.fieldSelector = this.opts.fieldSelector;
    return q;
  }

  /** One attempt (WatchKeeper calls it again after a failure or the end of the watch). */
  private async open(sink: WatchSink): Promise<Watch> {
    if (this.needList || this.resourceVersion === '') {
      const list = await this.opts.source.list(this.ctx(), this.selectors());
      // Stopped while listing: WatchKeeper stops the (empty) watch returned.
      if (this.stopped) return { stop: () => undefined };
      this.applyList(list);
    }
    try {
      const watch = await this.opts.source.watch(
        this.ctx(),
        { ...this.selectors(), watch: true, resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
        sink,
      );
      this.stats.watches++;
      return watch;
    } catch (e) {
      // Could not watch from that version (410 when compacted, or anything else): list again.
      this.needList = true;
      throw e;
    }
  }

  private applyList(list: KubeList): void {
    const items: T[] = [];
    for (const raw of list.items) {
      const obj = this.transformed(raw);
      if (obj) items.push(obj);
    }
    const first = !this.store.hasSynced();
    const { added, updated, deleted } = this.store.replace(items);
    this.resourceVersion = list.metadata.resourceVersion ?? '';
    this.needList = false;
    this.stats.lists++;
    if (first) this.resolveSynced(true);
    const handlers = this.handlers;
    for (const obj of deleted) for (const h of handlers) this.call(() => h.onDelete?.(obj, true));
    for (const obj of added) for (const h of handlers) this.call(() => h.onAdd?.(obj, first));
    for (const [old, cur] of updated) for (const h of handlers) this.call(() => h.onUpdate?.(old, cur));
  }

  private onEvent(e: WatchEvent): void {
    if (this.stopped) return;
    if (e.type === 'ERROR') {
      // The watch ends after this; whatever the reason, the next attempt lists again.
      this.needList = true;
      const status = e.object as Status;
      if (status.code !== 410) this.report(new ApiError(status));
      return;
    }
    const rv = e.object.metadata.resourceVersion;
    if (e.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return;
    }
    const raw = e.object as KubeObject;
    this.stats.events++;
    if (rv) this.resourceVersion = rv;
    const key = objectKey(raw.metadata.namespace, raw.metadata.name);
    if (e.type === 'DELETED') {
      const old = this.store.delete(key);
      if (old === undefined) return;
      const last = this.transformed(raw) ?? old;
      for (const h of this.handlers) this.call(() => h.onDelete?.(last, false));
      return;
    }
    const obj = this.transformed(raw);
    if (!obj) {
      // Cannot hold it: better absent than stale.
      const old = this.store.delete(key);
      if (old !== undefined) for (const h of this.handlers) this.call(() => h.onDelete?.(old, true));
      return;
    }
    const old = this.store.upsert(obj);
    for (const h of this.handlers) {
      if (old === undefined) this.call(() => h.onAdd?.(obj, false));
      else this.call(() => h.onUpdate?.(old, obj));
    }
  }

  private resync(): void {
    if (this.stopped || !this.store.hasSynced() || this.handlers.length === 0) return;
    const handlers = this.handlers;
    for (const obj of this.store.list()) for (const h of handlers) this.call(() => h.onUpdate?.(obj, obj));
  }

  private transformed(raw: KubeObject): T | undefined {
    if (!this.opts.transform) return raw as T;
    try {
      return this.opts.transform(raw);
    } catch (e) {
      this.report(e);
      return undefined;
    }
  }

  /** Runs a handler: its throw or rejection goes to onError, never further. */
  private call(fn: () => unknown): void {
    try {
      const r = fn();
      if (r instanceof Promise) r.then(undefined, (e: unknown) => this.report(e));
    } catch (e) {
      this.report(e);
    }
  }

  private report(err: unknown): void {
    try {
      this.opts.onError?.(err);
    } catch {
      // an error reporter that throws must not break the informer
    }
  }
}

/** The options every informer of a shared set gets. */
export interface SharedInformerOptions extends Pick<InformerOptions, 'resyncPeriodMs' | 'retryDelayMs' | 'maxRetryDelayMs'> {
  /** `resource` is `group/version/resource` of the informer that met the error. */
  onError?: (err: unknown, resource: string) => void;
}

/**
 * One informer per resource for everything in the server that reads it (client-go's
 * SharedInformerFactory): RBAC, quota and webhook plugins asking for the same resource share one
 * watch and one store, each adding the indexes it needs. Informers asked for after start() start at once.
 */
export class SharedInformers {
  private readonly informers = new Map<string, Informer>();
  private started = false;
  private stopped = false;

  constructor(
    private readonly registry: Pick<Registry, 'get'>,
    private readonly opts: SharedInformerOptions = {},
  ) {}

  /** The informer of group/version/resource (every namespace), created on first use. Throws for a resource not served. */
  forResource<T extends KubeObject = KubeObject>(group: string, version: string, resource: string, indexers: Indexers<T> = {}): Informer<T> {
    const key = `${group}/${version}/${resource}`;
    let informer = this.informers.get(key) as Informer<T> | undefined;
    if (!informer) {
      const store: GenericStore | undefined = this.registry.get(group, version, resource);
      if (!store) throw new Error(`no resource ${resource} in ${group || 'core'}/${version}`);
      const { onError, ...rest } = this.opts;
      informer = new Informer<T>({ ...rest, source: store, onError: onError && ((e) => onError(e, key)) });
      this.informers.set(key, informer as unknown as Informer);
      if (this.started && !this.stopped) informer.start();
    }
    informer.addIndexers(indexers as Record<string, IndexFunc<T>>);
    return informer;
  }

  start(): void {
    if (this.stopped) return;
    this.started = true;
    for (const i of this.informers.values()) i.start();
  }

  /** Resolves true once every informer asked for so far has synced (false if one stopped first). */
  async waitForSync(): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
    return results.every(Boolean);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
