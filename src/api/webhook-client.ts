/**
 * How this server calls a webhook (authorization webhooks, the image policy webhook, admission
 * webhooks): one JSON POST as client-go's REST client makes it, to a server a kubeconfig or a
 * webhook's clientConfig names, and the failures worded as client-go words them.
 *
 * - The URL is the server's, its path cleaned, its query replaced by `?timeout=<timeout>`.
 * - Headers: `Content-Type`/`Accept` of kube's JSON codec, `Accept-Encoding: gzip`, the
 *   connection's bearer token (or token file, re-read every minute) or basic credentials.
 * - An answer is read whole up to `maxResponseBytes` (16 MiB by default; after decompression too).
 * - A non-2xx answer is client-go's StatusError (the Status it carries, or kube's generic text for
 *   the code); a transport failure is Go's wording (`dial tcp …: connect: connection refused`), a
 *   deadline `context deadline exceeded`; each says whether kube's DefaultShouldRetry retries it.
 *   `postWithRetry` retries with kube's backoff but never past the deadline of the first attempt.
 * - `post` takes the caller's context as an AbortSignal (its reason Go's ctx.Err() text): when it
 *   aborts, the call in flight is cut off and its connection closed, as Go's transport does on a
 *   done request context (`Post "…": context canceled`), and no retry follows.
 * - client-go's own retry of a 429 or 5xx answer carrying an integer `Retry-After` header (its
 *   Request.maxRetries, 10 by default): the same POST again after that many seconds, within the
 *   same deadline. On unless a client is made with `retryAfterAnswers: false` (every webhook
 *   client kube builds has it; with `postWithRetry`, inside each of its attempts, as client-go's
 *   retry runs inside kube's WithExponentialBackoff).
 */
import { versionInfo } from './version';
import http from 'node:http';
import https from 'node:https';
import { gunzip } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { ClientConnection } from './client-connection';
import { formatGoDuration } from './duration';
import { failureStatus, type StatusReason } from './errors';
import { goQuote } from './go-format';
import type { Status, StatusCause, StatusDetails } from './types';

/**
 * client-go's default User-Agent in kube-apiserver (rest.DefaultKubernetesUserAgent): what kube's
 * authorization and image-policy webhooks send, their rest configs setting none.
 */
export const kubeApiserverUserAgent = `kube-apiserver/${versionInfo.gitVersion} (${versionInfo.platform}) kubernetes/${versionInfo.gitCommit.slice(0, 7)}`;

const gunzipAsync = promisify(gunzip);

/** Ours: the most of an answer read (client-go reads it all). */
const MAX_RESPONSE_BYTES = 16 << 20;
const TOKEN_FILE_REFRESH_MS = 60_000;

/** kube's wait.Backoff for webhook retries. */
export interface RetryBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

/** kube's DefaultRetryBackoff: 500 ms, ×1.5, jitter 0.2, 5 steps. */
export const defaultRetryBackoff: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/**
 * A failed call: client-go's error text and whether kube's DefaultShouldRetry would try again. A
 * non-2xx answer also carries the Status client-go's StatusError holds (`status`), so a caller can
 * pass the webhook's own error through as kube does (admission.NewForbidden keeps a Forbidden one).
 */
export class WebhookCallError extends Error {
  /**
   * Set on an answer client-go's checkWait would retry (429 or 5xx with an integer Retry-After
   * header): the header's wait, in ms (0 or less: at once).
   */
  clientRetryWaitMs?: number;
  /** The call ran out of its time (Go's `context deadline exceeded`). */
  deadlineExceeded = false;

  constructor(
    message: string,
    readonly retry: boolean,
    readonly retryAfterMs = 0,
    readonly status?: Status,
  ) {
    super(message);
  }
}

/** The failure of a call whose time ran out, worded as Go's url.Error of an expired context. */
function deadlineExceeded(where: string): WebhookCallError {
  const e = new WebhookCallError(`${where}: context deadline exceeded`, false);
  e.deadlineExceeded = true;
  return e;
}

/**
 * The failure of a call cut off because the caller's context ended (`signal`'s reason: Go's
 * ctx.Err() text), worded as Go's url.Error; never retried.
 */
