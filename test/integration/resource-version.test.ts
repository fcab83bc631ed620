/**
 * resourceVersion semantics of get and list (seed 000 "Resource version semantics" tables, kube-facts
 * §1.5 and §3) against the real server on a real etcd, through the watch cache and straight from etcd:
 * every assertion runs on both paths (where kube answers differently, each path's answer is asserted).
 * Watch semantics are in watch-semantics.test.ts.
 */
import { until } from '../support/until';
import { HttpResult } from '../support/api-server';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { cause, expectStatus, failure, StatusBody } from '../support/kube-status';
import { openWatch } from '../support/watch-stream';

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion: string; uid: string };
  data?: Record<string, string>;
}
interface List {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Obj[];
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const names = (l: List): string[] => l.items.map((i) => i.metadata.name);
const rvOf = (o: { metadata: { resourceVersion: string } }): bigint => BigInt(o.metadata.resourceVersion);

/** The 422 kube's ValidateListOptions answers with (GK ListOptions.meta.k8s.io, name ""). */
function invalidListOptions(detail: string): ReturnType<typeof failure> {
  return failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: ${detail}`, {
    group: 'meta.k8s.io',
    kind: 'ListOptions',
    causes: [cause('FieldValueForbidden', 'resourceVersionMatch', `Forbidden: ${detail}`)],
  });
}

/**
 * kube's 504 for a resourceVersion the server has not reached (storage.NewTooLargeResourceVersionError):
 * the watch cache's after its 3 s wait asks for a retry after 1 s (watch_cache.go waitUntilFreshAndBlock);
 * the etcd3 store's, answered at once after its read, carries no retry (store.go validateMinimumResourceVersion).
 */
function tooLarge(requested: bigint | string, current: bigint | string, retryAfterSeconds: number): StatusBody {
  const causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
  return failure(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${requested}, current: ${current}`,
    retryAfterSeconds ? { causes, retryAfterSeconds } : { causes },
  );
}

/**
 * kube 1.32's answer to a read at an exact revision etcd has not reached: etcd's ErrFutureRev passes up
 * unconverted (etcd3 interpretListError, storage/errors InterpretListError) and ErrorToAPIStatus
 * answers 500 with no reason, no details and etcd's text.
 */
const futureRevision: StatusBody = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'etcdserver: mvcc: required revision is a future revision',
  code: 500,
};

const etcd = useTestEtcd();

