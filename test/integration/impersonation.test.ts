/**
 * Impersonation end to end (real etcd, server, kubectl): `--as`, `--as-group`, `--as-uid` and the raw
 * headers, each checked with verb `impersonate` through the server's authorizer; kube's 403 and 400
 * texts; what the authorizer and a handler then see as the user. And the anonymous authenticator in
 * the three states `--anonymous-auth` selects.
 */
import https from 'node:https';
import type { KubeObject } from '../../src/api';
import {
  anonymousForFlag,
  bearerTokenAuthenticator,
  staticTokenAuthenticator,
  withAuthenticatedGroup,
  type AuthorizationAttributes,
  type Authorizer,
  type UserInfo,
} from '../../src/auth';
import { baseStrategy, builtinResources, customResourceStoragePrefix, type ResourceDefinition } from '../../src/registry';
import type { SchemaDocument } from '../../src/registry/schema';
import { startTestServer } from '../support/api-server';
import { useTestEtcd, useTestServer } from '../support/server-fixture';

/** What alice may impersonate; everyone may do everything else, except bob reading secrets. */
function allowedImpersonation(a: AuthorizationAttributes): boolean {
  if (a.user.groups.includes('system:masters')) return true;
  if (a.user.name !== 'alice') return false;
  switch (a.resource) {
    case 'users':
      return a.apiGroup === '' && a.name === 'bob';
    case 'groups':
      return a.apiGroup === '' && (a.name === 'devs' || a.name === 'system:authenticated');
    case 'serviceaccounts':
      return a.apiGroup === '' && a.namespace === 'foo';
    case 'uids':
      return a.apiGroup === 'authentication.k8s.io' && a.name === 'bob-uid';
    case 'userextras':
      return a.apiGroup === 'authentication.k8s.io' && a.subresource === 'scopes';
    default:
      return false;
  }
}

const checks: AuthorizationAttributes[] = [];
const authorizer: Authorizer = {
  authorize: async (a) => {
    checks.push(a);
    if (a.verb === 'impersonate') return allowedImpersonation(a) ? { decision: 'allow' } : { decision: 'no-opinion', reason: 'not on the list' };
    if (a.user.name === 'bob' && a.resource === 'secrets') return { decision: 'deny', reason: 'bob reads no secrets' };
    return { decision: 'allow' };
  },
};

const users = new Map<string, UserInfo>([
  ['alice-token', { name: 'alice', uid: 'alice-uid', groups: ['staff'] }],
  ['carol-token', { name: 'carol', uid: 'carol-uid', groups: [] }],
]);

/** A review kind whose answer is the user its handler sees (so a test can read it back). */
const configmaps = builtinResources.find((d) => d.resource === 'configmaps')!;
const group = 'whoami.example.com';
const whoami: ResourceDefinition = {
  ...configmaps,
  group,
  version: 'v1',
  resource: 'whoamis',
  singularName: 'whoami',
  kind: 'WhoAmI',
  listKind: 'WhoAmIList',
  shortNames: [],
  categories: [],
  subresources: [],
  schemaName: 'com.example.whoami.v1.WhoAmI',
  protobufMessage: undefined,
  tableColumns: undefined,
  strategy: baseStrategy,
  storagePrefix: customResourceStoragePrefix({ group, resource: 'whoamis' }),
  verbs: ['create'],
  store: 'review',
  review: (ctx, obj) => ({ ...obj, status: { user: ctx.user } }),
};
const whoamiSchema: SchemaDocument = {
  components: {
    schemas: {
      [whoami.schemaName]: {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'WhoAmI' }],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
          status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      [`${whoami.schemaName}List`]: {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'WhoAmIList' }],
        properties: {
          apiVersion: { type: 'string' },
          items: { type: 'array', items: { $ref: `#/components/schemas/${whoami.schemaName}` } },
          kind: { type: 'string' },
          metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' },
        },
      },
    },
  },
};
const whoamiPath = `/apis/${group}/v1/namespaces/default/whoamis`;
const whoamiBody = { apiVersion: `${group}/v1`, kind: 'WhoAmI', metadata: {} };

