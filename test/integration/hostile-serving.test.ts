/**
 * Hostile and odd input at the transport, against the real server and etcd (kube-limits §1–4, §8,
 * §11): each answer is the exact one Go/kube gives, the process survives, and nothing is stored.
 * Raw TLS sockets (ALPN http/1.1) send what Node's own client would refuse to.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import express from 'express';
import { ensureServingCertificates } from '../../src/server/certs';
import { dualProtocolListener } from '../../src/server/http2-express';
import { SecureServer } from '../../src/server/http2-serving';
import { run } from '../support/api-server';
import { configMap as cm, namespace } from '../support/factories';
import { expectStatus, failure } from '../support/kube-status';
import { useTestServer } from '../support/server-fixture';

const { srv, etcd } = useTestServer();
const ns = 'hostile';
const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
const notAllowed = failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
const tooLarge = failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
const limit = 3 * 1024 * 1024;

beforeAll(async () => {
  const r = await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) });
  expect(r.status).toBe(201);
});

/** A TLS connection negotiated as http/1.1 (or h2). */
function connectTls(port: number, ca: string, alpn = 'http/1.1'): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: [alpn] }, () => resolve(s));
    s.once('error', reject);
  });
}

/** What came back on a raw connection until the server closed it, and how it ended. */
interface Exchange {
  data: Buffer;
  text: string;
  error?: string;
}

/** Everything the server sends on `socket` until it closes (errors after data are recorded, not thrown). */
function untilClosed(socket: tls.TLSSocket): Promise<Exchange> {
  const chunks: Buffer[] = [];
  let error: string | undefined;
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  return new Promise((resolve) =>
    socket.once('close', () => {
      const data = Buffer.concat(chunks);
      resolve({ data, text: data.toString('latin1'), error });
    }),
  );
}

/** Sends `bytes` on a fresh http/1.1 connection and collects the answer until the server closes. */
async function rawExchange(bytes: Buffer | string, port = srv.port, ca = srv.caCert): Promise<Exchange> {
  const s = await connectTls(port, ca);
  const done = untilClosed(s);
  s.write(bytes);
  return done;
}

/** Splits a raw HTTP/1.1 response: status line, lower-cased headers, body. */
function parseRaw(text: string): { statusLine: string; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  return { statusLine, headers, body: text.slice(end + 4) };
}

/** The server still answers, over both protocols. */
async function expectAlive(): Promise<void> {
  expect((await srv.request('GET', '/version')).status).toBe(200);
  const session = http2.connect(srv.url, { ca: srv.caCert });
  session.on('error', () => undefined);
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = session.request({ ':path': '/version', authorization: `Bearer ${srv.token}` }, { endStream: true });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.resume();
    });
    expect(status).toBe(200);
  } finally {
    session.destroy();
  }
}

/** One HTTP/2 session with room for big header blocks on the client side. */
function h2(): http2.ClientHttp2Session {
  const session = http2.connect(srv.url, { ca: srv.caCert, maxSendHeaderBlockLength: 4 << 20, maxSessionMemory: 64 });
  session.on('error', () => undefined);
  return session;
}

interface H2Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  text: string;
  rstCode?: number;
  error?: string;
}

