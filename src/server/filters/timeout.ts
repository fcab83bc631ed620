/**
 * kube's request deadline and timeout filters (apiserver 1.32 `endpoints/filters/request_deadline.go`
 * WithRequestDeadline and `server/filters/timeout.go` WithTimeoutForNonLongRunningRequests), which
 * DefaultBuildHandlerChain runs after request info and before authentication, in that order.
 *
 * - Long-running requests (kube-apiserver's BasicLongRunningRequestCheck: verbs watch and proxy;
 *   resource subresources attach, exec, proxy, log, portforward; non-resource /debug/pprof/) pass
 *   untouched: no deadline, `timeout` not even parsed.
 * - `?timeout=` (Go's Query().Get: the first value) must be a Go duration, else 400 BadRequest
 *   `invalid timeout specified in the request URL - time: invalid duration "bogus"` (negotiated, as
 *   ErrorNegotiated). A positive value below --request-timeout shortens the deadline; 0, negative
 *   or longer leaves --request-timeout.
 * - The deadline counts from this filter, microseconds after the request was received (kube:
 *   ReceivedTimestamp). When it passes and the handler has not ended its response:
 *   - nothing written yet: 504, the bare Status kube's timeout writer encodes with json.Encoder
 *     (no kind/apiVersion, newline-terminated, `details: {}`), `Content-Type: text/plain;
 *     charset=utf-8` (Go sniffs it: the writer sets none). Headers the handler had set are dropped
 *     (kube keeps them apart until its first write); those set before this filter (Audit-Id) stay.
 *   - the answer has started: kube panics with http.ErrAbortHandler, i.e. HTTP/1.1 closes the
 *     connection and HTTP/2 resets the stream with INTERNAL_ERROR.
 *   Either way the handler keeps running (kube's goroutine does too): its later writes, header sets
 *   and ends are silent no-ops, never a throw or an 'error' event. When it ends, kube's
 *   `Post-timeout activity` is logged (error level, as kube's HandleError).
 * - The request's context (RequestContext `deadlineAt`, `ended`) says what kube's says: done when
 *   the deadline passes, or when the client goes away first (the response closes unfinished: the
 *   connection closed, the HTTP/2 stream reset; Go cancels the request's context then). Storage
 *   sends no write on a done context, so a handler working on past the 504 stores nothing more.
 *
 * Cost per request: one timer (shared callback, the response as its argument, one duration for
 * all, so one Node timer list) and one 'close' listener (shared); nothing per byte.
 */
import http2 from 'node:http2';
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'winston';
import { errors } from '../../api';
import { endContext } from '../../api/request-context';
import { GoDurationError, parseGoDurationNanos } from '../../config/go-duration';
import type { RequestInfo } from '../../endpoints/request-info';
import { maybeRequestState, requestState, type RequestState } from '../../endpoints/request-state';
import { writeError } from '../../endpoints/responses';

/** kube-apiserver's --request-timeout default (1m0s). */
export const defaultRequestTimeoutMs = 60_000;

/** kube-apiserver's LongRunningFunc (controlplane/apiserver config.go): BasicLongRunningRequestCheck. */
const longRunningVerbs = new Set(['watch', 'proxy']);
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** Whether kube exempts the request from the deadline and the timeout filter. */
export function isLongRunning(info: RequestInfo): boolean {
  if (longRunningVerbs.has(info.verb)) return true;
  if (info.isResourceRequest) return longRunningSubresources.has(info.subresource);
  return info.path.startsWith('/debug/pprof/');
}

/** request_deadline.go's invalidTimeoutInURL. */
const invalidTimeoutInURL = 'invalid timeout specified in the request URL';

/** The message of apierrors.NewTimeoutError("request did not complete within the allotted timeout", 0). */
export const requestTimeoutMessage = 'Timeout: request did not complete within the allotted timeout';

/** What kube's baseTimeoutWriter.timeout writes: json.NewEncoder(w).Encode(&err.ErrStatus), a Status without TypeMeta. */
export const requestTimeoutBody = Buffer.from(
  `${JSON.stringify({ metadata: {}, status: 'Failure', message: requestTimeoutMessage, reason: 'Timeout', details: {}, code: 504 })}\n`,
);

/** Node's largest timer delay; a deadline further away than ~24.8 days is left unarmed. */
const maxTimerMs = 2 ** 31 - 1;

/** Headers the filters before this one set (request-info's Audit-Id and Cache-Control): they belong on the 504 too. */
const headersBeforeTimeout = new Set(['audit-id', 'cache-control']);


/**
 * The filter. `requestTimeoutMs` is --request-timeout (0, as in kube, leaves no time at all:
 * every non-long-running request is answered 504). `logger` receives the post-timeout lines.
 */
