/**
 * The request-timeout filter (server/filters/timeout.ts) on a real Express app over HTTP/1.1 and
 * HTTP/2 (cleartext, prior knowledge): handlers that wait for the test to release them, so every
 * timeout is deterministic — the timer is the only thing that can answer first. Also the request's
 * context it keeps: done at the deadline or when the client goes away (kube's ctx.Err()).
 */
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import express from 'express';
import winston from 'winston';
import { Writable } from 'node:stream';
import { withCompression } from '../../../../src/server/filters/compression';
import { withRequestInfo } from '../../../../src/server/filters/request-info';
import { isLongRunning, requestTimeoutBody, withRequestTimeout } from '../../../../src/server/filters/timeout';
import { dualProtocolListener } from '../../../../src/server/http2-express';
import { requestInfoFor } from '../../../../src/endpoints/request-info';
import { requestState, type RequestState } from '../../../../src/endpoints/request-state';
import { until } from '../../../support/until';

// Long enough that a request answered at once, or a handler that starts its answer at once, is
// never overtaken by the deadline on a loaded machine; tests that meet it wait this long.
const TIMEOUT_MS = 1000;
const kubeTimeout = '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n';

/** Handlers parked until the test releases them, by object name. */
const parked = new Map<string, () => void>();
const parkedReady = new Map<string, () => void>();
/** Whatever a handler threw after its request timed out (must stay empty). */
const lateErrors: unknown[] = [];
let lateWrites = 0;

function park(name: string): Promise<void> {
  return new Promise((resolve) => {
    parked.set(name, resolve);
    parkedReady.get(name)?.();
  });
}
/** Resolves once the handler for `name` is parked. */
function whenParked(name: string): Promise<void> {
  if (parked.has(name)) return Promise.resolve();
  return new Promise((resolve) => parkedReady.set(name, resolve));
}
function release(name: string): void {
  const r = parked.get(name);
  parked.delete(name);
  parkedReady.delete(name);
  r?.();
}

/** The request state of each parked handler, by name. */
const states = new Map<string, RequestState>();
/** What the filter logged. */
const logged: Array<Record<string, unknown>> = [];
const logger = winston.createLogger({
  transports: [new winston.transports.Stream({ stream: new Writable({ objectMode: true, write: (info: Record<string, unknown>, _e, cb) => (logged.push(info), cb()) }) })],
});

const app = express();
app.set('query parser', 'simple');
// x-long: the request runs under a deadline far away (the client going away is what ends it).
const short = withRequestTimeout(TIMEOUT_MS, logger);
const long = withRequestTimeout(60_000, logger);
app.use(withRequestInfo(), (req, res, next) => (req.headers['x-long'] ? long : short)(req, res, next), withCompression({ enabled: true }));
app.use(async (req, res) => {
  // x-park names the handler the test releases; without it the answer is immediate.
  const name = req.headers['x-park'];
  if (typeof name === 'string') states.set(name, requestState(res));
  try {
    if (typeof name !== 'string') {
      res.json({ ok: true });
    } else if (req.headers['x-partial']) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"partial":');
      await park(name);
      res.end('true}');
    } else {
      res.setHeader('X-Handler', 'set before the timeout');
      await park(name);
      // After a timeout every one of these is a no-op.
      res.setHeader('X-Late', '1');
      res.status(200);
      res.write('{"late":');
      res.end('true}');
    }
    lateWrites++;
  } catch (e) {
    lateErrors.push(e);
  }
});

let h1: http.Server;
let h2: http2.Http2Server;
let h1Url: string;
let h2Url: string;
let session: http2.ClientHttp2Session;
const agent = new http.Agent({ keepAlive: true });

beforeAll(async () => {
  h1 = http.createServer(app);
  h2 = http2.createServer(dualProtocolListener(app));
  await Promise.all([new Promise<void>((r) => h1.listen(0, '127.0.0.1', r)), new Promise<void>((r) => h2.listen(0, '127.0.0.1', r))]);
  h1Url = `http://127.0.0.1:${(h1.address() as AddressInfo).port}`;
  h2Url = `http://127.0.0.1:${(h2.address() as AddressInfo).port}`;
  session = http2.connect(h2Url);
  session.on('error', () => undefined);
});
afterAll(async () => {
  for (const name of [...parked.keys()]) release(name);
  agent.destroy();
  session.close();
  await Promise.all([new Promise((r) => h1.close(r)), new Promise((r) => h2.close(r))]);
});
afterEach(() => {
  expect(lateErrors).toEqual([]);
});

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  text: string;
  /** HTTP/1.1: the body arrived whole; HTTP/2: the stream's RST code (0 = closed normally). */
  complete: boolean;
  rstCode?: number;
  socket?: unknown;
}

