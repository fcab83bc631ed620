/**
 * SecureServer + dualProtocolListener: one Express app served over HTTP/2 and HTTP/1.1 (ALPN), with
 * kube's HTTP/2 settings (apiserver pkg/server/secure_serving.go), its idle timeout, its graceful
 * close, and --disable-http2-serving.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import express from 'express';
import { ensureServingCertificates } from '../../../src/server/certs';
import { closeHttp2ConnectionAfter, dualProtocolListener } from '../../../src/server/http2-express';
import { SecureServer, SecureServingOptions, http2Tuning } from '../../../src/server/http2-serving';
import { connectH2, goConnectionWindowBytes } from '../../support/h2-client';
import { until } from '../../support/until';

let dir: string;
let certs: { cert: string; key: string; caCert: string };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-h2-'));
  certs = await ensureServingCertificates({ certDir: dir, hosts: [] });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('http2Tuning (kube: MaxConcurrentStreams from the flag, else 100; 256 KiB windows and frames)', () => {
  it.each([
    [1000, 1000],
    [250, 250],
    [1, 1],
    [0, 100],
    [-3, 100],
  ])('--http2-max-streams-per-connection=%d → %d streams', (flag, streams) => {
    expect(http2Tuning(flag)).toEqual({
      settings: { maxConcurrentStreams: streams, initialWindowSize: 262144, maxFrameSize: 262144, maxHeaderListSize: (1 << 20) + 320 },
      connectionWindowBytes: 262144 * streams,
    });
  });
});

/** An app exercising what our handlers use of Express over both protocols. */
function testApp(): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');
  app.get('/echo', (req, res) => {
    res.append('Warning', '299 - "one"');
    res.append('Warning', '299 - "two"');
    res.status(201).setHeader('Content-Type', 'application/json');
    res.send(Buffer.from(JSON.stringify({ version: req.httpVersion, path: req.path, query: req.query, locals: typeof res.locals, headersSent: res.headersSent })));
  });
  app.get('/stream', (_req, res) => {
    res.status(200).setHeader('Content-Type', 'text/plain');
    res.flushHeaders();
    res.write('first\n');
    // never ends: the server's close() has to end it
  });
  app.get('/goaway', (_req, res) => {
    closeHttp2ConnectionAfter(res);
    res.status(401).send('no');
  });
  return app;
}

async function serve(opts: Partial<SecureServingOptions> = {}): Promise<{ server: SecureServer; url: string }> {
  const server = new SecureServer(
    { tls: certs, http2MaxStreamsPerConnection: 1000, disableHttp2: false, ...opts },
    dualProtocolListener(testApp()),
  );
  const { port } = await server.listen(0, '127.0.0.1');
  return { server, url: `https://127.0.0.1:${port}` };
}

function h1Get(url: string, alpn?: string[]): Promise<{ status: number; version: string; alpn: string | false; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca: certs.caCert, agent: false, ...(alpn ? { ALPNProtocols: alpn } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, version: res.httpVersion, alpn: (res.socket as tls.TLSSocket).alpnProtocol ?? false, headers: res.headers, text }),
      );
    });
    req.on('error', reject);
  });
}

