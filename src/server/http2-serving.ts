/**
 * The secure (TLS) listener, as kube's SecureServingInfo.Serve (apiserver pkg/server/secure_serving.go):
 * ALPN offers h2 and http/1.1 (http/1.1 only with --disable-http2-serving), HTTP/2 with kube's
 * settings, idle connections closed after 90 s, and a graceful close that sends every HTTP/2
 * session a GOAWAY and ends HTTP/1.1 connections.
 *
 * Hostile input is contained here, as Go's net/http contains it per connection: a request line or
 * header block Node's HTTP/1 parser rejects is answered with Go's own plain-text bytes (431, 505,
 * 400) or, for an unknown method, kube's 405 Status, then the connection is closed; timeouts close
 * without a byte; a fault in one request answers 500 or ends that connection only. Every socket,
 * session and stream has an 'error' listener.
 */
import { constants as cryptoConstants } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { RequestListener, ServerResponse } from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { errors } from '../api';
import type { DualProtocolListener } from './http2-express';
import { type ClientError, http1ParseErrorReply, replyAndClose } from './go-http1-replies';

/** kube's resourceBody99Percentile: HTTP/2 per-stream receive window and max frame size (256 KiB). */
export const http2StreamWindowBytes = 256 * 1024;
/** kube's HTTP/2 MaxConcurrentStreams when --http2-max-streams-per-connection is 0 (Go clients' initial limit). */
export const http2DefaultMaxStreams = 100;
/** kube's IdleTimeout, HTTP/2 and HTTP/1.1 alike ("matches http.DefaultTransport keep-alive timeout"). */
export const defaultIdleTimeoutMs = 90_000;
/** kube's ReadHeaderTimeout (32 s, "just shy of" the 34 s create/update cap); also Go's TLS handshake deadline. */
export const defaultReadHeaderTimeoutMs = 32_000;
/**
 * How long an HTTP/1.1 request (headers and body) may take to arrive. kube sets no ReadTimeout, but
 * its timeout filter (--request-timeout, 60 s) ends any non-long-running request still reading its
 * body by then; Node's own default (300 s) would let a trickled body hold a connection five times
 * as long. A watch's request (no body) arrives at once, so this never ends a watch.
 */
export const defaultRequestReadTimeoutMs = 60_000;
/** kube's http.Server MaxHeaderBytes (1 MiB). */
export const maxHeaderBytes = 1 << 20;
/** Go reads MaxHeaderBytes + 4096 bytes of request line and headers before giving up (initialReadLimitSize). */
export const http1HeaderReadLimit = maxHeaderBytes + 4096;
/** x/net's SETTINGS_MAX_HEADER_LIST_SIZE derived from MaxHeaderBytes: + 10 × 32 bytes of HPACK overhead. */
export const http2MaxHeaderListSize = maxHeaderBytes + 10 * 32;

/** Go's listen backlog on Linux: /proc/sys/net/core/somaxconn, read once; 128 (SOMAXCONN) if unreadable or 0. */
let backlogCache: number | undefined;
export function listenBacklog(): number {
  if (backlogCache === undefined) {
    let n = 0;
    try {
      n = Number.parseInt(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim(), 10);
    } catch {
      n = 0;
    }
    backlogCache = Number.isFinite(n) && n > 0 ? n : 128;
  }
  return backlogCache;
}

/** Where the serving layer reports faults (winston's Logger fits). */
export interface ServingLog {
  error(message: string, meta?: object): unknown;
  debug(message: string, meta?: object): unknown;
}

const silentLog: ServingLog = { error: () => undefined, debug: () => undefined };