function get1(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${h1Url}${path}`, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => undefined);
      res.on('close', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString(), complete: res.complete, socket: req.socket }),
      );
    });
    req.on('error', reject);
  });
}

function get2(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const req = session.request({ ':method': 'GET', ':path': path, ...headers });
    let status = 0;
    let hs: Record<string, unknown> = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => {
      status = Number(h[':status']);
      hs = h;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => undefined);
    req.on('close', () => resolve({ status, headers: hs, text: Buffer.concat(chunks).toString(), complete: req.rstCode === 0, rstCode: req.rstCode }));
    req.end();
  });
}

const path = (query = '') => `/api/v1/namespaces/default/configmaps/c${query}`;
const parkAs = (name: string, more: Record<string, string> = {}) => ({ 'x-park': name, ...more });

describe.each([
  ['HTTP/1.1', get1],
  ['HTTP/2', get2],
] as const)('%s', (proto, get) => {
  const tag = proto === 'HTTP/2' ? '2' : '1';

  test("a request still running at the deadline gets kube's 504, as Go writes it; the handler's later writes are no-ops", async () => {
    const name = `hold${tag}`;
    const started = Date.now();
    const r = await get(path(), parkAs(name, { 'accept-encoding': 'gzip' }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(r.status).toBe(504);
    expect(r.text).toBe(kubeTimeout);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['content-length']).toBe(String(requestTimeoutBody.length));
    expect(r.headers['content-encoding']).toBeUndefined();
    // Headers from before the filter stay; the handler's do not reach the 504.
    expect(r.headers['audit-id']).toEqual(expect.any(String));
    expect(r.headers['x-handler']).toBeUndefined();
    expect(r.complete).toBe(true);
    const before = lateWrites;
    await whenParked(name);
    release(name);
    // The handler ran to its end without a throw, and the connection serves the next request.
    await new Promise((resolve) => setImmediate(resolve));
    expect(lateWrites).toBe(before + 1);
    const next = await get(path());
    expect(next.status).toBe(200);
    if (proto === 'HTTP/1.1') expect(next.socket).toBe(r.socket);
  });

  test('a response already started is cut as Go cuts a handler that panics: HTTP/1.1 closes, HTTP/2 resets INTERNAL_ERROR', async () => {
    const name = `partial${tag}`;
    const r = await get(path(), parkAs(name, { 'x-partial': '1' }));
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"partial":');
    expect(r.complete).toBe(false);
    if (proto === 'HTTP/2') expect(r.rstCode).toBe(http2.constants.NGHTTP2_INTERNAL_ERROR);
    await whenParked(name);
    release(name);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await get(path())).status).toBe(200);
  });

  test('?timeout= shorter than --request-timeout applies; longer, zero or negative leave --request-timeout', async () => {
    // All sent together. Order, not elapsed time, shows the short one applies: ?timeout=20ms is
    // answered first, its deadline TIMEOUT_MS - 20 ms before the others' (more than load can shift).
    const queries = ['?timeout=20ms', '?timeout=1h', '?timeout=0s', '?timeout=-1s', '?timeout='];
    const done: string[] = [];
    const started = Date.now();
    const answers = await Promise.all(
      queries.map(async (q, i) => {
        const r = await get(path(q), parkAs(`q${i}${tag}`));
        done.push(q);
        return { q, status: r.status, ms: Date.now() - started };
      }),
    );
    expect(done[0]).toBe('?timeout=20ms');
    for (const { q, status, ms } of answers) {
      expect({ q, status }).toEqual({ q, status: 504 });
      if (q !== '?timeout=20ms') expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    }
    for (let i = 0; i < queries.length; i++) {
      await whenParked(`q${i}${tag}`);
      release(`q${i}${tag}`);
    }
  });

  test("an invalid ?timeout= is kube's 400 BadRequest Status, before any handler", async () => {
    for (const [q, why] of [
      ['?timeout=bogus', 'time: invalid duration \\"bogus\\"'],
      ['?timeout=10', 'time: missing unit in duration \\"10\\"'],
      ['?timeout=1d&timeout=1s', 'time: unknown unit \\"d\\" in duration \\"1d\\"'],
      ['?time%6Fut=x', 'time: invalid duration \\"x\\"'],
    ]) {
      const r = await get(path(q), parkAs('never'));
      expect(r.status).toBe(400);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.text).toBe(
        `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid timeout specified in the request URL - ${why}","reason":"BadRequest","code":400}\n`,
      );
    }
    expect(parked.has('never')).toBe(false);
  });

  test('watches and long-running subresources are not timed out, and their ?timeout= is not parsed', async () => {
    const watchName = `watch${tag}`;
    const logName = `log${tag}`;
    const watch = get('/api/v1/namespaces/default/configmaps?watch=true&timeout=bogus', parkAs(watchName));
    const log = get('/api/v1/namespaces/default/pods/p/log?timeout=1ms', parkAs(logName));
    await Promise.all([whenParked(watchName), whenParked(logName)]);
    // A request started after both times out: more than the deadline has passed for them too.
    const witness = await get(path(), parkAs(`witness${tag}`));
    expect(witness.status).toBe(504);
    await whenParked(`witness${tag}`);
    release(`witness${tag}`);
    release(watchName);
    release(logName);
    expect(await watch).toMatchObject({ status: 200, text: '{"late":true}' });
    expect(await log).toMatchObject({ status: 200, text: '{"late":true}' });
  });
});

