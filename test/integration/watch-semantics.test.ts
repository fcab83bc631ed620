/**
 * Watch resourceVersion semantics (seed 000's watch table; kube-facts §2, §1.5) against the real server
 * on a real etcd, through the watch cache and straight from etcd — the same assertions on both paths
 * (except the cache's own periodic bookmarks): start positions, 410
 * after compaction, 504 for the future, bookmarks, initial events, selector transitions, two replicas
 * on one etcd, cache freshness and the history window.
 */
import { startTestServer, TestServer, TestServerOptions } from '../support/api-server';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { cause, failure } from '../support/kube-status';
import { openWatch, StreamEvent, WatchStream } from '../support/watch-stream';

interface Obj {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const rvOf = (o: { metadata: { resourceVersion: string } }): bigint => BigInt(o.metadata.resourceVersion);
/** [type, name, resourceVersion] of an event, for exact sequence comparisons. */
const triple = (e: StreamEvent): [string, string, string] => [e.type, e.object.metadata?.name, e.object.metadata?.resourceVersion];

const watchExpired = failure(410, 'Expired', 'The resourceVersion for the provided watch is too old.');

const etcd = useTestEtcd();

describe.each([{ watchCache: true }, { watchCache: false }])('watch resourceVersion semantics (watchCache: $watchCache)', ({ watchCache }) => {
  const streams: WatchStream[] = [];
  const options = { watchCache, cacheOptions: { bookmarkIntervalMs: 200 } };
  const { srv } = useTestServer({ etcd, ...options });
  let nsCount = 0;

  /** Another server on the same etcd, for one test; stopped after this block's tests. */
  const servers: TestServer[] = [];
  const start = async (extra: Partial<TestServerOptions> = {}): Promise<TestServer> => {
    const s = await startTestServer({ etcdEndpoints: etcd.endpoints, ...options, ...extra });
    servers.push(s);
    return s;
  };
  afterEach(() => {
    for (const w of streams.splice(0)) w.close();
  });
  afterAll(async () => {
    for (const s of servers.splice(0)) await s.stop();
  });

  async function namespace(on = srv): Promise<string> {
    const name = `w-${watchCache ? 'c' : 'e'}-${++nsCount}`;
    const r = await on.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    expect(r.status).toBe(201);
    return name;
  }
  async function createSecret(ns: string, name: string, labels?: Record<string, string>, on = srv): Promise<Obj> {
    const r = await on.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name, labels }, data: { k: b64('v1') } },
    });
    expect(r.status).toBe(201);
    return r.json<Obj>();
  }
  async function patchSecret(ns: string, name: string, patch: unknown, on = srv): Promise<Obj> {
    const r = await on.request('PATCH', `/api/v1/namespaces/${ns}/secrets/${name}`, {
      body: patch,
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(200);
    return r.json<Obj>();
  }
  async function deleteSecret(ns: string, name: string, on = srv): Promise<void> {
    expect((await on.request('DELETE', `/api/v1/namespaces/${ns}/secrets/${name}`)).status).toBe(200);
  }
  async function listRV(ns: string, on = srv): Promise<string> {
    const r = await on.request('GET', `/api/v1/namespaces/${ns}/secrets`);
    expect(r.status).toBe(200);
    return r.json().metadata.resourceVersion;
  }
  async function watch(path: string, on = srv): Promise<WatchStream> {
    const w = await openWatch(on, path);
    streams.push(w);
    expect({ status: w.status, body: w.errorBody }).toEqual({ status: 200, body: undefined });
    return w;
  }
  const compactAll = async (on = srv): Promise<bigint> => {
    const rev = await on.etcdStore.currentRevision();
    await on.etcdStore.etcd.kv.compact({ revision: rev.toString(), physical: true });
    return rev;
  };
  /** A namespace holding secrets a and b; returns the namespace. */
  const seeded = async (): Promise<string> => {
    const ns = await namespace();
    await createSecret(ns, 'a');
    await createSecret(ns, 'b');
    return ns;
  };

  describe('a watch pinned to one name (kube MatchesSingle: one key, not the collection)', () => {
    test.each([
      ['the deprecated /watch/ path of the object', (ns: string) => `/api/v1/watch/namespaces/${ns}/secrets/a`],
      ['fieldSelector=metadata.name', (ns: string) => `/api/v1/namespaces/${ns}/secrets?watch=1&fieldSelector=metadata.name%3Da`],
    ])('%s: its current state, then only its own events (not those of a name it prefixes)', async (_label, path) => {
      const ns = await seeded();
      await createSecret(ns, 'ab');
      const w = await watch(path(ns));
      expect((await w.next(1)).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'a']]);
      await patchSecret(ns, 'ab', { data: { k: b64('x') } });
      const a = await patchSecret(ns, 'a', { data: { k: b64('v2') } });
      await deleteSecret(ns, 'a');
      const events = await w.next(2);
      expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
        ['MODIFIED', 'a'],
        ['DELETED', 'a'],
      ]);
      expect(events[0]?.object.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
      await w.expectQuiet(200);
    });

    test('from a resourceVersion, and with a selector that also filters', async () => {
      const ns = await seeded();
      const from = await listRV(ns);
      await patchSecret(ns, 'b', { metadata: { labels: { keep: 'yes' } } });
      const a = await patchSecret(ns, 'a', { metadata: { labels: { keep: 'yes' } } });
      const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}&fieldSelector=metadata.name%3Da&labelSelector=keep%3Dyes`);
      expect((await w.next(1)).map(triple)).toEqual([['ADDED', 'a', a.metadata.resourceVersion]]);
      await w.expectQuiet(200);
    });
  });

  describe('start position', () => {
    test.each([
      ['unset', ''],
      ['0', '&resourceVersion=0'],
    ])('resourceVersion %s: synthetic ADDED for the current state, then live events', async (_label, rv) => {
      const ns = await seeded();
      await patchSecret(ns, 'a', { data: { k: b64('v2') } });
      const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1${rv}`);
      const initial = await w.next(2);
      expect(initial.map((e) => [e.type, e.object.metadata.name])).toEqual([
        ['ADDED', 'a'],
        ['ADDED', 'b'],
      ]);
      // The state, not the history: a arrives once, already updated.
      expect(initial[0]?.object.data.k).toBe(b64('v2'));
      const c = await createSecret(ns, 'c');
      const a = await patchSecret(ns, 'a', { data: { k: b64('v3') } });
      expect((await w.next(2)).map(triple)).toEqual([
        ['ADDED', 'c', c.metadata.resourceVersion],
        ['MODIFIED', 'a', a.metadata.resourceVersion],
      ]);
    });

    test('resourceVersion=N: exactly the events after N — none before, none twice — in write order', async () => {
      const ns = await seeded();
      const from = await listRV(ns);
      const c = await createSecret(ns, 'c');
      const a = await patchSecret(ns, 'a', { data: { k: b64('v2') } });
      await deleteSecret(ns, 'b');
      const afterDelete = await listRV(ns);
      const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`);
      const events = await w.next(3);
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(events.slice(0, 2).map(triple)).toEqual([
        ['ADDED', 'c', c.metadata.resourceVersion],
        ['MODIFIED', 'a', a.metadata.resourceVersion],
      ]);
      // DELETED carries b's last state at the revision of the delete.
      const deleted = events[2] as StreamEvent;
      expect(deleted.object).toMatchObject({ kind: 'Secret', metadata: { name: 'b' }, data: { k: b64('v1') } });
      expect(rvOf(deleted.object)).toBeGreaterThan(rvOf(a));
      expect(rvOf(deleted.object)).toBeLessThanOrEqual(BigInt(afterDelete));
      // The next event is the next write: nothing was replayed twice or held back.
      const d = await createSecret(ns, 'd');
      expect((await w.next(1)).map(triple)).toEqual([['ADDED', 'd', d.metadata.resourceVersion]]);
    });

    test('resourceVersion=N at the latest revision: only later writes', async () => {
      const ns = await seeded();
      const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${await listRV(ns)}`);
      const c = await createSecret(ns, 'c');
      expect((await w.next(1)).map(triple)).toEqual([['ADDED', 'c', c.metadata.resourceVersion]]);
    });

    test('a compacted resourceVersion: HTTP 200, one ERROR event carrying 410 Expired, then the stream ends', async () => {
      const ns = await seeded();
      const from = await listRV(ns);
      await createSecret(ns, 'c');
      await createSecret(ns, 'd');
      // etcd keeps the compaction revision itself: `from` + 1 is gone only when compacted past it.
      expect(await compactAll()).toBeGreaterThan(BigInt(from) + 1n);
      const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`);
      const [ev] = await w.next(1);
      expect(ev?.type).toBe('ERROR');
      // kube: the etcd watch's text, or the cacher's `too old resource version: <rv> (<oldest-1>)`.
      const { message, ...rest } = ev?.object;
      const { message: etcdMessage, ...expected } = watchExpired;
      expect(rest).toEqual(expected);
      expect([etcdMessage, expect.stringMatching(new RegExp(`^too old resource version: ${from} \\(\\d+\\)$`))]).toContainEqual(message);
      await w.ended;
      expect(w.all).toHaveLength(1);
    });
  });

  describe('timeouts and waits', () => {
    // One test, so that the 3 s waits run side by side.
    test('timeoutSeconds=3 ends the stream after 3 s with a bookmark shortly before; a future resourceVersion is ERROR 504 after the wait', async () => {
      const ns = await seeded();
      const current = await srv.etcdStore.currentRevision();
      const future = current + 1000n;
      const tooLarge = {
        type: 'ERROR',
        object: failure(504, 'Timeout', `Timeout: Too large resource version: ${future}, current: ${current}`, {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        }),
      };
      const started = Date.now();
      const base = `/api/v1/namespaces/${ns}/secrets?watch=1`;
      const [timed, timedWithoutBookmarks, initialEvents, plain] = await Promise.all([
        watch(`${base}&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${current}`),
        watch(`${base}&timeoutSeconds=3&resourceVersion=${current}`),
        watch(`${base}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${future}`),
        // Both paths answer a plain watch at a future RV with 504 after the wait (issue 3).
        watch(`${base}&resourceVersion=${future}`),
      ]);
      for (const w of [initialEvents, plain]) {
        expect(await w.next(1, 20_000)).toEqual([tooLarge]);
        expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
        await w.ended;
        expect(w.all).toHaveLength(1);
      }
      await timed.ended;
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(2900);
      // kube sends a bookmark ~2 s before the watch's own timeout (the cache path may send periodic ones too).
      expect(timed.all.length).toBeGreaterThanOrEqual(1);
      for (const e of timed.all) {
        expect(e.type).toBe('BOOKMARK');
        expect(rvOf(e.object)).toBeGreaterThanOrEqual(current);
      }
      // Without allowWatchBookmarks, no bookmark at all (old Python clients fail on one).
      await timedWithoutBookmarks.ended;
      expect(timedWithoutBookmarks.all).toEqual([]);
    });
  });

  describe('bookmarks', () => {
    test('BOOKMARK objects are empty instances of the kind carrying only the resourceVersion', async () => {
      const ns = await seeded();
      const from = await listRV(ns);
      const secrets = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${from}`);
      const namespaces = await watch(`/api/v1/namespaces?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${from}`);
      const [bm] = await secrets.next(1, 20_000);
      expect(bm?.type).toBe('BOOKMARK');
      const rv = bm?.object.metadata.resourceVersion as string;
      expect(BigInt(rv)).toBeGreaterThanOrEqual(BigInt(from));
      // Key order as Go serialises the zero object (kube-facts §2).
      expect(JSON.stringify(bm?.object)).toBe(JSON.stringify({ kind: 'Secret', apiVersion: 'v1', metadata: { resourceVersion: rv, creationTimestamp: null } }));
      const nsBookmark = (await namespaces.next(1, 20_000))[0]?.object;
      expect(JSON.stringify(nsBookmark)).toBe(
        JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { resourceVersion: nsBookmark.metadata.resourceVersion, creationTimestamp: null }, spec: {}, status: {} }),
      );
    });

    // Only the cache has a short bookmark interval here (etcd-path watches use kube's 1 min).
    if (watchCache) test('the cache sends periodic bookmarks (every bookmarkIntervalMs) to watchers that allow them, none to others', async () => {
      const ns = await seeded();
      const from = await listRV(ns);
      const withBookmarks = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&allowWatchBookmarks=true&resourceVersion=${from}`);
      const without = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`);
      const bookmarks = await withBookmarks.next(2, 20_000);
      expect(bookmarks.map((e) => e.type)).toEqual(['BOOKMARK', 'BOOKMARK']);
      const c = await createSecret(ns, 'c');
      // The watcher without bookmarks sees only the write.
      expect((await without.next(1)).map(triple)).toEqual([['ADDED', 'c', c.metadata.resourceVersion]]);
      const next = await withBookmarks.next(1);
      const later = next[0]?.type === 'BOOKMARK' ? [...next, ...(await withBookmarks.next(1))].filter((e) => e.type !== 'BOOKMARK') : next;
      expect(later.map(triple)).toEqual([['ADDED', 'c', c.metadata.resourceVersion]]);
    });
  });

  describe('initial events (sendInitialEvents)', () => {
    test.each([['unset'], ['N']])(
      'sendInitialEvents=true&resourceVersionMatch=NotOlderThan, resourceVersion %s: ADDED for the state, an initial-events-end BOOKMARK, then live events',
      async (which) => {
        const ns = await seeded();
        const b = await patchSecret(ns, 'b', { data: { k: b64('v2') } });
        const rv = which === 'N' ? `&resourceVersion=${b.metadata.resourceVersion}` : '';
        const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true${rv}`);
        const [a1, b1, end] = (await w.next(3)) as [StreamEvent, StreamEvent, StreamEvent];
        expect([a1.type, a1.object.metadata.name, b1.type, b1.object.metadata.name]).toEqual(['ADDED', 'a', 'ADDED', 'b']);
        expect(b1.object.data.k).toBe(b64('v2'));
        expect(end.type).toBe('BOOKMARK');
        expect(end.object).toEqual({
          kind: 'Secret',
          apiVersion: 'v1',
          metadata: {
            resourceVersion: end.object.metadata.resourceVersion,
            creationTimestamp: null,
            // WatchList's list blueprint: an empty SecretList as kube's JSON encoder writes it.
            annotations: {
              'k8s.io/initial-events-end': 'true',
              'kubernetes.io/initial-events-list-blueprint': b64('{"kind":"SecretList","apiVersion":"v1","metadata":{},"items":null}\n'),
            },
          },
        });
        expect(rvOf(end.object)).toBeGreaterThanOrEqual(rvOf(b));
        const c = await createSecret(ns, 'c');
        const live = (await w.next(1)).concat();
        while (live[live.length - 1]?.type === 'BOOKMARK') live.push(...(await w.next(1)));
        expect(live.filter((e) => e.type !== 'BOOKMARK').map(triple)).toEqual([['ADDED', 'c', c.metadata.resourceVersion]]);
      },
    );

    test('without allowWatchBookmarks there is no initial-events-end bookmark', async () => {
      const ns = await seeded();
      const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
      expect((await w.next(2)).map((e) => [e.type, e.object.metadata.name])).toEqual([
        ['ADDED', 'a'],
        ['ADDED', 'b'],
      ]);
      const c = await createSecret(ns, 'c');
      expect((await w.next(1)).map(triple)).toEqual([['ADDED', 'c', c.metadata.resourceVersion]]);
    });

    test.each([
      ['sendInitialEvents=true', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      ['sendInitialEvents=true&resourceVersion=0', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      ['resourceVersionMatch=NotOlderThan&resourceVersion=0', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    ])('%s on a watch is 422', async (query, detail) => {
      const ns = await namespace();
      const w = await openWatch(srv, `/api/v1/namespaces/${ns}/secrets?watch=1&${query}`);
      expect(w.status).toBe(422);
      expect(JSON.parse(w.errorBody as string)).toEqual(
        failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: ${detail}`, {
          group: 'meta.k8s.io',
          kind: 'ListOptions',
          causes: [cause('FieldValueForbidden', 'resourceVersionMatch', `Forbidden: ${detail}`)],
        }),
      );
    });
  });

  test('selector transitions: stop matching → DELETED (old state, new RV); start matching → ADDED', async () => {
    const ns = await namespace();
    await createSecret(ns, 'x', { app: 'on' });
    const from = await listRV(ns);
    const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&labelSelector=app%3Don&resourceVersion=${from}`);
    const off = await patchSecret(ns, 'x', { metadata: { labels: { app: 'off' } } });
    const [gone] = await w.next(1);
    expect(gone?.type).toBe('DELETED');
    expect(gone?.object.metadata.labels).toEqual({ app: 'on' });
    expect(gone?.object.metadata.resourceVersion).toBe(off.metadata.resourceVersion);
    await patchSecret(ns, 'x', { data: { k: b64('unseen') } });
    const on = await patchSecret(ns, 'x', { metadata: { labels: { app: 'on' } } });
    const [back] = await w.next(1);
    expect(triple(back as StreamEvent)).toEqual(['ADDED', 'x', on.metadata.resourceVersion]);
    expect(back?.object.metadata.labels).toEqual({ app: 'on' });
    expect(back?.object.data.k).toBe(b64('unseen'));
  });

  test('two replicas on one etcd and prefix: same events, same resourceVersions, same order, same lists', async () => {
    const other = await start({ prefix: srv.prefix });
    const ns = await namespace();
    await createSecret(ns, 'a');
    const from = await listRV(ns, other);
    const onOther = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`, other);
    const onThis = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`);
    const writes = [
      await createSecret(ns, 'b'),
      await patchSecret(ns, 'a', { data: { k: b64('v2') } }, other),
      await createSecret(ns, 'c', undefined, other),
      await patchSecret(ns, 'b', { data: { k: b64('v2') } }),
    ];
    const expected = [
      ['ADDED', 'b', writes[0]?.metadata.resourceVersion],
      ['MODIFIED', 'a', writes[1]?.metadata.resourceVersion],
      ['ADDED', 'c', writes[2]?.metadata.resourceVersion],
      ['MODIFIED', 'b', writes[3]?.metadata.resourceVersion],
    ];
    expect((await onOther.next(4)).map(triple)).toEqual(expected);
    expect((await onThis.next(4)).map(triple)).toEqual(expected);
    // Reads on one replica honour RVs handed out by the other: a write through `other`, then at once a
    // consistent list and a not-older-than get on `srv` see it.
    const d = await createSecret(ns, 'd', undefined, other);
    const [consistent, notOlder] = await Promise.all([
      srv.request('GET', `/api/v1/namespaces/${ns}/secrets`),
      srv.request('GET', `/api/v1/namespaces/${ns}/secrets/d?resourceVersion=${d.metadata.resourceVersion}`),
    ]);
    expect(consistent.json().items.map((i: Obj) => i.metadata.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(notOlder.json().metadata.resourceVersion).toBe(d.metadata.resourceVersion);
    const at = d.metadata.resourceVersion;
    for (const q of ['', `?resourceVersion=${at}`, `?resourceVersion=${at}&resourceVersionMatch=Exact`]) {
      const [x, y] = await Promise.all([srv, other].map((s) => s.request('GET', `/api/v1/namespaces/${ns}/secrets${q}`)));
      expect(y?.json().items).toEqual(x?.json().items);
      if (q.includes('Exact')) expect([x?.json().metadata.resourceVersion, y?.json().metadata.resourceVersion]).toEqual([at, at]);
    }
  });

  test('cache freshness: a write elsewhere in etcd advances the revision; consistent reads answer promptly at or after it', async () => {
    const ns = await seeded();
    const put = await srv.etcdStore.etcd.put(`/elsewhere-${watchCache}`).value('x').exec();
    const revision = BigInt(put.header.revision);
    const list = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets`);
    expect(BigInt(list.json().metadata.resourceVersion)).toBeGreaterThanOrEqual(revision);
    const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    // The outcome, not the time, shows the cache reached the revision: a cache that missed it would
    // answer this consistent watch with its 504 after its 3 s wait instead of the initial events'
    // BOOKMARK (the list above, on the same wait, would fall back to etcd and look the same).
    const [, , end] = await w.next(3, 20_000);
    expect(end?.type).toBe('BOOKMARK');
    expect(rvOf(end?.object)).toBeGreaterThanOrEqual(revision);
  });

  test('history window: a start older than the cache history but not compacted gets exactly the missing events; compacted → 410', async () => {
    const small = watchCache ? await start({ cacheOptions: { maxHistoryEvents: 5, bookmarkIntervalMs: 60_000 } }) : srv;
    const ns = await namespace(small);
    const from = await listRV(ns, small);
    const writes: Obj[] = [];
    for (let i = 0; i < 8; i++) writes.push(await createSecret(ns, `s${i}`, undefined, small));
    for (let i = 0; i < 4; i++) writes.push(await patchSecret(ns, `s${i}`, { data: { k: b64('v2') } }, small));
    await listRV(ns, small);
    const w = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`, small);
    expect((await w.next(12)).map(triple)).toEqual(writes.map((o, i) => [i < 8 ? 'ADDED' : 'MODIFIED', o.metadata.name, o.metadata.resourceVersion]));
    const last = await createSecret(ns, 'last', undefined, small);
    expect((await w.next(1)).map(triple)).toEqual([['ADDED', 'last', last.metadata.resourceVersion]]);
    // Every start around the window's edge (the cache keeps the last 5 events) gets exactly what follows it.
    const all = [...writes, last].map((o) => o.metadata.resourceVersion);
    await Promise.all(
      all.slice(0, -1).map(async (from, i) => {
        const wk = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`, small);
        expect((await wk.next(all.length - i - 1)).map((e) => e.object.metadata.resourceVersion)).toEqual(all.slice(i + 1));
      }),
    );

    await compactAll(small);
    const expired = await watch(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${from}`, small);
    const [ev] = await expired.next(1);
    expect(ev?.type).toBe('ERROR');
    expect(ev?.object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    await expired.ended;
  });
});
