/**
 * --authentication-config on a real server: a JWT issuer started here (HTTPS with its own CA,
 * discovery + JWKS, tokens signed with jose); kubectl --token=<jwt> is the mapped user (seen by an
 * authorizer that records who asks); bad tokens are 401 Status, never 500; the file is reloaded
 * when it changes and a bad new file keeps the old configuration; errors at start name file and field.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Authorizer } from '../../src/auth';
import { parseFlags } from '../../src/config';
import { loadAuthenticationConfig } from '../../src/server/authentication-config';
import { startTestServer, type TestServer } from '../support/api-server';
import { capturingLogger } from '../support/capturing-logger';
import { oneIssuerConfig, startTestIssuer, type TestIssuer } from '../support/jwt-issuer';
import { useTestEtcd } from '../support/server-fixture';
import { until } from '../support/until';

const etcd = useTestEtcd();
let issuer: TestIssuer;
let dir: string;
let srv: TestServer;
const seen: Array<{ name: string; groups: string[]; uid: string; extra?: Record<string, string[]> }> = [];
const recorder: Authorizer = {
  authorize: async (attrs) => {
    const u = attrs.user;
    seen.push({ name: u.name, groups: u.groups, uid: u.uid, ...(u.extra ? { extra: u.extra } : {}) });
    return { decision: 'allow' };
  },
};
const { logger, lines: logs } = capturingLogger();
const config = (prefix: string, extra = '') =>
  oneIssuerConfig(
    issuer,
    `  claimMappings:
    username: {claim: sub, prefix: "${prefix}"}
    groups: {claim: groups, prefix: ""}
${extra}`,
  );
let configPath: string;

beforeAll(async () => {
  issuer = await startTestIssuer();
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-authn-'));
  configPath = path.join(dir, 'authn.yaml');
  await writeFile(configPath, config('oidc:'));
  srv = await startTestServer({
    etcdEndpoints: etcd.endpoints,
    authorizer: recorder,
    authenticationConfig: { path: configPath, pollMs: 50, logger, retryMs: 100 },
  });
  await srv.authentication!.ready;
});
afterAll(async () => {
  await srv?.stop();
  await issuer?.stop();
  await rm(dir, { recursive: true, force: true });
});

const token = (claims: Record<string, unknown> = {}) => issuer.sign({ aud: 'kubernetes', sub: 'jane', groups: ['dev'], ...claims });

test('kubectl --token=<jwt> is the user the configuration maps', async () => {
  seen.length = 0;
  const r = await srv.kubectl(['get', 'namespaces', '-o', 'name', `--token=${await token({ jti: 'abc' })}`]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen[seen.length - 1]).toEqual({
    name: 'oidc:jane',
    uid: '',
    groups: ['dev', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': ['JTI=abc'] },
  });
});

test('kubectl auth whoami shows the JWT user (SelfSubjectReview)', async () => {
  const r = await srv.kubectl(['auth', 'whoami', '-o', 'json', `--token=${await token({ jti: 'w1' })}`]);
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout).status.userInfo).toEqual({
    username: 'oidc:jane',
    groups: ['dev', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': ['JTI=w1'] },
  });
});

test('expired, not yet valid, wrong audience, wrong issuer, badly signed and malformed tokens are 401 Status', async () => {
  const now = Math.floor(Date.now() / 1000);
  const good = await token();
  const cases: Record<string, string> = {
    expired: await token({ exp: now - 60 }),
    // go-oidc's leeway for nbf is one minute.
    'not yet valid': await token({ nbf: now + 300 }),
    'wrong audience': await token({ aud: 'someone-else' }),
    'wrong issuer': await token({ iss: 'https://elsewhere.example.com' }),
    'bad signature': await issuer.sign({ aud: 'kubernetes', sub: 'jane' }, { key: await issuer.foreignKey() }),
    'tampered payload': `${good.split('.')[0]}.${Buffer.from(JSON.stringify({ iss: issuer.url, aud: 'kubernetes', sub: 'admin', exp: now + 60 })).toString('base64url')}.${good.split('.')[2]}`,
    malformed: `${good.slice(0, 20)}.%%%.x`,
    'no signature': `${good.split('.')[0]}.${good.split('.')[1]}.`,
  };
  for (const [what, t] of Object.entries(cases)) {
    const r = await srv.request('GET', '/api/v1/namespaces', { token: t });
    expect({ what, status: r.status }).toEqual({ what, status: 401 });
    expect(r.json()).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  }
  const k = await srv.kubectl(['get', 'namespaces', `--token=${cases.expired}`]);
  expect(k.code).not.toBe(0);
  expect(k.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  // The log says why, never what the token held.
  expect(logs.join('')).toContain('oidc: verify token: oidc: token is expired (Token Expiry: [redacted])');
  expect(logs.join('')).toContain('before the nbf (not before) time: [redacted]');
  expect(logs.join('')).toContain('oidc: verify token: oidc: expected audience \\"kubernetes\\" got [redacted]');
  expect(logs.join('')).not.toContain('someone-else');
  for (const t of Object.values(cases)) expect(logs.join('')).not.toContain(t);
  // Within the minute of leeway, a token is good.
  expect((await srv.request('GET', '/api/v1/namespaces', { token: await token({ nbf: now + 30 }) })).status).toBe(200);
});

test("a TokenReview reports go-oidc's reason whole to the client that sent the token", async () => {
  const now = Math.floor(Date.now() / 1000);
  const review = async (t: string): Promise<{ authenticated?: boolean; error?: string }> => {
    const r = await srv.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: t } } });
    expect(r.status).toBe(201);
    return r.json().status;
  };
  expect(await review(await token({ aud: ['someone-else', 'x'] }))).toEqual({ user: {}, error: 'oidc: verify token: oidc: expected audience "kubernetes" got ["someone-else" "x"]' });
  const expired = await review(await token({ exp: now - 60 }));
  expect(expired.error).toBe(`oidc: verify token: oidc: token is expired (Token Expiry: ${new Date((now - 60) * 1000).toISOString().replace('T', ' ').replace('.000Z', '')} +0000 UTC)`);
  expect((await review(await token({ nbf: now + 300 }))).error).toMatch(/^oidc: verify token: oidc: current time \S+ \S+ \+0000 UTC before the nbf \(not before\) time: \S+ \S+ \+0000 UTC$/);
  expect(await review(await token({ jti: 'r1' }))).toMatchObject({ authenticated: true, user: { username: 'oidc:jane' } });
});

test('the file is reloaded when it changes; a bad new file keeps the old one in force', async () => {
  await writeFile(configPath, config('v2:'));
  await until('the reloaded username prefix', async () => (await srv.request('GET', '/api/v1/namespaces', { token: await token() })).status === 200 && seen.at(-1)?.name === 'v2:jane');
  await writeFile(configPath, config('v3:').replace('audiences: [kubernetes]', 'audiences: []'));
  // (writeFile is not atomic: a read may catch the file half written, which is logged and read again.)
  await until('the reload failure log', () => logs.join('').includes('jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required'));
  expect(logs.join('')).toContain('failed to load authentication config');
  seen.length = 0;
  expect((await srv.request('GET', '/api/v1/namespaces', { token: await token() })).status).toBe(200);
  expect(seen.at(-1)?.name).toBe('v2:jane');
});

test('anonymous conditions from the file decide which paths anonymous requests reach', async () => {
  const p = path.join(dir, 'anon.yaml');
  await writeFile(p, `${config('')}anonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n`);
  const s = await startTestServer({ etcdEndpoints: etcd.endpoints, authenticationConfig: { path: p } });
  try {
    expect((await s.request('GET', '/livez', { token: null })).status).toBe(200);
    expect((await s.request('GET', '/healthz', { token: null })).status).toBe(401);
  } finally {
    await s.stop();
  }
  // With --anonymous-auth also given, kube refuses to start.
  expect(() => loadAuthenticationConfig(p, { anonymousAuthFlag: true })).toThrow(
    'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
  );
});

test('a configuration error at start names the file and the field', async () => {
  const bad = path.join(dir, 'bad.yaml');
  await writeFile(bad, config('x:').replace(`url: ${issuer.url}`, 'url: http://insecure.example.com'));
  await expect(startTestServer({ etcdEndpoints: etcd.endpoints, authenticationConfig: { path: bad } })).rejects.toThrow(
    `invalid authentication configuration in file "${bad}": jwt[0].issuer.url: Invalid value: "http://insecure.example.com": URL scheme must be https`,
  );
  const missing = path.join(dir, 'missing.yaml');
  await expect(startTestServer({ etcdEndpoints: etcd.endpoints, authenticationConfig: { path: missing } })).rejects.toThrow(
    `failed to load authentication configuration from file "${missing}": open ${missing}: no such file or directory`,
  );
  expect(parseFlags(['--authentication-config', 'rel/authn.yaml']).authenticationConfig).toBe(path.resolve('rel/authn.yaml'));
});
