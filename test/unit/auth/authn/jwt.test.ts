/**
 * JWT authenticators of --authentication-config against an issuer started here (HTTPS with its own
 * CA, discovery + JWKS, tokens signed with jose): claim mappings by claim and prefix, the CEL
 * example of kube's documentation, and every refusal a 401 (ApiError), never anything else.
 */
import { ApiError } from '../../../../src/api';
import { JwtAuthenticators } from '../../../../src/auth/authn/jwt';
import { authenticationConfigKind } from '../../../../src/config/kinds/authentication';
import { loadConfig } from '../../../../src/config/versioned-config';
import { startTestIssuer, type TestIssuer } from '../../../support/jwt-issuer';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.stop());

const indent = (pem: string) => pem.trim().split('\n').map((l) => `      ${l}`).join('\n');

async function authenticators(rest: string, issuerExtra = ''): Promise<{ a: JwtAuthenticators; failures: string[] }> {
  const config = loadConfig(
    {
      text: `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer.url}
    audiences: [kubernetes, other]
    audienceMatchPolicy: MatchAny
    certificateAuthority: |
${indent(issuer.ca)}
${issuerExtra}${rest}`,
    },
    authenticationConfigKind,
  );
  const failures: string[] = [];
  const a = new JwtAuthenticators(config.jwt, { onFailure: (_, r) => failures.push(r), retryMs: 100 });
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

  it('refuses expired, not yet valid, wrong audience, badly signed, unverified email and rule failures with 401', async () => {
    const { a, failures } = await authenticators(byClaim);
    const base = { aud: 'kubernetes', sub: 'u', email: 'e@example.com', hd: 'example.com' };
    const now = Math.floor(Date.now() / 1000);
    await refused(a, await issuer.sign({ ...base, exp: now - 5 }));
    await refused(a, await issuer.sign({ ...base, exp: undefined }));
    // nbf has five minutes' leeway (go-oidc); beyond that it is refused.
    expect(await a.authenticateToken(await issuer.sign({ ...base, nbf: now + 200 }))).not.toBeNull();
    await refused(a, await issuer.sign({ ...base, nbf: now + 400 }));
    await refused(a, await issuer.sign({ ...base, aud: 'someone-else' }));
    await refused(a, await issuer.sign(base, { key: await issuer.foreignKey() }));
    await refused(a, await issuer.sign({ ...base, email_verified: false }));
    await refused(a, await issuer.sign({ ...base, hd: 'evil.com' }));
    await refused(a, await issuer.sign({ ...base, email: 42 }));
    const good = await issuer.sign(base);
    await refused(a, `${good.slice(0, good.lastIndexOf('.'))}.AAAA`);
    expect(failures).toEqual([
      'oidc: verify token: oidc: token is expired',
      'oidc: verify token: oidc: token is expired',
      'oidc: verify token: oidc: current time before the nbf (not before) time',
      `oidc: verify token: oidc: expected audience in ["kubernetes","other"] got the token's audiences`,
      expect.stringMatching(/^oidc: verify token: failed to verify signature: /),
      'oidc: email not verified',
      'oidc: required claim hd value does not match',
      'oidc: parse username claims "email": json: cannot unmarshal number into Go value of type string',
      expect.stringMatching(/^oidc: verify token: failed to verify signature: /),
    ]);
    // Nothing of a token's claims in the reasons.
    expect(failures.join('\n')).not.toMatch(/someone-else|evil\.com|e@example\.com/);
    a.close();
  });

  it("evaluates the CEL example of kube's documentation", async () => {
    const { a, failures } = await authenticators(`  claimValidationRules:
  - expression: 'claims.hd == "example.com"'
    message: the hd claim must be set to example.com
  - expression: 'claims.exp - claims.nbf <= 86400'
    message: total token lifetime must not exceed 24 hours
  claimMappings:
    username:
      expression: 'claims.username + ":external-user"'
    groups:
      expression: 'claims.roles.split(",")'
    uid:
      expression: 'claims.sub'
    extra:
    - key: 'example.com/tenant'
      valueExpression: 'claims.tenant'
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: 'username cannot used reserved system: prefix'
  - expression: "user.groups.all(group, !group.startsWith('system:'))"
    message: 'groups cannot used reserved system: prefix'
`);
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
    await new Promise((r) => setTimeout(r, 150));
    expect(errors.length).toBeGreaterThan(0);
    await refused(b, await issuer.sign({ aud: 'kubernetes', sub: 'u' }));
    b.close();
  });
});