function contextEnded(where: string, signal: AbortSignal): WebhookCallError {
  if (signal.reason === 'context deadline exceeded') return deadlineExceeded(where);
  return new WebhookCallError(`${where}: context canceled`, false);
}

/** Waits `ms`, or resolves early when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** client-go's retryAfterSeconds: the Retry-After header read by Go's strconv.Atoi; undefined when it does not parse. */
export function retryAfterHeaderSeconds(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^[+-]?[0-9]+$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** client-go's default Request.maxRetries: how many times a Retry-After answer is tried again. */
export const clientMaxRetries = 10;

/** apimachinery's NewGenericServerResponse message for an answer that is no Status. */
function genericServerMessage(code: number, serverMessage: string): { message: string; reason: string } {
  switch (code) {
    case 409:
      return { reason: 'AlreadyExists', message: 'the server reported a conflict' };
    case 404:
      return { reason: 'NotFound', message: 'the server could not find the requested resource' };
    case 400:
      return { reason: 'BadRequest', message: 'the server rejected our request for an unknown reason' };
    case 401:
      return { reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials' };
    case 403:
      return { reason: 'Forbidden', message: serverMessage };
    case 406:
      return {
        reason: 'NotAcceptable',
        message: serverMessage === '' || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage,
      };
    case 415:
      return { reason: 'UnsupportedMediaType', message: serverMessage };
    case 405:
      return { reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
    case 422:
      return { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };
    case 503:
      return { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' };
    case 504:
      return { reason: 'Timeout', message: 'the server was unable to return a response in the time allotted, but may still be processing the request' };
    case 429:
      return { reason: 'TooManyRequests', message: 'the server has received too many requests and has asked us to try again later' };
    default:
      return code >= 500
        ? { reason: 'InternalError', message: `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding` }
        : { reason: '', message: `the server responded with the status code ${code} but did not return more information` };
  }
}

/** client-go's maxUnstructuredResponseTextBytes: how much of a text answer an error quotes. */
const MAX_UNSTRUCTURED_TEXT_BYTES = 2048;

/** apimachinery's knownReasons: a Status with any other reason is judged by its code. */
const KNOWN_REASONS = new Set([
  'Unauthorized', 'Forbidden', 'NotFound', 'AlreadyExists', 'Conflict', 'Gone', 'Invalid', 'ServerTimeout', 'StorageReadError', 'Timeout',
  'TooManyRequests', 'BadRequest', 'MethodNotAllowed', 'NotAcceptable', 'RequestEntityTooLarge', 'UnsupportedMediaType', 'InternalError',
  'Expired', 'ServiceUnavailable',
]);

/** apimachinery's IsForbidden, IsInternalError, ...: the reason, or an unknown reason with the code. */
export function statusHasReason(status: Pick<Status, 'reason' | 'code'>, reason: string, code: number): boolean {
  const r = status.reason ?? '';
  return r === reason || (!KNOWN_REASONS.has(r) && status.code === code);
}

const str = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';
const int = (v: unknown): v is number | undefined => v === undefined || (typeof v === 'number' && Number.isInteger(v));
const rec = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The body as the Status client-go decodes from it (Result.Error): kind Status, v1, with status
 * Failure and fields of metav1.Status's types; undefined otherwise (client-go then makes the generic
 * error). A code of 0 is kept: it decides the error's kind before the server answers 500 for it.
 */
function decodeFailureStatus(body: string): (Omit<Status, 'code'> & { code: number }) | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!rec(doc) || doc.kind !== 'Status' || !(doc.apiVersion === undefined || doc.apiVersion === 'v1') || doc.status !== 'Failure') return undefined;
  const { message, reason, code } = doc;
  const details = doc.details ?? undefined;
  if (!str(message) || !str(reason) || !int(code) || !(details === undefined || rec(details))) return undefined;
  let d: StatusDetails | undefined;
  if (details) {
    const { name, group, kind, uid, retryAfterSeconds } = details;
    const causes = details.causes ?? undefined;
    if (!str(name) || !str(group) || !str(kind) || !str(uid) || !int(retryAfterSeconds)) return undefined;
    if (!(causes === undefined || (Array.isArray(causes) && causes.every((c) => rec(c) && str(c.reason) && str(c.message) && str(c.field))))) return undefined;
    d = { name, group, kind, uid, retryAfterSeconds, causes: (causes ?? []) as StatusCause[] };
  }
  return { ...failureStatus(0, (reason ?? '') as StatusReason, message ?? '', d), code: code ?? 0 };
}

/** The error client-go makes of a non-2xx answer, and DefaultShouldRetry's verdict on it. */
function statusError(code: number, contentType: string, body: string, retryAfterSeconds: number): WebhookCallError {
  let status = decodeFailureStatus(body);
  if (!status) {
    const media = contentType.split(';')[0]!.trim().toLowerCase();
    const text = contentType === '' || media.startsWith('text/') ? Buffer.from(body).subarray(0, MAX_UNSTRUCTURED_TEXT_BYTES).toString('utf8').trim() : 'unknown';
    const { reason, message } = genericServerMessage(code, text);
    const details = { causes: [{ reason: 'UnexpectedServerResponse', ...(text ? { message: text } : {}) }], retryAfterSeconds };
    status = { ...failureStatus(code, reason as StatusReason, message, details), code };
  }
  const retryAfter = status.details?.retryAfterSeconds ?? 0;
  // DefaultShouldRetry: IsInternalError, IsTimeout, IsTooManyRequests, or SuggestsClientDelay.
  const retry =
    statusHasReason(status, 'InternalError', 500) ||
    statusHasReason(status, 'Timeout', 504) ||
    statusHasReason(status, 'TooManyRequests', 429) ||
    retryAfter > 0 ||
    (status.reason === 'ServerTimeout' && status.details !== undefined);
  // The server answers a Failure without a code as 500 (ErrorToAPIStatus).
  return new WebhookCallError(status.message ?? '', retry, retryAfter * 1000, { ...status, code: status.code || 500 });
}

/** Go's wording of a transport failure (`dial tcp …: connect: connection refused`), and whether it is a reset. */
function transportError(e: NodeJS.ErrnoException, host: string): WebhookCallError {
  switch (e.code) {
    case 'ECONNREFUSED':
      return new WebhookCallError(`dial tcp ${host}: connect: connection refused`, false);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new WebhookCallError(`dial tcp: lookup ${host.replace(/:\d+$/, '')}: no such host`, false);
    case 'ECONNRESET':
      // Node says "socket hang up" for a connection closed before any answer: Go's EOF, not retried.
      return e.message === 'socket hang up' ? new WebhookCallError('EOF', false) : new WebhookCallError('read: connection reset by peer', true);
    case 'EPIPE':
      return new WebhookCallError('write: broken pipe', false);
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return new WebhookCallError('tls: failed to verify certificate: x509: certificate signed by unknown authority', false);
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return new WebhookCallError('tls: failed to verify certificate: x509: certificate has expired or is not yet valid', false);
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return new WebhookCallError(`tls: failed to verify certificate: x509: ${(e as { reason?: string }).reason ?? e.message}`, false);
    default:
      return new WebhookCallError(e.message, false);
  }
}

/** client-go's rest URL: the server's path cleaned (path.Join), its query replaced by `timeout`. */
export function requestUrl(server: string, timeoutMs: number): URL {
  const u = new URL(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(server) ? server : `https://${server}`);
  const segments: string[] = [];
  for (const s of u.pathname.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  u.pathname = `/${segments.join('/')}`;
  u.search = `?timeout=${encodeURIComponent(formatGoDuration(timeoutMs))}`;
  u.hash = '';
  return u;
}

/** A complete 2xx answer. */
export interface WebhookAnswer {
  code: number;
  contentType: string;
  /** The body, decompressed. */
  body: string;
}

export interface WebhookClientOptions {
  connection: ClientConnection;
  /** The User-Agent header (default: client-go's default for kube-apiserver, `kubeApiserverUserAgent`). */
  userAgent?: string;
  maxResponseBytes?: number;
  /**
   * Whether `post` retries an answer carrying a Retry-After (429 or 5xx), as client-go's request
   * does up to `clientMaxRetries` times. Every webhook client kube builds is a rest client and gets
   * that, so it is on unless set to false.
   */
  retryAfterAnswers?: boolean;
}

/** One webhook server: its URL, its TLS agent (keep-alive), its credentials. */
export class WebhookClient {
  private readonly agent: http.Agent;
  private readonly server: string;
  private readonly maxResponseBytes: number;
  private token?: { value: string; readAt: number };
  /** The token file read in progress: concurrent calls share it (a read never blocks the event loop). */
  private tokenRead?: Promise<void>;

  constructor(private readonly opts: WebhookClientOptions) {
    const c = opts.connection;
    this.server = c.server;
    this.maxResponseBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.agent = requestUrl(c.server, 1000).protocol === 'http:'
      ? new http.Agent({ keepAlive: true })
      : new https.Agent({
          keepAlive: true,
          ...(c.ca !== undefined ? { ca: c.ca } : {}),
          rejectUnauthorized: !c.insecureSkipTLSVerify,
          ...(c.tlsServerName ? { servername: c.tlsServerName } : {}),
          ...(c.cert && c.key ? { cert: c.cert, key: c.key } : {}),
        });
  }

  /** Closes the idle connections. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * POSTs with kube's retries (`backoff`), every attempt within `timeoutMs` of the first: the
   * answer, or the last attempt's WebhookCallError.
   */
  async postWithRetry(body: string, timeoutMs: number, backoff: RetryBackoff = defaultRetryBackoff): Promise<WebhookAnswer> {
    const deadline = Date.now() + timeoutMs;
    let delay = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.post(body, Math.max(1, deadline - Date.now()), timeoutMs);
      } catch (e) {
        if (!(e instanceof WebhookCallError)) throw e;
        const wait = Math.max(delay * (1 + Math.random() * backoff.jitter), e.retryAfterMs);
        if (!e.retry || attempt >= backoff.steps || Date.now() + wait >= deadline) throw e;
        await new Promise((r) => setTimeout(r, wait));
        delay *= backoff.factor;
      }
    }
  }

  private async bearerToken(): Promise<string | undefined> {
    const c = this.opts.connection;
    if (c.token) return c.token;
    if (!c.tokenFile) return undefined;
    const file = c.tokenFile;
    if (!this.token || Date.now() - this.token.readAt >= TOKEN_FILE_REFRESH_MS) {
      this.tokenRead ??= readFile(file, 'utf8')
        .then(
          (text) => void (this.token = { value: text.trim(), readAt: Date.now() }),
          (e: unknown) => {
            // client-go keeps the last token it read; with none, the request goes without.
            if (!this.token) throw new WebhookCallError(`open ${file}: ${(e as Error).message}`, false);
          },
        )
        .finally(() => (this.tokenRead = undefined));
      await this.tokenRead;
    }
    return this.token?.value;
  }

  /**
   * One POST, bounded by `timeoutMs`; `urlTimeoutMs` is what `?timeout=` says (default the same).
   * With `retryAfterAnswers`, an answer asking to retry later is posted again (client-go's retry),
   * every attempt within the same `timeoutMs`. `signal` is the caller's context (kube's request
   * context): when it aborts, the call in flight is cut off, its connection closed, and nothing is
   * posted again. Rejects with WebhookCallError worded as client-go's url.Error / StatusError.
   */
  async post(body: string, timeoutMs: number, urlTimeoutMs = timeoutMs, signal?: AbortSignal): Promise<WebhookAnswer> {
    if (this.opts.retryAfterAnswers === false) return this.attempt(body, timeoutMs, urlTimeoutMs, signal);
    const deadline = performance.now() + timeoutMs;
    const where = (): string => `Post ${JSON.stringify(requestUrl(this.server, urlTimeoutMs).toString())}`;
    for (let retries = 0; ; retries++) {
      try {
        return await this.attempt(body, Math.max(1, deadline - performance.now()), urlTimeoutMs, signal);
      } catch (e) {
        if (!(e instanceof WebhookCallError) || e.clientRetryWaitMs === undefined || retries >= clientMaxRetries) throw e;
        const wait = Math.max(0, e.clientRetryWaitMs);
        const left = deadline - performance.now();
        // client-go sleeps the whole wait, then its request fails on the expired context: the same
        // error, told here when the deadline comes rather than after the wait.
        if (wait >= left) {
          await pause(Math.max(0, left), signal);
          if (signal?.aborted) throw contextEnded(where(), signal);
          throw deadlineExceeded(where());
        }
        await pause(wait, signal);
        if (signal?.aborted) throw contextEnded(where(), signal);
      }
    }
  }

  /** One attempt of `post`. */
  private async attempt(body: string, timeoutMs: number, urlTimeoutMs: number, signal?: AbortSignal): Promise<WebhookAnswer> {
    const u = requestUrl(this.server, urlTimeoutMs);
    const host = u.host.includes(':') ? u.host : `${u.hostname}:${u.protocol === 'http:' ? 80 : 443}`;
    const where = (m: string): string => `Post ${JSON.stringify(u.toString())}: ${m}`;
    const c = this.opts.connection;
    const headers: Record<string, string> = {
      'User-Agent': this.opts.userAgent ?? kubeApiserverUserAgent,
      'Content-Type': 'application/json',
      Accept: 'application/json, */*',
      'Accept-Encoding': 'gzip',
      'Content-Length': String(Buffer.byteLength(body)),
    };
    const token = await this.bearerToken();
    // Go's client fails a request whose context is done before it dials.
    if (signal?.aborted) throw contextEnded(`Post ${JSON.stringify(u.toString())}`, signal);
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (c.username !== undefined || c.password !== undefined) {
      headers.Authorization = `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`).toString('base64')}`;
    }
    const transport = u.protocol === 'http:' ? http : https;
    const max = this.maxResponseBytes;
    return new Promise<WebhookAnswer>((resolve, reject) => {
      let settled = false;
      const fail = (e: WebhookCallError): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        req.destroy();
        reject(e);
      };
      // The caller's context ended: the connection is closed under the call (the webhook sees it go).
      const aborted = (): void => fail(contextEnded(`Post ${JSON.stringify(u.toString())}`, signal!));
      const req = transport.request(u, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > max) fail(new WebhookCallError(where('response body too large'), false));
          else chunks.push(chunk);
        });
        res.on('error', (e) => fail(new WebhookCallError(where(`unexpected error when reading response body. Please retry. Original error: ${e.message}`), false)));
        res.on('end', () => {
          if (settled) return;
          void answerOf(res, Buffer.concat(chunks), max).then(
            (answer) => {
              if (settled) return;
              settled = true;
              clearTimeout(timer);
              signal?.removeEventListener('abort', aborted);
              resolve(answer);
            },
            (e: unknown) => fail(e instanceof WebhookCallError ? e : new WebhookCallError(e instanceof Error ? e.message : String(e), false)),
          );
        });
      });
      const timer = setTimeout(() => fail(deadlineExceeded(`Post ${JSON.stringify(u.toString())}`)), timeoutMs);
      signal?.addEventListener('abort', aborted, { once: true });
      req.on('error', (e: NodeJS.ErrnoException) => {
        const t = transportError(e, host);
        fail(new WebhookCallError(where(t.message), t.retry));
      });
      req.end(body);
    });
  }
}

/** What client-go makes of a complete answer: the 2xx body, or the error of a non-2xx or empty one. */
async function answerOf(res: http.IncomingMessage, raw: Buffer, max: number): Promise<WebhookAnswer> {
  let data = raw;
  if (String(res.headers['content-encoding'] ?? '').toLowerCase() === 'gzip' && data.length) {
    try {
      // The bound holds after decompression too: a small gzip bomb may not inflate past it.
      data = await gunzipAsync(data, { maxOutputLength: max });
    } catch (e) {
      throw new WebhookCallError(`unexpected error when reading response body. Please retry. Original error: ${(e as Error).message}`, false);
    }
  }
  const code = res.statusCode ?? 0;
  const contentType = String(res.headers['content-type'] ?? '');
  const body = data.toString('utf8');
  if (code < 200 || code > 206) {
    const retryAfter = retryAfterHeaderSeconds(res.headers['retry-after']);
    const err = statusError(code, contentType, body, retryAfter !== undefined && retryAfter > 0 ? retryAfter : 0);
    // client-go's checkWait: a 429 or any 5xx naming a wait is tried again.
    if (retryAfter !== undefined && (code === 429 || code >= 500)) err.clientRetryWaitMs = retryAfter * 1000;
    throw err;
  }
  if (data.length === 0) throw new WebhookCallError(`0-length response with status code: ${code} and content type: ${contentType}`, false);
  return { code, contentType, body };
}
