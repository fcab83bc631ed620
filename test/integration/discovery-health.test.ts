/**
 * Health, /version, discovery (legacy and aggregated) and OpenAPI against the real server and etcd
 * (kube-facts §10; what kubectl 1.32 asks for).
 */
import { useTestServer } from '../support/server-fixture';
import { configmaps } from '../../src/registry/resources/core/configmaps';

const { srv } = useTestServer();
const aggregatedAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('health endpoints answer without credentials', () => {
  test.each(['healthz', 'livez', 'readyz'])('/%s', async (endpoint) => {
    const r = await srv.request('GET', `/${endpoint}`, { token: null });
    expect({ status: r.status, type: r.headers['content-type'], nosniff: r.headers['x-content-type-options'], text: r.text }).toEqual({
      status: 200,
      type: 'text/plain; charset=utf-8',
      nosniff: 'nosniff',
      text: 'ok',
    });

    const v = await srv.request('GET', `/${endpoint}?verbose`, { token: null });
    expect(v.status).toBe(200);
    const lines = v.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.pop()).toBe(`${endpoint} check passed`);
    for (const l of lines) expect(l).toMatch(/^\[\+\][a-z0-9/-]+ ok$/);
    expect(lines).toEqual(expect.arrayContaining(['[+]ping ok', '[+]etcd ok']));
  });

  test('?exclude= marks a check excluded and warns about unknown names', async () => {
    const r = await srv.request('GET', '/readyz?verbose&exclude=etcd&exclude=nope&exclude=nada', { token: null });
    expect(r.status).toBe(200);
    const lines = r.text.split('\n');
    expect(lines).toContain('[+]etcd excluded: ok');
    expect(lines).not.toContain('[+]etcd ok');
    expect(r.text.endsWith('warn: some health checks cannot be excluded: no matches for "nope","nada"\nreadyz check passed\n')).toBe(true);
  });

  test('single checks: /readyz/etcd and /livez/ping answer ok, unknown ones 404', async () => {
    for (const p of ['/readyz/etcd', '/livez/ping', '/healthz/etcd']) {
      const r = await srv.request('GET', p, { token: null });
      expect({ p, status: r.status, text: r.text }).toEqual({ p, status: 200, text: 'ok' });
    }
    expect((await srv.request('GET', '/readyz/nope', { token: null })).status).toBe(404);
  });
});

test('/version answers without credentials with kube’s version.Info', async () => {
  const r = await srv.request('GET', '/version', { token: null });
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('application/json');
  const v = r.json();
  expect(Object.keys(v)).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
  expect(v).toMatchObject({ major: '1', minor: '32', gitTreeState: 'clean', compiler: 'gc' });
  expect(v.gitVersion).toMatch(/^v1\.32\.\d+$/);
  expect(v.goVersion).toMatch(/^go1\.\d+/);
});

