/**
 * authentication.k8s.io/v1 TokenReview and SelfSubjectReview against the real server and etcd:
 * `kubectl auth whoami` (table and YAML) as the admin and as a --token-auth-file user, TokenReview
 * through @kubernetes/client-node and the Python client, discovery, protobuf and YAML answers, 405s.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import * as yaml from 'js-yaml';
import { Authenticator, TokenFileAuthenticator, bearerToken, bearerTokenAuthenticator, parseTokenFile } from '../../src/auth';
import { apiClient } from '../support/client-node';
import { PROTOBUF, protobufWire, rawRequest, type ProtobufWire } from '../support/protobuf-wire';
import { useTestServer } from '../support/server-fixture';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

// A --token-auth-file (kube's CSV: token,user,uid,"groups"), read as main.ts reads it.
const fileTokens = new TokenFileAuthenticator(parseTokenFile('file-token,alice,alice-uid,"dev,ops"\n', 'tokens.csv'));
// A user with extra attributes (kube's user.Info extra), as an authenticator such as JWT would give.
const withExtra: Authenticator = {
  authenticate: async (req) =>
    bearerToken(req) === 'extra-token'
      ? { name: 'eve', uid: 'eve-uid', groups: ['testers', 'system:authenticated'], extra: { 'example.com/scopes': ['read', 'write'], 'example.com/tier': ['gold'] } }
      : null,
};
const { srv } = useTestServer({ authenticators: [bearerTokenAuthenticator([fileTokens]), withExtra] });

const tokenReviews = '/apis/authentication.k8s.io/v1/tokenreviews';
const selfReviews = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const review = (token: string | undefined, audiences?: string[]) => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenReview',
  spec: { ...(token === undefined ? {} : { token }), ...(audiences ? { audiences } : {}) },
});

describe('kubectl auth whoami (SelfSubjectReview)', () => {
  test('the admin token user: the table kubectl prints, and -o yaml', async () => {
    const table = await srv.kubectl(['auth', 'whoami']);
    expect(table.stderr).toBe('');
    expect(table.stdout).toBe(['ATTRIBUTE   VALUE', 'Username    admin', 'UID         admin', 'Groups      [system:masters system:authenticated]', ''].join('\n'));
    const yaml = await srv.kubectl(['auth', 'whoami', '-o', 'yaml']);
    expect(yaml.stderr).toBe('');
    expect(yaml.stdout).toMatch(
      /^apiVersion: authentication\.k8s\.io\/v1\nkind: SelfSubjectReview\nmetadata:\n {2}creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\nstatus:\n {2}userInfo:\n {4}groups:\n {4}- system:masters\n {4}- system:authenticated\n {4}uid: admin\n {4}username: admin\n$/,
    );
  });

  test('a --token-auth-file user, and a user with extra attributes', async () => {
    const table = await srv.kubectl(['--token', 'file-token', 'auth', 'whoami']);
    expect(table.stderr).toBe('');
    expect(table.stdout).toBe(['ATTRIBUTE   VALUE', 'Username    alice', 'UID         alice-uid', 'Groups      [dev ops system:authenticated]', ''].join('\n'));
    const json = await srv.kubectl(['--token', 'extra-token', 'auth', 'whoami', '-o', 'json']);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout).status).toEqual({
      userInfo: { username: 'eve', uid: 'eve-uid', groups: ['testers', 'system:authenticated'], extra: { 'example.com/scopes': ['read', 'write'], 'example.com/tier': ['gold'] } },
    });
    const extraTable = await srv.kubectl(['--token', 'extra-token', 'auth', 'whoami']);
    expect(extraTable.stdout).toContain('Extra: example.com/scopes   [read write]');
  });

  test("kube's answer is a new object: nothing of the request is kept, the kind and version are v1's", async () => {
    const r = await srv.request('POST', selfReviews, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { name: 'mine', labels: { a: 'b' } }, status: { userInfo: { username: 'forged' } } } });
    expect(r.status).toBe(201);
    const body = r.json();
    expect(Object.keys(body)).toEqual(['kind', 'apiVersion', 'metadata', 'status']);
    expect(body.kind).toBe('SelfSubjectReview');
    expect(body.apiVersion).toBe('authentication.k8s.io/v1');
    expect(Object.keys(body.metadata)).toEqual(['creationTimestamp']);
    expect(body.status).toEqual({ userInfo: { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] } });
    // kube 1.32 serves authentication.k8s.io v1 only (v1beta1 is off by default): kubectl asks v1 first.
    expect((await srv.request('POST', '/apis/authentication.k8s.io/v1beta1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1beta1', kind: 'SelfSubjectReview' } })).status).toBe(404);
  });
});

describe('TokenReview', () => {
  let authn: K8sModule.AuthenticationV1Api;

  beforeAll(async () => {
    authn = await apiClient(srv, (k8s) => k8s.AuthenticationV1Api);
  });

  test('AuthenticationV1Api: a valid token is authenticated as its user', async () => {
    const admin = await authn.createTokenReview({ body: { spec: { token: srv.token } } });
    expect(admin.kind).toBe('TokenReview');
    expect(admin.status).toEqual({ authenticated: true, user: { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] } });
    const alice = await authn.createTokenReview({ body: { spec: { token: 'file-token' } } });
    expect(alice.status).toEqual({ authenticated: true, user: { username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] } });
    const eve = await authn.createTokenReview({ body: { spec: { token: 'extra-token' } } });
    expect(eve.status?.user?.extra).toEqual({ 'example.com/scopes': ['read', 'write'], 'example.com/tier': ['gold'] });
  });

  test("AuthenticationV1Api: an unknown token is not authenticated, with kube's error", async () => {
    const r = await authn.createTokenReview({ body: { spec: { token: 'no-such-token' } } });
    expect(r.status).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  test("kube's JSON: the request's object back with its status written (a zero creationTimestamp is null)", async () => {
    const r = await srv.request('POST', tokenReviews, { body: { ...review('no-such-token'), metadata: { name: 'x' }, status: { authenticated: true, audiences: ['kept'] } } });
    expect(r.status).toBe(201);
    const body = r.json();
    expect(Object.keys(body)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
    expect(body.metadata).toMatchObject({ name: 'x', creationTimestamp: null });
    expect(body.spec).toEqual({ token: 'no-such-token' });
    // authenticated is always written; user and audiences only when a user was found.
    expect(body.status).toEqual({ user: {}, audiences: ['kept'], error: 'invalid bearer token' });
  });

  test("an empty or missing token is kube's 400, through the client library too", async () => {
    for (const token of ['', undefined]) {
      const r = await srv.request('POST', tokenReviews, { body: review(token) });
      expect(r.status).toBe(400);
      expect(r.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'token is required for TokenReview in authentication', code: 400 });
    }
    const e = await authn.createTokenReview({ body: { spec: { token: '' } } }).then(
      () => undefined,
      (err: unknown) => err as { code: number },
    );
    expect(e?.code).toBe(400);
  });

  test('audiences: with no --api-audiences, a review naming audiences finds no token valid for them', async () => {
    const r = await srv.request('POST', tokenReviews, { body: review(srv.token, ['https://other.example.com']) });
    expect(r.status).toBe(201);
    expect(r.json().status).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  test('the reviewed token is not the caller: a file user reviews the admin token', async () => {
    const r = await srv.request('POST', tokenReviews, { body: review(srv.token), token: 'file-token' });
    expect(r.json().status.user.username).toBe('admin');
    // An unauthenticated POST is refused before any review.
    expect((await srv.request('POST', tokenReviews, { body: review(srv.token), token: null })).status).toBe(401);
  });

  test('YAML in and out', async () => {
    const body = `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: file-token\n`;
    const r = await srv.request('POST', tokenReviews, { body, headers: { 'content-type': 'application/yaml', accept: 'application/yaml' } });
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toBe('application/yaml');
    expect(r.text.startsWith('kind: TokenReview\napiVersion: authentication.k8s.io/v1\nmetadata:\n  creationTimestamp: null\n')).toBe(true);
    expect((yaml.load(r.text) as { status: unknown }).status).toEqual({ authenticated: true, user: { username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] } });
  });

  test('kubectl create -f (a review kind has no PATCH, so kubectl would list CRDs to check fieldValidation: --validate=false)', async () => {
    const r = await srv.kubectl(['create', '--validate=false', '-o', 'jsonpath={.status.user.username}', '-f', '-'], { input: JSON.stringify(review('file-token')) });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('alice');
  });

  test('the Python client: create_token_review', async () => {
    const script = path.join(__dirname, '../support/python/token_review.py');
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [script, srv.kubeconfig, 'file-token', 'no-such-token', ''], { timeout: 60_000, env: { ...process.env, HOME: srv.dir } });
    expect(JSON.parse(stdout)).toEqual([
      { kind: 'TokenReview', authenticated: true, user: { username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] }, error: null },
      { kind: 'TokenReview', authenticated: null, user: { username: null, uid: null, groups: null }, error: 'invalid bearer token' },
      { status: 400, reason: 'BadRequest', message: 'token is required for TokenReview in authentication' },
    ]);
  });
});

describe('protobuf', () => {
  const PB = PROTOBUF;
  let wire: ProtobufWire;
  beforeAll(async () => {
    wire = await protobufWire(['k8s.io/api/authentication/v1/generated.proto']);
  });
  const post = async (p: string, body: Buffer) => {
    const r = await rawRequest(srv, 'POST', p, { 'content-type': PB, accept: PB }, body);
    return { ...r, type: r.headers['content-type'] as string | undefined };
  };
  const wrap = (kind: string, obj: Record<string, unknown>): Buffer => wire.wrap('authentication.k8s.io/v1', kind, `k8s.io.api.authentication.v1.${kind}`, obj);
  const unwrap = (b: Buffer, kind: string) => wire.unwrap(b, `k8s.io.api.authentication.v1.${kind}`);

  test('a TokenReview and a SelfSubjectReview in protobuf, extra values as ExtraValue messages', async () => {
    const r = await post(tokenReviews, wrap('TokenReview', { spec: { token: 'extra-token' } }));
    expect(r.status).toBe(201);
    expect(r.type).toBe(PB);
    const tr = unwrap(r.body, 'TokenReview');
    expect(tr.typeMeta).toEqual({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview' });
    expect(tr.obj.spec).toEqual({ token: 'extra-token' });
    expect(tr.obj.status).toEqual({
      authenticated: true,
      user: { username: 'eve', uid: 'eve-uid', groups: ['testers', 'system:authenticated'], extra: { 'example.com/scopes': { items: ['read', 'write'] }, 'example.com/tier': { items: ['gold'] } } },
      error: '',
    });
    const s = await post(selfReviews, wrap('SelfSubjectReview', {}));
    expect(s.status).toBe(201);
    expect(unwrap(s.body, 'SelfSubjectReview').obj.status).toEqual({ userInfo: { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] } });
  });
});

describe('discovery and verbs', () => {
  test('the group is discovered with both resources, create only, no storage version hash', async () => {
    const groups = (await srv.request('GET', '/apis')).json();
    expect(groups.groups).toContainEqual({
      name: 'authentication.k8s.io',
      versions: [{ groupVersion: 'authentication.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'authentication.k8s.io/v1', version: 'v1' },
    });
    expect((await srv.request('GET', '/apis/authentication.k8s.io/v1')).json().resources).toEqual([
      { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
      { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
    ]);
    const resources = await srv.kubectl(['api-resources', '--api-group', 'authentication.k8s.io', '-o', 'wide']);
    expect(resources.stdout).toMatch(/selfsubjectreviews\s+authentication\.k8s\.io\/v1\s+false\s+SelfSubjectReview\s+create/);
    expect(resources.stdout).toMatch(/tokenreviews\s+authentication\.k8s\.io\/v1\s+false\s+TokenReview\s+create/);
  });

  test('the OpenAPI v3 document of the group: create operations and the kinds, no list kinds', async () => {
    const doc = (await srv.request('GET', '/openapi/v3/apis/authentication.k8s.io/v1')).json();
    expect(Object.keys(doc.paths).sort()).toEqual(['/apis/authentication.k8s.io/v1/', '/apis/authentication.k8s.io/v1/selfsubjectreviews', '/apis/authentication.k8s.io/v1/tokenreviews']);
    expect(Object.keys(doc.paths['/apis/authentication.k8s.io/v1/tokenreviews'])).toEqual(expect.arrayContaining(['post']));
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['io.k8s.api.authentication.v1.TokenReview', 'io.k8s.api.authentication.v1.UserInfo', 'io.k8s.api.authentication.v1.SelfSubjectReviewStatus']));
    expect(names.filter((n) => n.endsWith('ReviewList'))).toEqual([]);
  });

  test('GET, PUT and DELETE are 405; nothing is written to etcd', async () => {
    expect((await srv.request('GET', tokenReviews)).status).toBe(405);
    expect((await srv.request('GET', `${tokenReviews}/x`)).status).toBe(405);
    expect((await srv.request('DELETE', `${selfReviews}/x`)).status).toBe(405);
    expect((await srv.request('GET', selfReviews)).json()).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    const keys = await srv.etcdStore.etcd.getAll().prefix(`${srv.prefix}/`).keys();
    expect(keys.filter((k) => k.includes('review'))).toEqual([]);
  });

  test('Table output: kube\'s default columns (Name, Created At)', async () => {
    const r = await srv.request('POST', selfReviews, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    expect(r.status).toBe(201);
    expect(r.json().columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Created At']);
  });
});