describe("the request's context (what storage and webhooks read)", () => {
  test.each([
    ['HTTP/1.1', get1],
    ['HTTP/2', get2],
  ] as const)('%s: done at the deadline, marked by the timer; the handler\'s end after the 504 is logged as kube\'s post-timeout activity', async (proto, get) => {
    const name = `ctx-deadline-${proto}`;
    const r = await get(path(), parkAs(name));
    expect(r.status).toBe(504);
    await whenParked(name);
    const state = states.get(name)!;
    expect(state.ended).toBe('context deadline exceeded');
    expect(logged.find((l) => l.auditId === state.auditId)).toBeUndefined();
    release(name);
    const line = await until('the post-timeout line', () => logged.find((l) => l.auditId === state.auditId));
    expect(line).toMatchObject({ level: 'error', message: 'Post-timeout activity', method: 'GET', path: '/api/v1/namespaces/default/configmaps/c', timeElapsedMs: expect.any(Number) });
  });

  test('HTTP/1.1: the client closing the connection before the answer cancels the context', async () => {
    const name = 'ctx-gone-1';
    const req = http.get(`${h1Url}${path()}`, { headers: parkAs(name, { 'x-long': '1' }) });
    req.on('error', () => undefined);
    await whenParked(name);
    const state = states.get(name)!;
    expect(state.ended).toBeUndefined();
    req.destroy();
    await until('the context canceled', () => state.ended === 'context canceled');
    release(name);
  });

  test('HTTP/2: the client resetting the stream before the answer cancels the context; the session serves on', async () => {
    const name = 'ctx-gone-2';
    const stream = session.request({ ':method': 'GET', ':path': path(), ...parkAs(name, { 'x-long': '1' }) });
    stream.on('error', () => undefined);
    stream.end();
    await whenParked(name);
    const state = states.get(name)!;
    stream.close(http2.constants.NGHTTP2_CANCEL);
    await until('the context canceled', () => state.ended === 'context canceled');
    release(name);
    expect((await get2(path())).status).toBe(200);
  });

  test('a request answered in time is never marked, and nothing is logged for it', async () => {
    const name = 'ctx-in-time';
    const answered = get1(path(), parkAs(name, { 'x-long': '1' }));
    await whenParked(name);
    release(name);
    expect((await answered).status).toBe(200);
    const state = states.get(name)!;
    // The connection stays open and idle: no close ends a context after its answer.
    expect(state.ended).toBeUndefined();
    expect(logged.find((l) => l.auditId === state.auditId)).toBeUndefined();
  });
});

test('isLongRunning: kube-apiserver\'s BasicLongRunningRequestCheck', () => {
  const info = (method: string, path: string, watch = false) => requestInfoFor(method, path, watch);
  expect(isLongRunning(info('GET', '/api/v1/pods', true))).toBe(true);
  expect(isLongRunning(info('GET', '/api/v1/watch/namespaces/default/pods'))).toBe(true);
  for (const sub of ['attach', 'exec', 'proxy', 'log', 'portforward']) expect(isLongRunning(info('POST', `/api/v1/namespaces/default/pods/p/${sub}`))).toBe(true);
  expect(isLongRunning(info('GET', '/api/v1/namespaces/default/pods/p/status'))).toBe(false);
  expect(isLongRunning(info('GET', '/api/v1/pods'))).toBe(false);
  expect(isLongRunning(info('GET', '/debug/pprof/profile'))).toBe(true);
  expect(isLongRunning(info('GET', '/healthz'))).toBe(false);
});