function h2Request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: Buffer, opts: { endBody?: boolean } = {}): Promise<H2Answer> {
  return new Promise((resolve) => {
    const req = session.request({ authorization: `Bearer ${srv.token}`, ...headers }, { endStream: body === undefined });
    let status = 0;
    let hs: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let error: string | undefined;
    req.on('response', (h) => {
      status = Number(h[':status']);
      hs = h;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    req.on('close', () => resolve({ status, headers: hs, text: Buffer.concat(chunks).toString('utf8'), rstCode: req.rstCode, error }));
    if (body !== undefined) {
      req.write(body);
      if (opts.endBody !== false) req.end();
    }
  });
}

function expectH2Status(r: H2Answer, expected: ReturnType<typeof failure>): void {
  expect({ status: r.status, type: r.headers['content-type'], text: r.text }).toEqual({
    status: expected.code,
    type: 'application/json',
    text: `${JSON.stringify(expected)}\n`,
  });
}

/** HPACK integer with an n-bit prefix (RFC 7541 §5.1). */
function hpackInt(value: number, prefixBits: number, firstByte = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([firstByte | value]);
  const out = [firstByte | max];
  let v = value - max;
  while (v >= 128) {
    out.push((v % 128) + 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/** A header block of literals without indexing, new names, no Huffman (RFC 7541 §6.2.2). */
function hpackLiterals(fields: Array<[string, string]>): Buffer {
  const parts: Buffer[] = [];
  for (const [n, v] of fields) parts.push(Buffer.from([0]), hpackInt(n.length, 7), Buffer.from(n), hpackInt(v.length, 7), Buffer.from(v));
  return Buffer.concat(parts);
}

function h2Frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream, 5);
  return Buffer.concat([h, payload]);
}

/**
 * A minimal HTTP/2 client behaving like Go's transport where Node's cannot: header blocks in
 * frames of the server's SETTINGS_MAX_FRAME_SIZE (nghttp2 sends 16 KiB frames and its receiver
 * allows 8 CONTINUATIONs, so a Node client cannot send ~1 MiB of headers at all). Requests go one
 * after another on streams 1, 3, …; per stream: the DATA received and the RST_STREAM code.
 */
async function rawH2(port: number, ca: string, requests: Array<Array<[string, string]>>): Promise<{ streams: Array<{ data: string; rstCode?: number }>; goaway?: number }> {
  const s = await connectTls(port, ca, 'h2');
  s.on('error', () => undefined);
  let buf = Buffer.alloc(0);
  let maxFrame = 16384;
  const streams: Array<{ data: string; rstCode?: number; done: boolean }> = requests.map(() => ({ data: '', done: false }));
  let goaway: number | undefined;
  let wake: () => void = () => undefined;
  s.on('data', (c: Buffer) => {
    buf = Buffer.concat([buf, c]);
    while (buf.length >= 9 && buf.length >= 9 + buf.readUIntBE(0, 3)) {
      const len = buf.readUIntBE(0, 3);
      const [type, flags] = [buf[3] as number, buf[4] as number];
      const id = buf.readUInt32BE(5) & 0x7fffffff;
      const payload = buf.subarray(9, 9 + len);
      buf = buf.subarray(9 + len);
      const st = streams[(id - 1) / 2];
      if (type === 4 && !(flags & 1)) {
        for (let i = 0; i + 6 <= payload.length; i += 6) if (payload.readUInt16BE(i) === 5) maxFrame = payload.readUInt32BE(i + 2);
        s.write(h2Frame(4, 1, 0));
      } else if (type === 0 && st) {
        st.data += payload.toString('utf8');
        if (len) s.write(h2Frame(8, 0, 0, Buffer.from([0, 0, len >> 8, len & 0xff].map((x, i) => (i < 2 ? 0 : x)))));
        if (flags & 1) st.done = true;
      } else if (type === 1 && st && flags & 1) st.done = true;
      else if (type === 3 && st) {
        st.rstCode = payload.readUInt32BE(0);
        st.done = true;
      } else if (type === 7) goaway = payload.readUInt32BE(4);
      wake();
    }
  });
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  const until = (cond: () => boolean) =>
    Promise.race([
      closed,
      new Promise<void>((resolve) => {
        const check = (): void => (cond() ? resolve() : undefined);
        wake = check;
        check();
      }),
    ]);
  s.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), h2Frame(4, 0, 0)]));
  // The server's SETTINGS (its 256 KiB frame size) before any big frame; our ACK precedes our HEADERS.
  await until(() => maxFrame !== 16384);
  for (const [i, fields] of requests.entries()) {
    const block = hpackLiterals(fields);
    const id = 2 * i + 1;
    for (let off = 0; off < block.length || off === 0; off += maxFrame) {
      const chunk = block.subarray(off, off + maxFrame);
      const last = off + maxFrame >= block.length;
      s.write(h2Frame(off === 0 ? 1 : 9, (last ? 4 : 0) | (off === 0 ? 1 : 0), id, chunk));
      if (last) break;
    }
    await until(() => (streams[i] as { done: boolean }).done || goaway !== undefined);
  }
  s.destroy();
  return { streams: streams.map(({ data, rstCode }) => ({ data, ...(rstCode === undefined ? {} : { rstCode }) })), goaway };
}