describe.each([{ watchCache: true }, { watchCache: false }])('resourceVersion semantics of get and list (watchCache: $watchCache)', ({ watchCache }) => {
  const { srv } = useTestServer({ etcd, watchCache });
  let nsCount = 0;

  async function namespace(): Promise<string> {
    const name = `rv-${watchCache ? 'c' : 'e'}-${++nsCount}`;
    const r = await srv.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    expect(r.status).toBe(201);
    // The service-account controller writes the namespace's default ServiceAccount soon after: wait
    // for it, so no later write moves etcd's revision under a test that names it.
    await until(`the default ServiceAccount of ${name}`, async () => (await srv.request('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).status === 200);
    return name;
  }
  async function createSecret(ns: string, name: string, value = 'v1'): Promise<Obj> {
    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { k: b64(value) } },
    });
    expect(r.status).toBe(201);
    return r.json<Obj>();
  }
  async function updateSecret(ns: string, name: string, value: string): Promise<Obj> {
    const r = await srv.request('PATCH', `/api/v1/namespaces/${ns}/secrets/${name}`, {
      body: { data: { k: b64(value) } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(200);
    return r.json<Obj>();
  }
  async function deleteSecret(ns: string, name: string): Promise<void> {
    const r = await srv.request('DELETE', `/api/v1/namespaces/${ns}/secrets/${name}`);
    expect(r.status).toBe(200);
  }
  async function list(ns: string, query: string): Promise<List> {
    const r = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets${query ? `?${query}` : ''}`);
    expect({ status: r.status, body: r.status === 200 ? undefined : r.text }).toEqual({ status: 200, body: undefined });
    return r.json<List>();
  }
  const listRaw = (ns: string, query: string): Promise<HttpResult> => srv.request('GET', `/api/v1/namespaces/${ns}/secrets?${query}`);
  const compactAll = async (): Promise<bigint> => {
    const rev = await srv.etcdStore.currentRevision();
    await srv.etcdStore.etcd.kv.compact({ revision: rev.toString(), physical: true });
    return rev;
  };

  /**
   * A namespace where the state at `at` is {a(v1), b(v1)}, and afterwards c was created, a deleted and
   * b updated to v2: the fixture for every Exact / Not-older-than cell.
   */
  async function history(): Promise<{ ns: string; at: bigint; latest: bigint }> {
    const ns = await namespace();
    await createSecret(ns, 'a');
    const b = await createSecret(ns, 'b');
    await createSecret(ns, 'c');
    await deleteSecret(ns, 'a');
    const last = await updateSecret(ns, 'b', 'v2');
    // The deletion of a is at a revision of its own, and b's update last; the state "at" is b's create.
    return { ns, at: rvOf(b), latest: rvOf(last) };
  }
  /** The items of a list at `history().at`: a and b, both still v1 (c not yet created). */
  const expectStateAtFirstWrites = (l: List): void => {
    expect(names(l)).toEqual(['a', 'b']);
    expect(l.items.map((i) => i.data?.k)).toEqual([b64('v1'), b64('v1')]);
  };
  /** The items of a list at or after `history().latest`: b (v2) and c. */
  const expectLatestState = (l: List): void => {
    expect(names(l)).toEqual(['b', 'c']);
    expect(l.items[0]?.data?.k).toBe(b64('v2'));
  };

  describe('get', () => {
    test('resourceVersion unset is Most Recent: the latest write is visible at once', async () => {
      const ns = await namespace();
      await createSecret(ns, 's');
      const updated = await updateSecret(ns, 's', 'v2');
      const r = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets/s`);
      expect(r.status).toBe(200);
      expect(r.json()).toMatchObject({ data: { k: b64('v2') }, metadata: { resourceVersion: updated.metadata.resourceVersion } });
    });

    test('resourceVersion=0 is Any: some written state of the object', async () => {
      const ns = await namespace();
      const created = await createSecret(ns, 's');
      const updated = await updateSecret(ns, 's', 'v2');
      const r = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets/s?resourceVersion=0`);
      expect(r.status).toBe(200);
      expect([created.metadata.resourceVersion, updated.metadata.resourceVersion]).toContain(r.json().metadata.resourceVersion);
    });

    test('resourceVersion=N is Not older than: a get at the RV of the write just made returns that write', async () => {
      const ns = await namespace();
      await createSecret(ns, 's');
      for (const v of ['v2', 'v3', 'v4']) {
        const updated = await updateSecret(ns, 's', v);
        const r = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets/s?resourceVersion=${updated.metadata.resourceVersion}`);
        expect(r.status).toBe(200);
        expect(r.json()).toMatchObject({ data: { k: b64(v) }, metadata: { resourceVersion: updated.metadata.resourceVersion } });
      }
      // A deletion is visible to a get not older than it (the RV of a list that saw it): 404.
      await deleteSecret(ns, 's');
      const after = await list(ns, '');
      const gone = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets/s?resourceVersion=${after.metadata.resourceVersion}`);
      expect(gone.status).toBe(404);
    });

  });

  test(
    watchCache
      ? 'a resourceVersion far in the future: get and not-older-than lists wait 3 s in the cache, then 504 with Retry-After: 1; Exact lists go to etcd: 500 at once'
      : 'a resourceVersion far in the future: get and not-older-than lists read etcd, then 504 at once without Retry-After; Exact lists 500 at once',
    async () => {
      const ns = await namespace();
      await createSecret(ns, 's');
      const current = await srv.etcdStore.currentRevision();
      const future = current + 1000n;
      // "At once" is shown by order, not elapsed time: a watch at the same future resourceVersion
      // gets its ERROR only after the 3 s wait (both paths), so an answer before that did not wait.
      let waitedOut = false;
      const reference = openWatch(srv, `/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${future}`).then(async (w) => {
        try {
          const events = await w.next(1, 30_000);
          waitedOut = true;
          return { status: w.status, events: events.map((e) => e.type) };
        } finally {
          w.close();
        }
      });
      const timed = async (p: Promise<HttpResult>): Promise<{ r: HttpResult; ms: number; beforeTheWait: boolean }> => {
        const started = Date.now();
        const r = await p;
        return { r, ms: Date.now() - started, beforeTheWait: !waitedOut };
      };
      // All at once, so that the cache's waits (kube's blockTimeout, 3 s) run side by side.
      const [notOlderThan, exact] = await Promise.all([
        Promise.all([
          timed(srv.request('GET', `/api/v1/namespaces/${ns}/secrets/s?resourceVersion=${future}`)),
          // The freshness check comes before not-found (cache: WaitUntilFreshAndGet; etcd: validate after the read).
          timed(srv.request('GET', `/api/v1/namespaces/${ns}/secrets/missing?resourceVersion=${future}`)),
          timed(listRaw(ns, `resourceVersion=${future}`)),
          timed(listRaw(ns, `resourceVersion=${future}&resourceVersionMatch=NotOlderThan`)),
          // kube's cacher serves a not-older-than list with a limit itself (computeListLimit).
          timed(listRaw(ns, `limit=1&resourceVersion=${future}&resourceVersionMatch=NotOlderThan`)),
        ]),
        Promise.all([
          // Exact, and the legacy Exact of a limit with resourceVersion=N: always read at N from etcd (shouldDelegateList).
          timed(listRaw(ns, `resourceVersion=${future}&resourceVersionMatch=Exact`)),
          timed(listRaw(ns, `limit=1&resourceVersion=${future}&resourceVersionMatch=Exact`)),
          timed(listRaw(ns, `limit=1&resourceVersion=${future}`)),
        ]),
      ]);
      expect(await reference).toEqual({ status: 200, events: ['ERROR'] });
      for (const { r, ms, beforeTheWait } of notOlderThan) {
        if (watchCache) {
          expectStatus(r, tooLarge(future, current, 1));
          expect(r.headers['retry-after']).toBe('1');
          expect(ms).toBeGreaterThanOrEqual(2500);
        } else {
          expectStatus(r, tooLarge(future, current, 0));
          expect(r.headers['retry-after']).toBeUndefined();
          expect(beforeTheWait).toBe(true);
        }
      }
      for (const { r, beforeTheWait } of exact) {
        expectStatus(r, futureRevision);
        expect(r.headers['retry-after']).toBeUndefined();
        expect(beforeTheWait).toBe(true);
      }
    },
  );

  describe('list, resourceVersionMatch unset, no limit', () => {
    test('resourceVersion unset is Most Recent: every write so far, collection RV not older than the last write', async () => {
      const { ns, latest } = await history();
      const l = await list(ns, '');
      expectLatestState(l);
      expect(rvOf(l)).toBeGreaterThanOrEqual(latest);
      expect(l.metadata.continue).toBeUndefined();
    });

    test('resourceVersion=0 is Any: a consistent state at the collection RV, never paged', async () => {
      const { ns, at } = await history();
      const l = await list(ns, 'resourceVersion=0');
      expect(rvOf(l)).toBeGreaterThanOrEqual(at);
      for (const i of l.items) expect(rvOf(i)).toBeLessThanOrEqual(rvOf(l));
      expect(l.metadata.continue).toBeUndefined();
    });

    test('resourceVersion=N is Not older than N', async () => {
      const { ns, latest } = await history();
      const l = await list(ns, `resourceVersion=${latest}`);
      expectLatestState(l);
      expect(rvOf(l)).toBeGreaterThanOrEqual(latest);
    });
  });

  describe('list, resourceVersionMatch unset, with limit', () => {
    test('resourceVersion unset is Most Recent, paged', async () => {
      const { ns, latest } = await history();
      const first = await list(ns, 'limit=1');
      expect(names(first)).toEqual(['b']);
      expect(rvOf(first)).toBeGreaterThanOrEqual(latest);
      expect(first.metadata.remainingItemCount).toBe(1);
      const rest = await list(ns, `limit=1&continue=${first.metadata.continue}`);
      expect(names(rest)).toEqual(['c']);
      expect(rest.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    });

    test('resourceVersion=0 is Any (kube serves it from the watch cache ignoring limit; etcd honours it)', async () => {
      const { ns, latest } = await history();
      // Once a not-older-than read has seen the latest write, "any" state is at least that new.
      await list(ns, `resourceVersion=${latest}`);
      const l = await list(ns, 'limit=1&resourceVersion=0');
      expect(rvOf(l)).toBeGreaterThanOrEqual(latest);
      if (watchCache) {
        // kube-facts §3: RV=0 with a limit is served from the cache and the limit is ignored.
        expectLatestState(l);
        expect(l.metadata.continue).toBeUndefined();
      } else {
        expect(names(l)).toEqual(['b']);
        expect(l.metadata.continue).toBeDefined();
      }
    });

    test('resourceVersion=N is Exact: the collection RV is N and the items are the state at N', async () => {
      const { ns, at } = await history();
      const l = await list(ns, `limit=10&resourceVersion=${at}`);
      expect(l.metadata.resourceVersion).toBe(at.toString());
      // a was deleted after N (present), c created after N (absent), b updated after N (old data).
      expectStateAtFirstWrites(l);
      // Pages of an Exact list stay at N.
      const first = await list(ns, `limit=1&resourceVersion=${at}`);
      expect(names(first)).toEqual(['a']);
      expect(first.metadata.resourceVersion).toBe(at.toString());
      const second = await list(ns, `limit=1&continue=${first.metadata.continue}`);
      expect(names(second)).toEqual(['b']);
      expect(second.items[0]?.data?.k).toBe(b64('v1'));
      expect(second.metadata.resourceVersion).toBe(at.toString());
      expect(second.metadata.continue).toBeUndefined();
    });

    test('a name pinned by metadata.name= in a namespace reads one key (kube Recursive=false): RV=N is not-older-than, never a continue token', async () => {
      const { ns, at, latest } = await history();
      // A neighbour sharing the key prefix must not make the list page.
      await createSecret(ns, 'b-1');
      const pinned = await list(ns, `fieldSelector=metadata.name%3Db&limit=1&resourceVersion=${at}`);
      // Not the state at N (b v1) but the latest: the legacy exact match holds for recursive lists only.
      expect(names(pinned)).toEqual(['b']);
      expect(pinned.items[0]?.data?.k).toBe(b64('v2'));
      expect(rvOf(pinned)).toBeGreaterThanOrEqual(latest);
      expect(pinned.metadata.continue).toBeUndefined();
      expect(pinned.metadata.remainingItemCount).toBeUndefined();
      const notOlder = await list(ns, `fieldSelector=metadata.name%3Db&limit=1&resourceVersion=${at}&resourceVersionMatch=NotOlderThan`);
      expect(names(notOlder)).toEqual(['b']);
      expect(notOlder.metadata.continue).toBeUndefined();
      // Exact stays exact.
      const exact = await list(ns, `fieldSelector=metadata.name%3Db&limit=1&resourceVersion=${at}&resourceVersionMatch=Exact`);
      expect(exact.items.map((i) => i.data?.k)).toEqual([b64('v1')]);
      expect(exact.metadata.resourceVersion).toBe(at.toString());
      // Across namespaces no single key can be named: the list stays recursive, so the legacy match is exact.
      const all = await srv.request('GET', `/api/v1/secrets?fieldSelector=metadata.name%3Db,metadata.namespace%3D${ns}&limit=1&resourceVersion=${at}`);
      expect(all.status).toBe(200);
      const allList = all.json<List>();
      expect(allList.metadata.resourceVersion).toBe(at.toString());
      expect(allList.items.map((i) => i.data?.k)).toEqual([b64('v1')]);
    });
  });

  describe('list with continue', () => {
    test('resourceVersion unset: Continue Token, Exact — later pages show the state of the first page', async () => {
      const ns = await namespace();
      for (const n of ['a', 'b', 'c']) await createSecret(ns, n);
      const first = await list(ns, 'limit=1');
      expect(names(first)).toEqual(['a']);
      await createSecret(ns, 'd');
      await deleteSecret(ns, 'c');
      await updateSecret(ns, 'b', 'v2');
      const second = await list(ns, `limit=1&continue=${first.metadata.continue}`);
      expect(names(second)).toEqual(['b']);
      expect(second.items[0]?.data?.k).toBe(b64('v1'));
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      const third = await list(ns, `limit=5&continue=${second.metadata.continue}`);
      expect(names(third)).toEqual(['c']);
      expect(third.metadata.continue).toBeUndefined();
    });

    test('resourceVersion=0 with continue is invalid but treated as the continue token (Exact)', async () => {
      const ns = await namespace();
      for (const n of ['a', 'b']) await createSecret(ns, n);
      const first = await list(ns, 'limit=1');
      await createSecret(ns, 'c');
      const second = await list(ns, `limit=5&resourceVersion=0&continue=${first.metadata.continue}`);
      expect(names(second)).toEqual(['b']);
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    });

    test('resourceVersion=N with continue is 400', async () => {
      const ns = await namespace();
      for (const n of ['a', 'b']) await createSecret(ns, n);
      const first = await list(ns, 'limit=1');
      const r = await listRaw(ns, `limit=1&resourceVersion=${first.metadata.resourceVersion}&continue=${first.metadata.continue}`);
      expectStatus(r, failure(400, 'BadRequest', 'specifying resource version is not allowed when using continue'));
    });

    test('resourceVersionMatch with continue is 422', async () => {
      const ns = await namespace();
      for (const n of ['a', 'b']) await createSecret(ns, n);
      const first = await list(ns, 'limit=1');
      const r = await listRaw(ns, `limit=1&resourceVersion=0&resourceVersionMatch=NotOlderThan&continue=${first.metadata.continue}`);
      expectStatus(r, invalidListOptions('resourceVersionMatch is forbidden when continue is provided'));
    });
  });

  describe('list, resourceVersionMatch=Exact', () => {
    test.each(['', 'limit=1&'])('%sresourceVersion unset is 422', async (limit) => {
      const ns = await namespace();
      expectStatus(await listRaw(ns, `${limit}resourceVersionMatch=Exact`), invalidListOptions('resourceVersionMatch is forbidden unless resourceVersion is provided'));
    });

    test.each(['', 'limit=1&'])('%sresourceVersion=0 is 422', async (limit) => {
      const ns = await namespace();
      expectStatus(
        await listRaw(ns, `${limit}resourceVersion=0&resourceVersionMatch=Exact`),
        invalidListOptions('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
      );
    });

    test('resourceVersion=N, no limit: exactly the state at N, collection RV N', async () => {
      const { ns, at } = await history();
      const l = await list(ns, `resourceVersion=${at}&resourceVersionMatch=Exact`);
      expect(l.metadata.resourceVersion).toBe(at.toString());
      expectStateAtFirstWrites(l);
    });

    test('resourceVersion=N with limit: exactly the state at N, paged at N', async () => {
      const { ns, at } = await history();
      const first = await list(ns, `limit=1&resourceVersion=${at}&resourceVersionMatch=Exact`);
      expect(names(first)).toEqual(['a']);
      expect(first.metadata.resourceVersion).toBe(at.toString());
      expect(first.metadata.remainingItemCount).toBe(1);
      const second = await list(ns, `limit=1&continue=${first.metadata.continue}`);
      expect(names(second)).toEqual(['b']);
      expect(second.metadata.resourceVersion).toBe(at.toString());
    });
  });

  describe('list, resourceVersionMatch=NotOlderThan', () => {
    test.each(['', 'limit=1&'])('%sresourceVersion unset is 422', async (limit) => {
      const ns = await namespace();
      expectStatus(await listRaw(ns, `${limit}resourceVersionMatch=NotOlderThan`), invalidListOptions('resourceVersionMatch is forbidden unless resourceVersion is provided'));
    });

    test.each(['', 'limit=10&'])('%sresourceVersion=0 is Any', async (limit) => {
      const { ns, at } = await history();
      const l = await list(ns, `${limit}resourceVersion=0&resourceVersionMatch=NotOlderThan`);
      expect(rvOf(l)).toBeGreaterThanOrEqual(at);
      for (const i of l.items) expect(rvOf(i)).toBeLessThanOrEqual(rvOf(l));
    });

    test('resourceVersion=N, no limit: Not older than N', async () => {
      const { ns, at, latest } = await history();
      for (const n of [at, latest]) {
        const l = await list(ns, `resourceVersion=${n}&resourceVersionMatch=NotOlderThan`);
        expect(rvOf(l)).toBeGreaterThanOrEqual(n);
      }
      expectLatestState(await list(ns, `resourceVersion=${latest}&resourceVersionMatch=NotOlderThan`));
    });

    test('resourceVersion=N with limit: Not older than N, paged', async () => {
      const { ns, latest } = await history();
      const first = await list(ns, `limit=1&resourceVersion=${latest}&resourceVersionMatch=NotOlderThan`);
      expect(names(first)).toEqual(['b']);
      expect(rvOf(first)).toBeGreaterThanOrEqual(latest);
      expect(first.metadata.remainingItemCount).toBe(1);
      const second = await list(ns, `limit=1&continue=${first.metadata.continue}`);
      expect(names(second)).toEqual(['c']);
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect(second.metadata.continue).toBeUndefined();
    });
  });

  describe('compaction', () => {
    test('an Exact list at a compacted resourceVersion is 410 Expired', async () => {
      const { ns, at } = await history();
      await compactAll();
      const expired = failure(410, 'Expired', 'The resourceVersion for the provided list is too old.');
      expectStatus(await listRaw(ns, `resourceVersion=${at}&resourceVersionMatch=Exact`), expired);
      expectStatus(await listRaw(ns, `limit=1&resourceVersion=${at}`), expired);
      // Not-older-than at the same RV is still served (newer data is allowed).
      expectLatestState(await list(ns, `resourceVersion=${at}&resourceVersionMatch=NotOlderThan`));
    });

    test('an expired continue token is 410 with an inconsistent-continue token (rv -1) that continues at the latest revision', async () => {
      const ns = await namespace();
      for (const n of ['a', 'b', 'c']) await createSecret(ns, n);
      const first = await list(ns, 'limit=1');
      await createSecret(ns, 'd');
      await deleteSecret(ns, 'b');
      await compactAll();

      const r = await listRaw(ns, `limit=1&continue=${first.metadata.continue}`);
      expect(r.status).toBe(410);
      const status = r.json();
      const token = status.metadata.continue as string;
      expect(JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))).toEqual({ v: 'meta.k8s.io/v1', rv: -1, start: 'a\u0000' });
      const expected = failure(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
      expected.metadata = { continue: token };
      expectStatus(r, expected);

      // The fresh token continues after a at the latest revision: b is gone, d is there.
      const current = await srv.etcdStore.currentRevision();
      const next = await list(ns, `limit=1&continue=${token}`);
      expect(names(next)).toEqual(['c']);
      expect(rvOf(next)).toBeGreaterThanOrEqual(current);
      const last = await list(ns, `limit=5&continue=${next.metadata.continue}`);
      expect(names(last)).toEqual(['d']);
      expect(last.metadata.resourceVersion).toBe(next.metadata.resourceVersion);
    });
  });
});
