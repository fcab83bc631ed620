/**
 * Serving one Express 5 app to HTTP/1.1 and HTTP/2 requests alike.
 *
 * Express 5 cannot serve Node's HTTP/2 compatibility objects as they are: app.handle() swaps every
 * request's and response's prototype for app.request / app.response, which are built on
 * http.IncomingMessage / http.ServerResponse, so an Http2ServerRequest loses its own getters (url,
 * headers, the stream) and breaks. Here the same Express prototypes are rebuilt over
 * http2.Http2ServerRequest / Http2ServerResponse (Express's own property descriptors copied onto an
 * object whose prototype is the HTTP/2 one), and HTTP/2 requests go through the very same app (the
 * same router, middleware and their state) with those prototypes swapped in instead. HTTP/1.1
 * requests take Express's ordinary path; an HTTP/1 request line naming another major version is
 * answered 505 as Go answers it.
 *
 * What our handlers use of a response and Http2ServerResponse already has: flushHeaders(),
 * writableLength (the stream's unsent bytes, held back by HTTP/2 flow control included — the watch
 * slow-reader cut-off), headersSent, getHeader/removeHeader, write/end, 'finish'/'close', socket (a
 * proxy of the session's TLS socket). Two members are adjusted: setHeader returns the response, as
 * http.ServerResponse's does (we chain it), and statusMessage, which HTTP/2 has no room for, is a
 * silent no-op (Node warns on every set). Node's HTTP/2 layer adds
 * no connection-specific header (Connection, Keep-Alive, Transfer-Encoding), and we set none.
 */
import http2 from 'node:http2';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Express, Request, Response } from 'express';
import { reply400MissingHost, reply505, replyAndClose } from './go-http1-replies';

/** A request listener for http2.createSecureServer({ allowHTTP1: true }). */
export type DualProtocolListener = (
  req: IncomingMessage | http2.Http2ServerRequest,
  res: ServerResponse | http2.Http2ServerResponse,
) => void;

/** An object with `proto` as prototype and every own property of each of `sources` (later ones win). */
function rebase(proto: object, ...sources: object[]): object {
  const out = Object.create(proto) as object;
  for (const source of sources) {
    for (const key of Reflect.ownKeys(source)) {
      Object.defineProperty(out, key, Object.getOwnPropertyDescriptor(source, key) as PropertyDescriptor);
    }
  }
  return out;
}

/**
 * The app's request and response prototypes rebuilt over the HTTP/2 compatibility classes:
 * Express's methods (express.request / express.response, one level below app.request /
 * app.response), then the app's own members (`app`).
 */
function http2Prototypes(app: Express): { request: object; response: object } {
  const expressRequest = Object.getPrototypeOf(app.request) as object;
  const expressResponse = Object.getPrototypeOf(app.response) as object;
  const request = rebase(http2.Http2ServerRequest.prototype, expressRequest, app.request);
  const response = rebase(http2.Http2ServerResponse.prototype, expressResponse, app.response);
  // HTTP/2 has no reason phrase: Node warns on every set; Express's final handler sets one.
  Object.defineProperty(response, 'statusMessage', { configurable: true, get: () => '', set: () => undefined });
  // http.ServerResponse#setHeader returns the response (we chain it); Http2ServerResponse's returns nothing.
  const setHeader = http2.Http2ServerResponse.prototype.setHeader;
  Object.defineProperty(response, 'setHeader', {
    configurable: true,
    writable: true,
    value(this: http2.Http2ServerResponse, name: string, value: number | string | readonly string[]) {
      setHeader.call(this, name, value);
      return this;
    },
  });
  return { request, response };
}

/**
 * A handler the listener runs before the app, on the request and response Express would see (its
 * prototypes, `res.locals`, `req.originalUrl`); `toApp()` hands the request on to the app. Requests
 * it answers itself skip the app's router (see ApiServer: the filter chain and resource requests).
 */
export type FrontHandler = (req: Request, res: Response, toApp: () => void) => void;