describe('an HTTP/1.1 connection whose request line says HTTP/2.0 (§3)', () => {
  test("Go's raw 505, the connection closed, the server alive", async () => {
    const r = await rawExchange('GET /version HTTP/2.0\r\nHost: x\r\n\r\n');
    expect(r.text).toBe(
      'HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\n' +
        'Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n' +
        '505 HTTP Version Not Supported: unsupported protocol version',
    );
    // Any other major version is the same answer.
    const r0 = await rawExchange('GET /api/v1/namespaces HTTP/0.9\r\nHost: x\r\n\r\n');
    expect(r0.text.startsWith('HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\n')).toBe(true);
    await expectAlive();
  });

  test("an HTTP/1.1 request without Host: Go's raw 400 (HTTP/1.0 may omit it)", async () => {
    const r = await rawExchange('GET /version HTTP/1.1\r\n\r\n');
    expect(r.text).toBe(
      'HTTP/1.1 400 Bad Request: missing required Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n' +
        '400 Bad Request: missing required Host header',
    );
    const r10 = await rawExchange('GET /version HTTP/1.0\r\n\r\n');
    expect(parseRaw(r10.text).statusLine).toBe('HTTP/1.1 200 OK');
  });
});

describe('unknown method and POST on an item path: 405 (§8)', () => {
  test('FOO over HTTP/1.1: the 405 Status (Node\'s parser rejects the method), then close', async () => {
    const r = await rawExchange(`FOO ${configmaps} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.token}\r\n\r\n`);
    const { statusLine, headers, body } = parseRaw(r.text);
    expect(statusLine).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(headers['content-type']).toBe('application/json');
    expect(headers.connection).toBe('close');
    expect(Number(headers['content-length'])).toBe(Buffer.byteLength(body));
    expect(body).toBe(`${JSON.stringify(notAllowed)}\n`);
    // Not HTTP at all: Go's plain 400.
    const junk = await rawExchange('\u0001\u0002garbage\r\n\r\n');
    expect(junk.text).toBe('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request');
    await expectAlive();
  });

  test('FOO over HTTP/2: the same Status from the router', async () => {
    const session = h2();
    try {
      expectH2Status(await h2Request(session, { ':method': 'FOO', ':path': '/api/v1/namespaces' }), notAllowed);
      expectH2Status(await h2Request(session, { ':method': 'FOO', ':path': `${configmaps}/x` }), notAllowed);
    } finally {
      session.destroy();
    }
  });

  test('POST on an item path stores nothing (HTTP/1.1 and HTTP/2)', async () => {
    expectStatus(await srv.request('POST', `${configmaps}/cm0`, { body: cm('cm0') }), notAllowed);
    expectStatus(await srv.request('POST', `${configmaps}/cm1`, { body: cm('other') }), notAllowed);
    expectStatus(await srv.request('POST', '/api/v1/namespaces/some-ns', { body: namespace('some-ns') }), notAllowed);
    const session = h2();
    try {
      const r = await h2Request(session, { ':method': 'POST', ':path': `${configmaps}/cm2`, 'content-type': 'application/json' }, Buffer.from(JSON.stringify(cm('cm2'))));
      expectH2Status(r, notAllowed);
    } finally {
      session.destroy();
    }
    for (const name of ['cm0', 'other', 'cm2']) expect((await srv.request('GET', `${configmaps}/${name}`)).status).toBe(404);
    expect((await srv.request('GET', '/api/v1/namespaces/some-ns')).status).toBe(404);
    // The collection path still creates.
    expect((await srv.request('POST', configmaps, { body: cm('made') })).status).toBe(201);
  });
});