/** POSTs a WhoAmI over HTTP/1.1 with headers exactly as listed (repeats kept as separate lines; Node then adds no Host). */
function http1Post(url: string, ca: string, headers: Array<[string, string]>): Promise<{ status?: { user?: UserInfo }; message?: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(whoamiBody);
    const req = https.request(`${url}${whoamiPath}`, { method: 'POST', ca, headers: [['Host', new URL(url).host], ...headers, ['Content-Type', 'application/json']].flat() }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new Error(`${res.statusCode}: ${text}`));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const etcd = useTestEtcd();

describe('impersonation', () => {
  const { srv } = useTestServer({
    etcd,
    authorizer,
    authenticators: [withAuthenticatedGroup(bearerTokenAuthenticator([staticTokenAuthenticator(users)]))],
  });
  beforeAll(() => srv.server.addResource(whoami, whoamiSchema));
  beforeEach(() => {
    checks.length = 0;
  });

  /** The user the handler saw for a request with `headers`, authenticated with `token`. */
  async function seenAs(token: string, headers: Record<string, string>): Promise<{ status: number; user?: UserInfo; body: KubeObject }> {
    const r = await srv.request('POST', whoamiPath, { token, headers, body: whoamiBody });
    const body = r.json<KubeObject & { status?: { user?: UserInfo } }>();
    return { status: r.status, user: body.status?.user, body };
  }

  test('kubectl --as: allowed, the request then acts as bob (authorizer and handler see bob)', async () => {
    const r = await srv.kubectl(['--token', 'alice-token', '--as', 'bob', 'get', 'configmaps', '-n', 'default', '-o', 'name']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // kubectl's discovery requests impersonate too: every request asked the same, once.
    const impersonate = checks.filter((c) => c.verb === 'impersonate');
    expect(impersonate.length).toBeGreaterThan(0);
    for (const c of impersonate) {
      expect(c).toEqual({
        user: { name: 'alice', uid: 'alice-uid', groups: ['staff', 'system:authenticated'] },
        verb: 'impersonate',
        isResourceRequest: true,
        path: '',
        apiGroup: '',
        apiVersion: '',
        namespace: '',
        resource: 'users',
        subresource: '',
        name: 'bob',
      });
    }
    const list = checks.find((c) => c.verb === 'list' && c.resource === 'configmaps');
    expect(list?.user).toEqual({ name: 'bob', uid: '', groups: ['system:authenticated'] });

    // bob may not read secrets: the authorization filter judges the impersonated user.
    const denied = await srv.kubectl(['--token', 'alice-token', '--as', 'bob', 'get', 'secrets', '-n', 'default']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      'Error from server (Forbidden): secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default": bob reads no secrets',
    );
  });

  test("kubectl --as a user alice may not impersonate: kube's 403", async () => {
    const r = await srv.kubectl(['--token', 'alice-token', '--as', 'eve', 'get', 'configmaps', '-n', 'default']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Error from server (Forbidden): users "eve" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: not on the list',
    );
    const carol = await srv.kubectl(['--token', 'carol-token', '--as', 'bob', 'get', 'configmaps', '-n', 'default']);
    expect(carol.stderr).toContain('users "bob" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  test('kubectl --as-group (repeated) and --as-uid: each checked, the handler sees them', async () => {
    const r = await srv.kubectl(
      ['--token', 'alice-token', '--as', 'bob', '--as-group', 'devs', '--as-group', 'system:authenticated', '--as-uid', 'bob-uid', 'create', '--validate=false', '-o', 'json', '-f', '-'],
      { input: JSON.stringify(whoamiBody) },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).status.user).toEqual({ name: 'bob', uid: 'bob-uid', groups: ['devs', 'system:authenticated'] });
    // One request's checks, in kube's order (kubectl sends several requests, each asking the same).
    const asked = checks.filter((c) => c.verb === 'impersonate').map((c) => [c.apiGroup, c.resource, c.name].join('|'));
    expect(asked.length % 4).toBe(0);
    expect(asked.slice(-4).map((k) => k.split('|'))).toEqual([
      ['', 'users', 'bob'],
      ['', 'groups', 'devs'],
      ['', 'groups', 'system:authenticated'],
      ['authentication.k8s.io', 'uids', 'bob-uid'],
    ]);

    const badGroup = await srv.kubectl(['--token', 'alice-token', '--as', 'bob', '--as-group', 'admins', 'get', 'configmaps', '-n', 'default']);
    expect(badGroup.stderr).toContain(
      'Error from server (Forbidden): groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope: not on the list',
    );
    const badUid = await srv.kubectl(['--token', 'alice-token', '--as', 'bob', '--as-uid', 'x', 'get', 'configmaps', '-n', 'default']);
    expect(badUid.stderr).toContain(
      'Error from server (Forbidden): uids.authentication.k8s.io "x" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: not on the list',
    );
  });

  test('raw headers: repeated groups, extras with %-encoded keys, service accounts', async () => {
    // A repeated header over HTTP/1.1 is two groups; one value with a comma in it is one group.
    const repeated = await http1Post(srv.url, srv.caCert, [
      ['Authorization', 'Bearer alice-token'],
      ['Impersonate-User', 'bob'],
      ['Impersonate-Group', 'devs'],
      ['Impersonate-Group', 'system:authenticated'],
    ]);
    expect(repeated.status?.user).toEqual({ name: 'bob', uid: '', groups: ['devs', 'system:authenticated'] });
    const comma = await http1Post(srv.url, srv.caCert, [
      ['Authorization', 'Bearer alice-token'],
      ['Impersonate-User', 'bob'],
      ['Impersonate-Group', 'devs, system:authenticated'],
    ]);
    expect(comma.message).toBe(
      'groups "devs, system:authenticated" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope: not on the list',
    );

    checks.length = 0;
    const ext = await seenAs('alice-token', { 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'view' });
    expect(ext.status).toBe(201);
    expect(ext.user).toEqual({ name: 'bob', uid: '', groups: ['system:authenticated'], extra: { scopes: ['view'] } });
    expect(checks.filter((c) => c.verb === 'impersonate').map((c) => [c.apiGroup, c.resource, c.subresource, c.name])).toEqual([
      ['', 'users', '', 'bob'],
      ['authentication.k8s.io', 'userextras', 'scopes', 'view'],
    ]);

    const badExtra = await srv.request('POST', whoamiPath, {
      token: 'alice-token',
      headers: { 'Impersonate-User': 'bob', 'Impersonate-Extra-Example.com%2FReason': 'x' },
      body: whoamiBody,
    });
    expect(badExtra.status).toBe(403);
    expect(badExtra.headers['x-content-type-options']).toBe('nosniff');
    expect(badExtra.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'userextras.authentication.k8s.io "x" is forbidden: User "alice" cannot impersonate resource "userextras/example.com/reason" in API group "authentication.k8s.io" at the cluster scope: not on the list',
      reason: 'Forbidden',
      details: { name: 'x', group: 'authentication.k8s.io', kind: 'userextras' },
      code: 403,
    });

    checks.length = 0;
    const sa = await seenAs('alice-token', { 'Impersonate-User': 'system:serviceaccount:foo:builder' });
    expect(sa.user).toEqual({ name: 'system:serviceaccount:foo:builder', uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:foo', 'system:authenticated'] });
    expect(checks.find((c) => c.verb === 'impersonate')).toMatchObject({ resource: 'serviceaccounts', namespace: 'foo', name: 'builder', apiGroup: '' });

    const otherSa = await srv.request('GET', '/api/v1/namespaces', { token: 'alice-token', headers: { 'Impersonate-User': 'system:serviceaccount:bar:builder' } });
    expect(otherSa.status).toBe(403);
    expect(otherSa.json().message).toBe(
      'serviceaccounts "builder" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "bar": not on the list',
    );

    // The admin (system:masters here) may impersonate anything, system:anonymous included.
    const anon = await seenAs(srv.token, { 'Impersonate-User': 'system:anonymous' });
    expect(anon.user).toEqual({ name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] });
  });

  test('groups, extras or a uid without a user: 400 BadRequest, nothing asked of the authorizer', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces', { token: 'alice-token', headers: { 'Impersonate-Group': 'devs' } });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'requested [{Group  devs    }] without impersonating a user' });
    const uid = await srv.request('GET', '/api/v1/namespaces', { token: 'alice-token', headers: { 'Impersonate-Uid': 'bob-uid' } });
    expect(uid.json().message).toBe('requested [{UID  bob-uid  authentication.k8s.io/v1  }] without impersonating a user');
    expect(checks).toEqual([]);
    // kubectl refuses the same on its side before sending anything.
    const k = await srv.kubectl(['--token', 'alice-token', '--as-group', 'devs', 'get', 'configmaps']);
    expect(k.code).not.toBe(0);
  });

  test('no impersonation headers: the authenticated user, untouched', async () => {
    const me = await seenAs('alice-token', {});
    expect(me.user).toEqual({ name: 'alice', uid: 'alice-uid', groups: ['staff', 'system:authenticated'] });
    expect(checks.some((c) => c.verb === 'impersonate')).toBe(false);
  });

  test('an unauthenticated request cannot impersonate: 401 first', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces', { token: null, headers: { 'Impersonate-User': 'bob' } });
    expect(r.status).toBe(401);
  });
});

