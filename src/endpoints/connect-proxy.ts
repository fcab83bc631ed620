/**
 * Forwards a connect request to the address a subresource located (pods/proxy: the pod's IP), as
 * kube's UpgradeAwareHandler does for a plain request: method, path, query, headers (hop-by-hop
 * ones dropped, the client added to X-Forwarded-For; the Authorization header is gone already,
 * the authentication filter drops it as kube's does) and body go on; the answer comes back as it
 * is. A target that cannot be reached is kube's 500 without a reason, its message Go's dial error.
 *
 * Not reproduced: protocol upgrades (WebSockets through the proxy), and the HTML link rewriting
 * kube's proxy transport applies to pages it relays.
 */
import http from 'node:http';
import https from 'node:https';
import type { Request, Response } from 'express';
import { ApiError, failureStatus } from '../api';
import type { ProxyTarget } from '../registry';

/** kube-apiserver's proxy dialer timeout. */
const dialTimeoutMs = 30_000;

/** RFC 7230's hop-by-hop headers, which a proxy does not pass on (Go's ReverseProxy list). */
const hopByHop = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);


function forwardHeaders(req: Request): http.OutgoingHttpHeaders {
  const named = new Set(String(req.headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean));
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':') || hopByHop.has(k) || named.has(k)) continue;
    out[k] = v;
  }
  // HTTP/2 carries the host as :authority.
  if (!out.host && typeof req.headers[':authority'] === 'string') out.host = req.headers[':authority'];
  const client = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  if (client) out['x-forwarded-for'] = prior ? `${String(prior)}, ${client}` : client;
  return out;
}

/** Go's dial error text for what Node reports. */
function dialError(target: ProxyTarget, e: NodeJS.ErrnoException): string {
  const addr = target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
  const reason: Record<string, string> = {
    ECONNREFUSED: 'connect: connection refused',
    EHOSTUNREACH: 'connect: no route to host',
    ENETUNREACH: 'connect: network is unreachable',
    ECONNRESET: 'read: connection reset by peer',
    ETIMEDOUT: 'i/o timeout',
  };
  return `dial tcp ${addr}: ${reason[e.code ?? ''] ?? e.message}`;
}

/** Sends the request on and pipes the answer back; rejects with kube's 500 when the target cannot be reached. */
export function proxyRequest(req: Request, res: Response, target: ProxyTarget, query: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const transport = target.scheme === 'https' ? https : http;
    const upstream = transport.request({
      host: target.host,
      port: target.port,
      method: req.method,
      path: `${target.path || '/'}${query ? `?${query}` : ''}`,
      headers: forwardHeaders(req),
      // kube's proxy transport does not verify a pod's serving certificate.
      rejectUnauthorized: false,
    });
    let answered = false;
    // Only the dial is bounded: a proxied stream may stay quiet as long as it likes (long-running).
    upstream.on('socket', (socket) => {
      socket.setTimeout(dialTimeoutMs);
      socket.once('connect', () => socket.setTimeout(0));
    });
    upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      if (answered) {
        res.destroy();
        resolve();
        return;
      }
      reject(new ApiError(failureStatus(500, '', dialError(target, e))));
    });
    upstream.on('response', (answer) => {
      answered = true;
      const named = new Set(String(answer.headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean));
      for (const [k, v] of Object.entries(answer.headers)) {
        if (v !== undefined && !hopByHop.has(k) && !named.has(k)) res.setHeader(k, v);
      }
      res.status(answer.statusCode ?? 502);
      answer.pipe(res);
      answer.on('end', () => resolve());
      answer.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
}