describe('header limits: kube\'s 1 MiB (§1)', () => {
  const unauthorized = failure(401, 'Unauthorized', 'Unauthorized');
  test.each([17 * 1024, 100 * 1024, 1000 * 1024])('HTTP/1.1: a %d-byte bearer token is read and refused (401)', async (n) => {
    expectStatus(await srv.request('GET', configmaps, { token: 'x'.repeat(n) }), unauthorized);
  });

  test('HTTP/1.1: a 60 KB labelSelector reaches the handler', async () => {
    const values = Array.from({ length: 8000 }, (_, i) => `v${i}`).join(',');
    const sel = `app in (${values})`;
    expect(sel.length).toBeGreaterThan(45_000);
    const r = await srv.request('GET', `${configmaps}?labelSelector=${encodeURIComponent(sel)}`);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ kind: 'ConfigMapList', items: [] });
    // A 60 KB selector value kube rejects is rejected by the selector parser, as a Status.
    const bad = await srv.request('GET', `${configmaps}?labelSelector=${'a'.repeat(60_000)}%3Db`);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });

  test("HTTP/1.1: past the limit, Go's raw 431 and close", async () => {
    const r = await rawExchange(`GET ${configmaps} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'x'.repeat(1100 * 1024)}\r\n\r\n`);
    expect(r.text).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large',
    );
    await expectAlive();
  });

  test('HTTP/2 from a Go-like client (256 KiB frames): a ~1 MiB header block is read (401); past the limit the stream alone is refused', async () => {
    // 16 fields of 64,000 bytes: 1,024,608 bytes of header list (HPACK cost), under kube's 1,048,896.
    const fits: Array<[string, string]> = Array.from({ length: 16 }, (_, i) => [`x-big-${i}`, 'x'.repeat(64_000)]);
    const over: Array<[string, string]> = Array.from({ length: 17 }, (_, i) => [`x-big-${i}`, 'x'.repeat(64_000)]);
    const get = (extra: Array<[string, string]>, token = 'not-a-token'): Array<[string, string]> => [
      [':method', 'GET'],
      [':scheme', 'https'],
      [':authority', 'x'],
      [':path', configmaps],
      ['authorization', `Bearer ${token}`],
      ...extra,
    ];
    const r = await rawH2(srv.port, srv.caCert, [get(fits)]);
    expect(r.streams[0]).toEqual({ data: `${JSON.stringify(unauthorized)}\n` });
    // Past it: Node (nghttp2) refuses that stream (Go answers it 431 text/html); the connection carries on.
    const r2 = await rawH2(srv.port, srv.caCert, [get(over, srv.token), get([], srv.token)]);
    expect(r2.streams[0]).toEqual({ data: '', rstCode: http2.constants.NGHTTP2_ENHANCE_YOUR_CALM });
    expect(JSON.parse(r2.streams[1]?.data ?? '')).toMatchObject({ kind: 'ConfigMapList' });
    expect(r2.goaway).toBeUndefined();
    await expectAlive();
  });

  test('HTTP/2: a header field over 64 KiB encoded ends that connection (nghttp2 limit), not the server', async () => {
    const session = h2();
    try {
      const r = await h2Request(session, { ':path': configmaps, authorization: `Bearer ${'x'.repeat(100 * 1024)}` });
      expect(r.status).toBe(0);
      expect(r.error).toBe('ERR_HTTP2_SESSION_ERROR');
    } finally {
      session.destroy();
    }
    await expectAlive();
  });
});

