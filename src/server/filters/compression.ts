/**
 * Response compression (gate APIResponseCompression, beta, on by default), as kube's
 * deferredResponseWriter does it (apiserver pkg/endpoints/handlers/responsewriters/writers.go):
 * when the request's Accept-Encoding names `gzip` and the *first write* of the response body is
 * larger than 128 KiB, the body is gzipped at level 1 with `Content-Encoding: gzip` and
 * `Vary: Accept-Encoding`; smaller bodies go out as they are. kube applies it where it serialises
 * API objects (get, list, create, update, patch, delete, their errors, discovery), never to watch
 * streams, /version, health checks or OpenAPI (which has its own gzip handler).
 */
import { createGzip } from 'node:zlib';
import type { RequestHandler, Response } from 'express';
import { maybeRequestState } from '../../endpoints/request-state';

/** kube's defaultGzipThresholdBytes: the first write must be larger than this to be compressed. */
export const gzipThresholdBytes = 128 * 1024;
/** kube's defaultGzipContentEncodingLevel. */
export const gzipLevel = 1;

/**
 * kube's negotiateContentEncoding: `gzip` when one comma-separated token of Accept-Encoding is
 * exactly `gzip` after trimming spaces (case-sensitive, and q-values are not parsed: `gzip;q=0.5`
 * does not match), else ''.
 */
export function negotiateContentEncoding(acceptEncoding: string | undefined): 'gzip' | '' {
  if (!acceptEncoding) return '';
  return acceptEncoding.split(',').some((t) => t.trim() === 'gzip') ? 'gzip' : '';
}

/** Options for {@link withCompression}. */
export interface CompressionOptions {
  /** APIResponseCompression: when false the filter does nothing. */
  enabled: boolean;
}

/**
 * The compression filter. It reads the request's RequestInfo (withRequestInfo runs first) and
 * wraps res.write/res.end of eligible requests; everything downstream writes as usual.
 */
export function withCompression(opts: CompressionOptions): RequestHandler {
  return (req, res, next) => {
    if (opts.enabled && negotiateContentEncoding(req.headers['accept-encoding']) === 'gzip') {
      if (servesApiObjects(req.path) && maybeRequestState(res)?.info.verb !== 'watch') deferGzip(res);
    }
    next();
  };
}

/** The API paths whose handlers serialise objects (/api, /apis and below). */
function servesApiObjects(path: string): boolean {
  return path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/');
}

type Callback = (err?: Error | null) => void;
type WriteFn = (chunk: unknown, encoding?: BufferEncoding | Callback, cb?: Callback) => boolean;
type EndFn = (chunk?: unknown, encoding?: BufferEncoding | Callback, cb?: Callback) => Response;

function sizeOf(chunk: unknown, encoding?: BufferEncoding): number {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return 0;
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, encoding);
  return (chunk as Uint8Array).length;
}

/** Decides on the first write, as kube's deferredResponseWriter: gzip only when it is over the threshold. */
function deferGzip(res: Response): void {
  const write = res.write.bind(res) as WriteFn;
  const end = res.end.bind(res) as EndFn;
  const target = res as unknown as { write: WriteFn; end: EndFn };

  /** Called once, with the first chunk; afterwards write/end are either restored or routed into gzip. */
  const decide = (chunk: unknown, encoding?: BufferEncoding): void => {
    if (sizeOf(chunk, encoding) <= gzipThresholdBytes || res.headersSent) {
      target.write = write;
      target.end = end;
      return;
    }
    res.removeHeader('Content-Length');
    res.setHeader('Content-Encoding', 'gzip');
    res.append('Vary', 'Accept-Encoding');
    const gz = createGzip({ level: gzipLevel });
    // A response already ended elsewhere (the request-timeout filter's 504) takes no more bytes.
    gz.on('data', (c: Buffer) => {
      if (!res.writableEnded) write(c);
    });
    gz.on('end', () => {
      if (!res.writableEnded) end();
    });
    gz.on('error', (e) => res.destroy(e));
    target.write = (c, enc, cb) => gz.write(c, typeof enc === 'string' ? enc : 'utf8', typeof enc === 'function' ? enc : cb);
    target.end = (c, enc, cb) => {
      const done = typeof c === 'function' ? (c as Callback) : typeof enc === 'function' ? enc : cb;
      if (done) res.once('finish', () => done());
      if (c === undefined || c === null || typeof c === 'function') gz.end();
      else gz.end(c, typeof enc === 'string' ? enc : 'utf8');
      return res;
    };
  };

  target.write = (chunk, enc, cb) => {
    decide(chunk, typeof enc === 'string' ? enc : undefined);
    return target.write(chunk, enc, cb);
  };
  target.end = (chunk, enc, cb) => {
    decide(chunk, typeof enc === 'string' ? enc : undefined);
    return target.end(chunk, enc, cb);
  };
}