/** Options of {@link SecureServer}. */
export interface SecureServingOptions {
  /**
   * Serving certificate chain and key; with `clientCA` (PEM, kube's --client-ca-file) the server asks
   * every client for a certificate without requiring or judging one (Go's tls.RequestClientCert): the
   * x509 authenticator judges it per request, and clients without one still connect.
   */
  tls: { cert: string; key: string; clientCA?: string };
  /** `--http2-max-streams-per-connection`; 0 (or less) means kube's explicit default, 100. */
  http2MaxStreamsPerConnection: number;
  /** `--disable-http2-serving`: ALPN offers http/1.1 only. */
  disableHttp2: boolean;
  /** Idle connection timeout (default kube's 90 s; tests shorten it). */
  idleTimeoutMs?: number;
  /** HTTP/1.1: time for a request's line and headers to arrive (Go's ReadHeaderTimeout, default 32 s). */
  readHeaderTimeoutMs?: number;
  /** HTTP/1.1: time for a whole request, body included, to arrive (default 60 s; 0 = none, as Go's ReadTimeout unset). */
  requestReadTimeoutMs?: number;
  /** TLS handshake deadline (Go: the read-header timeout, 32 s). */
  tlsHandshakeTimeoutMs?: number;
  /** listen() backlog (default: somaxconn, as Go). */
  backlog?: number;
  /** Faults (logged with their stack) and dropped connections (debug). */
  log?: ServingLog;
}

/** The HTTP/2 settings kube's server advertises, and its connection-level receive window. */
export interface Http2Tuning {
  settings: http2.Settings;
  /** MaxUploadBufferPerConnection: the per-stream window × max streams. */
  connectionWindowBytes: number;
}

/** kube's http2.Server options for a `--http2-max-streams-per-connection` value. */
export function http2Tuning(maxStreamsFlag: number): Http2Tuning {
  const maxConcurrentStreams = maxStreamsFlag > 0 ? maxStreamsFlag : http2DefaultMaxStreams;
  return {
    settings: {
      maxConcurrentStreams,
      initialWindowSize: http2StreamWindowBytes,
      maxFrameSize: http2StreamWindowBytes,
      maxHeaderListSize: http2MaxHeaderListSize,
    },
    connectionWindowBytes: http2StreamWindowBytes * maxConcurrentStreams,
  };
}

/**
 * The HTTP/1 settings Node's HTTP/1 connection listener reads off the server object — an
 * Http2SecureServer's too, for its allowHTTP1 connections, though its types do not say so.
 */
type Http1Knobs = https.Server & { maxHeaderSize?: number; connectionsCheckingInterval: number };

/**
 * An HTTPS server serving `listener` over HTTP/2 and HTTP/1.1 (ALPN), tracking its connections so
 * that close() can end them. HTTP/1.x requests reach the listener as http.IncomingMessage /
 * ServerResponse, HTTP/2 ones as the http2 compatibility objects.
 */
export class SecureServer {
  private readonly server: http2.Http2SecureServer | https.Server;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private readonly log: ServingLog;
  private readonly backlog: number;
  /** The secure context's options (certificate, key, client CA), for setClientCA. */
  private tlsOptions: { cert: string; key: string; ca?: string; secureOptions?: number };

