/**
 * The API over HTTP/2, as kube-apiserver serves it to client-go: ALPN h2, every verb, Status errors,
 * Warning headers, gzip, watches (events, the slow-reader cut-off, shutdown), kube's
 * UnauthenticatedHTTP2DOSMitigation; and HTTP/1.1 still served on the same port.
 */
import https from 'node:https';
import type { ClientHttp2Stream } from 'node:http2';
import tls from 'node:tls';
import { gunzipSync } from 'node:zlib';
import { startTestServer } from '../support/api-server';
import { connectH2, H2Client } from '../support/h2-client';
import { useTestServer } from '../support/server-fixture';

let h2: H2Client;
// A 1 MiB watch bound, for the slow-reader test.
const { srv, etcd } = useTestServer({ watchBufferBytes: 1024 * 1024, beforeStop: () => h2?.close() });
const ns = 'h2';

beforeAll(async () => {
  h2 = await connectH2(srv.url, srv.caCert, srv.token);
  expect((await h2.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
});

/** Reads newline-delimited JSON watch events from an HTTP/2 stream. */
function eventsOf(stream: ClientHttp2Stream): { events: Array<{ type: string; object: any }>; next(n: number): Promise<void>; ended: Promise<'end' | 'error'> } {
  const events: Array<{ type: string; object: any }> = [];
  let buf = '';
  let waiters: Array<() => void> = [];
  stream.setEncoding('utf8');
  stream.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
    const w = waiters;
    waiters = [];
    w.forEach((f) => f());
  });
  const ended = new Promise<'end' | 'error'>((resolve) => {
    stream.on('end', () => resolve('end'));
    stream.on('error', () => resolve('error'));
  });
  return {
    events,
    async next(n) {
      while (events.length < n) await new Promise<void>((r) => waiters.push(r));
    },
    ended,
  };
}