describe('--anonymous-auth', () => {
  const allow: Authorizer = { authorize: async () => ({ decision: 'allow' }) };

  async function answers(flag: boolean | undefined): Promise<Record<string, number>> {
    const seen: AuthorizationAttributes[] = [];
    const srv = await startTestServer({
      etcdEndpoints: etcd.endpoints,
      anonymous: anonymousForFlag(flag),
      authorizer: { authorize: async (a) => (seen.push(a), allow.authorize(a)) },
    });
    try {
      const out: Record<string, number> = {};
      for (const p of ['/healthz', '/livez', '/readyz', '/version', '/api/v1/namespaces', '/apis']) {
        out[p] = (await srv.request('GET', p, { token: null })).status;
      }
      // Whoever got in unauthenticated did so as system:anonymous in system:unauthenticated.
      for (const a of seen) expect(a.user).toEqual({ name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] });
      // A credential works whatever the flag.
      out['/api/v1/namespaces (token)'] = (await srv.request('GET', '/api/v1/namespaces')).status;
      return out;
    } finally {
      await srv.stop();
    }
  }

  test('unset: health checks and /version only', async () => {
    expect(await answers(undefined)).toEqual({
      '/healthz': 200, '/livez': 200, '/readyz': 200, '/version': 200, '/api/v1/namespaces': 401, '/apis': 401, '/api/v1/namespaces (token)': 200,
    });
  });

  test('true: every unauthenticated request reaches the authorizer as system:anonymous', async () => {
    expect(await answers(true)).toEqual({
      '/healthz': 200, '/livez': 200, '/readyz': 200, '/version': 200, '/api/v1/namespaces': 200, '/apis': 200, '/api/v1/namespaces (token)': 200,
    });
  });

  test('false: none, health checks included', async () => {
    expect(await answers(false)).toEqual({
      '/healthz': 401, '/livez': 401, '/readyz': 401, '/version': 401, '/api/v1/namespaces': 401, '/apis': 401, '/api/v1/namespaces (token)': 200,
    });
  });

  test('true with an authorizer that refuses system:anonymous: 403 naming it', async () => {
    const srv = await startTestServer({
      etcdEndpoints: etcd.endpoints,
      anonymous: anonymousForFlag(true),
      authorizer: { authorize: async (a) => ({ decision: a.user.name === 'system:anonymous' ? 'no-opinion' : 'allow' }) },
    });
    try {
      const r = await srv.request('GET', '/api/v1/namespaces', { token: null });
      expect(r.status).toBe(403);
      expect(r.json().message).toBe('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    } finally {
      await srv.stop();
    }
  });
});
