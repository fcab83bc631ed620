/** Server restarts and etcd outages: data survives, failures are 5xx Status bodies, service resumes. */
import { TestServer, startTestServer } from '../support/api-server';
import { useTestEtcd } from '../support/server-fixture';
import { until } from '../support/until';
import { openWatch, StreamEvent } from '../support/watch-stream';
import { configMap } from '../support/factories';

const servers: TestServer[] = [];
// Own server lifecycle: the tests stop servers and start new ones on the same etcd and prefix.
const etcd = useTestEtcd({
  beforeStop: async () => {
    for (const s of servers.splice(0)) await s.stop();
  },
});

async function server(prefix?: string): Promise<TestServer> {
  const s = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix });
  servers.push(s);
  return s;
}

async function stopServer(s: TestServer): Promise<void> {
  servers.splice(servers.indexOf(s), 1);
  await s.stop();
}

async function post(s: TestServer, path: string, body: Record<string, unknown>): Promise<any> {
  const r = await s.request('POST', path, { body: { apiVersion: 'v1', ...body } });
  expect(r.status).toBe(201);
  return r.json();
}

/** Awaits /readyz answering 200. */
async function awaitReady(s: TestServer, timeoutMs = 15_000): Promise<void> {
  let last = '';
  await until(() => `/readyz to answer 200 (last answer:\n${last})`, async () => {
    const r = await s.request('GET', '/readyz', { token: null });
    last = r.text;
    return r.status === 200;
  }, { timeoutMs });
}

test('a restarted server on the same etcd and prefix serves every object unchanged', async () => {
  const first = await server();
  await post(first, '/api/v1/namespaces', { kind: 'Namespace', metadata: { name: 'keep' } });
  await post(first, '/api/v1/namespaces/keep/secrets', { kind: 'Secret', metadata: { name: 's', labels: { a: 'b' } }, data: { k: 'dg==' } });
  await post(first, '/api/v1/namespaces/keep/configmaps', { kind: 'ConfigMap', metadata: { name: 'c' }, data: { x: 'y' } });
  await post(first, '/api/v1/namespaces/keep/resourcequotas', { kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { secrets: '3' } } });
  const paths = ['/api/v1/namespaces', '/api/v1/secrets', '/api/v1/configmaps', '/api/v1/resourcequotas'];
  const snapshot = async (s: TestServer) => {
    const out: Record<string, unknown[]> = {};
    for (const p of paths) {
      const r = await s.request('GET', p);
      expect(r.status).toBe(200);
      out[p] = r.json().items;
    }
    return out;
  };
  const before = await snapshot(first);
  expect(before['/api/v1/secrets']).toHaveLength(1);
  expect((before['/api/v1/namespaces'] ?? []).length).toBe(5);
  const prefix = first.prefix;
  await stopServer(first);

  const second = await server(prefix);
  expect(await snapshot(second)).toEqual(before);
  const s = (await second.request('GET', '/api/v1/namespaces/keep/secrets/s')).json();
  // List items carry no kind/apiVersion on the wire (as in kube); the single GET does.
  expect(s).toEqual({ kind: 'Secret', apiVersion: 'v1', ...(before['/api/v1/secrets']?.[0] as object) });
  // Writes continue from etcd's revision: a new resourceVersion is newer than every old one.
  const created = await post(second, '/api/v1/namespaces/keep/secrets', { kind: 'Secret', metadata: { name: 's2' } });
  expect(BigInt(created.metadata.resourceVersion)).toBeGreaterThan(BigInt(s.metadata.resourceVersion));
  await stopServer(second);
});

