/**
 * Service accounts against the real server and etcd: kubectl create/get/delete serviceaccount, the
 * `default` account the controller keeps in every namespace, `kubectl create token` (TokenRequest)
 * and the service-account authenticator behind `kubectl --token … auth whoami`.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer } from '../support/api-server';
import { connectH2 } from '../support/h2-client';
import { namespaceMaker } from '../support/namespaces';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

const issuer = 'https://issuer.test.example';
const etcd = useTestEtcd();
// kube trusts a verified token for 10 s (its token cache); these tests look at each verification, so none is cached.
const { srv } = useTestServer({ etcd, serviceAccounts: { serviceAccountIssuers: [issuer], apiAudiences: ['api-a', 'api-b'] }, tokenSuccessCacheTtlMs: 0 });

const fresh = namespaceMaker(srv, 'sa');

const tokenPath = (ns: string, sa: string) => `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`;
const tokenRequest = (spec: Record<string, unknown>) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });

describe('ServiceAccount resource', () => {
  test('kubectl create, get (NAME SECRETS AGE) and delete', async () => {
    const ns = await fresh();
    const created = await srv.kubectl(['-n', ns, 'create', 'serviceaccount', 'robot']);
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe('serviceaccount/robot created\n');
    const table = await srv.kubectl(['-n', ns, 'get', 'sa', 'robot']);
    expect(table.stderr).toBe('');
    expect(table.stdout).toMatch(/^NAME\s+SECRETS\s+AGE\nrobot\s+0\s+\d+s\n$/);
    const deleted = await srv.kubectl(['-n', ns, 'delete', 'serviceaccount', 'robot']);
    expect(deleted.stdout).toBe('serviceaccount "robot" deleted\n');
  });

  test('the default account appears in a new namespace and comes back after deletion', async () => {
    const ns = await fresh();
    await until('the default account', async () => (await srv.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
    const first = (await srv.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).json();
    expect((await srv.kubectl(['-n', ns, 'delete', 'sa', 'default'])).stderr).toBe('');
    await until('a new default account', async () => {
      const r = await srv.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      return r.status === 200 && r.json().metadata.uid !== first.metadata.uid;
    });
  });

  test('discovery names the token subresource with its kind', async () => {
    const r = await srv.request('GET', '/api/v1');
    const resources = r.json().resources as Array<Record<string, unknown>>;
    expect(resources.find((x) => x.name === 'serviceaccounts')).toMatchObject({ kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] });
    expect(resources.find((x) => x.name === 'serviceaccounts/token')).toMatchObject({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
  });
});

describe('TokenRequest and the service-account authenticator', () => {
  test('kubectl create token, then auth whoami with it', async () => {
    const ns = await fresh();
    await srv.kubectl(['-n', ns, 'create', 'sa', 'robot']);
    const t = await srv.kubectl(['-n', ns, 'create', 'token', 'robot', '--audience=api-b', '--duration=20m']);
    expect(t.stderr).toBe('');
    const token = t.stdout.trim();
    const claims = decodeJwt(token);
    const sa = (await srv.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/robot`)).json();
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(claims).toMatchObject({
      iss: issuer,
      sub: `system:serviceaccount:${ns}:robot`,
      aud: ['api-b'],
      'kubernetes.io': { namespace: ns, serviceaccount: { name: 'robot', uid: sa.metadata.uid } },
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(1200);
    expect(claims.nbf).toBe(claims.iat);
    expect(typeof claims.jti).toBe('string');

    const who = await srv.kubectl(['--token', token, 'auth', 'whoami', '-o', 'json']);
    expect(who.stderr).toBe('');
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({
      username: `system:serviceaccount:${ns}:robot`,
      uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti as string}`] },
    });
  });

  test('a token of a deleted or recreated account, or for another audience, is a 401', async () => {
    const ns = await fresh();
    await srv.kubectl(['-n', ns, 'create', 'sa', 'robot']);
    const token = (await srv.kubectl(['-n', ns, 'create', 'token', 'robot'])).stdout.trim();
    // No --audience: the API audiences.
    expect(decodeJwt(token).aud).toEqual(['api-a', 'api-b']);
    expect((await srv.request('GET', '/api/v1/namespaces', { token })).status).toBe(200);

    const other = (await srv.kubectl(['-n', ns, 'create', 'token', 'robot', '--audience=elsewhere'])).stdout.trim();
    const wrongAudience = await srv.request('GET', '/api/v1/namespaces', { token: other });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });

    await srv.kubectl(['-n', ns, 'delete', 'sa', 'robot']);
    expect((await srv.request('GET', '/api/v1/namespaces', { token })).status).toBe(401);
    await srv.kubectl(['-n', ns, 'create', 'sa', 'robot']);
    expect((await srv.request('GET', '/api/v1/namespaces', { token })).status).toBe(401);
    const who = await srv.kubectl(['--token', token, 'auth', 'whoami']);
    expect(who.stderr).toContain('Unauthorized');
  });

  test('TokenReview checks a service-account token against the review’s own audiences, as kube', async () => {
    const ns = await fresh();
    await srv.kubectl(['-n', ns, 'create', 'sa', 'robot']);
    // An audience that is not one of --api-audiences (api-a, api-b): the token is for another service.
    const other = (await srv.kubectl(['-n', ns, 'create', 'token', 'robot', '--audience=vault'])).stdout.trim();
    const reviewOf = async (token: string, audiences?: string[]) =>
      (
        await srv.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } },
        })
      ).json().status;
    expect(await reviewOf(other, ['vault', 'elsewhere'])).toMatchObject({ authenticated: true, user: { username: `system:serviceaccount:${ns}:robot` }, audiences: ['vault'] });
    // Reviewed for the API's audiences (none given), it is not valid; nor is the admin token for vault.
    expect(await reviewOf(other)).toEqual({ user: {}, error: 'token audiences ["vault"] is invalid for the target audiences ["api-a" "api-b"]' });
    expect(await reviewOf(srv.token, ['vault'])).toEqual({ user: {}, error: 'invalid bearer token' });
    expect(await reviewOf(srv.token, ['api-b', 'vault'])).toMatchObject({ authenticated: true, user: { username: 'admin' }, audiences: ['api-b'] });
    // A request with it is still refused: requests are for the API's audiences.
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: other })).status).toBe(401);
  });

  test('a token bound to a Secret dies with the Secret', async () => {
    const ns = await fresh();
    await srv.kubectl(['-n', ns, 'create', 'sa', 'robot']);
    await srv.kubectl(['-n', ns, 'create', 'secret', 'generic', 'anchor']);
    const t = await srv.kubectl(['-n', ns, 'create', 'token', 'robot', '--bound-object-kind=Secret', '--bound-object-name=anchor']);
    expect(t.stderr).toBe('');
    const token = t.stdout.trim();
    const secret = (await srv.request('GET', `/api/v1/namespaces/${ns}/secrets/anchor`)).json();
    expect(decodeJwt(token)['kubernetes.io']).toMatchObject({ secret: { name: 'anchor', uid: secret.metadata.uid } });
    expect((await srv.request('GET', '/api/v1/namespaces', { token })).status).toBe(200);
    await srv.kubectl(['-n', ns, 'delete', 'secret', 'anchor']);
    expect((await srv.request('GET', '/api/v1/namespaces', { token })).status).toBe(401);
  });

  test('TokenRequest errors: short expiration (422), missing account or bound Pod (404), a kind that cannot be bound (400)', async () => {
    const ns = await fresh();
    await srv.kubectl(['-n', ns, 'create', 'sa', 'robot']);
    const short = await srv.kubectl(['-n', ns, 'create', 'token', 'robot', '--duration=1m']);
    expect(short.stderr).toBe(
      'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes\n',
    );
    const missing = await srv.request('POST', tokenPath(ns, 'ghost'), { body: tokenRequest({ audiences: ['api-a'] }) });
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe('serviceaccounts "ghost" not found');
    const pod = await srv.request('POST', tokenPath(ns, 'robot'), {
      body: tokenRequest({ audiences: ['api-a'], boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } }),
    });
    // A missing pod: kube's 404.
    expect(pod.status).toBe(404);
    expect(pod.json().message).toBe('pods "p" not found');
    const configMap = await srv.request('POST', tokenPath(ns, 'robot'), {
      body: tokenRequest({ audiences: ['api-a'], boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } }),
    });
    expect(configMap.status).toBe(400);
    expect(configMap.json().message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
    const ok = await srv.request('POST', tokenPath(ns, 'robot'), { body: tokenRequest({ audiences: ['api-a'] }) });
    expect(ok.status).toBe(201);
    const body = ok.json();
    expect(body).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'robot', namespace: ns }, spec: { audiences: ['api-a'], expirationSeconds: 3600 } });
    expect(Date.parse(body.status.expirationTimestamp) - Date.parse(body.metadata.creationTimestamp)).toBe(3_600_000);
  });
});

describe('service-account issuer discovery', () => {
  test('the OpenID configuration and the JWK set verify an issued token; anonymous requests get 401', async () => {
    const config = await srv.request('GET', '/.well-known/openid-configuration');
    expect(config.status).toBe(200);
    expect(config.headers['content-type']).toBe('application/json');
    expect(config.headers['cache-control']).toBe('public, max-age=3600');
    expect(config.json()).toEqual({
      issuer,
      jwks_uri: `https://127.0.0.1:${srv.port}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = await srv.request('GET', '/openid/v1/jwks');
    expect(jwks.headers['content-type']).toBe('application/jwk-set+json');
    const set = jwks.json();
    expect(Object.keys(set.keys[0])).toEqual(['use', 'kty', 'kid', 'alg', 'n', 'e']);

    const ns = await fresh();
    await srv.kubectl(['-n', ns, 'create', 'sa', 'robot']);
    const token = (await srv.kubectl(['-n', ns, 'create', 'token', 'robot'])).stdout.trim();
    const verified = await jwtVerify(token, createLocalJWKSet(set), { issuer, audience: 'api-a' });
    expect(verified.payload.sub).toBe(`system:serviceaccount:${ns}:robot`);

    expect((await srv.request('GET', '/openid/v1/jwks', { token: null })).status).toBe(401);
  });

  test('jwks_uri names the address the client used over HTTP/2 too (its :authority, no Host header)', async () => {
    const h2 = await connectH2(`https://localhost:${srv.port}`, srv.caCert, srv.token);
    try {
      const config = await h2.request('GET', '/.well-known/openid-configuration');
      expect(config.status).toBe(200);
      expect(config.json().jwks_uri).toBe(`https://localhost:${srv.port}/openid/v1/jwks`);
    } finally {
      await h2.close();
    }
  });

  test('--service-account-jwks-uri fixes jwks_uri whatever address the client used', async () => {
    const other = await startTestServer({ etcdEndpoints: etcd.endpoints, serviceAccounts: { serviceAccountIssuers: [issuer], serviceAccountJwksUri: 'https://keys.example.com/openid/v1/jwks' } });
    try {
      const config = await other.request('GET', '/.well-known/openid-configuration');
      expect(config.json().jwks_uri).toBe('https://keys.example.com/openid/v1/jwks');
    } finally {
      await other.stop();
    }
  });
});

describe('--authentication-config beside the service accounts', () => {
  test('a JWT issuer that is a service-account issuer is refused at start', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sa-authn-'));
    try {
      const file = path.join(dir, 'authn.yaml');
      await writeFile(
        file,
        ['apiVersion: apiserver.config.k8s.io/v1beta1', 'kind: AuthenticationConfiguration', 'jwt:', `- issuer: {url: "${issuer}", audiences: [x]}`, '  claimMappings: {username: {claim: sub, prefix: ""}}', ''].join('\n'),
      );
      await expect(
        startTestServer({ etcdEndpoints: etcd.endpoints, serviceAccounts: { serviceAccountIssuers: [issuer] }, authenticationConfig: { path: file } }),
      ).rejects.toThrow(`jwt[0].issuer.url: Invalid value: "${issuer}": URL must not overlap with disallowed issuers: [${issuer}]`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
