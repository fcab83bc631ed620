/**
 * The client certificates of a request's TLS connection (Go's req.TLS.PeerCertificates), for the
 * x509 authenticator: HTTP/1.1 reads them from the request's socket, HTTP/2 from its session's.
 *
 * Read with `getPeerX509Certificate()`, which hands over OpenSSL's own parsed certificates, the leaf
 * first and then, through `issuerCertificate`, the ones the client sent after it in its order, as
 * Go's PeerCertificates. (`getPeerCertificate(true)` built a detailed JavaScript object of every
 * field, and appended the issuer from the server's own CA store, which the client never sent; each
 * certificate then had to be parsed again.) Node's read takes the sent certificates out of the
 * connection's chain, so a second read would give the leaf alone: the chain is read once per
 * connection and kept for its requests (a TLS 1.2 renegotiation does not replace it; Go's server
 * refuses renegotiation, so kube's requests only ever see the first handshake's certificates).
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

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
    if (!socket || typeof socket.getPeerX509Certificate !== 'function') return none;
    const cached = byConnection.get(socket);
    if (cached) return cached;
    let chain: readonly X509Certificate[] = none;
    try {
      chain = chainOf(socket.getPeerX509Certificate());
    } catch {
      chain = none;
    }
    byConnection.set(socket, chain);
    return chain;
  } catch {
    return none;
  }
}

/** The leaf and the certificates linked after it (each its own object; a repeat ends the walk). */
function chainOf(leaf: X509Certificate | undefined): readonly X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<X509Certificate>();
  for (let c = leaf; c !== undefined && !seen.has(c); c = c.issuerCertificate) {
    seen.add(c);
    out.push(c);
  }
  return out.length === 0 ? none : out;
}
