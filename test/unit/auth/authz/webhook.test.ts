/**
 * The webhook authorizer against a local HTTP server: the SubjectAccessReview it sends (byte for
 * byte as kube's client encodes it), how answers map to decisions, the decision cache, failure
 * policies with client-go's error texts, retries bounded by the timeout, and matchConditions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { AuthorizationAttributes, UserInfo } from '../../../../src/api';
import { compileMatchCondition } from '../../../../src/api/authorization-cel';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from '../../../../src/auth/authz/webhook';
import { encodeSarRequest, sarSpecFor } from '../../../../src/auth/authz/subject-access-review';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Reply = (req: Seen, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let reply: Reply;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      reply(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
  reply = answer({ allowed: true });
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const answer = (status: Record<string, unknown>, apiVersion = 'authorization.k8s.io/v1'): Reply => json(200, { apiVersion, kind: 'SubjectAccessReview', status });

const alice: UserInfo = { name: 'alice', uid: 'a-1', groups: ['devs', 'system:authenticated'], extra: { 'z.example/b': ['2'], 'a.example/a': ['1', '<&>'] } };
const attrs = (over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: alice,
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/ns/configmaps/cm',
  apiGroup: '',
  apiVersion: 'v1',
  namespace: 'ns',
  resource: 'configmaps',
  subresource: '',
  name: 'cm',
  ...over,
});

const made: WebhookAuthorizer[] = [];
afterEach(() => made.splice(0).forEach((w) => w.close()));
const webhook = (o: Partial<WebhookAuthorizerOptions> = {}): WebhookAuthorizer => {
  const w = new WebhookAuthorizer({
    name: 'test',
    client: { server: `${base}/authorize/` },
    version: 'v1',
    // Room for the retry tests' dozens of posts on a loaded machine: only the tests about the
    // deadline set one they mean to reach.
    timeoutMs: 10_000,
    authorizedTtlMs: 300_000,
    unauthorizedTtlMs: 30_000,
    failurePolicy: 'NoOpinion',
    retryBackoff: { initialMs: 10, factor: 1.5, jitter: 0.2, steps: 5 },
    ...o,
  });
  made.push(w);
  return w;
};

describe('the SubjectAccessReview sent', () => {
  it('a token file is read (asynchronously, once for concurrent calls) and its token sent; a missing one fails the call', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-webhook-token-'));
    try {
      const file = path.join(dir, 'token');
      writeFileSync(file, 'from-file\n');
      const w = webhook({ client: { server: `${base}/authorize/`, tokenFile: file }, authorizedTtlMs: 0 });
      await Promise.all([w.authorize(attrs()), w.authorize(attrs({ name: 'other' }))]);
      expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer from-file', 'Bearer from-file']);
      const missing = webhook({ client: { server: `${base}/authorize/`, tokenFile: path.join(dir, 'absent') }, failurePolicy: 'Deny' });
      const d = await missing.authorize(attrs());
      expect(d.decision).toBe('deny');
      expect(d.error).toContain(`open ${path.join(dir, 'absent')}: `);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('v1: kube\'s JSON byte for byte (order, omitted empties, sorted extra, HTML-safe escapes, newline)', async () => {
    await webhook({ userAgent: 'kube-apiserver/v1.32.4 (linux/amd64) kubernetes/0000000', client: { server: `${base}/authorize/`, token: 'secret' } }).authorize(attrs());
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toBe(
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},' +
        '"spec":{"resourceAttributes":{"namespace":"ns","verb":"get","version":"v1","resource":"configmaps","name":"cm"},' +
        '"user":"alice","groups":["devs","system:authenticated"],"extra":{"a.example/a":["1","\\u003c\\u0026\\u003e"],"z.example/b":["2"]},"uid":"a-1"},' +
        '"status":{"allowed":false}}\n',
    );
    // client-go's request: the server path cleaned, `?timeout=`, its JSON codec's headers, the token.
    expect(seen[0]!.url).toBe('/authorize?timeout=10s');
    expect(seen[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json, */*',
      'user-agent': 'kube-apiserver/v1.32.4 (linux/amd64) kubernetes/0000000',
      authorization: 'Bearer secret',
      'accept-encoding': 'gzip',
    });
  });

  it('v1beta1 says `group` where v1 says `groups`; a non-resource request sends path and verb', async () => {
    await webhook({ version: 'v1beta1' }).authorize(attrs({ isResourceRequest: false, path: '/healthz', verb: 'get', user: { name: 'bob', uid: '', groups: ['g'] } }));
    expect(seen[0]!.body).toBe(
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1beta1","metadata":{"creationTimestamp":null},' +
        '"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"},"user":"bob","group":["g"]},"status":{"allowed":false}}\n',
    );
  });

  it('a subresource, a cluster-scoped object, a user with no groups, extra or uid', () => {
    const spec = sarSpecFor(attrs({ namespace: '', apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'd', user: { name: 'u', uid: '', groups: [] } }));
    expect(encodeSarRequest(spec, 'v1')).toBe(
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},' +
        '"spec":{"resourceAttributes":{"verb":"get","group":"apps","version":"v1","resource":"deployments","subresource":"scale","name":"d"},"user":"u"},"status":{"allowed":false}}\n',
    );
  });

  it("extra keys in Go's byte order, integer-like ones too (a JS object lists those first)", () => {
    const spec = sarSpecFor(attrs({ user: { name: 'u', uid: '', groups: [], extra: { b: ['x'], '10': [], '9': ['y'] } } }));
    expect(encodeSarRequest(spec, 'v1')).toContain('"user":"u","extra":{"10":[],"9":["y"],"b":["x"]}}');
  });

  it('basic credentials; a server URL without a path posts to /', async () => {
    await webhook({ client: { server: base, username: 'u', password: 'p' } }).authorize(attrs());
    expect(seen[0]!.url).toBe('/?timeout=10s');
    expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
  });
});