describe('legacy discovery', () => {
  test('/api is APIVersions (no apiVersion key)', async () => {
    const r = await srv.request('GET', '/api');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json()).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${srv.port}` }],
    });
  });

  test('/apis lists the named groups in kube order (events.k8s.io, authentication.k8s.io, authorization.k8s.io, rbac.authorization.k8s.io, admissionregistration.k8s.io, scheduling.k8s.io)', async () => {
    const group = (name: string) => {
      const gv = `{"groupVersion":"${name}/v1","version":"v1"}`;
      return `{"name":"${name}","versions":[${gv}],"preferredVersion":${gv}}`;
    };
    const groups = ['events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'scheduling.k8s.io'].map(group).join(',');
    expect((await srv.request('GET', '/apis')).text).toBe(`{"kind":"APIGroupList","apiVersion":"v1","groups":[${groups}]}\n`);
  });

  test('/api/v1 lists our resources and subresources as kube-apiserver does', async () => {
    const r = await srv.request('GET', '/api/v1');
    const doc = r.json();
    expect(Object.keys(doc)).toEqual(['kind', 'groupVersion', 'resources']);
    expect(doc).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    expect(doc.resources).toEqual([
      // kube's legacy bindings collection: create only, nothing stored (no storage version hash).
      { name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] },
      { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: allVerbs, shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=' },
      { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: allVerbs, shortNames: ['ev'], storageVersionHash: 'r2yiGXH7wu8=' },
      {
        name: 'namespaces',
        singularName: 'namespace',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ns'],
        storageVersionHash: 'Q3oi5N2YM8M=',
      },
      { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
      { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: allVerbs, shortNames: ['po'], categories: ['all'], storageVersionHash: 'xPOwRZ+Yhw8=' },
      { name: 'pods/attach', singularName: '', namespaced: true, kind: 'PodAttachOptions', verbs: ['create', 'get'] },
      { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
      { name: 'pods/ephemeralcontainers', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
      { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
      { name: 'pods/portforward', singularName: '', namespaced: true, kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      { name: 'pods/proxy', singularName: '', namespaced: true, kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
      { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'resourcequotas', singularName: 'resourcequota', namespaced: true, kind: 'ResourceQuota', verbs: allVerbs, shortNames: ['quota'], storageVersionHash: '8uhSgffRX6w=' },
      { name: 'resourcequotas/status', singularName: '', namespaced: true, kind: 'ResourceQuota', verbs: ['get', 'patch', 'update'] },
      { name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret', verbs: allVerbs, storageVersionHash: 'S6u1pOWzb84=' },
      { name: 'serviceaccounts', singularName: 'serviceaccount', namespaced: true, kind: 'ServiceAccount', verbs: allVerbs, shortNames: ['sa'], storageVersionHash: 'pbx9ZvyFpBE=' },
      // kube's answered subresource names its own group, version and kind.
      { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
    ]);
    // APIResource keys in Go struct order.
    expect(Object.keys(doc.resources[1])).toEqual(['name', 'singularName', 'namespaced', 'kind', 'verbs', 'shortNames', 'storageVersionHash']);
  });

  test('discovery needs credentials', async () => {
    expect((await srv.request('GET', '/api/v1', { token: null })).status).toBe(401);
  });
});

describe('aggregated discovery with kubectl’s Accept header', () => {
  test('/api: the core group, the echoed media type, ETag and 304', async () => {
    const r = await srv.request('GET', '/api', { headers: { accept: aggregatedAccept } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(r.headers.vary).toBe('Accept');
    const etag = String(r.headers.etag);
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    const doc = r.json();
    expect(doc).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {} });
    expect(doc.items).toHaveLength(1);
    expect(doc.items[0].metadata).toEqual({ creationTimestamp: null });
    const [version] = doc.items[0].versions;
    expect(version).toMatchObject({ version: 'v1', freshness: 'Current' });
    const byName = Object.fromEntries(version.resources.map((x: { resource: string }) => [x.resource, x]));
    expect(Object.keys(byName)).toEqual(['bindings', 'configmaps', 'events', 'namespaces', 'pods', 'resourcequotas', 'secrets', 'serviceaccounts']);
    expect(byName.secrets).toEqual({
      resource: 'secrets',
      responseKind: { group: '', version: '', kind: 'Secret' },
      scope: 'Namespaced',
      singularResource: 'secret',
      verbs: allVerbs,
    });
    expect(byName.namespaces).toMatchObject({ scope: 'Cluster', shortNames: ['ns'] });
    expect(byName.serviceaccounts.subresources).toEqual([
      { subresource: 'token', responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] },
    ]);
    expect(byName.namespaces.subresources).toEqual([
      { subresource: 'finalize', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['get', 'patch', 'update'] },
    ]);
    expect(byName.resourcequotas.subresources).toEqual([
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'ResourceQuota' }, verbs: ['get', 'patch', 'update'] },
    ]);

    const cached = await srv.request('GET', '/api', { headers: { accept: aggregatedAccept, 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    const changed = await srv.request('GET', '/api', { headers: { accept: aggregatedAccept, 'if-none-match': '"0"' } });
    expect(changed.status).toBe(200);
  });

  test('/apis: the named groups (a review has no storage version hash); v2beta1 is still served', async () => {
    const r = await srv.request('GET', '/apis', { headers: { accept: aggregatedAccept } });
    expect(r.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const review = (resource: string, kind: string, scope = 'Cluster') => ({ resource, responseKind: { group: '', version: '', kind }, scope, singularResource: resource.slice(0, -1), verbs: ['create'] });
    const doc = r.json();
    expect(doc).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {} });
    expect(doc.items.map((g: { metadata: { name: string } }) => g.metadata.name)).toEqual(['events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'scheduling.k8s.io']);
    expect(doc.items[1]).toEqual({
      metadata: { name: 'authentication.k8s.io', creationTimestamp: null },
      versions: [{ version: 'v1', resources: [review('selfsubjectreviews', 'SelfSubjectReview'), review('tokenreviews', 'TokenReview')], freshness: 'Current' }],
    });
    expect(doc.items[2].versions[0].resources).toEqual([
      review('localsubjectaccessreviews', 'LocalSubjectAccessReview', 'Namespaced'),
      review('selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
      review('selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
      review('subjectaccessreviews', 'SubjectAccessReview'),
    ]);
    expect(doc.items[3].versions[0].resources.map((x: { resource: string }) => x.resource)).toEqual(['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']);
    const beta = await srv.request('GET', '/api', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
    expect(beta.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    expect(beta.json()).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2beta1' });
  });
});

describe('OpenAPI', () => {
  test('/openapi/v3 index and /openapi/v3/api/v1 with the write parameters', async () => {
    const index = await srv.request('GET', '/openapi/v3');
    expect(index.status).toBe(200);
    const paths = index.json().paths as Record<string, { serverRelativeURL: string }>;
    expect(paths['api/v1']?.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);

    const r = await srv.request('GET', paths['api/v1']!.serverRelativeURL);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const doc = r.json();
    expect(doc.openapi).toMatch(/^3\.0\./);
    const collection = doc.paths['/api/v1/namespaces/{namespace}/secrets'];
    expect(Object.keys(collection)).toEqual(expect.arrayContaining(['get', 'post', 'delete', 'parameters']));
    const params = JSON.stringify(collection.post);
    expect(params).toContain('fieldValidation');
    expect(params).toContain('dryRun');
    expect(doc.paths['/api/v1/namespaces/{namespace}/resourcequotas/{name}/status']).toBeDefined();
    expect(doc.components.schemas['io.k8s.api.core.v1.Secret']).toBeDefined();
  });

  test('/openapi/v2 (JSON)', async () => {
    const r = await srv.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
    const doc = r.json();
    expect(doc.swagger).toBe('2.0');
    expect(doc.info.version).toMatch(/^v1\.32\.\d+$/);
    expect(doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}']).toBeDefined();
    expect(doc.definitions['io.k8s.api.core.v1.Secret'].properties.data).toBeDefined();
  });
});

describe('aggregated discovery follows the registry', () => {
  test('a resource added at run time appears, with a new ETag (the encoded document is not kept stale)', async () => {
    const get = () => srv.request('GET', '/apis', { headers: { accept: aggregatedAccept } });
    const before = await get();
    expect(before.status).toBe(200);
    expect((before.json() as { items: Array<{ metadata: { name: string } }> }).items.map((g) => g.metadata.name)).not.toContain('discovery-test.example.com');
    const again = await srv.request('GET', '/apis', { headers: { accept: aggregatedAccept, 'if-none-match': String(before.headers.etag) } });
    expect(again.status).toBe(304);

    srv.server.registry.add({ ...configmaps, group: 'discovery-test.example.com', version: 'v1', storagePrefix: 'discovery-test.example.com/configmaps' });
    const after = await get();
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const group = (after.json() as { items: Array<{ metadata: { name: string }; versions: Array<{ version: string; resources: Array<{ resource: string }> }> }> }).items.find(
      (g) => g.metadata.name === 'discovery-test.example.com',
    );
    expect(group?.versions[0]?.resources.map((r) => r.resource)).toEqual(['configmaps']);
  });
});
