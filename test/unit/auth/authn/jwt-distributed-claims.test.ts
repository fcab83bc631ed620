/**
 * Distributed claims of a JWT issuer (kube 1.32's claimResolver) against a test issuer that also
 * serves the claims endpoints: the groups claim resolved when mapped by claim (with the source's
 * access_token as bearer, or no Authorization at all), nothing fetched otherwise, and every failure
 * a 401 with kube's reason whose logged form holds neither the endpoint nor the token's values.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../../../../src/api';
import { JwtAuthenticators } from '../../../../src/auth/authn/jwt';
import { authenticationConfigKind } from '../../../../src/config/kinds/authentication';
import { loadConfig } from '../../../../src/config/versioned-config';
import { oneIssuerConfig, startTestIssuer, type TestIssuer } from '../../../support/jwt-issuer';
import { freePort } from '../../../support/free-port';

let issuer: TestIssuer;
/** An issuer whose CA the configuration does not trust. */
let stranger: TestIssuer;
let a: JwtAuthenticators;
const failures: string[] = [];
/** The Authorization header of each request to a claims endpoint, by path. */
const authorizations = new Map<string, string | undefined>();

const byClaim = `  claimMappings:
    username: {claim: sub, prefix: ""}
    groups: {claim: groups, prefix: "g:"}
`;

function authenticators(mappings: string, claimFetch: { timeoutMs?: number; maxBytes?: number } = {}): JwtAuthenticators {
  const config = loadConfig(
    { text: oneIssuerConfig(issuer, mappings) },
    authenticationConfigKind,
  );
  return new JwtAuthenticators(config.jwt, { onFailure: (_, r) => failures.push(r), retryMs: 100, claimFetch });
}

/** Serves `body` (a string, or a function of the request) at `path` on the issuer, noting the Authorization sent. */
function serve(path: string, body: string | (() => Promise<string>), status = 200): void {
  issuer.serve(path, (req: IncomingMessage, res: ServerResponse) => {
    authorizations.set(path, req.headers.authorization);
    void (typeof body === 'string' ? Promise.resolve(body) : body()).then((b) => {
      res.writeHead(status, { 'content-type': 'application/jwt' });
      res.end(b);
    });
  });
}

const sources = (endpoint: string, extra: Record<string, unknown> = {}) => ({
  _claim_names: { groups: 'src1' },
  _claim_sources: { src1: { endpoint, ...extra } },
});

async function reason(token: string, auth = a): Promise<string> {
  const e = await auth.authenticateToken(token).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).status.code).toBe(401);
  return ((e as ApiError).cause as Error).message;
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  stranger = await startTestIssuer();
  a = authenticators(byClaim);
  await a.start();
});
afterAll(async () => {
  a?.close();
  await issuer.stop();
  await stranger.stop();
});
beforeEach(() => (failures.length = 0));