describe('SecureServer', () => {
  it('negotiates h2 by ALPN, advertises kube settings and opens the connection window to 256 KiB × streams', async () => {
    const { server, url } = await serve();
    const c = await connectH2(url, certs.caCert);
    try {
      expect(c.alpn).toBe('h2');
      // The server's SETTINGS come first, then its WINDOW_UPDATE: awaited, not slept for.
      await until(() => `the connection window to open (${c.session.state.remoteWindowSize})`, () => c.session.state.remoteWindowSize === 262144 * 1000);
      expect(c.session.remoteSettings).toMatchObject({ maxConcurrentStreams: 1000, initialWindowSize: 262144, maxFrameSize: 262144, maxHeaderListSize: 1048896 });
      expect(c.session.state.remoteWindowSize).toBe(262144 * 1000);
      expect(c.session.state.localWindowSize).toBe(goConnectionWindowBytes);
    } finally {
      await c.close();
      await server.close(100);
    }
  });

  it('serves the Express app over HTTP/2 as over HTTP/1.1 (chained setHeader, append, query, path), without connection-specific headers', async () => {
    const { server, url } = await serve();
    const c = await connectH2(url, certs.caCert);
    try {
      const r = await c.request('GET', '/echo?a=1&a=2&b[c]=d');
      expect(r.status).toBe(201);
      expect(r.json()).toEqual({ version: '2.0', path: '/echo', query: { a: ['1', '2'], b: { c: 'd' } }, locals: 'object', headersSent: false });
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['content-length']).toBe(String(r.body.length));
      expect(r.headers.warning).toBe('299 - "one", 299 - "two"');
      for (const h of ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']) expect(r.headers[h]).toBeUndefined();
      // Express's final handler (no route) works over HTTP/2 too.
      expect((await c.request('GET', '/nothing-here')).status).toBe(404);

      const h1 = await h1Get(`${url}/echo?a=1`, ['http/1.1']);
      expect([h1.status, h1.version, h1.alpn]).toEqual([201, '1.1', 'http/1.1']);
      expect(JSON.parse(h1.text)).toMatchObject({ version: '1.1', query: { a: '1' } });
      // A client offering no ALPN at all gets HTTP/1.1.
      expect((await h1Get(`${url}/echo`)).version).toBe('1.1');
    } finally {
      await c.close();
      await server.close(100);
    }
  });

  it('--http2-max-streams-per-connection=0 advertises 100 streams', async () => {
    const { server, url } = await serve({ http2MaxStreamsPerConnection: 0 });
    const c = await connectH2(url, certs.caCert);
    try {
      await until(() => `the connection window to open (${c.session.state.remoteWindowSize})`, () => c.session.state.remoteWindowSize === 262144 * 100);
      expect(c.session.remoteSettings.maxConcurrentStreams).toBe(100);
      expect(c.session.state.remoteWindowSize).toBe(262144 * 100);
    } finally {
      await c.close();
      await server.close(100);
    }
  });

  it('--disable-http2-serving offers http/1.1 only', async () => {
    const { server, url } = await serve({ disableHttp2: true });
    try {
      const r = await h1Get(`${url}/echo`, ['h2', 'http/1.1']);
      expect([r.status, r.version, r.alpn]).toEqual([201, '1.1', 'http/1.1']);
      await expect(connectH2(url, certs.caCert)).rejects.toThrow();
    } finally {
      await server.close(100);
    }
  });

  it('closes an HTTP/2 connection (GOAWAY) once it has had no open stream for the idle timeout, not while a stream is open', async () => {
    // 1 s: a loaded machine may well take a few hundred ms between the connection and its stream.
    const { server, url } = await serve({ idleTimeoutMs: 1000 });
    const c = await connectH2(url, certs.caCert);
    const goaway = new Promise<number>((resolve) => c.session.once('goaway', (code: number) => resolve(code)));
    let gone = false;
    void goaway.then(() => (gone = true));
    try {
      const { stream, status } = await c.stream('/stream');
      expect(status).toBe(200);
      stream.resume();
      // Twice the idle timeout with the stream open: no GOAWAY (a window with nothing to await).
      await new Promise((r) => setTimeout(r, 2000));
      expect(gone).toBe(false);
      stream.close();
      expect(await goaway).toBe(0);
    } finally {
      await c.close();
      await server.close(100);
    }
  });

  it('close() sends open sessions a GOAWAY, destroys what is still open after the grace period, and resolves', async () => {
    const { server, url } = await serve();
    const c = await connectH2(url, certs.caCert);
    const goaway = new Promise<void>((resolve) => c.session.once('goaway', () => resolve()));
    const { stream } = await c.stream('/stream');
    stream.resume();
    stream.on('error', () => undefined);
    const streamClosed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    // An idle HTTP/1.1 keep-alive connection too.
    const agent = new https.Agent({ keepAlive: true, ca: certs.caCert });
    await new Promise<void>((resolve, reject) => https.get(`${url}/echo`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject));
    await server.close(200);
    await goaway;
    await streamClosed;
    agent.destroy();
    await c.close();
  });

  it('closeHttp2ConnectionAfter: the response is sent, then the connection is shut down (GOAWAY)', async () => {
    const { server, url } = await serve();
    const c = await connectH2(url, certs.caCert);
    const goaway = new Promise<void>((resolve) => c.session.once('goaway', () => resolve()));
    try {
      const r = await c.request('GET', '/goaway');
      expect([r.status, r.text]).toEqual([401, 'no']);
      await goaway;
      // Over HTTP/1.1 it does nothing.
      expect((await h1Get(`${url}/goaway`, ['http/1.1'])).status).toBe(401);
    } finally {
      await c.close();
      await server.close(100);
    }
  });
  it.each([
    ['http/1.1', false],
    ['http/1.1', true],
  ] as const)('refuses a client\'s TLS 1.2 renegotiation (Go\'s server does): the connection is closed (%s, disable-http2 %s)', async (alpn, disableHttp2) => {
    const { server, url } = await serve({ disableHttp2 });
    const { port } = new URL(url);
    const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca: certs.caCert, servername: 'localhost', maxVersion: 'TLSv1.2', ALPNProtocols: [alpn] });
    try {
      await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      socket.on('error', () => undefined);
      // A renegotiation the server accepted would call back without an error and keep the connection.
      const outcome = await new Promise<string>((resolve) => {
        socket.once('close', () => resolve('closed'));
        socket.renegotiate({ rejectUnauthorized: false }, (e) => resolve(e ? 'refused' : 'renegotiated'));
      });
      expect(outcome).not.toBe('renegotiated');
      if (outcome === 'refused') await new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
      // The server is still serving.
      expect((await h1Get(`${url}/echo`, ['http/1.1'])).status).toBe(201);
    } finally {
      socket.destroy();
      await server.close(100);
    }
  });
});