test('ALPN settles on h2; get, list, create, update, delete work and answer as over HTTP/1.1', async () => {
  expect(h2.alpn).toBe('h2');
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { a: 'b' } };
  const created = await h2.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret });
  expect(created.status).toBe(201);
  expect(created.headers['content-type']).toBe('application/json');
  for (const h of ['connection', 'keep-alive', 'transfer-encoding']) expect(created.headers[h]).toBeUndefined();
  expect(created.json().data).toEqual({ a: 'Yg==' });

  const got = await h2.request('GET', `/api/v1/namespaces/${ns}/secrets/s1`);
  const h1 = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets/s1`);
  expect(got.status).toBe(200);
  expect(got.text).toBe(h1.text);

  const list = await h2.request('GET', `/api/v1/namespaces/${ns}/secrets`);
  expect(list.json().items.map((s: any) => s.metadata.name)).toEqual(['s1']);

  const updated = await h2.request('PUT', `/api/v1/namespaces/${ns}/secrets/s1`, { body: { ...got.json<Record<string, unknown>>(), data: { a: 'Yw==' } } });
  expect([updated.status, updated.json().data]).toEqual([200, { a: 'Yw==' }]);
  const patched = await h2.request('PATCH', `/api/v1/namespaces/${ns}/secrets/s1`, {
    body: { data: { b: 'ZA==' } },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  expect(patched.json().data).toEqual({ a: 'Yw==', b: 'ZA==' });
  expect((await h2.request('DELETE', `/api/v1/namespaces/${ns}/secrets/s1`)).status).toBe(200);
});

test('errors are Status objects; Warning headers arrive; large bodies are gzipped when asked', async () => {
  const missing = await h2.request('GET', `/api/v1/namespaces/${ns}/secrets/nope`);
  expect(missing.status).toBe(404);
  expect(missing.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotFound', message: 'secrets "nope" not found', code: 404 });

  const dup = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":"dup"},"data":{"a":"1","a":"2"}}';
  const warned = await h2.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: dup });
  expect(warned.status).toBe(201);
  expect(warned.headers.warning).toBe('299 - "duplicate field \\"metadata.name\\"", 299 - "duplicate field \\"data.a\\""');

  // Three ~60 KiB ConfigMaps: a list over kube's 128 KiB gzip threshold.
  for (let i = 0; i < 3; i++) {
    const r = await h2.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `big-${i}` }, data: { v: 'x'.repeat(60 * 1024) } } });
    expect(r.status).toBe(201);
  }
  const gz = await h2.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { 'accept-encoding': 'gzip' } });
  expect(gz.status).toBe(200);
  expect(gz.headers['content-encoding']).toBe('gzip');
  expect(gz.headers.vary).toBe('Accept-Encoding');
  const plain = await h2.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(gunzipSync(gz.body).toString('utf8')).toBe(plain.text);
});

test('a watch over HTTP/2 receives its events, next to other requests on the same connection', async () => {
  const rv = (await h2.request('GET', `/api/v1/namespaces/${ns}/secrets`)).json().metadata.resourceVersion;
  const { stream, status, headers } = await h2.stream(`/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${rv}&timeoutSeconds=30`);
  expect(status).toBe(200);
  expect(headers['content-type']).toBe('application/json');
  expect(headers['transfer-encoding']).toBeUndefined();
  const w = eventsOf(stream);
  expect((await h2.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 'w1' } } })).status).toBe(201);
  expect((await h2.request('DELETE', `/api/v1/namespaces/${ns}/secrets/w1`)).status).toBe(200);
  await w.next(2);
  expect(w.events.map((e) => [e.type, e.object.metadata.name])).toEqual([
    ['ADDED', 'w1'],
    ['DELETED', 'w1'],
  ]);
  stream.close();
});

test('an HTTP/2 watcher that stops reading is cut off (stream reset) once its backlog passes the bound; the connection lives on', async () => {
  const rv = (await h2.request('GET', `/api/v1/namespaces/${ns}/secrets`)).json().metadata.resourceVersion;
  const { stream, status } = await h2.stream(`/api/v1/namespaces/${ns}/secrets?watch=1&timeoutSeconds=60&resourceVersion=${rv}`);
  expect(status).toBe(200);
  const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? 0)));
  stream.pause();
  // 24 secrets of ~700 KiB: ~22 MiB of events, far past the 1 MiB bound plus the 4 MiB stream window.
  const value = Buffer.alloc(700 * 1024, 7).toString('base64');
  const writes = 24;
  for (let i = 0; i < writes; i++) {
    const r = await h2.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: `big-${i}` }, data: { v: value } } });
    expect(r.status).toBe(201);
  }
  const w = eventsOf(stream);
  stream.resume();
  expect(await closed).toBe(8); // RST_STREAM CANCEL: the queued DATA was dropped
  // Node's client drops what it had buffered for a reset stream; whatever was read is a prefix.
  expect(w.events.length).toBeLessThan(writes);
  w.events.forEach((e, i) => expect([e.type, e.object.metadata.name]).toEqual(['ADDED', `big-${i}`]));
  const list = (await h2.request('GET', `/api/v1/namespaces/${ns}/secrets?limit=500`)).json();
  expect(list.items.filter((s: any) => s.metadata.name.startsWith('big-'))).toHaveLength(writes);
});

test('an unauthenticated HTTP/2 request gets its 401, then the connection is closed (GOAWAY), as kube does', async () => {
  const c = await connectH2(srv.url, srv.caCert, undefined);
  const goaway = new Promise<void>((resolve) => c.session.once('goaway', () => resolve()));
  const r = await c.request('GET', '/api/v1/namespaces', { token: null });
  expect(r.status).toBe(401);
  expect(r.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  await goaway;
  await c.close();

  // Public paths are served to system:anonymous: the answer comes, then the GOAWAY; an authenticated client keeps its connection.
  const anon = await connectH2(srv.url, srv.caCert, undefined);
  const anonGoaway = new Promise<void>((resolve) => anon.session.once('goaway', () => resolve()));
  expect((await anon.request('GET', '/healthz', { token: null })).text).toBe('ok');
  await anonGoaway;
  await anon.close();
  expect((await h2.request('GET', '/healthz')).text).toBe('ok');
  expect((await h2.request('GET', '/version')).status).toBe(200);
  expect(h2.session.closed).toBe(false);
});

test('HTTP/1.1 is still served on the same port', async () => {
  const r = await new Promise<{ version: string; alpn: string | false; status: number }>((resolve, reject) => {
    https
      .get(`${srv.url}/api/v1/namespaces/${ns}`, { ca: srv.caCert, agent: false, ALPNProtocols: ['http/1.1'], headers: { authorization: `Bearer ${srv.token}` } } as https.RequestOptions & tls.ConnectionOptions, (res) => {
        res.resume();
        res.on('end', () => resolve({ version: res.httpVersion, alpn: (res.socket as tls.TLSSocket).alpnProtocol ?? false, status: res.statusCode ?? 0 }));
      })
      .on('error', reject);
  });
  expect(r).toEqual({ version: '1.1', alpn: 'http/1.1', status: 200 });
});

test('server shutdown ends open HTTP/2 watches cleanly (each stream completes, no reset) and sends GOAWAY', async () => {
  const other = await startTestServer({ etcdEndpoints: etcd.endpoints });
  const c = await connectH2(other.url, other.caCert, other.token);
  const goaway = new Promise<void>((resolve) => c.session.once('goaway', () => resolve()));
  const watches = await Promise.all([1, 2, 3].map(() => c.stream('/api/v1/namespaces?watch=1')));
  const readers = watches.map(({ stream, status }) => {
    expect(status).toBe(200);
    return eventsOf(stream);
  });
  // The initial state (system namespaces) arrives before shutdown.
  await Promise.all(readers.map((r) => r.next(4)));
  await other.stop();
  for (const r of readers) {
    expect(await r.ended).toBe('end');
    for (const e of r.events) expect(e.type).toBe('ADDED');
  }
  await goaway;
  await c.close();
});