describe('distributed claims', () => {
  test('the groups claim comes from the endpoint, fetched with the source access_token as bearer', async () => {
    serve('/claims/ok', () => issuer.sign({ aud: 'kubernetes', groups: ['dev', 'ops'] }));
    const token = await issuer.sign({ aud: 'kubernetes', sub: 'jane', ...sources(`${issuer.url}/claims/ok`, { access_token: 'f005ba11' }) });
    expect(await a.authenticateToken(token)).toEqual({ name: 'jane', uid: '', groups: ['g:dev', 'g:ops'] });
    expect(authorizations.get('/claims/ok')).toBe('Bearer f005ba11');
    // Without access_token the request carries no Authorization at all (never the presented token).
    authorizations.clear();
    const bare = await issuer.sign({ aud: 'kubernetes', sub: 'jane', ...sources(`${issuer.url}/claims/ok`) });
    expect((await a.authenticateToken(bare))?.groups).toEqual(['g:dev', 'g:ops']);
    expect(authorizations.has('/claims/ok')).toBe(true);
    expect(authorizations.get('/claims/ok')).toBeUndefined();
    // Each authentication fetches again (kube caches nothing here).
    const before = issuer.hits.get('/claims/ok') ?? 0;
    await a.authenticateToken(bare);
    expect(issuer.hits.get('/claims/ok')).toBe(before + 1);
    // A source name matches go's way (case-insensitively), and a string groups claim is one group.
    serve('/claims/one', () => issuer.sign({ aud: 'kubernetes', groups: 'solo' }));
    const folded = await issuer.sign({ aud: 'kubernetes', sub: 'jane', _claim_names: { groups: 's' }, _claim_sources: { s: { Endpoint: `${issuer.url}/claims/one` } } });
    expect((await a.authenticateToken(folded))?.groups).toEqual(['g:solo']);
  });

  test('nothing is fetched when the token has the claim, the source has no endpoint, or groups are mapped by expression', async () => {
    serve('/claims/never', () => issuer.sign({ aud: 'kubernetes', groups: ['x'] }));
    const own = await issuer.sign({ aud: 'kubernetes', sub: 'jane', groups: ['mine'], ...sources(`${issuer.url}/claims/never`) });
    expect((await a.authenticateToken(own))?.groups).toEqual(['g:mine']);
    const aggregated = await issuer.sign({ aud: 'kubernetes', sub: 'jane', _claim_names: { groups: 'src1' }, _claim_sources: { src1: { JWT: 'a.b.c' } } });
    expect((await a.authenticateToken(aggregated))?.groups).toEqual([]);
    const other = await issuer.sign({ aud: 'kubernetes', sub: 'jane', _claim_names: { roles: 'src1' }, _claim_sources: { src1: { endpoint: `${issuer.url}/claims/never` } } });
    expect((await a.authenticateToken(other))?.groups).toEqual([]);
    const byExpression = authenticators(`  claimMappings:
    username: {expression: "claims.sub"}
    groups: {expression: "has(claims.groups) ? claims.groups : []"}
`);
    await byExpression.start();
    try {
      const t = await issuer.sign({ aud: 'kubernetes', sub: 'jane', ...sources(`${issuer.url}/claims/never`) });
      expect((await byExpression.authenticateToken(t))?.groups).toEqual([]);
    } finally {
      byExpression.close();
    }
    expect(issuer.hits.get('/claims/never')).toBeUndefined();
  });

  test("go-oidc's checks of _claim_names and _claim_sources come first, on every token", async () => {
    const t = (claims: Record<string, unknown>) => issuer.sign({ aud: 'kubernetes', sub: 'jane', ...claims });
    expect(await reason(await t({ _claim_names: { groups: 'nowhere' }, _claim_sources: {} }))).toBe('oidc: verify token: oidc: source does not exist');
    expect(await reason(await t({ _claim_names: { groups: '' } }))).toBe('oidc: verify token: oidc: failed to obtain source from claim name');
    expect(await reason(await t({ _claim_names: { groups: 1 } }))).toBe(
      'oidc: verify token: oidc: failed to unmarshal claims: json: cannot unmarshal number into Go struct field idToken._claim_names of type string',
    );
    expect(await reason(await t({ _claim_names: { groups: 's' }, _claim_sources: { s: { endpoint: 5 } } }))).toBe(
      'oidc: verify token: oidc: failed to unmarshal claims: json: cannot unmarshal number into Go struct field claimSource._claim_sources.endpoint of type string',
    );
    expect(await reason(await t({ _claim_sources: [] }))).toBe(
      'oidc: verify token: oidc: failed to unmarshal claims: json: cannot unmarshal array into Go struct field idToken._claim_sources of type map[string]oidc.claimSource',
    );
    // kube's own parsing: names without sources, and the aggregated claim's JWT field.
    expect(await reason(await t({ _claim_names: {} }))).toBe('oidc: could not expand distributed claims: oidc: no claim sources');
    expect(await reason(await t({ _claim_names: { groups: 's' }, _claim_sources: { s: { jwt: 1 } } }))).toBe(
      'oidc: could not expand distributed claims: oidc: could not parse claim sources: json: cannot unmarshal number into Go struct field endpoint.JWT of type string',
    );
  });

  test("an answer that does not verify is refused with kube's reasons", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => Promise<string>, string]> = [
      ['expired', () => issuer.sign({ aud: 'kubernetes', groups: ['x'], exp: now - 5 }), `verify distributed claim token: oidc: token is expired (Token Expiry: `],
      ['foreign', async () => issuer.sign({ aud: 'kubernetes', groups: ['x'] }, { key: await issuer.foreignKey() }), 'verify distributed claim token: failed to verify signature: failed to verify id token signature'],
      ['audience', () => issuer.sign({ aud: 'someone-else', groups: ['x'] }), 'verify distributed claim token: oidc: expected audience "kubernetes" got ["someone-else"]'],
      ['notjwt', async () => 'not a jwt', `getting untrusted issuer from endpoint ${issuer.url}/claims/notjwt failed for claim "groups": malformed token`],
      ['nogroups', () => issuer.sign({ aud: 'kubernetes' }), `jwt returned by distributed claim endpoint "${issuer.url}/claims/nogroups" did not contain claim: groups`],
      ['stranger', () => stranger.sign({ aud: 'kubernetes', groups: ['x'] }), `verifying untrusted issuer ${stranger.url} failed: verifier not initialized for issuer: "${stranger.url}"`],
    ];
    for (const [name, body, expected] of cases) {
      serve(`/claims/${name}`, body);
      const token = await issuer.sign({ aud: 'kubernetes', sub: 'jane', ...sources(`${issuer.url}/claims/${name}`, { access_token: 'secret-access' }) });
      const got = await reason(token);
      expect({ name, got: got.slice(0, `oidc: could not expand distributed claims: ${expected}`.length) }).toEqual({ name, got: `oidc: could not expand distributed claims: ${expected}` });
    }
    // The stranger's keys are never in: its CA is not trusted, so it stays uninitialised.
    expect(stranger.hits.get('/jwks')).toBeUndefined();
    const logged = failures.join('\n');
    expect(logged).toContain('oidc: could not expand distributed claims: verify distributed claim token: oidc: token is expired (Token Expiry: [redacted])');
    expect(logged).not.toContain(issuer.url);
    expect(logged).not.toContain(stranger.url);
    expect(logged).not.toContain('secret-access');
  });

  test('a failed fetch: an error status, an unreachable endpoint, an answer too large or too slow', async () => {
    serve('/claims/denied', 'no', 403);
    const port = await freePort();
    // 3 s: every case but the hanging one must get its own answer before the timeout on a loaded
    // machine (TLS to the local issuer included); the hanging one never answers.
    const bounded = authenticators(byClaim, { maxBytes: 1024, timeoutMs: 3000 });
    await bounded.start();
    serve('/claims/large', 'x'.repeat(4096));
    issuer.serve('/claims/hang', () => undefined);
    try {
      const cases: Array<[string, string]> = [
        [`${issuer.url}/claims/denied`, 'error while getting distributed claim JWT: 403 Forbidden'],
        [`https://127.0.0.1:${port}/claims`, `Get "https://127.0.0.1:${port}/claims": dial tcp 127.0.0.1:${port}: connect: connection refused`],
        [`${issuer.url}/claims/large`, 'could not decode distributed claim response'],
        [`${issuer.url}/claims/hang`, `Get "${issuer.url}/claims/hang": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`],
        [`ftp://127.0.0.1/claims`, 'Get "ftp://127.0.0.1/claims": unsupported protocol scheme "ftp"'],
      ];
      for (const [endpoint, expected] of cases) {
        const token = await issuer.sign({ aud: 'kubernetes', sub: 'jane', ...sources(endpoint) });
        expect(await reason(token, bounded)).toBe(`oidc: could not expand distributed claims: while getting distributed claim "groups": ${expected}`);
      }
    } finally {
      bounded.close();
    }
    expect(failures).toContain(`oidc: could not expand distributed claims: while getting distributed claim "groups": Get [redacted]: dial tcp [redacted]: connect: connection refused`);
  });
});