describe('answers', () => {
  it.each([
    [{ allowed: true, reason: 'ok' }, { decision: 'allow', reason: 'ok' }],
    [{ allowed: false, denied: true, reason: 'no' }, { decision: 'deny', reason: 'no' }],
    [{ allowed: false, reason: 'dunno' }, { decision: 'no-opinion', reason: 'dunno' }],
    [{ allowed: true, denied: true }, { decision: 'deny', error: 'webhook subject access review returned both allow and deny response' }],
    [{}, { decision: 'no-opinion' }],
  ])('%j → %j', async (status, decision) => {
    reply = answer(status);
    expect(await webhook().authorize(attrs())).toEqual(decision);
  });

  it('a v1beta1 answer to a v1 question converts, as client-go\'s decoder does; no apiVersion and kind is fine too', async () => {
    reply = answer({ allowed: true }, 'authorization.k8s.io/v1beta1');
    expect(await webhook().authorize(attrs())).toEqual({ decision: 'allow' });
    reply = json(200, { status: { allowed: true } });
    expect(await webhook({ version: 'v1beta1' }).authorize(attrs())).toEqual({ decision: 'allow' });
  });

  it('webhook\'s evaluationError is not a decision error (kube ignores it)', async () => {
    reply = answer({ allowed: false, evaluationError: 'x' });
    expect(await webhook().authorize(attrs())).toEqual({ decision: 'no-opinion' });
  });

  it('rules cannot be listed: incomplete, with kube\'s error', async () => {
    expect(await webhook().rulesFor()).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: true, errors: ['webhook authorizer does not support user rule resolution'] });
  });
});

