/** Reads a request body with kube's size limit (413 past it). */
import type { IncomingMessage } from 'node:http';
import http2 from 'node:http2';
import { errors } from '../api';

/** kube's MaxRequestBodyBytes (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/**
 * Go's maxPostHandlerReadBytes: after a handler stops reading a body, up to this many more bytes
 * are drained so the connection can be reused; more than that and the connection is closed.
 */
export const maxDrainBytes = 256 * 1024;

/**
 * How long an HTTP/2 request's body may take to arrive (HTTP/1.1 has the server's requestTimeout,
 * which closes the connection). kube's timeout filter ends a non-long-running request after
 * --request-timeout (60 s) with a 504 whatever it is doing; here the body's read is what can hang
 * (a stream that declares a body and stalls would hold its in-flight slot for ever).
 */
let http2BodyTimeoutMs = 60_000;

/** Sets the HTTP/2 body read timeout (ApiServer's requestReadTimeoutMs; tests shorten it). */
export function setHttp2BodyTimeout(ms: number): void {
  http2BodyTimeoutMs = ms;
}

/**
 * The whole body. Past `limit` (declared or, for a chunked body, counted) it rejects with 413 and
 * leaves the connection as kube (Go) leaves it (kube-limits §4):
 * - HTTP/1.1: kube reads limit + 1 bytes, then Go drains at most 256 KiB more. A rest it can drain
 *   is read (and dropped) before the 413, which is then sent on a keep-alive connection; a larger
 *   rest (declared up front, or found while draining) is not read: the 413 carries
 *   `Connection: close` and the connection ends after it.
 * - HTTP/2: the 413 ends the stream, then RST_STREAM NO_ERROR tells the client to stop sending;
 *   the connection stays.
 * Listens for 'data' rather than iterating: the async iterator costs tens of µs per request.
 */
export function readBody(req: IncomingMessage, limit = maxRequestBodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit && (isHttp2(req) || declared - (limit + 1) > maxDrainBytes)) {
    abandonBody(req);
    return Promise.reject(errors.requestEntityTooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      if (!tooLarge) {
        tooLarge = true;
        chunks.length = 0;
        if (isHttp2(req)) {
          done();
          abandonBody(req);
          reject(errors.requestEntityTooLarge(limit));
          return;
        }
      }
      // Draining (HTTP/1.1): past 256 KiB beyond limit + 1 the rest is not worth reading.
      if (size - (limit + 1) > maxDrainBytes) {
        done();
        abandonBody(req);
        reject(errors.requestEntityTooLarge(limit));
      }
    };
    const onEnd = (): void => {
      done();
      if (tooLarge) reject(errors.requestEntityTooLarge(limit));
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (e: Error): void => {
      done();
      reject(e);
    };
    // The error listeners stay: a request still being drained after a 413 may yet fail, and an
    // 'error' with no listener would be thrown (a settled promise ignores the late reject).
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      clearTimeout(timer);
    };
    // kube's answer when the request-timeout filter ends a request (504, no retry hint).
    const timer = isHttp2(req)
      ? setTimeout(() => {
          done();
          abandonBody(req);
          reject(errors.timeout('request did not complete within requested timeout - context deadline exceeded'));
        }, http2BodyTimeoutMs).unref()
      : undefined;
    const onAborted = (): void => onError(new Error('request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

function isHttp2(req: IncomingMessage): boolean {
  return (req as unknown) instanceof http2.Http2ServerRequest;
}

/**
 * The rest of this body will not be read: over HTTP/1.1 the answer closes the connection
 * (`Connection: close`; the server lingers briefly so the client still gets it), over HTTP/2 the
 * stream is reset with NO_ERROR once the answer is out.
 */
function abandonBody(req: IncomingMessage): void {
  req.on('error', () => undefined);
  const res = (req as { res?: { setHeader(n: string, v: string): unknown; once(e: 'finish', l: () => void): unknown; headersSent: boolean } }).res;
  if (isHttp2(req)) {
    const stream = (req as unknown as http2.Http2ServerRequest).stream;
    const reset = (): void => {
      if (!stream.destroyed && !stream.closed && !(stream as { readableEnded?: boolean }).readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    };
    // The stream's own 'finish' (its writable side flushed): the compatibility response's 'finish'
    // waits for the whole stream to close, which the unread request side prevents.
    if (res) stream.once('finish', reset);
    else reset();
    return;
  }
  // Whatever still arrives is dropped (not buffered) until the connection ends.
  req.resume();
  if (res && !res.headersSent) res.setHeader('Connection', 'close');
  else req.socket.destroy();
}
