/**
 * A watcher that stops reading costs the server a bounded amount: past its own bound the server
 * closes its connection (HTTP/1.1: the socket is destroyed; HTTP/2: the stream is reset, and a
 * session whose socket itself is stuck is destroyed) and drops what it had queued; past the
 * server-wide budget the largest backlogs are ended. Other watchers keep every event.
 */
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { ClientHttp2Stream } from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { startTestServer, TestServer } from '../support/api-server';
import { connectH2 } from '../support/h2-client';
import { useTestServer } from '../support/server-fixture';
import { emitted, until } from '../support/until';

const ns = 'stuck';
/** A small per-watcher bound so the test needs only a few MiB of events. */
const bound = 256 * 1024;
/** One write's event: a secret of ~680 KiB (base64). */
const value = Buffer.alloc(500 * 1024, 7).toString('base64');
const eventBytes = 700 * 1024;

// The stuck-session time is 3 s, not less: the client reading the healthy streams is this process,
// which a loaded machine may pause for hundreds of ms, and a session that merely paused must live on.
const { srv, etcd } = useTestServer({ watchBufferBytes: bound, watchStuckSessionMs: 3000 });
beforeAll(async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
});

let seq = 0;
async function write(server: TestServer, labels: Record<string, string> = {}): Promise<string> {
  const name = `s-${seq++}`;
  const r = await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name, labels }, data: { v: value } } });
  expect({ status: r.status, failure: r.status === 201 ? undefined : r.text }).toEqual({ status: 201, failure: undefined });
  return name;
}

/** Resolves once the server has given up `n` times for `reason`, counted from now; `fired` says whether it has. */
function givenUp(server: TestServer, reason: string, n = 1): { done: Promise<void>; fired: boolean } {
  let seen = 0;
  const out = { done: Promise.resolve(), fired: false };
  out.done = new Promise<void>((resolve) => {
    const on = (r: string): void => {
      if (r !== reason || ++seen < n) return;
      out.fired = true;
      server.server.watchFrames.off('ended', on);
      resolve();
    };
    server.server.watchFrames.on('ended', on);
  });
  return out;
}

async function rv(server: TestServer): Promise<string> {
  return (await server.request('GET', `/api/v1/namespaces/${ns}/secrets?limit=1`)).json().metadata.resourceVersion;
}

/** An HTTP/1.1 watch on its own socket; `lines` collects names as they are read, `outcome` how the body ended. */
async function h1Watch(server: TestServer, query: string): Promise<{ res: IncomingMessage; names: string[]; outcome: Promise<'end' | 'aborted'> }> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = https.request(`${server.url}/api/v1/namespaces/${ns}/secrets?watch=1&timeoutSeconds=60&${query}`, {
      headers: { authorization: `Bearer ${server.token}` },
      ca: server.caCert,
      agent: false,
    }, resolve);
    req.on('error', reject);
    req.end();
  });
  expect(res.statusCode).toBe(200);
  const names: string[] = [];
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      names.push(JSON.parse(buf.slice(0, i)).object.metadata.name);
      buf = buf.slice(i + 1);
    }
  });
  const outcome = new Promise<'end' | 'aborted'>((resolve) => {
    res.on('end', () => resolve('end'));
    res.on('aborted', () => resolve('aborted'));
    res.on('error', () => resolve('aborted'));
  });
  return { res, names, outcome };
}

/** Names of the events read from an HTTP/2 watch stream, and how it closed. */
function h2Reader(stream: ClientHttp2Stream): { names: string[]; closed: Promise<number> } {
  const names: string[] = [];
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      names.push(JSON.parse(buf.slice(0, i)).object.metadata.name);
      buf = buf.slice(i + 1);
    }
  });
  stream.on('error', () => undefined);
  return { names, closed: new Promise((resolve) => stream.once('close', () => resolve(stream.rstCode ?? 0))) };
}

/** Awaits `names` holding `name` (the reader keeps up), re-checked on each chunk `emitter` reads. */
function received(names: string[], name: string, emitter: NodeJS.EventEmitter): Promise<true> {
  return until(() => `the event of ${name} at the reader that keeps up (it has ${names.length})`, () => names.includes(name), { wakeOn: emitted(emitter, 'data'), timeoutMs: 45_000 });
}

test('HTTP/1.1: a watcher that stops reading has its socket destroyed past the bound; its bytes are released, others get every event', async () => {
  const from = await rv(srv);
  const stuck = await h1Watch(srv, `resourceVersion=${from}`);
  stuck.res.pause();
  const fast = await h1Watch(srv, `resourceVersion=${from}`);
  const gave = givenUp(srv, 'backlog');
  const written: string[] = [];
  // Past the kernel's socket buffers (a few MiB on loopback) and then the bound.
  while (!gave.fired && written.length < 200) written.push(await write(srv));
  await gave.done;
  expect(written.length).toBeLessThan(200);
  // Nothing of the stuck watcher is left in the server's account (the others' is at most their latest write).
  expect(srv.server.watchFrames.unsentBytes).toBeLessThan(2 * eventBytes);

  // The client, reading again, gets a prefix of the events and then a body cut short: no clean end.
  stuck.res.resume();
  expect(await stuck.outcome).toBe('aborted');
  expect(stuck.names.length).toBeLessThan(written.length);
  expect(stuck.names).toEqual(written.slice(0, stuck.names.length));

  await received(fast.names, written[written.length - 1] as string, fast.res);
  expect(fast.names).toEqual(written);
  fast.res.destroy();
  expect((await srv.request('GET', '/readyz')).status).toBe(200);
});

