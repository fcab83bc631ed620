/**
 * Authentication through the union authenticator (anonymous is one authenticator, behind the rest):
 * the same answer over HTTP/1.1 and HTTP/2 for every path — no path bypass. A bad credential is a
 * 401 even on a path anonymous requests may reach, as kube answers.
 */
import { useTestServer } from '../support/server-fixture';
import { startTestServer } from '../support/api-server';
import { connectH2 } from '../support/h2-client';

const { srv, etcd } = useTestServer();

type Ask = (path: string, token: string | null) => Promise<{ status: number; text: string }>;

const http1: Ask = async (path, token) => srv.request('GET', path, { token });
const http2: Ask = async (path, token) => {
  // A connection per request: the DOS mitigation closes one after an unauthenticated request.
  const c = await connectH2(srv.url, srv.caCert, undefined);
  try {
    return await c.request('GET', path, { token });
  } finally {
    await c.close();
  }
};

describe.each([
  ['HTTP/1.1', http1],
  ['HTTP/2', http2],
])('over %s', (_name, ask) => {
  test('no credential: health and version are served to system:anonymous, the API is 401', async () => {
    expect((await ask('/healthz', null)).status).toBe(200);
    expect((await ask('/readyz/ping', null)).status).toBe(200);
    expect((await ask('/version', null)).status).toBe(200);
    const r = await ask('/api/v1/namespaces', null);
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  test('an invalid token is 401 everywhere, /healthz included', async () => {
    for (const path of ['/healthz', '/version', '/api/v1/namespaces']) {
      const r = await ask(path, 'not-a-token');
      expect({ path, status: r.status }).toEqual({ path, status: 401 });
    }
  });

  test('the admin token is served everywhere', async () => {
    expect((await ask('/healthz', srv.token)).status).toBe(200);
    expect((await ask('/api/v1/namespaces', srv.token)).status).toBe(200);
  });
});

test('with anonymous off, even /healthz needs a credential', async () => {
  const strict = await startTestServer({ etcdEndpoints: etcd.endpoints, anonymous: false });
  try {
    expect((await strict.request('GET', '/healthz', { token: null })).status).toBe(401);
    expect((await strict.request('GET', '/healthz')).status).toBe(200);
  } finally {
    await strict.stop();
  }
});

test('kubectl: the admin kubeconfig works, a wrong token is refused', async () => {
  expect((await srv.kubectl(['get', '--raw', '/healthz'])).stdout).toBe('ok');
  const bad = await srv.kubectl(['get', 'namespaces', '--token', 'wrong']);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/Unauthorized|must be logged in/);
});

test("every answer carries kube's Cache-Control and Audit-ID; a client's own Audit-ID is kept", async () => {
  for (const token of [null, srv.token]) {
    const r = await srv.request('GET', '/api/v1/namespaces', { token, headers: { 'audit-id': 'my-audit-id' } });
    expect(r.headers['audit-id']).toBe('my-audit-id');
    expect(r.headers['cache-control']).toBe('no-cache, private');
  }
  const fresh = await srv.request('GET', '/healthz', { token: null });
  expect(fresh.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
});
