/**
 * OIDC distributed claims of an --authentication-config JWT issuer on a real server: the issuer
 * (HTTPS discovery + JWKS) also serves the claims endpoints its tokens point at. kubectl auth whoami
 * shows the groups the endpoint gave; an endpoint answer that is expired, signed by a key the issuer
 * never published or issued by another issuer, and an endpoint nobody listens on, each get the
 * client a 401 and a TokenReview kube's reason in status.error, with no endpoint or token value in
 * the log. @kubernetes/client-node's TokenReview sees the same user.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/api-server';
import { capturingLogger } from '../support/capturing-logger';
import { apiClient } from '../support/client-node';
import { freePort } from '../support/free-port';
import { oneIssuerConfig, startTestIssuer, type TestIssuer } from '../support/jwt-issuer';
import { useTestEtcd } from '../support/server-fixture';
import { until } from '../support/until';

const etcd = useTestEtcd();
let issuer: TestIssuer;
/** Another issuer, whose CA the configuration does not trust. */
let other: TestIssuer;
let dir: string;
let srv: TestServer;
const { logger, lines: logs } = capturingLogger();
/** The Authorization header each claims endpoint request carried. */
const sent: Array<string | undefined> = [];

beforeAll(async () => {
  issuer = await startTestIssuer();
  other = await startTestIssuer();
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-authn-claims-'));
  const configPath = path.join(dir, 'authn.yaml');
  await writeFile(
    configPath,
    oneIssuerConfig(
      issuer,
      `  claimMappings:
    username: {claim: sub, prefix: "oidc:"}
    groups: {claim: groups, prefix: "oidc:"}
`,
    ),
  );
  srv = await startTestServer({ etcdEndpoints: etcd.endpoints, authenticationConfig: { path: configPath, pollMs: 50, logger, retryMs: 100 } });
  await srv.authentication!.ready;
});
afterAll(async () => {
  await srv?.stop();
  await issuer?.stop();
  await other?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Serves a JWT made by `answer` at /claims/<name> on the issuer. */
function serveClaims(name: string, answer: () => Promise<string>): string {
  issuer.serve(`/claims/${name}`, (req, res) => {
    sent.push(req.headers.authorization);
    void answer().then((jwt) => {
      res.writeHead(200, { 'content-type': 'application/jwt' });
      res.end(jwt);
    });
  });
  return `${issuer.url}/claims/${name}`;
}

/** A token of the issuer whose groups live at `endpoint`. */
const tokenFor = (endpoint: string, sub = 'jane') =>
  issuer.sign({ aud: 'kubernetes', sub, _claim_names: { groups: 'src1' }, _claim_sources: { src1: { endpoint, access_token: 'endpoint-secret' } } });

/** The token is refused: kubectl must log in, a raw request is a 401 Status; the TokenReview's status.error. */
async function refusal(token: string): Promise<string> {
  const k = await srv.kubectl(['auth', 'whoami', `--token=${token}`]);
  expect(k.code).not.toBe(0);
  expect(k.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  const r = await srv.request('GET', '/api/v1/namespaces', { token });
  expect(r.status).toBe(401);
  expect(r.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  const review = await srv.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
  });
  expect(review.status).toBe(201);
  const status = review.json().status;
  expect(status.user).toEqual({});
  expect(status.authenticated).toBeUndefined();
  return status.error as string;
}

test('kubectl auth whoami shows the groups the claims endpoint gave, fetched with the source access_token', async () => {
  const endpoint = serveClaims('ok', () => issuer.sign({ aud: 'kubernetes', groups: ['dev', 'ops'] }));
  sent.length = 0;
  const r = await srv.kubectl(['auth', 'whoami', '-o', 'json', `--token=${await tokenFor(endpoint)}`]);
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout).status.userInfo).toEqual({ username: 'oidc:jane', groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] });
  expect(sent).toEqual(['Bearer endpoint-secret']);
});

test("@kubernetes/client-node's TokenReview: the endpoint's groups on the user", async () => {
  const endpoint = serveClaims('review', () => issuer.sign({ aud: 'kubernetes', groups: 'reviewers' }));
  const authn = await apiClient(srv, (k8s) => k8s.AuthenticationV1Api);
  const r = await authn.createTokenReview({ body: { spec: { token: await tokenFor(endpoint, 'reviewed') } } });
  expect(r.status).toEqual({ authenticated: true, user: { username: 'oidc:reviewed', groups: ['oidc:reviewers', 'system:authenticated'] } });
});

test('an expired answer, one no published key signed and one of another issuer are refused with kube reasons', async () => {
  logs.length = 0;
  const now = Math.floor(Date.now() / 1000);
  const expired = serveClaims('expired', () => issuer.sign({ aud: 'kubernetes', groups: ['dev'], exp: now - 30 }));
  expect(await refusal(await tokenFor(expired, 'expired'))).toMatch(
    /^oidc: could not expand distributed claims: verify distributed claim token: oidc: token is expired \(Token Expiry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\)$/,
  );
  const forged = serveClaims('forged', async () => issuer.sign({ aud: 'kubernetes', groups: ['system:masters'] }, { key: await issuer.foreignKey() }));
  expect(await refusal(await tokenFor(forged, 'forged'))).toBe(
    'oidc: could not expand distributed claims: verify distributed claim token: failed to verify signature: failed to verify id token signature',
  );
  const stranger = serveClaims('stranger', () => other.sign({ aud: 'kubernetes', groups: ['system:masters'] }));
  expect(await refusal(await tokenFor(stranger, 'stranger'))).toBe(
    `oidc: could not expand distributed claims: verifying untrusted issuer ${other.url} failed: verifier not initialized for issuer: "${other.url}"`,
  );
  // The other issuer's key fetch fails (its CA is not trusted), logged under the configured issuer.
  await until("the other issuer's failed key fetch logged", () => logs.join('').includes('distributed claims verifier for [redacted]: self-signed certificate in certificate chain'));
  // The log has the reasons, without the endpoints, the other issuer or the access token.
  const logged = logs.join('');
  expect(logged).toContain('verify distributed claim token: oidc: token is expired (Token Expiry: [redacted])');
  expect(logged).toContain('verifying untrusted issuer [redacted] failed: verifier not initialized for issuer: [redacted]');
  expect(logged).not.toContain('/claims/');
  expect(logged).not.toContain(other.url);
  expect(logged).not.toContain('endpoint-secret');
});

test('an endpoint nobody listens on: 401, and the dial error in the TokenReview', async () => {
  const port = await freePort();
  expect(await refusal(await tokenFor(`https://127.0.0.1:${port}/groups`, 'unreachable'))).toBe(
    `oidc: could not expand distributed claims: while getting distributed claim "groups": Get "https://127.0.0.1:${port}/groups": dial tcp 127.0.0.1:${port}: connect: connection refused`,
  );
  const missing = `${issuer.url}/claims/none`;
  expect(await refusal(await tokenFor(missing, 'missing'))).toBe('oidc: could not expand distributed claims: while getting distributed claim "groups": error while getting distributed claim JWT: 404 Not Found');
});