describe('the decision cache', () => {
  it('allowed answers for authorizedTTL, others for unauthorizedTTL, keyed on the whole spec', async () => {
    let now = 1_000_000;
    const w = webhook({ now: () => now, authorizedTtlMs: 60_000, unauthorizedTtlMs: 5_000 });
    reply = (s, res) => answer({ allowed: JSON.parse(s.body).spec.resourceAttributes.name === 'yes' })(s, res);
    expect(await w.authorize(attrs({ name: 'yes' }))).toEqual({ decision: 'allow' });
    expect(await w.authorize(attrs({ name: 'no' }))).toEqual({ decision: 'no-opinion' });
    expect(seen).toHaveLength(2);
    now += 4_999;
    await w.authorize(attrs({ name: 'yes' }));
    await w.authorize(attrs({ name: 'no' }));
    expect(seen).toHaveLength(2);
    now += 2;
    await w.authorize(attrs({ name: 'no' }));
    await w.authorize(attrs({ name: 'yes' }));
    expect(seen).toHaveLength(3);
    // Another uid, group or extra value is another question.
    await w.authorize(attrs({ name: 'yes', user: { ...alice, uid: 'a-2' } }));
    await w.authorize(attrs({ name: 'yes', user: { ...alice, groups: ['devs'] } }));
    expect(seen).toHaveLength(5);
    now += 60_000;
    await w.authorize(attrs({ name: 'yes' }));
    expect(seen).toHaveLength(6);
  });

  it('TTL 0 caches nothing; attributes of 10,000 bytes or more are never cached (kube\'s DoS guard)', async () => {
    const w = webhook({ authorizedTtlMs: 0 });
    await w.authorize(attrs());
    await w.authorize(attrs());
    expect(seen).toHaveLength(2);
    const big = webhook();
    const name = 'x'.repeat(10_000);
    await big.authorize(attrs({ name }));
    await big.authorize(attrs({ name }));
    expect(seen).toHaveLength(4);
  });

  it('failures are not cached', async () => {
    const w = webhook();
    reply = json(200, 'garbage');
    expect((await w.authorize(attrs())).error).toBeDefined();
    reply = answer({ allowed: true });
    expect(await w.authorize(attrs())).toEqual({ decision: 'allow' });
    expect(seen).toHaveLength(2);
  });
});

