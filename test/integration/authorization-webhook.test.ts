/**
 * Webhook authorizers end to end: an AuthorizationConfiguration file (server/authorization-config.ts)
 * whose webhooks are HTTPS servers started here (their own CA, a client certificate required,
 * named by kubeconfig files), a real server on etcd, and kubectl acting as several users (static
 * tokens). Allowed and denied verbs with kube's Forbidden text, the decision cache counted in
 * webhook calls, both failure policies (a webhook down, too slow, answering garbage) with kube's
 * plain-text 500, answers asking to retry later (Retry-After), matchConditions skipping a webhook
 * or failing, and the file reloaded.
 */
import https from 'node:https';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bearerTokenAuthenticator, staticTokenAuthenticator, withAuthenticatedGroup, type UserInfo } from '../../src/auth';
import { buildAuthorizer, type BuiltAuthorizer } from '../../src/server/authorization-config';
import { CERT_FILES, CLIENT_CERT_FILES, ensureClientCertificates, ensureServingCertificates } from '../../src/server/certs';
import { startTestServer, type TestServer } from '../support/api-server';
import { useTestEtcd } from '../support/server-fixture';

const etcd = useTestEtcd();

/** What the webhook server was asked, by path and user. */
const calls = new Map<string, number>();
const count = (p: string, u: string): number => calls.get(`${p} ${u}`) ?? 0;
let clientCNs: string[] = [];

interface Sar {
  apiVersion: string;
  spec: {
    user?: string;
    groups?: string[];
    resourceAttributes?: { verb?: string; resource?: string; namespace?: string };
    nonResourceAttributes?: { path?: string };
  };
}

/** The policy of `/main`: discovery for all; alice reads but may not delete; dora lists configmaps; erin acts in namespace y. */
function mainPolicy(sar: Sar): Record<string, unknown> {
  const { user = '', resourceAttributes: ra } = sar.spec;
  if (!ra) return { allowed: true };
  if (user === 'alice') {
    if (ra.verb === 'delete') return { allowed: false, denied: true, reason: 'alice may not delete' };
    if (['get', 'list', 'watch'].includes(ra.verb ?? '')) return { allowed: true, reason: 'alice reads' };
  }
  if (user === 'dora' && ra.verb === 'list' && ra.resource === 'configmaps') return { allowed: true };
  if (user === 'erin' && ra.namespace === 'y') return { allowed: true };
  return { allowed: false, reason: `${user} is not on the list` };
}

let dir: string;
let hook: https.Server;
let hookUrl: string;
let deadUrl: string;
let srv: TestServer;
let authorizer: BuiltAuthorizer;
let configFile: string;
const reloads: Array<{ ok: boolean; error?: string }> = [];
let onReload: () => void = () => undefined;
const nextReload = () => new Promise<void>((r) => (onReload = r));

/** How many answers `/busy` gives as 503 with `Retry-After: 0` before it allows. */
let busyAnswers = 0;

const users = new Map<string, UserInfo>(
  ['alice', 'bob', 'dora', 'sam', 'gary', 'skipper', 'erin', 'rita'].map((n) => [`${n}-token`, { name: n, uid: `${n}-uid`, groups: ['staff'] }]),
);

function kubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: hook
  cluster:
    server: ${server}
    certificate-authority: ${CERT_FILES.caCert}
users:
- name: apiserver
  user:
    client-certificate: ${CLIENT_CERT_FILES.adminCert}
    client-key: ${CLIENT_CERT_FILES.adminKey}
contexts:
- name: hook
  context: {cluster: hook, user: apiserver}