test('HTTP/2: a stream that stops reading is reset past the bound (4 MiB window + bound), the session and its other streams live on', async () => {
  const h2 = await connectH2(srv.url, srv.caCert, srv.token);
  try {
    const from = await rv(srv);
    const path = `/api/v1/namespaces/${ns}/secrets?watch=1&timeoutSeconds=60&resourceVersion=${from}`;
    const stuck = await h2.stream(path);
    const fast = await h2.stream(path);
    const stuckReader = h2Reader(stuck.stream);
    stuck.stream.pause();
    const fastReader = h2Reader(fast.stream);
    const gave = givenUp(srv, 'backlog');
    const written: string[] = [];
    while (!gave.fired && written.length < 100) written.push(await write(srv));
    await gave.done;
    // RST_STREAM CANCEL reaches the client: the session is read, only the stream was stalled.
    expect(await stuckReader.closed).toBe(8);
    expect(srv.server.watchFrames.unsentBytes).toBeLessThan(2 * eventBytes);
    await received(fastReader.names, written[written.length - 1] as string, fast.stream);
    expect(fastReader.names).toEqual(written);
    expect(stuckReader.names).toEqual(written.slice(0, stuckReader.names.length));
    expect(h2.session.destroyed || h2.session.closed).toBe(false);
    expect((await h2.request('GET', '/readyz')).status).toBe(200);
    fast.stream.close();
  } finally {
    await h2.close();
  }
});

test('HTTP/2: a client that stops reading the whole connection has its streams reset and then its session destroyed', async () => {
  // A TCP relay whose server side can stop being read: the client's connection stalls as a whole.
  let upstream: net.Socket | undefined;
  const relay = net.createServer((c) => {
    const u = net.connect(srv.port, '127.0.0.1');
    upstream = u;
    for (const s of [c, u]) s.on('error', () => undefined);
    c.pipe(u);
    u.pipe(c);
    u.on('close', () => c.destroy());
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
  const h2 = await connectH2(`https://127.0.0.1:${(relay.address() as net.AddressInfo).port}`, srv.caCert, srv.token);
  try {
    const from = await rv(srv);
    const path = `/api/v1/namespaces/${ns}/secrets?watch=1&timeoutSeconds=60&resourceVersion=${from}`;
    const streams = await Promise.all([h2.stream(path), h2.stream(path)]);
    streams.forEach((s) => h2Reader(s.stream));
    const sessionClosed = once(h2.session, 'close');
    const other = await h1Watch(srv, `resourceVersion=${from}`);
    upstream?.pause();
    const both = givenUp(srv, 'backlog', 2);
    const stuckSession = givenUp(srv, 'stuckSession');
    const written: string[] = [];
    while (!both.fired && written.length < 200) written.push(await write(srv));
    await both.done;
    await stuckSession.done;
    expect(srv.server.watchFrames.unsentBytes).toBeLessThan(2 * eventBytes);
    // The relay, read again, passes on what the kernel held and then the server's close.
    upstream?.resume();
    await sessionClosed;
    await received(other.names, written[written.length - 1] as string, other.res);
    expect(other.names).toEqual(written);
    other.res.destroy();
    expect((await srv.request('GET', '/readyz')).status).toBe(200);
  } finally {
    await h2.close();
    relay.close();
  }
});

test('past the server-wide budget the watcher with the largest backlog is ended; a smaller one stays', async () => {
  // Per-watcher bound out of reach: only the 2 MiB budget ends anyone.
  const other = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix: `${srv.prefix}-budget`, watchBufferBytes: 1 << 30, watchBudgetBytes: 2 << 20 });
  try {
    expect((await other.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
    const from = await rv(other);
    const big = await h1Watch(other, `resourceVersion=${from}`);
    const small = await h1Watch(other, `resourceVersion=${from}&labelSelector=half%3Dyes`);
    big.res.pause();
    small.res.pause();
    const gave = givenUp(other, 'budget');
    const written: string[] = [];
    while (!gave.fired && written.length < 300) written.push(await write(other, written.length % 2 ? { half: 'yes' } : {}));
    await gave.done;
    expect(other.server.watchFrames.ended).toMatchObject({ budget: 1, backlog: 0 });
    expect(other.server.watchFrames.unsentBytes).toBeLessThanOrEqual(2 << 20);
    big.res.resume();
    expect(await big.outcome).toBe('aborted');
    // The smaller backlog was left alone: it reads on, every event it was sent.
    small.res.resume();
    const last = written.filter((_, i) => i % 2)[written.filter((_, i) => i % 2).length - 1] as string;
    await received(small.names, last, small.res);
    expect(small.names).toEqual(written.filter((_, i) => i % 2));
    small.res.destroy();
  } finally {
    await other.stop();
  }
});
