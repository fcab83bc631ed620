/**
 * One server trusting another's service-account issuer, as a cluster trusts another cluster's
 * workloads: server A issues service-account tokens with its own HTTPS URL as the issuer, and
 * serves that issuer's discovery documents there; server B's --authentication-config names A's
 * issuer as a JWT issuer (certificateAuthority = A's CA, audiences = the one A's tokens are asked
 * for, claim mappings from kube's documentation: username from `sub` with a prefix, the rest by CEL
 * over the `kubernetes.io` claim). A token A issues is then a user at B; a token of another issuer,
 * for another audience or signed by another key is a 401 there.
 *
 * In kube the issuer URL must serve `/.well-known/openid-configuration` (its `issuer` equal to the
 * URL, its `jwks_uri` where the keys are), and a relying party fetches both without credentials,
 * which kube allows by binding system:service-account-issuer-discovery to system:unauthenticated.
 * Here server A's anonymous authenticator lets those two paths in (authorization is AlwaysAllow);
 * the last test shows what a relying party meets when they stay behind authentication.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { publicInfoPath } from '../../src/auth/authn/anonymous';
import { startTestServer, type TestServer } from '../support/api-server';
import { capturingLogger } from '../support/capturing-logger';
import { freePort } from '../support/free-port';
import { caBlock, startTestIssuer, type TestIssuer } from '../support/jwt-issuer';
import { useTestEtcd } from '../support/server-fixture';
import { until } from '../support/until';

const etcd = useTestEtcd();
const discoveryPaths = new Set(['/.well-known/openid-configuration', '/openid/v1/jwks']);

let dir: string;
let a: TestServer;
let b: TestServer;
let issuerUrl: string;
let other: TestIssuer;
const stopAfter: Array<() => Promise<void>> = [];

/** B's AuthenticationConfiguration trusting `issuer` (A's URL) with `ca` (A's CA). */
const trustConfig = (issuer: string, ca: string) => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer}
    audiences: [cluster-b]
    certificateAuthority: |
${caBlock(ca)}
  claimMappings:
    username:
      claim: sub
      prefix: "cluster-a:"
    groups:
      expression: '["cluster-a:serviceaccounts:" + claims["kubernetes.io"].namespace]'
    uid:
      expression: 'claims["kubernetes.io"].serviceaccount.uid'
    extra:
    - key: cluster-a.example.com/namespace
      valueExpression: 'claims["kubernetes.io"].namespace'
`;

/**
 * A server whose issuer is its own URL: the port is chosen first, since the issuer is fixed before
 * the server listens (kube's --service-account-issuer is a flag too). `discovery` false keeps the
 * discovery documents behind authentication, this server's default.
 */
async function startIssuingServer(discovery: boolean): Promise<{ srv: TestServer; issuer: string }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const issuer = `https://127.0.0.1:${port}`;
    try {
      const srv = await startTestServer({
        etcdEndpoints: etcd.endpoints,
        port,
        serviceAccounts: { serviceAccountIssuers: [issuer], apiAudiences: ['cluster-a'] },
        ...(discovery ? { anonymous: { allows: (p: string) => publicInfoPath(p) || discoveryPaths.has(p) } } : {}),
      });
      return { srv, issuer };
    } catch (e) {
      // Someone took the port between the probe and the listen: pick another.
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 3) throw e;
    }
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-sa-trust-'));
  ({ srv: a, issuer: issuerUrl } = await startIssuingServer(true));
  other = await startTestIssuer();
  const config = path.join(dir, 'b-authn.yaml');
  await writeFile(config, trustConfig(issuerUrl, a.caCert));
  b = await startTestServer({ etcdEndpoints: etcd.endpoints, authenticationConfig: { path: config, retryMs: 100 } });
  // B has fetched A's discovery document and keys.
  await b.authentication!.ready;
});
afterAll(async () => {
  for (const stop of stopAfter) await stop();
  await b?.stop();
  await a?.stop();
  await other?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** A fresh namespace at A with a service account `robot`; its uid. */
async function account(): Promise<{ ns: string; uid: string }> {
  const ns = `trust-${++n}`;
  for (const args of [['create', 'namespace', ns], ['-n', ns, 'create', 'serviceaccount', 'robot']]) expect((await a.kubectl(args)).stderr).toBe('');
  const sa = (await a.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/robot`)).json();
  return { ns, uid: sa.metadata.uid };
}

const createToken = async (ns: string, ...flags: string[]): Promise<string> => {
  const r = await a.kubectl(['-n', ns, 'create', 'token', 'robot', ...flags]);
  expect(r.stderr).toBe('');
  return r.stdout.trim();
};

test("A serves its issuer's discovery documents at the issuer URL, without credentials", async () => {
  expect(a.url).toBe(issuerUrl);
  const config = await a.request('GET', '/.well-known/openid-configuration', { token: null });
  expect(config.status).toBe(200);
  expect(config.json()).toMatchObject({ issuer: issuerUrl, jwks_uri: `${issuerUrl}/openid/v1/jwks`, id_token_signing_alg_values_supported: ['RS256'] });
  const jwks = await a.request('GET', '/openid/v1/jwks', { token: null });
  expect(jwks.status).toBe(200);
  expect(jwks.json().keys).toHaveLength(1);
  // Only those two: the API itself still needs credentials.
  expect((await a.request('GET', '/api/v1/namespaces', { token: null })).status).toBe(401);
});

test('a token A issues for audience cluster-b is the mapped user at B (kubectl auth whoami, get)', async () => {
  const { ns, uid } = await account();
  const token = await createToken(ns, '--audience=cluster-b');
  const claims = decodeJwt(token);
  expect(claims).toMatchObject({ iss: issuerUrl, aud: ['cluster-b'], sub: `system:serviceaccount:${ns}:robot` });

  const who = await b.kubectl(['--token', token, 'auth', 'whoami', '-o', 'json']);
  expect(who.stderr).toBe('');
  expect(JSON.parse(who.stdout).status.userInfo).toEqual({
    username: `cluster-a:system:serviceaccount:${ns}:robot`,
    uid,
    groups: [`cluster-a:serviceaccounts:${ns}`, 'system:authenticated'],
    extra: {
      'cluster-a.example.com/namespace': [ns],
      'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti as string}`],
    },
  });
  const get = await b.kubectl(['--token', token, 'get', 'namespace', 'default', '-o', 'name']);
  expect(get).toMatchObject({ code: 0, stdout: 'namespace/default\n' });

  // At A itself the token is for someone else: cluster-b is not one of A's API audiences.
  expect((await a.request('GET', '/api/v1/namespaces', { token })).status).toBe(401);
});