current-context: hook
`;
}

const webhookEntry = (name: string, kubeconfigFile: string, o: { policy: string; timeout?: string; when?: string; ttl?: string }) => `- type: Webhook
  name: ${name}
  webhook:
    timeout: ${o.timeout ?? '3s'}
    authorizedTTL: ${o.ttl ?? '1m'}
    unauthorizedTTL: ${o.ttl ?? '1m'}
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ${o.policy}
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${path.join(dir, kubeconfigFile)}
${o.when ? `    matchConditions:\n${o.when}` : ''}`;

const cond = (...exprs: string[]) => exprs.map((e) => `    - expression: ${JSON.stringify(e)}\n`).join('');

/** The chain: five special-purpose webhooks selected by user, the main one, then the last mode. */
function configuration(last: 'AlwaysDeny' | 'AlwaysAllow'): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
${webhookEntry('down.example.com', 'dead.kubeconfig', { policy: 'NoOpinion', when: cond("request.user == 'dora' && has(request.resourceAttributes)") })}${webhookEntry('slow.example.com', 'slow.kubeconfig', {
    policy: 'Deny',
    timeout: '1s',
    when: cond("request.user == 'sam' && has(request.resourceAttributes)"),
  })}${webhookEntry('garbage.example.com', 'garbage.kubeconfig', { policy: 'Deny', when: cond("request.user == 'gary' && has(request.resourceAttributes)") })}${webhookEntry(
    'busy.example.com',
    'busy.kubeconfig',
    { policy: 'Deny', when: cond("request.user == 'rita' && has(request.resourceAttributes)") },
  )}${webhookEntry(
    'cel-error.example.com',
    'main.kubeconfig',
    { policy: 'Deny', when: cond("request.user == 'erin'", "request.resourceAttributes.namespace == 'x'") },
  )}${webhookEntry('main.example.com', 'main.kubeconfig', { policy: 'NoOpinion', when: cond("request.user != 'skipper'") })}- type: ${last}
  name: ${last.toLowerCase()}
`;
}

/** Writes the configuration as an editor would (a new file renamed over the old). */
async function replaceConfig(text: string): Promise<void> {
  await writeFile(`${configFile}.tmp`, text);
  await rename(`${configFile}.tmp`, configFile);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-authz-webhook-'));
  // The webhook's serving pair and CA, and a client CA with a certificate for the API server.
  const serving = await ensureServingCertificates({ certDir: dir, hosts: [] });
  const client = await ensureClientCertificates({ certDir: dir });
  hook = https.createServer({ cert: serving.cert, key: serving.key, ca: client.caCert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    clientCNs.push(String((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN));
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const sar = JSON.parse(body) as Sar;
      const p = (req.url ?? '').split('?')[0] as string;
      const key = `${p} ${sar.spec.user ?? ''}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      const reply = (status: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: sar.apiVersion, kind: 'SubjectAccessReview', status }));
      };
      if (p === '/slow') {
        // Never answered: only the caller's 1 s timeout can end the call, however loaded the machine
        // (an answer after 1.5 s could beat a late timer). afterAll closes what is left open.
      } else if (p === '/busy' && busyAnswers > 0) {
        busyAnswers--;
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
        res.end('busy');
      } else if (p === '/busy') reply({ allowed: true });
      else if (p === '/garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('error response');
      } else reply(mainPolicy(sar));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `https://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  // A port nobody listens on.
  const dead = https.createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  deadUrl = `https://127.0.0.1:${(dead.address() as AddressInfo).port}`;
  await new Promise((r) => dead.close(r));

  await writeFile(path.join(dir, 'main.kubeconfig'), kubeconfig(`${hookUrl}/main`));
  await writeFile(path.join(dir, 'slow.kubeconfig'), kubeconfig(`${hookUrl}/slow`));
  await writeFile(path.join(dir, 'garbage.kubeconfig'), kubeconfig(`${hookUrl}/garbage`));
  await writeFile(path.join(dir, 'busy.kubeconfig'), kubeconfig(`${hookUrl}/busy`));
  await writeFile(path.join(dir, 'dead.kubeconfig'), kubeconfig(`${deadUrl}/authorize`));
  configFile = path.join(dir, 'authz.yaml');
  await writeFile(configFile, configuration('AlwaysDeny'));

  authorizer = buildAuthorizer(
    {
      authorizationModes: [],
      authorizationConfig: configFile,
      authorizationWebhookVersion: 'v1beta1',
      authorizationWebhookCacheAuthorizedTtlMs: 0,
      authorizationWebhookCacheUnauthorizedTtlMs: 0,
    },
    {
      rbac: () => {
        throw new Error('not in this configuration');
      },
      pollMs: 50,
      onReload: (r) => {
        reloads.push(r);
        onReload();
      },
    },
  );
  srv = await startTestServer({
    etcdEndpoints: etcd.endpoints,
    authorizer,
    authenticators: [withAuthenticatedGroup(bearerTokenAuthenticator([staticTokenAuthenticator(users)]))],
  });
});
afterAll(async () => {
  await srv?.stop();
  authorizer?.close();
  hook?.closeAllConnections();
  await new Promise((r) => hook?.close(r));
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  clientCNs = [];
});

const as = (who: string, ...args: string[]) => srv.kubectl(['--token', `${who}-token`, ...args]);

describe('decisions', () => {
  test('allowed verbs pass, over HTTPS with the kubeconfig\'s CA and client certificate', async () => {
    const r = await as('alice', 'get', 'configmaps', '-n', 'default');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('No resources found in default namespace.');
    expect(count('/main', 'alice')).toBeGreaterThan(0);
    expect(clientCNs.every((cn) => cn === 'admin')).toBe(true);
  });

  test('a webhook denial is kube\'s Forbidden with the webhook\'s reason', async () => {
    const r = await as('alice', 'delete', 'configmap', 'x', '-n', 'default');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'Error from server (Forbidden): configmaps "x" is forbidden: User "alice" cannot delete resource "configmaps" in API group "" in the namespace "default": alice may not delete',
    );
  });

  test('no opinion from the webhook: the next authorizer (AlwaysDeny) refuses, reasons joined', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces/default/secrets', { token: 'bob-token' });
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      message: 'secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default": bob is not on the list\nEverything is forbidden.',
      details: { kind: 'secrets' },
    });
  });

  test('the admin (system:masters) never reaches the webhooks', async () => {
    const before = [...calls.values()].reduce((a, b) => a + b, 0);
    expect((await srv.kubectl(['get', 'secrets', '-n', 'default'])).code).toBe(0);
    expect([...calls.values()].reduce((a, b) => a + b, 0)).toBe(before);
  });
});

