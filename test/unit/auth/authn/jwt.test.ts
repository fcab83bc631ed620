/**
 * JWT authenticators of --authentication-config against an issuer started here (HTTPS with its own
 * CA, discovery + JWKS, tokens signed with jose): claim mappings by claim and prefix, the CEL
 * example of kube's documentation, and every refusal a 401 (ApiError), never anything else.
 */
import { ApiError } from '../../../../src/api';
import { JwtAuthenticators } from '../../../../src/auth/authn/jwt';
import { authenticationConfigKind } from '../../../../src/config/kinds/authentication';
import { loadConfig } from '../../../../src/config/versioned-config';
import type { KeyLike } from 'jose';
import { documentedExample, oneIssuerConfig, startTestIssuer, type TestIssuer } from '../../../support/jwt-issuer';
import { until } from '../../../support/until';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.stop());

async function authenticators(
  rest: string,
  issuerExtra = '',
  o: { audiences?: string; now?: () => number } = {},
): Promise<{ a: JwtAuthenticators; failures: string[] }> {
  const config = loadConfig(
    {
      text: oneIssuerConfig(issuer, `${issuerExtra}${rest}`, o.audiences ?? 'audiences: [kubernetes, other]\n    audienceMatchPolicy: MatchAny'),
    },
    authenticationConfigKind,
  );
  const failures: string[] = [];
  const a = new JwtAuthenticators(config.jwt, { onFailure: (_, r) => failures.push(r), retryMs: 100, ...(o.now ? { now: o.now } : {}) });
  await a.start();
  return { a, failures };
}

async function refused(a: JwtAuthenticators, token: string): Promise<void> {
  const e = await a.authenticateToken(token).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).status.code).toBe(401);
}

/** The reason a refused token's 401 carries (what a TokenReview reports in status.error). */
async function reason(a: JwtAuthenticators, token: string): Promise<string> {
  const e = await a.authenticateToken(token).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).status.code).toBe(401);
  return ((e as ApiError).cause as Error).message;
}

const byClaim = `  claimMappings:
    username: {claim: email, prefix: "oidc:"}
    groups: {claim: groups, prefix: "g:"}
    uid: {claim: sub}
  claimValidationRules:
  - claim: hd
    requiredValue: example.com
`;

