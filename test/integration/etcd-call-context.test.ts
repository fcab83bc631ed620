/**
 * etcd calls are bounded as kube's etcd3 store bounds them (storage/etcd/call-context.ts): a call
 * made for a request by that request's context, a call made with none by the connection's
 * keepalive, the health check by its own 2 s.
 *
 * - Server, --request-timeout 30 s: a write while etcd is stalled for longer than 5 s (the fixed
 *   call deadline this store used to have) is answered 201 once etcd resumes; a request with
 *   `?timeout=6s` gets the timeout filter's 504, not a storage 500.
 * - A client that goes away while etcd is stalled: the store's etcd call for it (a create's Txn, a
 *   get's Range) is cancelled then — it settles, as a gRPC cancellation, while etcd is still
 *   stopped — and the server serves on once etcd resumes. (Whether etcd applies a write whose
 *   cancellation reaches it with the request is up to etcd, as in kube: not asserted.)
 * - Storage on the same etcd: a context ended while the call waits fails it with ContextDone; a
 *   deadline nothing times is still enforced (gRPC's backstop); a call without a context fails
 *   Unreachable once the keepalive ping goes unanswered; ping() is false within its timeout.
 */
import https from 'node:https';
import { GRPCFailedPreconditionError } from 'etcd3';
import { endContext, type CallContext } from '../../src/api/request-context';
import { EtcdStore, StorageError } from '../../src/storage';
import { useTestServer } from '../support/server-fixture';
import { withEtcdPaused as pauseEtcd } from '../support/etcd-pause';
import { configMap } from '../support/factories';
import { until } from '../support/until';

const kubeTimeout = '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n';
const cms = '/api/v1/namespaces/default/configmaps';

const stores: EtcdStore[] = [];
const { srv, etcd } = useTestServer({ requestTimeoutMs: 30_000, beforeStop: () => Promise.all(stores.map((s) => s.close())) });

/** Runs `fn` with this file's etcd stopped (SIGSTOP), always continuing it afterwards. */
const withEtcdPaused = <T>(fn: () => Promise<T>): Promise<T> => pauseEtcd(etcd, fn);

interface Recorded {
  key: string;
  /** 'ok', or the error the call failed with; undefined while in flight. */
  outcome?: unknown;
}

/** Records the server's etcd calls of one kind (their key and how they ended) until `restore`. */
function recordCalls(method: 'txn' | 'range'): { calls: Recorded[]; restore: () => void } {
  const kv = srv.etcdStore.etcd.kv as unknown as Record<string, (req: unknown, o?: unknown) => Promise<unknown>>;
  const original = kv[method] as (req: unknown, o?: unknown) => Promise<unknown>;
  const calls: Recorded[] = [];
  kv[method] = function (this: unknown, req: unknown, o?: unknown) {
    const r = req as { key?: Buffer; compare?: Array<{ key: Buffer }> };
    const rec: Recorded = { key: String(r.key ?? r.compare?.[0]?.key ?? '') };
    calls.push(rec);
    const p = original.call(this, req, o);
    p.then(
      () => (rec.outcome = 'ok'),
      (e: unknown) => (rec.outcome = e),
    );
    return p;
  };
  return { calls, restore: () => delete kv[method] };
}