test('etcd outage: 5xx Status bodies and failing /readyz; service resumes when etcd returns', async () => {
  const srv = await server();
  await post(srv, '/api/v1/namespaces', { kind: 'Namespace', metadata: { name: 'out' } });
  await post(srv, '/api/v1/namespaces/out/secrets', { kind: 'Secret', metadata: { name: 'before' } });
  expect((await srv.request('GET', '/readyz', { token: null })).status).toBe(200);
  const listRv = (await srv.request('GET', '/api/v1/namespaces/out/secrets')).json().metadata.resourceVersion;
  const w = await openWatch(srv, `/api/v1/namespaces/out/secrets?watch=1&resourceVersion=${listRv}`);
  expect(w.status).toBe(200);

  await etcd.kill();
  try {
    const failures = [
      await srv.request('GET', '/api/v1/namespaces/out/secrets/before'),
      await srv.request('GET', '/api/v1/namespaces/out/secrets'),
      await srv.request('POST', '/api/v1/namespaces/out/configmaps', { body: configMap('during') }),
      await srv.request('DELETE', '/api/v1/namespaces/out/secrets/before'),
    ];
    for (const r of failures) {
      expect(r.status).toBeGreaterThanOrEqual(500);
      const body = r.json();
      expect(body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: r.status });
      expect(typeof body.message).toBe('string');
    }
    // kube: storage unreachable → 500 ServerTimeout "The <op> operation against <GR> could not be completed at this time, please try again."
    // kube: storage unreachable → 500 ServerTimeout naming the storage operation (details.name = op).
    const timeoutStatus = (op: string, resource: string) => ({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `The ${op} operation against ${resource} could not be completed at this time, please try again.`,
      reason: 'ServerTimeout',
      details: { name: op, kind: resource, retryAfterSeconds: 2 },
      code: 500,
    });
    expect(failures[0]?.json()).toEqual(timeoutStatus('get', 'secrets'));
    expect(failures[1]?.json()).toEqual(timeoutStatus('list', 'secrets'));
    expect(failures[2]?.json()).toMatchObject({ reason: 'ServerTimeout', code: 500 });
    expect(failures[3]?.json()).toEqual(timeoutStatus('delete', 'secrets'));
    // kube's error writer sets Retry-After from details.retryAfterSeconds.
    expect(failures[0]?.headers['retry-after']).toBe('2');
    expect(failures[0]?.headers['content-type']).toBe('application/json');

    // A watch that must first read the current state (no resourceVersion) fails: either as an HTTP 5xx
    // Status before the stream starts, or as one ERROR event carrying a 5xx Status, then the end.
    const lateWatch = await openWatch(srv, '/api/v1/namespaces/out/secrets?watch=1');
    if (lateWatch.status === 200) {
      const [ev] = await lateWatch.next(1);
      expect(ev).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure' } });
      expect(ev?.object.code).toBeGreaterThanOrEqual(500);
      await lateWatch.ended;
    } else {
      expect(lateWatch.status).toBeGreaterThanOrEqual(500);
      expect(JSON.parse(lateWatch.errorBody ?? '')).toMatchObject({ kind: 'Status', status: 'Failure', code: lateWatch.status });
    }

    // kube's etcd checks read etcd at most once per half timeout (1 s) and answer the last read's
    // result in between, so the check may still say ok just after etcd went away.
    const ready = await until('/readyz to fail', async () => {
      const r = await srv.request('GET', '/readyz', { token: null });
      return r.status === 500 && r;
    });
    expect(ready.text).toContain('[-]etcd failed: reason withheld\n');
    expect(ready.text).toMatch(/readyz check failed\n$/);
    await until('/livez to fail on etcd', async () => (await srv.request('GET', '/livez?verbose', { token: null })).text.includes('[-]etcd failed: reason withheld'));
  } finally {
    await etcd.restart();
  }

  await awaitReady(srv);
  const got = await srv.request('GET', '/api/v1/namespaces/out/secrets/before');
  expect(got.status).toBe(200);
  expect(got.json().metadata.name).toBe('before');
  const after = await post(srv, '/api/v1/namespaces/out/secrets', { kind: 'Secret', metadata: { name: 'after' } });
  expect((await srv.request('GET', '/api/v1/namespaces/out/configmaps/during')).status).toBe(404);

  // The watch opened before the outage either resumes (it sees the new secret) or has ended cleanly,
  // at most with an ERROR event carrying a Status.
  let resumed: StreamEvent | undefined;
  try {
    [resumed] = await w.next(1, 10_000);
  } catch {
    resumed = undefined;
  }
  if (resumed && resumed.type !== 'ERROR') {
    expect(resumed).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'after', resourceVersion: after.metadata.resourceVersion } } });
  } else {
    await w.ended;
    for (const e of w.all) expect(e).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure' } });
  }
  w.close();

  // A fresh watch works after recovery.
  const w2 = await openWatch(srv, `/api/v1/namespaces/out/secrets?watch=1&resourceVersion=${after.metadata.resourceVersion}`);
  await post(srv, '/api/v1/namespaces/out/secrets', { kind: 'Secret', metadata: { name: 'later' } });
  expect((await w2.next(1)).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'later']]);
  w2.close();
});
