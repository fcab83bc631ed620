/**
 * The worked examples of docs/extending.md, each plugged in at its one place and driven through a
 * real server (etcd, HTTPS, kubectl): an authenticator, an authorizer, an admission plugin. (A
 * resource added by its declaration is runtime-resources.test.ts.)
 */
import { errors } from '../../src/api';
import { handlesOperations, type Plugins } from '../../src/admission';
import { unionAuthorizer, type Authenticator, type Authorizer } from '../../src/auth';
import { configMap } from '../support/factories';
import { useTestServer } from '../support/server-fixture';
import { startTestServer } from '../support/api-server';

// docs/extending.md, "An authenticator": a user named by a trusted header.
function headerUserAuthenticator(header: string): Authenticator {
  return {
    authenticate: async (req) => {
      const name = req.headers[header];
      return typeof name === 'string' && name ? { name, uid: '', groups: ['system:authenticated'] } : null;
    },
  };
}

// docs/extending.md, "An authorizer": reads for everyone.
const readOnly: Authorizer = {
  authorize: async (a) => (['get', 'list', 'watch'].includes(a.verb) ? { decision: 'allow' } : { decision: 'no-opinion', reason: 'read-only' }),
};
/** The admin (system:masters) may do anything, so the test can still write. */
const masters: Authorizer = {
  authorize: async (a) => (a.user.groups.includes('system:masters') ? { decision: 'allow' } : { decision: 'no-opinion' }),
};

// docs/extending.md, "An admission plugin".
function registerAlwaysDeny(plugins: Plugins): void {
  plugins.register('AlwaysDeny', () => ({
    name: 'AlwaysDeny',
    handles: handlesOperations('CREATE', 'UPDATE', 'DELETE', 'CONNECT'),
    async validate(_ctx, a) {
      throw errors.forbidden({ group: a.group, resource: a.resource }, a.name, 'admission control is denying all modifications');
    },
  }));
}

describe('an authenticator and an authorizer in their unions', () => {
  const { srv } = useTestServer({ authenticators: [headerUserAuthenticator('x-remote-user')], authorizer: unionAuthorizer(readOnly, masters) });

  test('the header names the user; the read-only authorizer lets it read and not write; no credential at all is 401', async () => {
    expect((await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c1') })).status).toBe(201);
    const as = { token: null, headers: { 'x-remote-user': 'alice' } };
    expect((await srv.request('GET', '/api/v1/namespaces/default/configmaps/c1', as)).status).toBe(200);
    const write = await srv.request('DELETE', '/api/v1/namespaces/default/configmaps/c1', as);
    expect(write.status).toBe(403);
    expect(write.json().message).toBe('configmaps "c1" is forbidden: User "alice" cannot delete resource "configmaps" in API group "" in the namespace "default": read-only');
    expect((await srv.request('GET', '/api/v1/namespaces/default/configmaps', { token: null })).status).toBe(401);
  });
});

describe('an admission plugin registered by name and enabled', () => {
  const { srv, etcd } = useTestServer({ admission: { register: registerAlwaysDeny, enable: ['AlwaysDeny'] } });

  test('its validating phase refuses every write with its reason, reads pass (kubectl)', async () => {
    // It refused even the system namespaces at start (logged; the server serves on, as kube's does).
    const create = await srv.kubectl(['create', 'namespace', 'n1']);
    expect(create.code).not.toBe(0);
    expect(create.stderr).toContain('namespaces "n1" is forbidden: admission control is denying all modifications');
    const list = await srv.kubectl(['get', 'namespaces', '-o', 'name']);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe('');
  });

  test("an unknown plugin name is refused when the server is made, with kube's message", async () => {
    await expect(startTestServer({ etcdEndpoints: etcd.endpoints, admission: { enable: ['NoSuchPlugin'] } })).rejects.toThrow('enable-admission-plugins plugin "NoSuchPlugin" is unknown');
  });
});
