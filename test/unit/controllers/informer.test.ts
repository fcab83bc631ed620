/**
 * Informer over a fake list/watch source: list then watch from the list's version, events applied
 * to the indexes and handed to handlers, re-watch from the last version after a plain close, relist
 * after an ERROR (410) or a failed open, handler errors contained, stop, shared informers.
 */
import { ApiError, errors, failureStatus, KubeList, KubeObject, objectKey } from '../../../src/api';
import { Informer, InformerEventHandler, ListWatcher, SharedInformers } from '../../../src/controllers/informer';
import type { ListQuery, Registry, Watch, WatchSink } from '../../../src/registry';

interface OpenWatch {
  query: ListQuery & { allowWatchBookmarks?: boolean };
  sink: WatchSink;
  stopped: boolean;
}

/** A resource in memory: list answers its state at `rv`; tests push events to the open watch. */
class FakeSource implements ListWatcher {
  items = new Map<string, KubeObject>();
  rv = 10;
  lists: ListQuery[] = [];
  watches: OpenWatch[] = [];
  failWatches = 0;
  private waiters: Array<{ n: number; resolve: () => void }> = [];

  set(o: KubeObject): KubeObject {
    const stamped = { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.rv) } };
    this.items.set(objectKey(o.metadata.namespace, o.metadata.name), stamped);
    return stamped;
  }

  remove(namespace: string, name: string): KubeObject {
    const key = objectKey(namespace, name);
    const o = this.items.get(key) as KubeObject;
    this.items.delete(key);
    return { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.rv) } };
  }

  async list(_ctx: unknown, q: ListQuery): Promise<KubeList> {
    this.lists.push(q);
    return { apiVersion: 'v1', kind: 'SecretList', metadata: { resourceVersion: String(this.rv) }, items: [...this.items.values()] };
  }

  async watch(_ctx: unknown, query: OpenWatch['query'], sink: WatchSink): Promise<Watch> {
    if (this.failWatches > 0) {
      this.failWatches--;
      throw errors.expired('too old resource version');
    }
    const w: OpenWatch = { query, sink, stopped: false };
    this.watches.push(w);
    this.waiters = this.waiters.filter((x) => (this.watches.length >= x.n ? (x.resolve(), false) : true));
    return { stop: () => void (w.stopped = true) };
  }

  /** Resolves once `n` watches have been opened in all (and the informer has taken the last one). */
  async watchCount(n: number): Promise<void> {
    if (this.watches.length < n) await new Promise<void>((resolve) => this.waiters.push({ n, resolve }));
    await new Promise((r) => setImmediate(r));
  }

  get current(): OpenWatch {
    return this.watches[this.watches.length - 1] as OpenWatch;
  }

  emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    this.current.sink.event({ type, object });
  }

  close(error?: ApiError): void {
    const w = this.current;
    if (error) w.sink.event({ type: 'ERROR', object: error.status });
    w.stopped = true;
    w.sink.closed();
  }
}

const secret = (namespace: string, name: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { namespace, name }, ...extra });
const byOwner = (o: KubeObject) => (typeof o.owner === 'string' ? [o.owner] : []);
const keys = (objs: KubeObject[]) => objs.map((o) => objectKey(o.metadata.namespace, o.metadata.name)).sort();

