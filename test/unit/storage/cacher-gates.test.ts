/**
 * Where the watch cache sends reads under the gates kube 1.32's cacher reads (apiserver
 * pkg/storage/cacher/cacher.go): ConsistentListFromCache (shouldDelegateList, GetList's fallback)
 * and WatchFromStorageWithoutResourceVersion (Watch's legacy case). etcd is a fake that records calls.
 */
import type { KubeObject } from '../../../src/api';
import { Cacher, type CacherOptions, type EtcdStore, type ListOptions, type WatchEvent, type WatchOptions } from '../../../src/storage';

const secret = (name: string, rv: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns', resourceVersion: String(rv) },
});

/** An etcd at revision 5 holding three secrets; `current` is what a quorum read of its revision answers. */
function fakeEtcd(current = 5n) {
  const calls: string[] = [];
  const etcd = {
    corruptErrors: { gate: false, keyPrefix: '/r' },
    listEntries: async () => ({
      entries: ['a', 'b', 'c'].map((n) => ({ key: `/r/secrets/ns/${n}`, object: secret(n, 3) })),
      revision: 5n,
      more: false,
    }),
    feed: () => ({ stop: () => undefined }),
    currentRevision: async () => {
      calls.push('currentRevision');
      return current;
    },
    get: async () => {
      calls.push('get');
      return secret('a', 3);
    },
    list: async (_prefix: string, _o: ListOptions) => {
      calls.push('list');
      return { items: [], revision: current };
    },
    watch: (_prefix: string, _o: WatchOptions) => {
      calls.push('watch');
      return { stop: () => undefined };
    },
    close: async () => undefined,
  };
  return { etcd: etcd as unknown as EtcdStore, calls };
}

const caches: Cacher[] = [];
async function cacher(opts: Partial<CacherOptions>, current?: bigint) {
  const { etcd, calls } = fakeEtcd(current);
  const c = new Cacher({ etcd, prefix: '/r', bookmarkIntervalMs: 3_600_000, ...opts });
  caches.push(c);
  await c.ready();
  return { c, calls };
}
afterAll(async () => {
  for (const c of caches) await c.close();
});

const consistent: ListOptions = { limit: 0, hasSelector: false };

describe('ConsistentListFromCache', () => {
  test('on (default): a consistent list is served from the cache once it has reached etcd’s revision; its limit is honoured', async () => {
    const { c, calls } = await cacher({});
    const all = await c.list('/r/secrets/', consistent);
    expect(all.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    const page = await c.list('/r/secrets/', { ...consistent, limit: 2 });
    expect({ names: page.items.map((o) => o.metadata.name), continueKey: page.continueKey, remaining: page.remainingItemCount, rv: page.revision }).toEqual({
      names: ['a', 'b'],
      continueKey: '/r/secrets/ns/b',
      remaining: 1,
      rv: 5n,
    });
    expect(calls).toEqual(['currentRevision', 'currentRevision']);
  });

  test('on, but the cache does not reach etcd’s revision in time: the list falls back to etcd', async () => {
    const { c, calls } = await cacher({ futureRevisionWaitMs: 20 }, 9n);
    await c.list('/r/secrets/', { ...consistent, limit: 1 });
    expect(calls).toEqual(['currentRevision', 'list']);
  });

  test('off: a consistent list goes to etcd, limited or not; RV=0 and not-older-than lists stay in the cache', async () => {
    const { c, calls } = await cacher({ consistentListFromCache: false });
    await c.list('/r/secrets/', consistent);
    await c.list('/r/secrets/', { ...consistent, limit: 1 });
    expect(calls).toEqual(['list', 'list']);
    expect((await c.list('/r/secrets/', { ...consistent, consistency: { kind: 'any' } })).items).toHaveLength(3);
    expect((await c.list('/r/secrets/', { ...consistent, consistency: { kind: 'notOlderThan', revision: 4n } })).items).toHaveLength(3);
    expect(calls).toEqual(['list', 'list']);
  });

  test('gets with resourceVersion unset are quorum reads from etcd whatever the gate (kube’s Cacher.Get)', async () => {
    const { c, calls } = await cacher({});
    await c.get('/r/secrets/ns/a');
    expect(calls).toEqual(['get']);
    // RV=0 reads the cache.
    expect((await c.get('/r/secrets/ns/b', { consistency: { kind: 'any' } })).metadata.name).toBe('b');
    expect(calls).toEqual(['get']);
  });
});

describe('WatchFromStorageWithoutResourceVersion', () => {
  const legacy: WatchOptions = { start: { kind: 'state', consistency: { kind: 'latest' } }, withoutResourceVersion: true };

  /** The events a watch delivers synchronously on start, and the calls it made. */
  async function watch(opts: Partial<CacherOptions>, o: WatchOptions, current?: bigint) {
    const { c, calls } = await cacher(opts, current);
    const events: WatchEvent[] = [];
    const w = c.watch('/r/secrets/', o, { event: (e) => events.push(e), closed: () => undefined });
    // The cache answers a start from its own state at once; a consistent one first asks etcd.
    await new Promise((r) => setImmediate(r));
    w.stop();
    return { events, calls };
  }

  test('off (default): a legacy watch starts from the cache’s own state, without asking etcd for its revision', async () => {
    // etcd is ahead and the cache will never catch up: a consistent start would wait, a legacy one does not.
    const { events, calls } = await watch({}, legacy, 9n);
    expect(events.map((e) => [e.type, (e.object as KubeObject).metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['ADDED', 'c'],
    ]);
    expect(calls).toEqual([]);
  });

  test('on: a legacy watch goes to etcd', async () => {
    const { events, calls } = await watch({ watchFromStorageWithoutResourceVersion: true }, legacy);
    expect(events).toEqual([]);
    expect(calls).toEqual(['watch']);
  });

  test('on: a consistent start that is not legacy (sendInitialEvents) stays in the cache', async () => {
    const { events, calls } = await watch({ watchFromStorageWithoutResourceVersion: true }, { ...legacy, withoutResourceVersion: false });
    expect(calls).toEqual(['currentRevision']);
    expect(events).toHaveLength(3);
  });
});