describe('failures: the failure policy\'s decision with client-go\'s error', () => {
  it('a gzip answer that inflates past 16 MiB is refused, not inflated (a gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(64 << 20, 0x20));
    expect(bomb.length).toBeLessThan(1 << 20);
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    };
    // kube's longest timeout: reading 16 MiB must not race the deadline on a loaded machine.
    const d = await webhook({ failurePolicy: 'Deny', timeoutMs: 30_000 }).authorize(attrs());
    expect(d.decision).toBe('deny');
    expect(d.error).toMatch(/^unexpected error when reading response body\. Please retry\. Original error: /);
  });

  it('an answer that does not decode: not retried', async () => {
    reply = json(200, 'error response');
    expect(await webhook().authorize(attrs())).toEqual({
      decision: 'no-opinion',
      error:
        'couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    });
    reply = json(200, { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', status: { allowed: 'yes' } });
    expect(await webhook({ failurePolicy: 'Deny' }).authorize(attrs())).toEqual({
      decision: 'deny',
      error: 'json: cannot unmarshal string into Go struct field SubjectAccessReviewStatus.status.allowed of type bool',
    });
    reply = json(200, '');
    expect((await webhook().authorize(attrs())).error).toBe('0-length response with status code: 200 and content type: application/json');
    reply = json(200, { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1' });
    expect((await webhook().authorize(attrs())).error).toBe(
      'no kind "TokenReview" is registered for version "authentication.k8s.io/v1" in scheme "k8s.io/client-go/kubernetes/scheme/register.go:83"',
    );
    expect(seen).toHaveLength(4);
  });

  it('non-2xx: a Status answer\'s message, or apimachinery\'s generic one; 4xx not retried', async () => {
    reply = json(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'go away', reason: 'Forbidden', code: 403 });
    expect(await webhook({ failurePolicy: 'Deny' }).authorize(attrs())).toEqual({ decision: 'deny', error: 'go away' });
    reply = (_s, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nope');
    };
    expect((await webhook().authorize(attrs())).error).toBe('the server could not find the requested resource');
    expect(seen).toHaveLength(2);
  });

  it('500, 504 and 429 are retried with backoff (5 attempts at most), then fail', async () => {
    reply = (_s, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom\n');
    };
    const errors: string[] = [];
    expect(await webhook({ onError: (m) => errors.push(m) }).authorize(attrs())).toEqual({
      decision: 'no-opinion',
      error: 'an error on the server ("boom") has prevented the request from succeeding',
    });
    expect(seen).toHaveLength(5);
    expect(errors).toEqual(['Failed to make webhook authorizer request: an error on the server ("boom") has prevented the request from succeeding']);
    seen.length = 0;
    let n = 0;
    reply = (s, res) => (++n < 3 ? json(n === 1 ? 504 : 429, '')(s, res) : answer({ allowed: true })(s, res));
    expect(await webhook().authorize(attrs())).toEqual({ decision: 'allow' });
    expect(seen).toHaveLength(3);
  });

  it('an answer with Retry-After is posted again by the client itself (10 times at most), inside each backoff attempt', async () => {
    // Seven busy answers, then an allowed one: client-go's retry gets there within one backoff attempt
    // (the backoff alone would have given up after five).
    let n = 0;
    reply = (s, res) => (++n <= 7 ? json(503, '', { 'Retry-After': '0' })(s, res) : answer({ allowed: true })(s, res));
    expect(await webhook({ authorizedTtlMs: 0 }).authorize(attrs())).toEqual({ decision: 'allow' });
    expect(seen).toHaveLength(8);
    // The same review every time.
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    // Always busy: 11 posts (the first and 10 retries) per backoff attempt, 5 attempts.
    seen.length = 0;
    reply = json(429, '', { 'Retry-After': '0' });
    expect(await webhook({ failurePolicy: 'Deny' }).authorize(attrs())).toEqual({
      decision: 'deny',
      error: 'the server has received too many requests and has asked us to try again later',
    });
    expect(seen).toHaveLength(55);
    // Without Retry-After the client does not retry: the backoff's 5 attempts alone.
    seen.length = 0;
    reply = json(429, '');
    await webhook().authorize(attrs());
    expect(seen).toHaveLength(5);
  });

  it('retries never outlast the timeout', async () => {
    reply = json(500, { kind: 'Status', status: 'Failure', message: 'busy', reason: 'InternalError', code: 500 });
    // Posts at 0 and 300 ms; the next wait (3 s) would pass the 2 s deadline, so the backoff gives up
    // there with the last answer's error instead of sleeping into the deadline. The margins are wide
    // so that a loaded machine cannot change the outcome.
    const d = await webhook({ timeoutMs: 2000, retryBackoff: { initialMs: 300, factor: 10, jitter: 0, steps: 5 } }).authorize(attrs());
    expect(d).toEqual({ decision: 'no-opinion', error: 'busy' });
    expect(seen).toHaveLength(2);
  });

  it('a slow webhook: `context deadline exceeded` at the timeout, not retried', async () => {
    // Never answered (afterAll closes the connection): only the timeout can end the call. 1 s, so that
    // the review is surely posted before it on a loaded machine.
    reply = () => undefined;
    const d = await webhook({ timeoutMs: 1000, failurePolicy: 'Deny' }).authorize(attrs());
    expect(d).toEqual({ decision: 'deny', error: `Post "${base}/authorize?timeout=1s": context deadline exceeded` });
    expect(seen).toHaveLength(1);
  });

  it('nobody listening: Go\'s dial error', async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    const d = await webhook({ client: { server: `http://127.0.0.1:${port}/authz` } }).authorize(attrs());
    expect(d).toEqual({ decision: 'no-opinion', error: `Post "http://127.0.0.1:${port}/authz?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused` });
  });

  it('a connection closed without an answer is Go\'s EOF', async () => {
    reply = (_s, res) => res.socket?.destroy();
    const d = await webhook().authorize(attrs());
    expect(d).toEqual({ decision: 'no-opinion', error: `Post "${base}/authorize?timeout=10s": EOF` });
  });
});

describe('matchConditions', () => {
  const conds = (...exprs: string[]) => exprs.map(compileMatchCondition);

  it('all true: the webhook is asked; one false: no opinion without asking', async () => {
    const w = webhook({ matchConditions: conds('has(request.resourceAttributes)', "request.resourceAttributes.namespace == 'ns'") });
    expect(await w.authorize(attrs())).toEqual({ decision: 'allow' });
    expect(await w.authorize(attrs({ namespace: 'other' }))).toEqual({ decision: 'no-opinion' });
    expect(seen).toHaveLength(1);
  });

  it('an evaluation error (none false): the failure policy, the webhook not asked', async () => {
    const expr = "request.resourceAttributes.namespace == 'ns'";
    const nonResource = attrs({ isResourceRequest: false, path: '/version' });
    const error = `cel evaluation error: expression '${expr}' resulted in error: no such key: resourceAttributes`;
    expect(await webhook({ matchConditions: conds(expr) }).authorize(nonResource)).toEqual({ decision: 'no-opinion', error });
    expect(await webhook({ matchConditions: conds(expr), failurePolicy: 'Deny' }).authorize(nonResource)).toEqual({ decision: 'deny', error });
    expect(seen).toHaveLength(0);
  });
});