/** Sends a request and leaves it open; `abandon` closes the connection before the answer (the client gone). */
function openRequest(method: string, path: string, body?: unknown): { abandon: () => void; answered: Promise<number> } {
  const req = https.request(`${srv.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
    ca: srv.caCert,
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  answered.catch(() => undefined);
  req.end(body === undefined ? undefined : JSON.stringify(body));
  return { abandon: () => req.destroy(), answered };
}

let warmups = 0;
/**
 * A create in `default` just before etcd stalls: ResourceQuota admission's live lookup of the
 * namespace's quotas (kube's, remembered 30 s) is then fresh, so the request under test reaches
 * its own etcd call instead of waiting on that list (a slow run can outlast the 30 s otherwise).
 */
async function warmQuotaLookup(): Promise<void> {
  expect((await srv.request('POST', cms, { body: configMap(`warm-${++warmups}`) })).status).toBe(201);
}

describe('server: a request is bounded by its own deadline, not by a fixed call deadline', () => {
  test('a create while etcd is stalled for longer than 5 s is answered 201 once etcd resumes', async () => {
    const txns = recordCalls('txn');
    try {
      let answered: number | undefined;
      await warmQuotaLookup();
      const created = withEtcdPaused(async () => {
        const pending = srv.request('POST', cms, { body: configMap('slow-etcd', { data: { a: '1' } }) });
        void pending.then((r) => (answered = r.status));
        await until('the create\'s Txn sent', () => txns.calls.some((c) => c.key.endsWith('/configmaps/default/slow-etcd')));
        // etcd stays stalled past the 5 s this store's calls used to be cut at (a slow fsync, say).
        await new Promise((r) => setTimeout(r, 6000));
        expect(answered).toBeUndefined();
        // Wrapped: returned as it is, the promise would be awaited before etcd is continued.
        return { pending };
      });
      const r = await (await created).pending;
      expect(r.status).toBe(201);
      expect((await srv.request('GET', `${cms}/slow-etcd`)).json().data).toEqual({ a: '1' });
    } finally {
      txns.restore();
    }
  });

  test("?timeout=6s with etcd stalled: the timeout filter's 504, as kube answers", async () => {
    const r = await withEtcdPaused(() => srv.request('GET', `${cms}/missing?timeout=6s`));
    expect(r.status).toBe(504);
    expect(r.text).toBe(kubeTimeout);
    expect((await srv.request('GET', `${cms}/missing`)).status).toBe(404);
  });
});

describe('server: a client gone while etcd is stalled cancels the etcd call made for it', () => {
  test.each([
    ['a create (its Txn)', 'txn' as const, 'POST', cms, configMap('abandoned', { data: { a: '1' } }), '/configmaps/default/abandoned'],
    ['a get (its Range)', 'range' as const, 'GET', `${cms}/abandoned-read`, undefined, '/configmaps/default/abandoned-read'],
  ])('%s', async (_what, kind, method, path, body, keySuffix) => {
    const rec = recordCalls(kind);
    try {
      await warmQuotaLookup();
      await withEtcdPaused(async () => {
        const req = openRequest(method, path, body);
        const call = await until(`the ${kind} for ${path} sent`, () => rec.calls.find((c) => c.key.endsWith(keySuffix)));
        req.abandon();
        // Settled while etcd is still stopped: cancelled for the context's end (not a deadline, nor a
        // fault etcd3 would drop its connection for).
        const outcome = await until(`the ${kind} for ${path} to settle`, () => call.outcome);
        expect(outcome).toBeInstanceOf(GRPCFailedPreconditionError);
        expect((outcome as Error).message).toContain('context canceled');
      });
      // Once etcd is back the server serves on.
      expect((await srv.request('GET', `${cms}/abandoned-read`)).status).toBe(404);
      expect((await srv.request('POST', cms, { body: configMap(`after-${kind}`) })).status).toBe(201);
    } finally {
      rec.restore();
    }
  });
});

describe('storage: how each kind of call is bounded', () => {
  let store: EtcdStore;
  beforeAll(async () => {
    store = new EtcdStore({ endpoints: etcd.endpoints });
    stores.push(store);
    expect(await store.ping()).toBe(true);
  });
  const contextDone = (text: string) => expect.objectContaining({ code: 'ContextDone', message: text });

  test('a context ended while its call waits on a stalled etcd fails the call at once (ContextDone)', async () => {
    await withEtcdPaused(async () => {
      const ctx: CallContext = {};
      const read = store.get('/registry/configmaps/default/x', { ctx });
      const settled = read.then(
        () => 'ok',
        (e: unknown) => e,
      );
      endContext(ctx, 'context canceled');
      expect(await settled).toEqual(contextDone('context canceled'));
    });
  });

  test('a deadline nothing times still ends the call (gRPC\'s deadline, just past it), and marks the context', async () => {
    await withEtcdPaused(async () => {
      const ctx: CallContext = { deadlineAt: performance.now() + 200 };
      await expect(store.get('/registry/configmaps/default/x', { ctx })).rejects.toEqual(contextDone('context deadline exceeded'));
      expect(ctx.ended).toBe('context deadline exceeded');
    });
  });

  test('a call without a context ends Unreachable once the keepalive ping goes unanswered; the store works again after', async () => {
    // Keepalive shortened (kube's: 30 s, then 10 s for the answer) so the test need not wait 40 s.
    // Its own store, connected before etcd stalls: a connection being set up to a stalled etcd has
    // no keepalive yet, and grpc-js no connect timeout (docs/limits.md).
    const ka = new EtcdStore({ endpoints: etcd.endpoints, keepaliveTimeMs: 1000, keepaliveTimeoutMs: 1000 });
    stores.push(ka);
    expect(await ka.ping()).toBe(true);
    await withEtcdPaused(async () => {
      const err = await ka.get('/registry/configmaps/default/x').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StorageError);
      expect((err as StorageError).code).toBe('Unreachable');
    });
    await until('the store reaches etcd again', () => ka.ping());
    await expect(ka.get('/registry/configmaps/default/x')).rejects.toEqual(expect.objectContaining({ code: 'KeyNotFound' }));
  });

  test('ping() answers false within its own timeout while etcd is stalled', async () => {
    const plain = new EtcdStore({ endpoints: etcd.endpoints, healthcheckTimeoutMs: 300 });
    stores.push(plain);
    expect(await plain.ping()).toBe(true);
    expect(await withEtcdPaused(() => plain.ping())).toBe(false);
  });
});