  constructor(opts: SecureServingOptions, listener: DualProtocolListener) {
    this.log = opts.log ?? silentLog;
    this.backlog = opts.backlog ?? listenBacklog();
    const idleMs = opts.idleTimeoutMs ?? defaultIdleTimeoutMs;
    const headerMs = opts.readHeaderTimeoutMs ?? defaultReadHeaderTimeoutMs;
    const requestMs = opts.requestReadTimeoutMs ?? defaultRequestReadTimeoutMs;
    const tls = {
      cert: opts.tls.cert,
      key: opts.tls.key,
      // Go: the minimum positive of ReadHeaderTimeout/ReadTimeout/WriteTimeout, i.e. 32 s.
      handshakeTimeout: opts.tlsHandshakeTimeoutMs ?? headerMs,
      // The CA names go into the CertificateRequest as Go's ClientCAs do; rejectUnauthorized: false
      // keeps a connection whose certificate does not verify (it is a 401 per request, as in kube).
      // No session tickets: a resumed OpenSSL session keeps the client's leaf but not the
      // intermediates it sent (Go's tickets keep the whole chain), so such a client would get 401s.
      ...(opts.tls.clientCA
        ? { ca: opts.tls.clientCA, requestCert: true, rejectUnauthorized: false, secureOptions: cryptoConstants.SSL_OP_NO_TICKET }
        : {}),
    };
    this.tlsOptions = {
      cert: tls.cert,
      key: tls.key,
      ...(opts.tls.clientCA ? { ca: opts.tls.clientCA, secureOptions: cryptoConstants.SSL_OP_NO_TICKET } : {}),
    };
    const contained = this.contain(listener);
    if (opts.disableHttp2) {
      this.server = https.createServer({ ...tls, ALPNProtocols: ['http/1.1'] }, contained as RequestListener);
    } else {
      const tuning = http2Tuning(opts.http2MaxStreamsPerConnection);
      const server = http2.createSecureServer(
        {
          ...tls,
          allowHTTP1: true,
          settings: tuning.settings,
          // Each header field costs at least 32 bytes (HPACK), so the list size bounds the count; Node's
          // default (128 fields) would reset streams Go serves.
          maxHeaderListPairs: Math.floor(http2MaxHeaderListSize / 32),
          // Room for a full header block (and its HPACK state) on top of Node's 10 MB default.
          maxSessionMemory: 32,
        },
        contained,
      );
      server.on('session', (session) => this.trackSession(session, tuning.connectionWindowBytes, idleMs));
      // Node reports these here as well as on the session/stream (which have listeners, below).
      server.on('sessionError', (e: Error) => this.log.debug('http2 session error', { error: e.message }));
      server.on('streamError' as 'sessionError', (e: Error) => this.log.debug('http2 stream error', { error: e.message }));
      this.server = server;
    }
    this.configureHttp1(this.server as unknown as Http1Knobs, idleMs, headerMs, requestMs);
    this.server.on('tlsClientError', (e: Error) => this.log.debug('TLS handshake failed', { error: e.message }));
    this.server.on('secureConnection', (socket: TLSSocket) => {
      // Go's TLS server never renegotiates: a client's new handshake on a TLS 1.2 connection ends the
      // connection (Node would allow three every ten minutes, each a full handshake's CPU).
      socket.disableRenegotiation();
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', (e: Error) => this.log.debug('connection error', { error: e.message }));
      if (socket.alpnProtocol !== 'h2') lingerOnClose(socket);
    });
  }

  /**
   * Replaces the client CA bundle the TLS handshake names (kube's reloaded --client-ca-file): new
   * connections get it, open ones keep theirs. Only for a server made with a `clientCA`.
   */
  setClientCA(pem: string): void {
    if (!this.tlsOptions.ca) throw new Error('the server was made without a client CA');
    this.tlsOptions = { ...this.tlsOptions, ca: pem };
    (this.server as unknown as { setSecureContext(o: object): void }).setSecureContext(this.tlsOptions);
  }

  /**
   * The HTTP/1.1 side (Node reads these from the server object for allowHTTP1 connections too):
   * kube's 1 MiB header limit, Go's timeouts, and Go's answers to what the parser rejects.
   */
  private configureHttp1(server: Http1Knobs, idleMs: number, headerMs: number, requestMs: number): void {
    // Read by Node's HTTP/1 connection listener per connection; Http2SecureServer never sets it itself.
    server.maxHeaderSize = http1HeaderReadLimit;
    // Go has no header count limit (the byte limit bounds it); Node's default 2000 drops the rest silently.
    server.maxHeadersCount = 0;
    // Go's IdleTimeout applies to HTTP/1.1 keep-alive connections too.
    server.keepAliveTimeout = idleMs;
    server.headersTimeout = headerMs;
    server.requestTimeout = requestMs > 0 ? Math.max(requestMs, headerMs) : 0;
    // Node checks these deadlines on an interval (default 30 s, which made 60 s hold for ~75 s).
    server.connectionsCheckingInterval = Math.max(10, Math.min(1000, Math.floor(headerMs / 4)));
    server.on('clientError', (err: ClientError, socket: Socket) => this.onClientError(err, socket));
  }

  /**
   * Node's HTTP/1 parser failed, a deadline passed, or the socket failed. Answered as Go does, once
   * per connection (Node reports every later chunk of a failed connection again).
   */
  private onClientError(err: ClientError, socket: Socket): void {
    if (answered.has(socket)) return;
    answered.add(socket);
    const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
    const reply = inFlight && inFlight.headersSent ? undefined : http1ParseErrorReply(err);
    if (reply) this.log.debug('rejected HTTP/1 request', { code: err.code });
    if (!reply) {
      socket.destroy();
      return;
    }
    replyAndClose(socket, reply);
  }