function recorder(): { log: string[]; handler: InformerEventHandler } {
  const log: string[] = [];
  return {
    log,
    handler: {
      onAdd: (o, initial) => log.push(`add ${o.metadata.name}${initial ? ' (initial)' : ''}`),
      onUpdate: (a, b) => log.push(`update ${b.metadata.name} ${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
      onDelete: (o, unknown) => log.push(`delete ${o.metadata.name}${unknown ? ' (final state unknown)' : ''}`),
    },
  };
}

let informer: Informer | undefined;
afterEach(() => informer?.stop());

function start(source: FakeSource, opts: Partial<ConstructorParameters<typeof Informer>[0]> = {}): Informer {
  informer = new Informer({ source, retryDelayMs: 1, indexers: { owner: byOwner }, ...opts });
  informer.start();
  return informer;
}

test('lists, then watches from the list version; events move objects between indexes', async () => {
  const src = new FakeSource();
  src.set(secret('a', 's1', { owner: 'alice' }));
  src.set(secret('b', 's2', { owner: 'bob' }));
  const { log, handler } = recorder();
  const inf = new Informer({ source: src, retryDelayMs: 1, indexers: { owner: byOwner }, labelSelector: 'x!=y' });
  informer = inf;
  inf.addEventHandler(handler);
  expect(inf.hasSynced()).toBe(false);
  inf.start();
  expect(await inf.waitForSync()).toBe(true);
  await src.watchCount(1);
  expect(inf.hasSynced()).toBe(true);
  expect(src.lists).toEqual([{ labelSelector: 'x!=y' }]);
  expect(src.current.query).toEqual({ labelSelector: 'x!=y', watch: true, resourceVersion: '12', allowWatchBookmarks: true });
  expect(log.sort()).toEqual(['add s1 (initial)', 'add s2 (initial)']);
  log.length = 0;

  const lister = inf.indexer;
  expect(lister.get('a', 's1')?.owner).toBe('alice');
  expect(keys(lister.byIndex('owner', 'bob'))).toEqual(['b/s2']);

  src.emit('ADDED', src.set(secret('a', 's3', { owner: 'bob' })));
  src.emit('MODIFIED', src.set(secret('b', 's2', { owner: 'carol' })));
  expect(keys(lister.byIndex('owner', 'bob'))).toEqual(['a/s3']);
  expect(keys(lister.byIndex('owner', 'carol'))).toEqual(['b/s2']);
  expect(keys(lister.listInNamespace('a'))).toEqual(['a/s1', 'a/s3']);

  src.emit('DELETED', src.remove('a', 's1'));
  expect(lister.get('a', 's1')).toBeUndefined();
  expect(lister.byIndex('owner', 'alice')).toEqual([]);
  expect(lister.indexValues('owner').sort()).toEqual(['bob', 'carol']);
  // A deletion of an object never held is not reported.
  src.current.sink.event({ type: 'DELETED', object: { metadata: { namespace: 'a', name: 'ghost', resourceVersion: '99' } } });
  expect(log).toEqual(['add s3', 'update s2 12->14', 'delete s1']);
  expect(inf.lastSyncResourceVersion()).toBe('99');
  src.current.sink.event({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '120' } } });
  expect(inf.lastSyncResourceVersion()).toBe('120');
  expect(inf.stats).toEqual({ lists: 1, watches: 1, events: 4 });
});

test('a watch that ends without an error is reopened from the last version seen, without a list', async () => {
  const src = new FakeSource();
  src.set(secret('a', 's1'));
  const inf = start(src);
  await src.watchCount(1);
  src.emit('ADDED', src.set(secret('a', 's2')));
  src.current.sink.event({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '40' } } });
  src.close();
  await src.watchCount(2);
  expect(src.lists).toHaveLength(1);
  expect(src.current.query.resourceVersion).toBe('40');
  src.emit('MODIFIED', src.set(secret('a', 's1', { data: 1 })));
  expect(inf.indexer.get('a', 's1')?.data).toBe(1);
});

test('an ERROR (410) relists: the handlers hear what changed meanwhile, deletions as final state unknown', async () => {
  const src = new FakeSource();
  src.set(secret('a', 'keep'));
  src.set(secret('a', 'change', { owner: 'x' }));
  src.set(secret('a', 'gone', { owner: 'x' }));
  const reported: unknown[] = [];
  const inf = start(src, { onError: (e) => reported.push(e) });
  const { log, handler } = recorder();
  await src.watchCount(1);
  inf.addEventHandler(handler);
  expect(log.sort()).toEqual(['add change (initial)', 'add gone (initial)', 'add keep (initial)']);
  log.length = 0;

  // While the watch is broken: one change, one deletion, one addition.
  src.set(secret('a', 'change', { owner: 'y' }));
  src.remove('a', 'gone');
  src.set(secret('a', 'new', { owner: 'x' }));
  src.close(errors.expired('too old resource version: 12 (20)'));
  await src.watchCount(2);
  expect(src.lists).toHaveLength(2);
  expect(src.current.query.resourceVersion).toBe(String(src.rv));
  expect(log).toEqual(['delete gone (final state unknown)', 'add new', 'update change 12->14']);
  expect(keys(inf.indexer.byIndex('owner', 'x'))).toEqual(['a/new']);
  expect(keys(inf.indexer.byIndex('owner', 'y'))).toEqual(['a/change']);
  expect(inf.stats.lists).toBe(2);
  expect(reported).toEqual([]); // a 410 is routine
});

test('another ERROR is reported and also relists; so does a watch that fails to open', async () => {
  const src = new FakeSource();
  const reported: unknown[] = [];
  start(src, { onError: (e) => reported.push(e) });
  await src.watchCount(1);
  src.close(new ApiError(failureStatus(500, 'InternalError', 'corrupt value')));
  await src.watchCount(2);
  expect(src.lists).toHaveLength(2);
  expect((reported[0] as ApiError).code).toBe(500);

  src.failWatches = 1;
  src.close();
  await src.watchCount(3);
  // The plain close re-watches (no list); that watch fails with 410; the retry lists first.
  expect(src.lists).toHaveLength(3);
  expect(reported).toHaveLength(1);
});

test('handlers that throw or reject are reported; the store and the other handlers go on', async () => {
  const src = new FakeSource();
  const reported: unknown[] = [];
  const inf = start(src, { onError: (e) => reported.push(e) });
  const { log, handler } = recorder();
  inf.addEventHandler({
    onAdd: () => {
      throw new Error('sync boom');
    },
    onUpdate: () => Promise.reject(new Error('async boom')),
  });
  inf.addEventHandler(handler);
  await src.watchCount(1);
  src.emit('ADDED', src.set(secret('a', 's1')));
  src.emit('MODIFIED', src.set(secret('a', 's1', { v: 2 })));
  await new Promise((r) => setImmediate(r));
  expect(log).toEqual(['add s1', 'update s1 11->12']);
  expect(inf.indexer.get('a', 's1')?.v).toBe(2);
  expect(reported.map((e) => (e as Error).message)).toEqual(['sync boom', 'async boom']);
});

test('a removed handler hears nothing more; resync calls onUpdate(obj, obj)', async () => {
  const src = new FakeSource();
  src.set(secret('a', 's1'));
  const inf = start(src, { resyncPeriodMs: 5 });
  const { log, handler } = recorder();
  const reg = inf.addEventHandler(handler);
  await src.watchCount(1);
  const resynced = new Promise<void>((resolve) =>
    inf.addEventHandler({ onUpdate: (a, b) => (a === b ? resolve() : undefined) }),
  );
  await resynced;
  expect(log).toContain('update s1 11->11');
  reg.remove();
  log.length = 0;
  src.emit('ADDED', src.set(secret('a', 's2')));
  expect(log).toEqual([]);
});

test('a transform decides what is stored; one that throws leaves the object out', async () => {
  const src = new FakeSource();
  src.set(secret('a', 's1', { metadata: { namespace: 'a', name: 's1', managedFields: [{}] } }));
  const reported: unknown[] = [];
  const inf = start(src, {
    onError: (e) => reported.push(e),
    transform: (o) => {
      if (o.metadata.name === 'bad') throw new Error('cannot transform');
      const { managedFields: _drop, ...metadata } = o.metadata;
      return { ...o, metadata };
    },
  });
  await src.watchCount(1);
  expect(inf.indexer.get('a', 's1')?.metadata.managedFields).toBeUndefined();
  src.emit('ADDED', src.set(secret('a', 'bad')));
  expect(inf.indexer.get('a', 'bad')).toBeUndefined();
  expect(reported).toHaveLength(1);
});

test('stop before the first list resolves waitForSync with false and drops later events', async () => {
  const src = new FakeSource();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow: ListWatcher = {
    list: async (ctx, q) => {
      await gate;
      return src.list(ctx, q);
    },
    watch: (ctx, q, sink) => src.watch(ctx, q, sink),
  };
  const inf = new Informer({ source: slow });
  inf.start();
  const synced = inf.waitForSync();
  await inf.stop();
  release();
  expect(await synced).toBe(false);
  expect(inf.hasSynced()).toBe(false);
  expect(src.watches.every((w) => w.stopped)).toBe(true);
  inf.start(); // no restart after stop
  await new Promise((r) => setImmediate(r));
  expect(src.lists.length).toBeLessThanOrEqual(1);
});

test('shared informers: one informer per resource, each caller adding its indexes', async () => {
  const src = new FakeSource();
  src.set(secret('a', 's1', { owner: 'alice' }));
  const registry = { get: (g: string, v: string, r: string) => (g === '' && v === 'v1' && r === 'secrets' ? src : undefined) } as unknown as Registry;
  const shared = new SharedInformers(registry, { retryDelayMs: 1 });
  try {
    const one = shared.forResource('', 'v1', 'secrets', { owner: byOwner });
    const two = shared.forResource('', 'v1', 'secrets', { name: (o) => [o.metadata.name ?? ''] });
    expect(one).toBe(two);
    expect(() => shared.forResource('', 'v1', 'nothing')).toThrow('no resource nothing');
    shared.start();
    expect(await shared.waitForSync()).toBe(true);
    expect(keys(one.indexer.byIndex('owner', 'alice'))).toEqual(['a/s1']);
    expect(keys(one.indexer.byIndex('name', 's1'))).toEqual(['a/s1']);
    expect(src.lists).toHaveLength(1);
  } finally {
    await shared.stop();
  }
});
