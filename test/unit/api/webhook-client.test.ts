/**
 * The webhook client cut off by its caller's context (api/webhook-client.ts `post`'s signal): the
 * call in flight is abandoned with its connection closed (the webhook sees it go), worded as Go's
 * url.Error for a done context, and neither a call nor a Retry-After retry starts on a done one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookCallError, WebhookClient } from '../../../src/api/webhook-client';

let server: http.Server;
let base: string;
/** Each request the server got, with a promise settled when its caller closes it unanswered. */
const seen: Array<{ closed: Promise<void> }> = [];
let arrived: () => void = () => undefined;
let answer: (res: http.ServerResponse) => void = () => undefined;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    const closed = new Promise<void>((resolve) => res.on('close', () => !res.writableEnded && resolve()));
    seen.push({ closed });
    answer(res);
    arrived();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
  answer = () => undefined;
});

const nextArrival = () => new Promise<void>((r) => (arrived = r));
const client = () => new WebhookClient({ connection: { server: base } });

test.each([
  ['context canceled', 'context canceled', false],
  ['context deadline exceeded', 'context deadline exceeded', true],
] as const)('a call in flight when the context ends (%s): abandoned, its connection closed', async (reason, text, deadline) => {
  const c = client();
  const ac = new AbortController();
  const arrival = nextArrival();
  const call = c.post('{}', 10_000, 10_000, ac.signal);
  const failed = call.catch((e: unknown) => e);
  await arrival;
  ac.abort(reason);
  const e = (await failed) as WebhookCallError;
  expect(e).toBeInstanceOf(WebhookCallError);
  expect(e.message).toBe(`Post "${base}?timeout=10s": ${text}`);
  expect(e.deadlineExceeded).toBe(deadline);
  expect(e.retry).toBe(false);
  await seen[0]!.closed;
  c.close();
});

test('a context already done: nothing is sent', async () => {
  const c = client();
  await expect(c.post('{}', 10_000, 10_000, AbortSignal.abort('context canceled'))).rejects.toThrow(`Post "${base}?timeout=10s": context canceled`);
  expect(seen).toHaveLength(0);
  c.close();
});

test('a Retry-After wait is cut short by the end, and nothing is posted again (well before the 20 s wait)', async () => {
  const c = client();
  answer = (res) => res.writeHead(429, { 'retry-after': '20', 'content-type': 'text/plain' }).end('busy');
  const ac = new AbortController();
  const arrival = nextArrival();
  const failed = c.post('{}', 25_000, 25_000, ac.signal).catch((e: unknown) => e);
  await arrival;
  ac.abort('context canceled');
  expect(((await failed) as Error).message).toBe(`Post "${base}?timeout=25s": context canceled`);
  expect(seen).toHaveLength(1);
  c.close();
}, 10_000);

test('an answer before the end: the signal changes nothing after it', async () => {
  const c = client();
  answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  const ac = new AbortController();
  const r = await c.post('{}', 10_000, 10_000, ac.signal);
  ac.abort('context canceled');
  expect(r.body).toBe('{"ok":true}');
  c.close();
});
