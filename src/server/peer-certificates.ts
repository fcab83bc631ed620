/**
 * The client certificates of a request's TLS connection (Go's req.TLS.PeerCertificates), for the
 * x509 authenticator: HTTP/1.1 reads them from the request's socket, HTTP/2 from its session's.
 * They cannot change during a connection, so they are read and parsed once per connection.
 */
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate, DetailedPeerCertificate, TLSSocket } from 'node:tls';

const none: readonly X509Certificate[] = Object.freeze([]);
const byConnection = new WeakMap<object, readonly X509Certificate[]>();

interface RequestLike {
  httpVersionMajor: number;
  socket?: unknown;
  stream?: { session?: { socket?: unknown } };
}

/** The presented chain, leaf first; empty without TLS, without a client certificate, or on a closed connection. */
export function peerCertificatesOf(req: RequestLike): readonly X509Certificate[] {
  // Every access to an HTTP/2 session's socket may throw once the socket is gone (Node's proxy):
  // all of them stay inside the try, so a closed connection reads as no certificate, never a 500.
  try {
    const socket = (req.httpVersionMajor === 2 ? req.stream?.session?.socket : req.socket) as Partial<TLSSocket> | undefined;
    if (!socket || typeof socket.getPeerCertificate !== 'function') return none;
    const cached = byConnection.get(socket);
    if (cached) return cached;
    let chain: readonly X509Certificate[] = none;
    try {
      chain = chainOf(socket.getPeerCertificate(true));
    } catch {
      chain = none;
    }
    byConnection.set(socket, chain);
    return chain;
  } catch {
    return none;
  }
}

/** Node's detailed certificate links each certificate to its issuer (the last one to itself). */
function chainOf(detailed: DetailedPeerCertificate | PeerCertificate): readonly X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<PeerCertificate>();
  let c: DetailedPeerCertificate | PeerCertificate | undefined = detailed;
  while (c && Buffer.isBuffer(c.raw) && c.raw.length > 0 && !seen.has(c)) {
    seen.add(c);
    out.push(new X509Certificate(c.raw));
    c = (c as DetailedPeerCertificate).issuerCertificate;
  }
  return out.length === 0 ? none : out;
}
