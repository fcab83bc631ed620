/**
 * GuaranteedUpdate on a real etcd with the watch cache's copy as the first guess (kube's
 * cachedExistingObject): one Txn when the copy is current, a retry on the state the failed Txn
 * returned when it is stale, and kube's re-read rules for errors and no-op updates (a delete's validation too). etcd's own
 * gRPC counters (/metrics) tell how many round trips each update took.
 */
import type { KubeObject } from '../../src/api';
import { EtcdStore, StorageError } from '../../src/storage';
import { useTestEtcd } from '../support/server-fixture';

let store: EtcdStore;

const etcd = useTestEtcd({ beforeStop: () => store?.close() });
beforeAll(() => {
  store = new EtcdStore({ endpoints: etcd.endpoints });
});

/** etcd's count of started KV calls by method. */
async function kvCalls(): Promise<{ Range: number; Txn: number }> {
  const text = await (await fetch(`${etcd.endpoints[0]}/metrics`)).text();
  const count = (method: string) => {
    const m = new RegExp(`^grpc_server_started_total\\{grpc_method="${method}",grpc_service="etcdserverpb.KV",grpc_type="unary"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { Range: count('Range'), Txn: count('Txn') };
}

/** Runs `f` and returns the KV calls it made. */
async function callsOf(f: () => Promise<unknown>): Promise<{ Range: number; Txn: number }> {
  const before = await kvCalls();
  await f();
  const after = await kvCalls();
  return { Range: after.Range - before.Range, Txn: after.Txn - before.Txn };
}

let n = 0;
async function stored(data: string): Promise<{ key: string; obj: KubeObject }> {
  const key = `/registry/secrets/default/s${++n}`;
  const obj = await store.create(key, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${n}`, namespace: 'default' }, data: { a: data } });
  return { key, obj };
}

const withData = (data: string) => (cur: KubeObject | null) => ({ ...(cur as KubeObject), data: { a: data } });

test('a current cached copy: one Txn, no read', async () => {
  const { key, obj } = await stored('eA==');
  let result: { object: KubeObject } | undefined;
  const calls = await callsOf(async () => {
    result = await store.guaranteedUpdate(key, { cachedExisting: obj, tryUpdate: withData('eQ==') });
  });
  expect(calls).toEqual({ Range: 0, Txn: 1 });
  expect(BigInt(result?.object.metadata.resourceVersion ?? '0')).toBeGreaterThan(BigInt(obj.metadata.resourceVersion ?? '0'));
  expect((await store.get(key)).data).toEqual({ a: 'eQ==' });
});

test('a stale cached copy: the failed Txn returns the current state and the update is redone on it', async () => {
  const { key, obj: stale } = await stored('eA==');
  await store.guaranteedUpdate(key, { tryUpdate: (cur) => ({ ...(cur as KubeObject), metadata: { ...(cur as KubeObject).metadata, labels: { by: 'other' } } }) });
  const seen: Array<Record<string, string> | undefined> = [];
  const calls = await callsOf(() =>
    store.guaranteedUpdate(key, {
      cachedExisting: stale,
      tryUpdate: (cur) => {
        seen.push((cur as KubeObject).metadata.labels);
        return withData('eQ==')(cur);
      },
    }),
  );
  expect(calls).toEqual({ Range: 0, Txn: 2 });
  expect(seen).toEqual([undefined, { by: 'other' }]);
  const now = await store.get(key);
  expect(now.metadata.labels).toEqual({ by: 'other' });
  expect(now.data).toEqual({ a: 'eQ==' });
});

test('an error on a stale copy is retried on a fresh read; on a current copy it is returned after one read', async () => {
  const { key, obj: stale } = await stored('eA==');
  const current = (await store.guaranteedUpdate(key, { tryUpdate: withData('eQ==') })).object;
  // kube's optimistic-concurrency check, made against whatever state the attempt sees.
  const expectRevision = (rv: string | undefined) => (cur: KubeObject | null) => {
    if (cur?.metadata.resourceVersion !== rv) throw new Error(`conflict: have ${cur?.metadata.resourceVersion}`);
    return withData('eg==')(cur);
  };
  const retried = await callsOf(() => store.guaranteedUpdate(key, { cachedExisting: stale, tryUpdate: expectRevision(current.metadata.resourceVersion) }));
  expect(retried).toEqual({ Range: 1, Txn: 1 });
  expect((await store.get(key)).data).toEqual({ a: 'eg==' });

  const fresh = await store.get(key);
  let error: unknown;
  const returned = await callsOf(async () => {
    error = await store.guaranteedUpdate(key, { cachedExisting: fresh, tryUpdate: expectRevision('1') }).catch((e: unknown) => e);
  });
  expect((error as Error).message).toBe(`conflict: have ${fresh.metadata.resourceVersion}`);
  expect(returned).toEqual({ Range: 1, Txn: 0 });
});

test('preconditions: one that fails on a stale copy is checked again on a fresh read; one that only the stale copy meets fails on the state the Txn returned', async () => {
  const key = `/registry/secrets/default/recreated`;
  const secret = (uid: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'recreated', namespace: 'default', uid } });
  const stale = await store.create(key, secret('uid-1'));
  await store.delete(key);
  await store.create(key, secret('uid-2'));

  const ok = await store.guaranteedUpdate(key, { cachedExisting: stale, preconditions: { uid: 'uid-2' }, tryUpdate: withData('eQ==') });
  expect(ok.object.metadata.uid).toBe('uid-2');
  expect(ok.object.data).toEqual({ a: 'eQ==' });

  const error = await store.guaranteedUpdate(key, { cachedExisting: stale, preconditions: { uid: 'uid-1' }, tryUpdate: withData('eg==') }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StorageError);
  expect((await store.get(key)).data).toEqual({ a: 'eQ==' });
});

