/**
 * The secure (TLS) listener, as kube's SecureServingInfo.Serve (apiserver pkg/server/secure_serving.go):
 * ALPN offers h2 and http/1.1 (http/1.1 only with --disable-http2-serving), HTTP/2 with kube's
 * settings, idle connections closed after 90 s, and a graceful close that sends every HTTP/2
 * session a GOAWAY and ends HTTP/1.1 connections.
 */
import { once } from 'node:events';
import type { RequestListener } from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { DualProtocolListener } from './http2-express';

/** kube's resourceBody99Percentile: HTTP/2 per-stream receive window and max frame size (256 KiB). */
export const http2StreamWindowBytes = 256 * 1024;
/** kube's HTTP/2 MaxConcurrentStreams when --http2-max-streams-per-connection is 0 (Go clients' initial limit). */
export const http2DefaultMaxStreams = 100;
/** kube's IdleTimeout, HTTP/2 and HTTP/1.1 alike ("matches http.DefaultTransport keep-alive timeout"). */
export const defaultIdleTimeoutMs = 90_000;
/** kube's http.Server MaxHeaderBytes (1 MiB), advertised as HTTP/2's max header list size. */
const maxHeaderBytes = 1 << 20;

/** Options of {@link SecureServer}. */
export interface SecureServingOptions {
  tls: { cert: string; key: string };
  /** `--http2-max-streams-per-connection`; 0 (or less) means kube's explicit default, 100. */
  http2MaxStreamsPerConnection: number;
  /** `--disable-http2-serving`: ALPN offers http/1.1 only. */
  disableHttp2: boolean;
  /** Idle connection timeout (default kube's 90 s; tests shorten it). */
  idleTimeoutMs?: number;
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
      maxHeaderListSize: maxHeaderBytes,
    },
    connectionWindowBytes: http2StreamWindowBytes * maxConcurrentStreams,
  };
}

/**
 * An HTTPS server serving `listener` over HTTP/2 and HTTP/1.1 (ALPN), tracking its connections so
 * that close() can end them. HTTP/1.x requests reach the listener as http.IncomingMessage /
 * ServerResponse, HTTP/2 ones as the http2 compatibility objects.
 */
export class SecureServer {
  private readonly server: http2.Http2SecureServer | https.Server;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();

  constructor(opts: SecureServingOptions, listener: DualProtocolListener) {
    const tls = { cert: opts.tls.cert, key: opts.tls.key };
    const idleMs = opts.idleTimeoutMs ?? defaultIdleTimeoutMs;
    if (opts.disableHttp2) {
      this.server = https.createServer({ ...tls, ALPNProtocols: ['http/1.1'] }, listener as RequestListener);
    } else {
      const tuning = http2Tuning(opts.http2MaxStreamsPerConnection);
      const server = http2.createSecureServer({ ...tls, allowHTTP1: true, settings: tuning.settings }, listener);
      server.on('session', (session) => this.trackSession(session, tuning.connectionWindowBytes, idleMs));
      this.server = server;
    }
    // Go's IdleTimeout applies to HTTP/1.1 keep-alive connections too.
    (this.server as https.Server).keepAliveTimeout = idleMs;
    this.server.on('secureConnection', (socket: TLSSocket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens; resolves with the bound address, rejects with the listen error (EADDRINUSE…). */
  async listen(port: number, host: string): Promise<AddressInfo> {
    this.server.listen(port, host);
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
    if (!session.destroyed) session.setLocalWindowSize(windowBytes);
    let open = 0;
    let idle: NodeJS.Timeout | undefined;
    const arm = (): void => {
      idle = setTimeout(() => session.close(), idleMs);
      idle.unref();
    };
    session.on('stream', (stream: http2.ServerHttp2Stream) => {
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
