/**
 * A small HTTP/2 client for tests: one session (ALPN h2) advertising Go's client-go flow-control
 * windows (4 MiB per stream, 1 GiB per connection), and buffered or streamed requests on it.
 */
import http2 from 'node:http2';

/** client-go's (Go net/http2 Transport's) receive windows. */
export const goStreamWindowBytes = 4 << 20;
export const goConnectionWindowBytes = 1 << 30;

export interface H2Response {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json<T = any>(): T;
}

export interface H2Client {
  session: http2.ClientHttp2Session;
  /** The ALPN protocol the TLS handshake settled on. */
  alpn: string | false | undefined;
  request(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string>; token?: string | null }): Promise<H2Response>;
  /** Opens a stream and resolves once its response headers are in; the body is left to the caller. */
  stream(path: string, opts?: { headers?: Record<string, string>; token?: string | null }): Promise<{ stream: http2.ClientHttp2Stream; status: number; headers: http2.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/** Connects to `url` (https) trusting `ca`; requests carry `Bearer token` unless told otherwise. */
export async function connectH2(url: string, ca: string, token?: string, opts: { goWindows?: boolean } = {}): Promise<H2Client> {
  const goWindows = opts.goWindows ?? true;
  const session = http2.connect(url, { ca, settings: goWindows ? { initialWindowSize: goStreamWindowBytes } : {} });
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  if (goWindows) session.setLocalWindowSize(goConnectionWindowBytes);
  const headersOf = (method: string, path: string, o: { headers?: Record<string, string>; token?: string | null }) => {
    const h: http2.OutgoingHttpHeaders = { ':method': method, ':path': path, ...(o.headers ?? {}) };
    const t = o.token === undefined ? token : o.token;
    if (t) h.authorization = `Bearer ${t}`;
    return h;
  };
  return {
    session,
    alpn: session.alpnProtocol,
    request: (method, path, o = {}) =>
      new Promise((resolve, reject) => {
        const h = headersOf(method, path, o);
        let payload: Buffer | undefined;
        if (o.body !== undefined) {
          payload = Buffer.isBuffer(o.body) ? o.body : Buffer.from(typeof o.body === 'string' ? o.body : JSON.stringify(o.body));
          h['content-type'] ??= 'application/json';
        }
        const req = session.request(h);
        const chunks: Buffer[] = [];
        let status = 0;
        let headers: http2.IncomingHttpHeaders = {};
        req.on('response', (hs) => {
          status = Number(hs[':status']);
          headers = hs;
        });
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({ status, headers, body, text, json: () => JSON.parse(text) });
        });
        req.on('error', reject);
        req.end(payload);
      }),
    stream: (path, o = {}) =>
      new Promise((resolve, reject) => {
        const stream = session.request(headersOf('GET', path, o), { endStream: true });
        stream.once('response', (headers) => resolve({ stream, status: Number(headers[':status']), headers }));
        stream.once('error', reject);
      }),
    close: () =>
      new Promise((resolve) => {
        if (session.closed || session.destroyed) return resolve();
        session.close(() => resolve());
      }),
  };
}