/**
 * What Express's app.handle and its router do to every request before the first handler, for
 * requests a FrontHandler serves: the two objects point at each other, the request keeps its URL as
 * originalUrl with an empty baseUrl (a handler mounted at the root), the response gets its locals,
 * and both take the app's prototypes (HTTP/1's or HTTP/2's). Express doing it again for what goes
 * on to the app changes nothing.
 *
 * Every property the request's handling adds to either object is added here, before the prototype
 * changes: V8 keeps no transition for a property added to an object after Object.setPrototypeOf,
 * so each request's objects would get hidden classes of their own and every property access of
 * Express, Node's HTTP code and ours would miss its inline cache (in Express's own order, the
 * misses took about a fifth of the server's CPU per create). Besides Express's own: parseurl's
 * cache (`_parsedUrl`, at the first req.path or req.query), the listener count Node's streams
 * keep on the prototype until the first listener (`_eventsCount`), and over HTTP/1 the status
 * code and message, which ServerResponse keeps on its prototype until they are set. Each gets the
 * value it reads as already, so nothing reads differently.
 */
function expressSetUp(req: object, res: object, request: object, response: object): void {
  const q = req as { res?: unknown; originalUrl?: string; url?: string; baseUrl?: string; _parsedUrl?: unknown; _eventsCount?: number };
  const r = res as { req?: unknown; locals?: object; statusCode?: number; statusMessage?: string; _eventsCount?: number };
  q.res = res;
  q.originalUrl ??= q.url;
  q.baseUrl = '';
  if (!Object.hasOwn(q, '_parsedUrl')) q._parsedUrl = undefined;
  if (!Object.hasOwn(q, '_eventsCount')) q._eventsCount = q._eventsCount ?? 0;
  r.req = req;
  // A plain object: Express's prototype-less one is slower to make, and only request-state.ts keeps anything in it.
  r.locals ??= {};
  if (!Object.hasOwn(r, '_eventsCount')) r._eventsCount = r._eventsCount ?? 0;
  if (res instanceof ServerResponse) {
    if (!Object.hasOwn(r, 'statusCode')) r.statusCode = r.statusCode as number;
    if (!Object.hasOwn(r, 'statusMessage')) r.statusMessage = r.statusMessage as string;
  }
  Object.setPrototypeOf(req, request);
  Object.setPrototypeOf(res, response);
}

/**
 * The request listener serving `app` over both protocols: HTTP/1.x requests go to the app as
 * usual, HTTP/2 requests to the same app with HTTP/2-based Express prototypes (see the module
 * comment); with a `front` handler, every request meets it first, set up as Express would. Build
 * it after the app is configured; mounting later still works (same router).
 */
export function dualProtocolListener(app: Express, front?: FrontHandler): DualProtocolListener {
  const { request, response } = http2Prototypes(app);
  // app.handle reads this.request / this.response: a view of the app that differs only there.
  const h2App = Object.create(app, {
    request: { value: request, enumerable: true },
    response: { value: response, enumerable: true },
  }) as Express;
  const handle = (app as unknown as { handle(this: Express, req: unknown, res: unknown): void }).handle;
  const serve = (target: Express, req: object, res: object): void => {
    if (!front) return handle.call(target, req, res);
    expressSetUp(req, res, target.request, target.response);
    front(req as Request, res as Response, () => handle.call(target, req, res));
  };
  return (req, res) => {
    // By the request's class, never by the version it claims: an HTTP/1.1 connection may send
    // `GET / HTTP/2.0`, and HTTP/2 prototypes over HTTP/1 objects throw outside any handler.
    if (req instanceof http2.Http2ServerRequest) serve(h2App, req, res);
    // Go's http1ServerSupportsRequest: an HTTP/1 request line must say HTTP/1.x (kube-limits §3).
    else if (req.httpVersionMajor !== 1) replyAndClose(req.socket, reply505);
    // Go: HTTP/1.1 requires Host (HTTP/1.0 may omit it).
    else if (req.httpVersionMinor >= 1 && req.headers.host === undefined) replyAndClose(req.socket, reply400MissingHost);
    else serve(app, req, res);
  };
}

/**
 * Go's answer to a handler's `Connection: close` on an HTTP/2 response: once this response is sent,
 * the connection is shut down gracefully (GOAWAY; streams already open may finish). Does nothing
 * for HTTP/1.x responses.
 */
export function closeHttp2ConnectionAfter(res: { once(event: 'finish', l: () => void): unknown }): void {
  const stream = (res as { stream?: http2.ServerHttp2Stream }).stream;
  if (!(res instanceof http2.Http2ServerResponse) || !stream) return;
  const session = stream.session;
  res.once('finish', () => {
    if (session && !session.closed && !session.destroyed) session.close();
  });
}