test('at B, a token of another issuer, for the wrong audience, or signed by another key is a 401 Status', async () => {
  const { ns } = await account();
  const own = await createToken(ns, '--audience=cluster-b');
  // A's token for A's own audience (kubectl create token's default: the API audiences).
  const forA = await createToken(ns);
  expect(decodeJwt(forA).aud).toEqual(['cluster-a']);
  const now = Math.floor(Date.now() / 1000);
  const claims = { ...decodeJwt(own), iat: now, nbf: now, exp: now + 600 };
  const cases: Record<string, string> = {
    'wrong audience': forA,
    'another issuer': await other.sign({ sub: `system:serviceaccount:${ns}:robot`, aud: 'cluster-b' }),
    // A's issuer and key id, claims copied from a real token, but not A's key.
    'forged signature': await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: decodeProtectedHeader(own).kid as string })
      .sign((await generateKeyPair('RS256')).privateKey),
  };
  for (const [what, token] of Object.entries(cases)) {
    const r = await b.request('GET', '/api/v1/namespaces', { token });
    expect({ what, status: r.status }).toEqual({ what, status: 401 });
    expect(r.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  }
  const who = await b.kubectl(['--token', forA, 'auth', 'whoami']);
  expect(who.code).toBe(1);
  expect(who.stderr).toBe('error: You must be logged in to the server (Unauthorized)\n');
  // The genuine one still passes.
  expect((await b.request('GET', '/api/v1/namespaces', { token: own })).status).toBe(200);
});

test("an issuer whose discovery stays behind authentication cannot be trusted: B's keys never load, its tokens are 401", async () => {
  const { srv: hidden, issuer } = await startIssuingServer(false);
  stopAfter.push(() => hidden.stop());
  expect((await hidden.request('GET', '/.well-known/openid-configuration', { token: null })).status).toBe(401);
  const config = path.join(dir, 'hidden-authn.yaml');
  await writeFile(config, trustConfig(issuer, hidden.caCert));
  const { logger, lines } = capturingLogger();
  const relying = await startTestServer({ etcdEndpoints: etcd.endpoints, authenticationConfig: { path: config, retryMs: 100, logger } });
  stopAfter.push(() => relying.stop());
  // B says why, and keeps trying.
  await until('the key fetch to fail twice', () => lines.filter((l) => l.includes('oidc authenticator: initializing plugin')).length >= 2);
  expect(lines.find((l) => l.includes('initializing plugin'))).toContain(`${issuer}/.well-known/openid-configuration: 401`);

  for (const args of [['create', 'namespace', 'hidden'], ['-n', 'hidden', 'create', 'serviceaccount', 'robot']]) expect((await hidden.kubectl(args)).stderr).toBe('');
  const token = (await hidden.kubectl(['-n', 'hidden', 'create', 'token', 'robot', '--audience=cluster-b'])).stdout.trim();
  const r = await relying.request('GET', '/api/v1/namespaces', { token });
  expect(r.status).toBe(401);
  expect(r.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
});