describe('the decision cache', () => {
  test('the same question again is answered from the cache (allowed and denied alike)', async () => {
    await as('alice', 'get', 'configmaps', '-n', 'kube-public');
    await as('alice', 'delete', 'configmap', 'y', '-n', 'kube-public');
    const after = count('/main', 'alice');
    const again = await as('alice', 'get', 'configmaps', '-n', 'kube-public');
    expect(again.code).toBe(0);
    expect((await as('alice', 'delete', 'configmap', 'y', '-n', 'kube-public')).code).toBe(1);
    expect(count('/main', 'alice')).toBe(after);
    // Another question is asked.
    await as('alice', 'get', 'configmaps', '-n', 'default', 'z', '--ignore-not-found');
    expect(count('/main', 'alice')).toBe(after + 1);
  });
});

describe('failure policies', () => {
  test('NoOpinion, webhook down: a later authorizer may still allow', async () => {
    const r = await as('dora', 'get', 'configmaps', '-n', 'default');
    expect(r.code).toBe(0);
  });

  test('NoOpinion, webhook down, nobody allows: kube\'s plain-text 500 naming the request and the error', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces/default/secrets?limit=5', { token: 'dora-token' });
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    const port = new URL(deadUrl).port;
    expect(r.text).toBe(
      `Internal Server Error: "/api/v1/namespaces/default/secrets?limit=5": Post "${deadUrl}/authorize?timeout=3s": dial tcp 127.0.0.1:${port}: connect: connection refused\n`,
    );
  });

  test('Deny, webhook slower than its timeout: refused at the timeout with the error (kubectl shows the 500)', async () => {
    const start = Date.now();
    const r = await as('sam', 'get', 'configmaps', '-n', 'default');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (InternalError): an error on the server ("Internal Server Error: \\"/api/v1/namespaces/default/configmaps?limit=500\\":');
    expect(r.stderr).toContain(`Post \\"${hookUrl}/slow?timeout=1s\\": context deadline exceeded") has prevented the request from succeeding (get configmaps)`);
    // The webhook never answers; without its 1 s timeout only the server's 60 s request deadline would
    // end the call. 30 s is far from both, so a loaded machine cannot flip it.
    expect(Date.now() - start).toBeLessThan(30_000);
    expect(count('/slow', 'sam')).toBe(1);
  });

  test('Deny, webhook answering garbage: the decode error, not retried', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'gary-token' });
    expect(r.status).toBe(500);
    expect(r.text).toContain('Internal Server Error: "/api/v1/namespaces/default/configmaps": couldn\'t get version/kind; json parse error');
    expect(count('/garbage', 'gary')).toBe(1);
  });
});

