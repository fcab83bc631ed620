/**
 * An HTTPS admission webhook for tests: its own generated CA and serving certificate (127.0.0.1,
 * localhost), every AdmissionReview it receives recorded with its path, and one handler per path.
 * Built in:
 *
 *   /allow        allowed
 *   /deny         denied: 403 Forbidden, message "denied by the test webhook"
 *   /mutate       allowed with a JSONPatch adding the label `mutated-by: test-webhook`
 *   /slow         allowed after 5 s (or when the server closes)
 *   /garbage      200 with the text `error response`
 *   /wrong-uid    allowed, answering another uid
 *   /warnings     allowed with two warnings
 *   /annotations  allowed with the audit annotation `decided-by: test-webhook`
 *
 * Answers carry the apiVersion the review came in (v1 or v1beta1); a raw answer may set its status
 * code and headers (a 429 with Retry-After). A handler may wait for the caller to close the
 * connection (`exchange.closed`). `on(path, handler)` adds or replaces a handler;
 * `caBundle` is what a webhook configuration's clientConfig.caBundle takes.
 */
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureServingCertificates } from '../../src/server/certs';

export interface AdmissionReviewRequest {
  apiVersion: string;
  kind: string;
  request: {
    uid: string;
    kind: { group: string; version: string; kind: string };
    resource: { group: string; version: string; resource: string };
    subResource?: string;
    requestKind?: { group: string; version: string; kind: string };
    requestResource?: { group: string; version: string; resource: string };
    requestSubResource?: string;
    name?: string;
    namespace?: string;
    operation: string;
    userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    object: any;
    oldObject: any;
    dryRun?: boolean;
    options: any;
  };
}

/** What a handler answers: the review's `response` fields (uid and apiVersion are filled in), or raw text. */
export type WebhookReply = Record<string, unknown> | { raw: string; contentType?: string; status?: number; headers?: Record<string, string> };
/** What a handler knows of the HTTP exchange: `closed` settles if the caller closes the connection before the answer. */
export interface WebhookExchange {
  closed: Promise<void>;
}
export type WebhookHandler = (review: AdmissionReviewRequest, call: number, exchange: WebhookExchange) => WebhookReply | Promise<WebhookReply>;

export interface RecordedReview {
  path: string;
  /** The query string client-go sent (`timeout=10s`). */
  query: string;
  /** The request's User-Agent header. */
  userAgent: string;
  review: AdmissionReviewRequest;
}

export interface AdmissionWebhookServer {
  /** `https://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** Base64 of the CA bundle the server's certificate chains to. */
  caBundle: string;
  requests: RecordedReview[];
  /** The reviews one path received. */
  reviews(path: string): AdmissionReviewRequest[];
  on(path: string, handler: WebhookHandler): void;
  close(): Promise<void>;
}

const patch = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });

/** A JSONPatch adding labels to the review's object (creating `metadata.labels` if needed). */
export function addLabelsPatch(review: AdmissionReviewRequest, labels: Record<string, string>): Record<string, unknown> {
  const has = review.request.object?.metadata?.labels !== undefined;
  const ops = has
    ? Object.entries(labels).map(([k, v]) => ({ op: 'add', path: `/metadata/labels/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, value: v }))
    : [{ op: 'add', path: '/metadata/labels', value: labels }];
  return patch(ops);
}

export async function startAdmissionWebhookServer(): Promise<AdmissionWebhookServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'papi-admission-webhook-'));
  const certs = await ensureServingCertificates({ certDir: dir, hosts: [] });
  const requests: RecordedReview[] = [];
  const calls = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const handlers = new Map<string, WebhookHandler>([
    ['/allow', () => ({ allowed: true })],
    ['/deny', () => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'denied by the test webhook' } })],
    ['/mutate', (r) => ({ allowed: true, ...addLabelsPatch(r, { 'mutated-by': 'test-webhook' }) })],
    [
      '/slow',
      async () => {
        await wait(5000);
        return { allowed: true };
      },
    ],
    ['/garbage', () => ({ raw: 'error response' })],
    ['/wrong-uid', () => ({ allowed: true, uid: 'not-the-request-uid' })],
    ['/warnings', () => ({ allowed: true, warnings: ['first warning from the test webhook', 'second warning from the test webhook'] })],
    ['/annotations', () => ({ allowed: true, auditAnnotations: { 'decided-by': 'test-webhook' } })],
  ]);

  const server = https.createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [p = '', query = ''] = (req.url ?? '').split('?');
      let review: AdmissionReviewRequest;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdmissionReviewRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      requests.push({ path: p, query, userAgent: req.headers['user-agent'] ?? '', review });
      const n = (calls.get(p) ?? 0) + 1;
      calls.set(p, n);
      const handler = handlers.get(p);
      if (!handler) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such webhook');
        return;
      }
      const closed = new Promise<void>((resolve) => res.on('close', () => !res.writableEnded && resolve()));
      void Promise.resolve(handler(review, n, { closed })).then(
        (reply) => {
          if (res.destroyed) return;
          if ('raw' in reply && typeof reply.raw === 'string') {
            const headers = { 'content-type': (reply.contentType as string | undefined) ?? 'application/json', ...((reply.headers as Record<string, string> | undefined) ?? {}) };
            res.writeHead((reply.status as number | undefined) ?? 200, headers).end(reply.raw);
            return;
          }
          const body = { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...reply } };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        },
        (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: (p) => `https://127.0.0.1:${port}${p}`,
    caBundle: Buffer.from(certs.caCert).toString('base64'),
    requests,
    reviews: (p) => requests.filter((r) => r.path === p).map((r) => r.review),
    on: (p, handler) => void handlers.set(p, handler),
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