describe('JWT authenticator', () => {
  it('maps username, groups and uid by claim and prefix; jti becomes the credential id', async () => {
    const { a } = await authenticators(byClaim);
    const token = await issuer.sign({ aud: 'kubernetes', sub: 'u-1', email: 'jane@example.com', email_verified: true, groups: ['dev', 'ops'], hd: 'example.com', jti: 'j1' });
    expect(await a.authenticateToken(token)).toEqual({
      name: 'oidc:jane@example.com',
      uid: 'u-1',
      groups: ['g:dev', 'g:ops'],
      extra: { 'authentication.kubernetes.io/credential-id': ['JTI=j1'] },
    });
    // A string groups claim is one group; aud as a list matches any configured audience.
    const t2 = await issuer.sign({ aud: ['x', 'other'], sub: 'u-2', email: 'joe@example.com', groups: 'solo', hd: 'example.com' });
    expect(await a.authenticateToken(t2)).toEqual({ name: 'oidc:joe@example.com', uid: 'u-2', groups: ['g:solo'] });
    a.close();
  });

  it('has no opinion on a token of another issuer or no JWT at all', async () => {
    const { a } = await authenticators(byClaim);
    expect(await a.authenticateToken('not-a-jwt')).toBeNull();
    expect(await a.authenticateToken('{"iss":"x"}.a.b')).toBeNull();
    const other = await issuer.sign({ iss: 'https://elsewhere.example.com', aud: 'kubernetes', sub: 'x' });
    expect(await a.authenticateToken(other)).toBeNull();
    a.close();
  });

  it("refuses with 401 and go-oidc's reasons; the log's reasons hold none of the token's values", async () => {
    // 2025-06-15 15:06:40 UTC
    const now = 1_750_000_000;
    const { a, failures } = await authenticators(byClaim, '', { now: () => now });
    const base = { aud: 'kubernetes', sub: 'u', email: 'e@example.com', hd: 'example.com', exp: now + 600 };
    const signed = (claims: Record<string, unknown>) => issuer.sign({ ...base, ...claims });
    const cases: Array<[Promise<string>, string, string?]> = [
      [signed({ exp: now - 5 }), 'oidc: verify token: oidc: token is expired (Token Expiry: 2025-06-15 15:06:35 +0000 UTC)', 'oidc: verify token: oidc: token is expired (Token Expiry: [redacted])'],
      // No exp: Go's zero time.
      [signed({ exp: undefined }), 'oidc: verify token: oidc: token is expired (Token Expiry: 0001-01-01 00:00:00 +0000 UTC)', 'oidc: verify token: oidc: token is expired (Token Expiry: [redacted])'],
      // nbf has one minute's leeway (go-oidc v2); beyond it the token is refused.
      [
        signed({ nbf: now + 70 }),
        'oidc: verify token: oidc: current time 2025-06-15 15:06:40 +0000 UTC before the nbf (not before) time: 2025-06-15 15:07:50 +0000 UTC',
        'oidc: verify token: oidc: current time 2025-06-15 15:06:40 +0000 UTC before the nbf (not before) time: [redacted]',
      ],
      // Several audiences: kube's own check, after the signature.
      [signed({ aud: ['someone-else', 'x'] }), 'oidc: verify token: oidc: expected audience in ["kubernetes" "other"] got ["someone-else" "x"]', 'oidc: verify token: oidc: expected audience in ["kubernetes" "other"] got [redacted]'],
      [issuer.sign(base, { key: await issuer.foreignKey() }), 'oidc: verify token: failed to verify signature: failed to verify id token signature'],
      [
        issuer.sign(base, { alg: 'HS256', key: new Uint8Array(32) as unknown as KeyLike }),
        'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["ES256" "ES384" "ES512" "PS256" "PS384" "PS512" "RS256" "RS384" "RS512"] got "HS256"',
        'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["ES256" "ES384" "ES512" "PS256" "PS384" "PS512" "RS256" "RS384" "RS512"] got [redacted]',
      ],
      [signed({ email_verified: false }), 'oidc: email not verified'],
      [signed({ hd: 'evil.com' }), 'oidc: required claim hd value does not match. Got = evil.com, want = example.com', 'oidc: required claim hd value does not match. Got = [redacted], want = example.com'],
      [signed({ email: 42 }), 'oidc: parse username claims "email": json: cannot unmarshal number into Go value of type string'],
      // Claims go-oidc's idToken cannot hold.
      [signed({ aud: 42 }), 'oidc: verify token: oidc: failed to unmarshal claims: json: cannot unmarshal number into Go struct field idToken.aud of type []string'],
      [signed({ aud: ['kubernetes', true] }), 'oidc: verify token: oidc: failed to unmarshal claims: json: cannot unmarshal bool into Go struct field idToken.aud of type string'],
      [
        signed({ exp: 'soon' }),
        'oidc: verify token: oidc: failed to unmarshal claims: json: invalid number literal, trying to unmarshal "\\"soon\\"" into Number',
        'oidc: verify token: oidc: failed to unmarshal claims: json: invalid number literal, trying to unmarshal [redacted] into Number',
      ],
      [signed({ iat: { at: 1 } }), 'oidc: verify token: oidc: failed to unmarshal claims: json: cannot unmarshal object into Go struct field idToken.iat of type json.Number'],
      [signed({ sub: 7 }), 'oidc: verify token: oidc: failed to unmarshal claims: json: cannot unmarshal number into Go struct field idToken.sub of type string'],
    ];
    const logged: string[] = [];
    for (const [token, message, log] of cases) {
      expect(await reason(a, await token)).toBe(message);
      logged.push(log ?? message);
    }
    const good = await signed({});
    expect(await reason(a, `${good.slice(0, good.lastIndexOf('.'))}.AAAA`)).toBe('oidc: verify token: failed to verify signature: failed to verify id token signature');
    logged.push('oidc: verify token: failed to verify signature: failed to verify id token signature');
    expect(failures).toEqual(logged);
    // Within the leeway, and a time as a string holding a number, are accepted.
    expect(await a.authenticateToken(await signed({ nbf: now + 50 }))).not.toBeNull();
    expect(await a.authenticateToken(await signed({ exp: String(now + 60) }))).not.toBeNull();
    expect(failures.join('\n')).not.toMatch(/someone-else|evil\.com|e@example\.com|soon|HS256|15:07:50|15:06:35/);
    a.close();
  });

  it('checks the claims before the signature (so no key is fetched for them); one audience before the times', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { a } = await authenticators(byClaim, '', { audiences: 'audiences: [kubernetes]' });
    const base = { aud: 'kubernetes', sub: 'u', email: 'e@example.com', hd: 'example.com' };
    // One audience: go-oidc's client id check, before exp.
    expect(await reason(a, await issuer.sign({ ...base, aud: 'someone-else', exp: now - 5 }))).toBe('oidc: verify token: oidc: expected audience "kubernetes" got ["someone-else"]');
    // Expired and signed by a key the issuer never published: refused for exp, and the key set is not fetched again.
    (a.authenticators[0] as unknown as { lastRefresh: number }).lastRefresh = 0;
    const before = issuer.hits.get('/jwks') ?? 0;
    const foreign = await issuer.foreignKey();
    expect(await reason(a, await issuer.sign({ ...base, exp: now - 5 }, { key: foreign, kid: 'unknown' }))).toMatch(/^oidc: verify token: oidc: token is expired \(Token Expiry: /);
    expect(await reason(a, await issuer.sign({ ...base, nbf: now + 3600 }, { key: foreign, kid: 'unknown' }))).toMatch(/before the nbf \(not before\) time/);
    expect(issuer.hits.get('/jwks') ?? 0).toBe(before);
    // A valid token with that unknown key is what fetches it (once), and is still refused.
    expect(await reason(a, await issuer.sign(base, { key: foreign, kid: 'unknown' }))).toBe('oidc: verify token: failed to verify signature: failed to verify id token signature');
    expect(issuer.hits.get('/jwks')).toBe(before + 1);
    a.close();
  });

  it('logs a CEL evaluation error without what the token held', async () => {
    const { a, failures } = await authenticators(`  claimMappings:
    username:
      expression: 'claims.names[claims.sub]'
`);
    const now = Math.floor(Date.now() / 1000);
    const message = await reason(a, await issuer.sign({ aud: 'kubernetes', sub: 'secret-subject', names: { other: 'x' }, exp: now + 60 }));
    expect(message).toBe('oidc: error evaluating username claim expression: no such key: secret-subject');
    expect(failures).toEqual(['oidc: error evaluating username claim expression: no such key: [redacted]']);
    a.close();
  });

  it("evaluates the CEL example of kube's documentation", async () => {
    const { a, failures } = await authenticators(documentedExample());
    const now = Math.floor(Date.now() / 1000);
    const claims = { aud: 'kubernetes', sub: '119abc', hd: 'example.com', nbf: now - 10, exp: now + 3600, username: 'foo', tenant: '123', roles: 'admin,user' };
    expect(await a.authenticateToken(await issuer.sign(claims))).toEqual({
      name: 'foo:external-user',
      uid: '119abc',
      groups: ['admin', 'user'],
      extra: { 'example.com/tenant': ['123'] },
    });
    await refused(a, await issuer.sign({ ...claims, hd: 'other.com' }));
    await refused(a, await issuer.sign({ ...claims, roles: 'system:masters' }));
    await refused(a, await issuer.sign({ ...claims, username: 42 }));
    expect(failures[0]).toBe(`oidc: error evaluating claim validation expression: validation expression 'claims.hd == "example.com"' failed: the hd claim must be set to example.com`);
    expect(failures[1]).toBe(`oidc: error evaluating user info validation rule: validation expression 'user.groups.all(group, !group.startsWith('system:'))' failed: groups cannot used reserved system: prefix`);
    expect(failures[2]).toMatch(/^oidc: error evaluating username claim expression: /);
    a.close();
  });

  it('user validation rules see the user as kube converts it: empty uid, groups and extra are absent', async () => {
    const { a, failures } = await authenticators(`  claimMappings:
    username:
      claim: sub
      prefix: ''
  userValidationRules:
  - expression: "!has(user.uid) && !has(user.groups) && !has(user.extra) && user.username == 'alice'"
    message: an empty field is present
`);
    const now = Math.floor(Date.now() / 1000);
    expect(await a.authenticateToken(await issuer.sign({ aud: 'kubernetes', sub: 'alice', exp: now + 3600 }))).toMatchObject({ name: 'alice', groups: [] });
    expect(failures).toEqual([]);
    a.close();
  });

  it('fetches the key set again when a token names a key it does not hold', async () => {
    const { a } = await authenticators(byClaim);
    const before = issuer.hits.get('/jwks') ?? 0;
    await issuer.rotate();
    // The refetch is rate limited to one per 10 s; move the last fetch into the past.
    (a.authenticators[0] as unknown as { lastRefresh: number }).lastRefresh = 0;
    const token = await issuer.sign({ aud: 'kubernetes', sub: 'u', email: 'e@example.com', hd: 'example.com' });
    expect((await a.authenticateToken(token))?.name).toBe('oidc:e@example.com');
    expect(issuer.hits.get('/jwks')).toBe(before + 1);
    a.close();
  });

  it('uses discoveryURL when given, and refuses tokens until the keys have loaded', async () => {
    const { a } = await authenticators(byClaim, `    discoveryURL: ${issuer.url}/discovery\n`);
    expect(issuer.hits.get('/discovery')).toBeGreaterThanOrEqual(1);
    a.close();
    const config = loadConfig(
      {
        text: `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer: {url: "${issuer.url}", audiences: [kubernetes]}
  claimMappings: {username: {claim: sub, prefix: ""}}
`,
      },
      authenticationConfigKind,
    );
    // No certificateAuthority: the system roots do not trust the test CA, so the keys never load.
    const errors: string[] = [];
    const b = new JwtAuthenticators(config.jwt, { retryMs: 50, onInitError: (_, e) => errors.push(e) });
    void b.start();
    await until('the key fetch to fail', () => errors.length > 0);
    await refused(b, await issuer.sign({ aud: 'kubernetes', sub: 'u' }));
    b.close();
  });
});