describe('answers asking to retry later', () => {
  test('503 with Retry-After: posted again by the client itself, more often than the backoff alone would (client-go\'s retry)', async () => {
    busyAnswers = 7;
    const r = await srv.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'rita-token' });
    expect(r.status).toBe(200);
    expect(count('/busy', 'rita')).toBe(8);
    expect(busyAnswers).toBe(0);
  });
});

describe('matchConditions', () => {
  test('a false condition skips the webhook: it is never called', async () => {
    const r = await as('skipper', 'get', 'configmaps', '-n', 'default');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('User "skipper" cannot list resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.');
    expect(count('/main', 'skipper')).toBe(0);
  });

  test('a condition that cannot be evaluated (none false): the failure policy (Deny), the webhook not called', async () => {
    const r = await srv.request('GET', '/api', { token: 'erin-token' });
    expect(r.status).toBe(500);
    expect(r.text).toBe(
      "Internal Server Error: \"/api\": cel evaluation error: expression 'request.resourceAttributes.namespace == 'x'' resulted in error: no such key: resourceAttributes\n",
    );
    // In namespace y the second condition is false: the Deny webhook is skipped and /main allows.
    const before = count('/main', 'erin');
    expect((await srv.request('GET', '/api/v1/namespaces/y/configmaps', { token: 'erin-token' })).status).toBe(200);
    expect(count('/main', 'erin')).toBe(before + 1);
  });
});

describe('reloading the configuration file', () => {
  test('a bad file is logged and the chain in force stays; a good one replaces it', async () => {
    let reloaded = nextReload();
    await replaceConfig('apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n');
    await reloaded;
    expect(reloads.at(-1)).toEqual({ ok: false, error: `invalid authorization configuration in file "${configFile}": authorizers: Required value: at least one authorization mode must be defined` });
    expect((await srv.request('GET', '/api/v1/namespaces/default/secrets', { token: 'bob-token' })).status).toBe(403);

    // As kube: a reload keeps every type other than Webhook that the server started with.
    reloaded = nextReload();
    await replaceConfig(configuration('AlwaysAllow'));
    await reloaded;
    expect(reloads.at(-1)).toEqual({ ok: false, error: `invalid authorization configuration in file "${configFile}": missing required types: [AlwaysDeny]` });
    expect((await srv.request('GET', '/api/v1/namespaces/default/secrets', { token: 'bob-token' })).status).toBe(403);

    reloaded = nextReload();
    await replaceConfig(`${configuration('AlwaysDeny')}- type: AlwaysAllow\n  name: alwaysallow\n`);
    await reloaded;
    expect(reloads.at(-1)).toEqual({ ok: true });
    const r = await as('bob', 'get', 'secrets', '-n', 'default');
    expect(r.code).toBe(0);
    // The new chain has new webhooks with empty caches: alice's question is asked again.
    const before = count('/main', 'alice');
    await as('alice', 'get', 'configmaps', '-n', 'kube-public');
    expect(count('/main', 'alice')).toBeGreaterThan(before);
  });
});
