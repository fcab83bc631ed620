/**
 * --authentication-config's JWT issuers end to end on a real server, driven by kubectl --token:
 * kube's documented example (claim validation rules by claim and by CEL, CEL claim mappings for
 * username, groups, uid and extra, user validation rules) seen through `kubectl auth whoami`, a
 * token failing a claim rule and one failing a user rule refused (401, the rule's message in the
 * log); a second issuer whose discovery document lives at another URL than
 * <url>/.well-known/openid-configuration (discoveryURL) and that accepts several audiences (MatchAny).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/api-server';
import { capturingLogger } from '../support/capturing-logger';
import { caBlock, documentedExample, startTestIssuer, type TestIssuer } from '../support/jwt-issuer';
import { useTestEtcd } from '../support/server-fixture';

const etcd = useTestEtcd();
/** The issuer of kube's documented example. */
let example: TestIssuer;
/** An issuer at /tenant whose discovery document is only at /discovery. */
let tenant: TestIssuer;
let dir: string;
let srv: TestServer;
const { logger, lines: logs } = capturingLogger();

beforeAll(async () => {
  example = await startTestIssuer();
  tenant = await startTestIssuer({ issuerPath: '/tenant', wellKnown: false });
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-authn-jwt-'));
  const configPath = path.join(dir, 'authn.yaml');
  // The first issuer's rules and mappings are those of kube's documentation example.
  await writeFile(
    configPath,
    `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${example.url}
    audiences: [my-app]
    certificateAuthority: |
${caBlock(example.ca)}
${documentedExample('  - claim: hd\n    requiredValue: example.com\n')}- issuer:
    url: ${tenant.url}
    discoveryURL: ${tenant.url.replace(/\/tenant$/, '')}/discovery
    audiences: [kubernetes, other-app]
    audienceMatchPolicy: MatchAny
    certificateAuthority: |
${caBlock(tenant.ca)}
  claimMappings:
    username: {claim: sub, prefix: "tenant:"}
`,
  );
  srv = await startTestServer({ etcdEndpoints: etcd.endpoints, authenticationConfig: { path: configPath, pollMs: 50, logger, retryMs: 100 } });
  await srv.authentication!.ready;
});
afterAll(async () => {
  await srv?.stop();
  await example?.stop();
  await tenant?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const TENANT_ID = '72f988bf-86f1-41af-91ab-2d7cd011db4a';
const JTI = '7c337942807e73caa2c30c868ac0ce910bce02ddcbfebe8c23b8b5f27ad62873';
/** The documentation's valid token payload, with fresh times, the configured audience and the hd the rules ask for. */
function exampleToken(claims: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return example.sign({ aud: 'my-app', exp: now + 3600, iat: now, nbf: now, jti: JTI, roles: 'user,admin', sub: 'auth', tenant: TENANT_ID, username: 'foo', hd: 'example.com', ...claims });
}

const whoami = (token: string) => srv.kubectl(['auth', 'whoami', '-o', 'json', `--token=${token}`]);

/** The token is refused: kubectl must log in, a raw request is a 401 Status. */
async function expectRefused(token: string): Promise<void> {
  const k = await srv.kubectl(['get', 'namespaces', `--token=${token}`]);
  expect(k.code).not.toBe(0);
  expect(k.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  const r = await srv.request('GET', '/api/v1/namespaces', { token });
  expect(r.status).toBe(401);
  expect(r.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
}

describe("kube's documented example configuration", () => {
  test('kubectl auth whoami shows the user the CEL mappings make: username, uid, groups, extra', async () => {
    const r = await whoami(await exampleToken());
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).status.userInfo).toEqual({
      username: 'foo:external-user',
      uid: 'auth',
      groups: ['user', 'admin', 'system:authenticated'],
      extra: { 'example.com/tenant': [TENANT_ID], 'authentication.kubernetes.io/credential-id': [`JTI=${JTI}`] },
    });
    expect((await srv.kubectl(['get', 'namespace', 'default', '-o', 'name', `--token=${await exampleToken()}`])).stdout).toBe('namespace/default\n');
  });

  test('a token failing a claim validation rule is refused, the rule named in the log', async () => {
    const now = Math.floor(Date.now() / 1000);
    logs.length = 0;
    // The documentation's failing token: no hd claim (the claim+requiredValue rule speaks first).
    await expectRefused(await exampleToken({ hd: undefined }));
    expect(logs.join('')).toContain('oidc: required claim hd not present in ID token');
    // A lifetime over 24 hours fails the CEL rule.
    await expectRefused(await exampleToken({ nbf: now - 60, exp: now + 86400 }));
    expect(logs.join('')).toContain("validation expression 'claims.exp - claims.nbf <= 86400' failed: total token lifetime must not exceed 24 hours");
  });

  test('a token failing a user validation rule is refused, the rule named in the log', async () => {
    logs.length = 0;
    // The username the mapping makes starts with system: (the documentation's failing case).
    await expectRefused(await exampleToken({ username: 'system:foo' }));
    expect(logs.join('')).toContain("validation expression '!user.username.startsWith('system:')' failed: username cannot used reserved system: prefix");
    await expectRefused(await exampleToken({ roles: 'user,system:masters' }));
    expect(logs.join('')).toContain("failed: groups cannot used reserved system: prefix");
    // The log holds the rules, not the token's values.
    expect(logs.join('')).not.toMatch(/system:foo|system:masters/);
  });
});

describe('an issuer with a discoveryURL and several audiences (MatchAny)', () => {
  const tenantToken = (claims: Record<string, unknown>) => tenant.sign({ sub: 'jane', ...claims });

  test('its keys come through the discovery document at discoveryURL, never <url>/.well-known', async () => {
    const r = await whoami(await tenantToken({ aud: 'kubernetes' }));
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).status.userInfo).toMatchObject({ username: 'tenant:jane', groups: ['system:authenticated'] });
    expect(tenant.hits.get('/discovery')).toBeGreaterThanOrEqual(1);
    expect(tenant.hits.get('/tenant/.well-known/openid-configuration')).toBeUndefined();
  });

  test('a token for any one of the audiences is accepted; one for none is refused', async () => {
    for (const aud of ['other-app', ['someone', 'kubernetes'], ['other-app', 'kubernetes']]) {
      const r = await whoami(await tenantToken({ aud }));
      expect({ aud, stderr: r.stderr, user: r.stderr ? undefined : JSON.parse(r.stdout).status.userInfo.username }).toEqual({ aud, stderr: '', user: 'tenant:jane' });
    }
    await expectRefused(await tenantToken({ aud: ['nobody', 'else'] }));
    const review = await srv.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: await tenantToken({ aud: ['nobody', 'else'] }) } },
    });
    expect(review.json().status).toEqual({ user: {}, error: 'oidc: verify token: oidc: expected audience in ["kubernetes" "other-app"] got ["nobody" "else"]' });
  });
});
