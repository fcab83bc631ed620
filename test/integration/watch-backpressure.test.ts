/**
 * A watcher that stops reading is cut off once its unsent backlog passes the server's bound: its
 * connection is closed (the client re-watches) and the server never buffers without limit.
 * More in stuck-watchers.test.ts.
 */
import https from 'node:https';
import { startTestServer } from '../support/api-server';
import { useTestServer } from '../support/server-fixture';
import { emitted, until } from '../support/until';

// A 1 MiB bound: far below what the test queues even after the kernel's socket buffers fill.
const { srv, etcd } = useTestServer({ watchBufferBytes: 1024 * 1024 });
beforeAll(async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'bp' } } })).status).toBe(201);
});

test('a watch whose client does not read is cut off once its backlog passes the bound; everything sent before is intact', async () => {
  const rv = (await srv.request('GET', '/api/v1/namespaces/bp/secrets')).json().metadata.resourceVersion;
  const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = https.request(
      // timeoutSeconds only guards the test from hanging; the cut-off must come long before it.
      `${srv.url}/api/v1/namespaces/bp/secrets?watch=1&timeoutSeconds=40&resourceVersion=${rv}`,
      { headers: { authorization: `Bearer ${srv.token}` }, ca: srv.caCert },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
  expect(res.statusCode).toBe(200);
  res.pause();

  // 24 secrets of ~700 KiB each: ~22 MiB of events (base64), far past the bound and the socket buffers.
  const value = Buffer.alloc(700 * 1024, 7).toString('base64');
  const writes = 24;
  for (let i = 0; i < writes; i++) {
    const r = await srv.request('POST', '/api/v1/namespaces/bp/secrets', { body: { metadata: { name: `big-${i}` }, data: { v: value } } });
    expect(r.status).toBe(201);
  }

  let text = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => (text += d));
  res.resume();
  // The server destroyed the socket: the body stops short of its last chunk.
  expect(await new Promise<string>((resolve) => {
    res.on('end', () => resolve('end'));
    res.on('aborted', () => resolve('aborted'));
  })).toBe('aborted');
  // Whole lines only: the cut may fall inside an event.
  const events = text.split('\n').slice(0, -1).map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
  expect(events.length).toBeGreaterThan(0);
  expect(events.length).toBeLessThan(writes);
  events.forEach((e, i) => expect([e.type, e.object.metadata.name]).toEqual(['ADDED', `big-${i}`]));

  // The server is fine and a new watch (the client's relist) works.
  const list = (await srv.request('GET', '/api/v1/namespaces/bp/secrets')).json();
  expect(list.items).toHaveLength(writes);
});

test('server shutdown ends open watches cleanly (the stream completes, no reset)', async () => {
  const other = await startTestServer({ etcdEndpoints: etcd.endpoints });
  const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = https.request(`${other.url}/api/v1/namespaces?watch=1`, { headers: { authorization: `Bearer ${other.token}` }, ca: other.caCert }, resolve);
    req.on('error', reject);
    req.end();
  });
  expect(res.statusCode).toBe(200);
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => (text += d));
  const ended = new Promise<'end' | 'aborted'>((resolve) => {
    res.on('end', () => resolve('end'));
    res.on('aborted', () => resolve('aborted'));
  });
  // The initial state (system namespaces) arrives before shutdown.
  await until(() => `the initial kube-system event (got ${JSON.stringify(text)})`, () => text.includes('kube-system'), { wakeOn: emitted(res, 'data') });
  await other.stop();
  expect(await ended).toBe('end');
  for (const line of text.split('\n').filter(Boolean)) expect(JSON.parse(line).type).toBe('ADDED');
});