test('an update that changes nothing is confirmed against etcd and writes nothing', async () => {
  const { key, obj } = await stored('eA==');
  let result: { object: KubeObject } | undefined;
  const calls = await callsOf(async () => {
    result = await store.guaranteedUpdate(key, { cachedExisting: obj, tryUpdate: (cur) => cur as KubeObject });
  });
  expect(calls).toEqual({ Range: 1, Txn: 0 });
  expect(result?.object.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
});

test('a no-op against a stale copy is redone on the fresh state (and writes when that differs)', async () => {
  const { key, obj: stale } = await stored('eA==');
  await store.guaranteedUpdate(key, { tryUpdate: withData('eQ==') });
  // Sets data back to what the stale copy holds: a no-op for the copy, a change for etcd.
  const result = await store.guaranteedUpdate(key, { cachedExisting: stale, tryUpdate: withData('eA==') });
  expect((await store.get(key)).data).toEqual({ a: 'eA==' });
  expect(result.object.metadata.resourceVersion).toBe((await store.get(key)).metadata.resourceVersion);
});

test('a dry run ignores the cached copy and reads etcd', async () => {
  const { key, obj: stale } = await stored('eA==');
  await store.guaranteedUpdate(key, { tryUpdate: withData('eQ==') });
  const seen: unknown[] = [];
  const calls = await callsOf(() =>
    store.guaranteedUpdate(key, {
      cachedExisting: stale,
      dryRun: true,
      tryUpdate: (cur) => {
        seen.push((cur as KubeObject).data);
        return withData('eg==')(cur);
      },
    }),
  );
  expect(calls).toEqual({ Range: 1, Txn: 0 });
  expect(seen).toEqual([{ a: 'eQ==' }]);
  expect((await store.get(key)).data).toEqual({ a: 'eQ==' });
});

test('an unchanged update still writes a value the transformer reports stale (kube rewrites it with the current key)', async () => {
  const staleStore = new EtcdStore({
    endpoints: etcd.endpoints,
    transformer: { toStorage: async (data) => data, fromStorage: async (data) => ({ data, stale: true }) },
  });
  try {
    const { key, obj } = await stored('eA==');
    const unchanged = (cur: KubeObject | null) => cur as KubeObject;
    const rewritten = await staleStore.guaranteedUpdate(key, { tryUpdate: unchanged });
    expect(BigInt(rewritten.object.metadata.resourceVersion ?? '0')).toBeGreaterThan(BigInt(obj.metadata.resourceVersion ?? '0'));
    // Through the plain store the same unchanged update is no write.
    const kept = await store.guaranteedUpdate(key, { tryUpdate: unchanged });
    expect(kept.object.metadata.resourceVersion).toBe(rewritten.object.metadata.resourceVersion);
  } finally {
    await staleStore.close();
  }
});

test('a delete whose validation fails on a current cached copy: checked once, one read, nothing deleted; on a stale copy, checked again on the fresh state', async () => {
  const { key, obj } = await stored('eA==');
  const checked: unknown[] = [];
  const refuse = (cur: KubeObject) => {
    checked.push(cur.metadata.resourceVersion);
    throw new Error('refused');
  };
  let error: unknown;
  const calls = await callsOf(async () => {
    error = await store.delete(key, { cachedExisting: obj, validateDeletion: refuse }).catch((e: unknown) => e);
  });
  expect((error as Error).message).toBe('refused');
  // kube's conditionalDelete: the fresh read shows the copy was current, so its error stands.
  expect(checked).toEqual([obj.metadata.resourceVersion]);
  expect(calls).toEqual({ Range: 1, Txn: 0 });

  const current = (await store.guaranteedUpdate(key, { tryUpdate: withData('eQ==') })).object;
  checked.length = 0;
  const last = await store.delete(key, {
    cachedExisting: obj,
    validateDeletion: (cur) => {
      checked.push(cur.metadata.resourceVersion);
      if (cur.metadata.resourceVersion === obj.metadata.resourceVersion) throw new Error('stale');
    },
  });
  expect(checked).toEqual([obj.metadata.resourceVersion, current.metadata.resourceVersion]);
  expect(last.data).toEqual({ a: 'eQ==' });
});

test("a request's update retries its compare-and-swap until it lands, as kube's does; the server's own writes give up after 64", async () => {
  // Every attempt's tryUpdate is raced by another write to the same key for the first 70 attempts.
  const racedUpdate = async (ctx?: { deadlineAt: number }) => {
    const { key } = await stored('x');
    let tries = 0;
    const result = await store
      .guaranteedUpdate(key, {
        ctx,
        tryUpdate: async (cur) => {
          tries++;
          if (tries <= 70) await store.guaranteedUpdate(key, { tryUpdate: async (c) => ({ ...c!, data: { a: Buffer.from(String(tries)).toString('base64') } }) });
          return { ...cur!, data: { a: Buffer.from('mine').toString('base64') } };
        },
      })
      .catch((e: unknown) => e);
    return { tries, result };
  };
  const withDeadline = await racedUpdate({ deadlineAt: performance.now() + 120_000 });
  expect(withDeadline.tries).toBe(71);
  expect((withDeadline.result as { object: KubeObject }).object.data).toEqual({ a: Buffer.from('mine').toString('base64') });
  const own = await racedUpdate();
  expect(own.tries).toBe(64);
  expect(own.result).toBeInstanceOf(StorageError);
  expect((own.result as StorageError).message).toMatch(/too many conflicting updates/);
});