  /**
   * The listener, contained: a throw from it (the protocol adapters, Express's dispatch) answers that
   * request 500 — or, once the answer has started, ends its connection — and is logged with its stack.
   */
  private contain(listener: DualProtocolListener): DualProtocolListener {
    return (req, res) => {
      try {
        listener(req, res);
      } catch (e) {
        this.fault(e, res);
      }
    };
  }

  /** A bug surfaced while serving one request: logged, and that request alone answered 500 or cut. */
  fault(e: unknown, res: ServerResponse | http2.Http2ServerResponse): void {
    this.log.error('unhandled error while serving a request', { error: (e as Error)?.stack ?? String(e) });
    try {
      if (res.headersSent || res.writableEnded) throw e;
      const body = JSON.stringify(errors.internal(e).status);
      res.statusCode = 500;
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Content-Length', Buffer.byteLength(body) + 1);
      res.end(`${body}\n`);
    } catch {
      if (res instanceof http2.Http2ServerResponse) res.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      else res.socket?.destroy();
    }
  }

  /** Listens; resolves with the bound address, rejects with the listen error (EADDRINUSE…). */
  async listen(port: number, host: string): Promise<AddressInfo> {
    this.server.listen({ port, host, backlog: this.backlog });
    await Promise.race([
      once(this.server, 'listening'),
      once(this.server, 'error').then(([e]) => {
        throw e;
      }),
    ]);
    return this.server.address() as AddressInfo;
  }

  /**
   * Stops accepting connections; sends every HTTP/2 session a GOAWAY (its open streams may finish)
   * and closes idle HTTP/1.1 connections; after `graceMs` destroys whatever is still open.
   * Resolves once the server is closed.
   */
  async close(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Node's Http2SecureServer has it (for HTTP/1.1 connections) when allowHTTP1 is on; its types do not say so.
    (this.server as { closeIdleConnections?(): void }).closeIdleConnections?.();
    for (const session of this.sessions) session.close();
    const timer = setTimeout(() => {
      for (const session of this.sessions) session.destroy();
      for (const socket of this.sockets) socket.destroy();
    }, graceMs);
    await closed;
    clearTimeout(timer);
  }

  /**
   * Opens the session's receive window to kube's connection buffer, and closes it (GOAWAY) once it
   * has had no open stream for the idle timeout — Go's HTTP/2 IdleTimeout, unlike Node's session
   * timeout, which counts socket inactivity and would end a quiet watch.
   */
  private trackSession(session: http2.ServerHttp2Session, windowBytes: number, idleMs: number): void {
    this.sessions.add(session);
    session.once('close', () => this.sessions.delete(session));
    // A session or stream 'error' without a listener would be thrown: log it, the session/stream is gone.
    session.on('error', (e: Error) => this.log.debug('http2 session error', { error: e.message }));
    const onStreamError = (e: Error): void => void this.log.debug('http2 stream error', { error: e.message });
    if (!session.destroyed) session.setLocalWindowSize(windowBytes);
    let open = 0;
    let idle: NodeJS.Timeout | undefined;
    const arm = (): void => {
      idle = setTimeout(() => session.close(), idleMs);
      idle.unref();
    };
    session.on('stream', (stream: http2.ServerHttp2Stream) => {
      stream.on('error', onStreamError);
      open++;
      clearTimeout(idle);
      stream.once('close', () => {
        if (--open === 0 && !session.closed) arm();
      });
    });
    session.once('close', () => clearTimeout(idle));
    arm();
  }
}

/** HTTP/1 sockets already answered after a parse failure. */
const answered = new WeakSet<Socket>();

/**
 * Node ends a `Connection: close` HTTP/1 response with socket.destroySoon(): FIN and, once written,
 * close — resetting the connection if the client is still sending (a body after an early 413), so
 * that it may lose the answer. Go's closeWriteAndWait instead keeps reading (and dropping) for
 * 500 ms; so does this. The socket closes at once if the client closes its side first.
 */
function lingerOnClose(socket: TLSSocket): void {
  (socket as TLSSocket & { destroySoon(): void }).destroySoon = function destroySoon(this: TLSSocket) {
    replyAndClose(this);
  };
}