export function withRequestTimeout(requestTimeoutMs: number = defaultRequestTimeoutMs, logger?: Logger): RequestHandler {
  const maxNs = BigInt(Math.round(requestTimeoutMs * 1e6));
  return (req, res, next) => {
    const state = requestState(res);
    if (isLongRunning(state.info)) return next();
    let ms = requestTimeoutMs;
    const value = timeoutParam(req);
    if (value !== undefined) {
      let ns: bigint;
      try {
        ns = parseGoDurationNanos(value);
      } catch (e) {
        if (!(e instanceof GoDurationError)) throw e;
        return writeError(res, errors.badRequest(`${invalidTimeoutInURL} - ${e.message}`));
      }
      if (ns > 0n && ns < maxNs) ms = Number(ns) / 1e6;
    }
    // Counted from here: only the request-info and logging filters ran since the request arrived
    // (microseconds). One duration for every request without `?timeout=`: Node keeps one timer list
    // per distinct duration, so the usual request's timer joins the list of all the others.
    // What the handlers see of it (kube's context deadline): webhooks are told the time left.
    state.deadlineAt = performance.now() + ms;
    if (ms <= maxTimerMs) state.deadline = setTimeout(expire, ms, res, logger);
    res.on('close', closed);
    next();
  };
}

/**
 * The first `timeout` query value ('' and absent alike: none). The query is parsed only when its
 * text could name the key (literally or percent-encoded): Express parses it on every access.
 */
function timeoutParam(req: { url: string; query: Record<string, unknown> }): string | undefined {
  const url = req.url;
  const q = url.indexOf('?');
  if (q < 0 || (url.indexOf('timeout', q) < 0 && url.indexOf('%', q) < 0)) return undefined;
  const v = req.query.timeout;
  const first: unknown = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/**
 * The response closed: the timer goes. Closed before the handler ended it, the client went away
 * (kube: the request's context is canceled). `writableEnded`, not `writableFinished`: an HTTP/2
 * response reports its reset stream as finished.
 */
function closed(this: Response): void {
  const state = maybeRequestState(this);
  if (!state) return;
  if (state.deadline) {
    clearTimeout(state.deadline);
    state.deadline = undefined;
  }
  if (!this.writableEnded) endContext(state, 'context canceled');
}

function noop(): void {}

/** A write or end callback of a silenced response still runs (asynchronously, as Node calls it), so nobody waits for ever. */
function settle(args: unknown[]): void {
  const cb = args[args.length - 1];
  if (typeof cb === 'function') process.nextTick(cb as () => void);
}

/** The deadline passed (kube: the request context is done before the handler returned). */
function expire(res: Response, logger: Logger | undefined): void {
  const state = maybeRequestState(res);
  if (state) {
    state.deadline = undefined;
    // From now on the context is done, whatever the clock says (a timer may fire a little early).
    endContext(state, 'context deadline exceeded');
  }
  // The handler has answered; its last bytes are on their way (kube: the handler returned).
  if (res.writableEnded || res.destroyed) return;
  // Whatever the handler (or a wrapper it set up) still writes fails silently from here on; its
  // own end of the response says when it is done (max-in-flight holds the slot until then).
  res.on('error', noop);
  let handlerEnded = noop;
  const handlerEnd = new Promise<void>((resolve) => (handlerEnded = resolve));
  if (state) {
    state.handlerAfterTimeout = handlerEnd;
    if (logger) void handlerEnd.then(() => logPostTimeout(logger, state, res, performance.now()));
  }
  const h2 = res instanceof http2.Http2ServerResponse;
  if (res.headersSent) {
    // kube's panic(http.ErrAbortHandler): the client sees an interrupted answer.
    silence(res, handlerEnded);
    if (h2) res.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    else res.socket?.destroy();
    return;
  }
  // Wrappers a later filter put on the instance (compression) are bypassed: the prototype's end.
  const own = res as unknown as Record<string, unknown>;
  delete own.write;
  delete own.end;
  // Only the headers set before this filter (the request-info filter's Audit-Id) go with the 504.
  for (const name of res.getHeaderNames()) if (!headersBeforeTimeout.has(name)) res.removeHeader(name);
  res.statusCode = 504;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', requestTimeoutBody.length);
  if (h2) {
    // Go's HTTP/2 server: a response complete while the request body still arrives → RST_STREAM NO_ERROR.
    const stream = res.stream;
    stream.once('finish', () => {
      if (!stream.destroyed && !stream.closed && !stream.state.remoteClose) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    });
  }
  res.end(requestTimeoutBody);
  silence(res, handlerEnded);
}

/** kube's `Post-timeout activity` line: the handler of a timed-out request has ended, so long after the 504. */
function logPostTimeout(logger: Logger, state: RequestState, res: Response, timedOutAt: number): void {
  logger.error('Post-timeout activity', {
    timeElapsedMs: Math.round(performance.now() - timedOutAt),
    method: res.req?.method,
    path: state.info.path,
    auditId: state.auditId,
  });
}

/** Makes every later write, header change and end of the handler a no-op (kube: ErrHandlerTimeout, an empty header map). */
function silence(res: Response, handlerEnded: () => void): void {
  const own = res as unknown as Record<string, unknown>;
  const self = (): Response => res;
  own.write = (...args: unknown[]) => {
    settle(args);
    return true;
  };
  own.end = (...args: unknown[]) => {
    settle(args);
    handlerEnded();
    return res;
  };
  own.writeHead = self;
  own.setHeader = self;
  own.appendHeader = self;
  own.removeHeader = noop;
  own.flushHeaders = noop;
  own.writeContinue = noop;
  own.addTrailers = noop;
  // The logged code stays the one the client got.
  const code = res.statusCode;
  Object.defineProperty(res, 'statusCode', { configurable: true, get: () => code, set: noop });
}