describe('413 without reading the body (§4)', () => {
  const post = (length: number) =>
    `POST ${configmaps} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  test('HTTP/1.1, more than 256 KiB left unread: the 413 carries Connection: close and the connection ends', async () => {
    const s = await connectTls(srv.port, srv.caCert);
    const done = untilClosed(s);
    s.write(post(10 * 1024 * 1024));
    s.write(Buffer.alloc(64 * 1024, 0x20));
    const r = await done;
    const { statusLine, headers, body } = parseRaw(r.text);
    // Node's reason phrase is "Payload Too Large" (Go: "Request Entity Too Large"); clients read the code.
    expect(statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(headers.connection).toBe('close');
    expect(body).toBe(`${JSON.stringify(tooLarge)}\n`);
  });

  test('HTTP/1.1, a drainable rest: drained, and the 413 leaves the connection open for the next request', async () => {
    const s = await connectTls(srv.port, srv.caCert);
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    const received = (needle: string) =>
      new Promise<string>((resolve) => {
        const check = () => {
          const t = Buffer.concat(chunks).toString('latin1');
          if (t.includes(needle)) {
            s.off('data', check);
            resolve(t);
          }
        };
        s.on('data', check);
        check();
      });
    const length = limit + 100 * 1024;
    s.write(post(length));
    s.write(Buffer.alloc(length, 0x20));
    const first = await received('"code":413}\n');
    const { statusLine, headers } = parseRaw(first);
    // Node's reason phrase is "Payload Too Large" (Go: "Request Entity Too Large"); clients read the code.
    expect(statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(headers.connection).toBe('keep-alive');
    chunks.length = 0;
    s.write(`GET ${configmaps} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.token}\r\n\r\n`);
    const second = await received('"kind":"ConfigMapList"');
    expect(second.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
    s.destroy();
  });

  test('HTTP/2: the 413, then RST_STREAM NO_ERROR; the connection carries on', async () => {
    const session = h2();
    try {
      const r = await h2Request(
        session,
        { ':method': 'POST', ':path': configmaps, 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
        Buffer.alloc(64 * 1024, 0x20),
        { endBody: false },
      );
      expectH2Status(r, tooLarge);
      // The client never ends its body: without the server's RST_STREAM this stream would never close.
      expect(r.rstCode).toBe(http2.constants.NGHTTP2_NO_ERROR);
      expect(r.error).toBeUndefined();
      expect((await h2Request(session, { ':path': configmaps })).status).toBe(200);
    } finally {
      session.destroy();
    }
  });

  test('nothing was stored', async () => {
    const list = (await srv.request('GET', configmaps)).json();
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['made']);
  });
});

describe('faults stay inside their connection', () => {
  test('a TLS handshake with garbage, a bad HTTP/2 preface and a reset mid-request', async () => {
    const net = await import('node:net');
    await new Promise<void>((resolve) => {
      const s = net.connect(srv.port, '127.0.0.1', () => s.end('not tls at all\r\n\r\n'));
      s.on('error', () => undefined);
      s.on('close', () => resolve());
    });
    const h = await connectTls(srv.port, srv.caCert, 'h2');
    const hClosed = untilClosed(h);
    h.write('GET / HTTP/1.1\r\n\r\n');
    await hClosed;
    const s = await connectTls(srv.port, srv.caCert);
    s.on('error', () => undefined);
    s.write(`POST ${configmaps} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.token}\r\nContent-Length: 1000\r\n\r\n{"a":`);
    await new Promise((r) => setImmediate(r));
    s.destroy();
    await expectAlive();
  });

  test('a throw from the listener answers that request 500 (logged) and the server carries on', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'papi-fault-'));
    const certs = await ensureServingCertificates({ certDir: dir, hosts: [] });
    const logged: string[] = [];
    const app = express();
    app.get('/ok', (_req, res) => res.send('ok'));
    const listener = dualProtocolListener(app);
    const server = new SecureServer(
      {
        tls: certs,
        http2MaxStreamsPerConnection: 0,
        disableHttp2: false,
        log: { error: (m, meta) => logged.push(`${m} ${JSON.stringify(meta)}`), debug: () => undefined },
      },
      (req, res) => {
        if (req.url === '/boom') throw new Error('boom');
        listener(req, res);
      },
    );
    const { port } = await server.listen(0, '127.0.0.1');
    try {
      const r = await rawExchange('GET /boom HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', port, certs.caCert);
      const { statusLine, body } = parseRaw(r.text);
      expect(statusLine).toBe('HTTP/1.1 500 Internal Server Error');
      expect(JSON.parse(body)).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500, message: 'Internal error occurred: boom' });
      expect(logged.join('\n')).toMatch(/Error: boom\\n\s+at /);
      const ok = await rawExchange('GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', port, certs.caCert);
      expect(parseRaw(ok.text).body).toBe('ok');
    } finally {
      await server.close(100);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('slow headers: ReadHeaderTimeout closes without a byte (§2)', () => {
  // A second server on the same etcd, its header timeout short: 3 s, not less, because it also
  // bounds the TLS handshake and a complete request's headers, which a loaded machine may take a
  // good part of a second to get through.
  const { srv: fast } = useTestServer({ etcd, readHeaderTimeoutMs: 3000 });

  test('half a request line and headers, then nothing: closed, no response bytes', async () => {
    const s = await connectTls(fast.port, fast.caCert);
    const started = Date.now();
    const done = untilClosed(s);
    s.write('GET /version HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const r = await done;
    expect(r.data.length).toBe(0);
    // 3 s plus the checking interval (750 ms here) when the timeout is honoured; Node's default would
    // hold the connection 60 s + up to 30 s. The bound sits far from both, so load cannot flip it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000 - 5);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('a complete request on the same server is answered', async () => {
    const r = await rawExchange('GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', fast.port, fast.caCert);
    expect(parseRaw(r.text).statusLine).toBe('HTTP/1.1 200 OK');
  });
});

describe('connection storm: the listen backlog is somaxconn (§11)', () => {
  test("the listening socket's accept queue is somaxconn, not Node's 511", async () => {
    const somaxconn = Number((await readFile('/proc/sys/net/core/somaxconn', 'utf8')).trim());
    const ss = await run('ss', ['-ltnH', `sport = :${srv.port}`]).catch(() => undefined);
    if (!ss || ss.code !== 0) return; // no ss here: nothing to read the backlog with
    // ss shows a listening socket's backlog as Send-Q (the kernel's clamp included).
    const [, , sendQ] = ss.stdout.trim().split(/\s+/);
    expect(Number(sendQ)).toBe(somaxconn);
  });

  // In-process clients are paced by the server's own event loop, so this does not reproduce the
  // bench's resets under a 511 backlog (bench/ does, from another process); it guards the answers.
  test('1,000 concurrent TLS connections each GET: no reset, 200 or 429 only', async () => {
    const n = 1000;
    const results = await Promise.all(
      Array.from({ length: n }, async () => {
        try {
          const r = await rawExchange(`GET ${configmaps}?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.token}\r\nConnection: close\r\n\r\n`);
          return r.error && !r.text ? r.error : parseRaw(r.text).statusLine;
        } catch (e) {
          return (e as NodeJS.ErrnoException).code ?? String(e);
        }
      }),
    );
    const counts: Record<string, number> = {};
    for (const r of results) counts[r] = (counts[r] ?? 0) + 1;
    for (const k of Object.keys(counts)) expect(['HTTP/1.1 200 OK', 'HTTP/1.1 429 Too Many Requests']).toContain(k);
    await expectAlive();
  }, 60_000);
});
