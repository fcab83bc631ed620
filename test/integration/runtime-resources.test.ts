/**
 * A resource declaration carries all of its behaviour, and resources (with their schemas) come
 * and go at run time: routing, discovery, OpenAPI, kubectl and the etcd keys follow. Also the
 * create-only review store and --runtime-config, against real etcd and kubectl.
 */
import { baseStrategy, builtinResources, customResourceStoragePrefix, type ResourceDefinition } from '../../src/registry';
import type { KubeObject } from '../../src/api';
import type { SchemaDocument } from '../../src/registry/schema';
import { useTestServer } from '../support/server-fixture';
import { startTestServer } from '../support/api-server';
import { openWatch } from '../support/watch-stream';

const configmaps = builtinResources.find((d) => d.resource === 'configmaps')!;

/** A namespaced custom kind `<Kind>` of group `group`, stored as kube stores custom resources. */
function customResource(group: string, kind: string, resource: string): ResourceDefinition {
  return {
    ...configmaps,
    group,
    version: 'v1',
    resource,
    singularName: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    shortNames: [],
    categories: [],
    subresources: [],
    schemaName: `${group.split('.').reverse().join('.')}.v1.${kind}`,
    protobufMessage: undefined,
    tableColumns: undefined,
    strategy: baseStrategy,
    storagePrefix: customResourceStoragePrefix({ group, resource }),
  };
}

function schemaDoc(def: ResourceDefinition): SchemaDocument {
  const spec = `${def.schemaName}Spec`;
  return {
    components: {
      schemas: {
        [def.schemaName]: {
          type: 'object',
          description: `${def.kind} is a test kind.`,
          'x-kubernetes-group-version-kind': [{ group: def.group, version: def.version, kind: def.kind }],
          properties: {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
            spec: { $ref: `#/components/schemas/${spec}` },
          },
        },
        [spec]: { type: 'object', description: 'What a widget is.', properties: { size: { type: 'integer', format: 'int32', description: 'How big it is.' } } },
        [`${def.schemaName}List`]: {
          type: 'object',
          'x-kubernetes-group-version-kind': [{ group: def.group, version: def.version, kind: def.listKind }],
          required: ['items'],
          properties: {
            apiVersion: { type: 'string' },
            items: { type: 'array', items: { $ref: `#/components/schemas/${def.schemaName}` } },
            kind: { type: 'string' },
            metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' },
          },
        },
      },
    },
  };
}

const widgets = customResource('example.com', 'Widget', 'widgets');

describe('resources added and removed at run time', () => {
  const { srv } = useTestServer();

  test('an added resource is served: discovery, OpenAPI (kubectl explain), kubectl CRUD, its own etcd keys, strict decoding by its schema', async () => {
    srv.server.addResource(widgets, schemaDoc(widgets));
    const resources = await srv.kubectl(['api-resources', '--api-group=example.com', '--no-headers']);
    expect(resources.stdout).toMatch(/^widgets\s+example\.com\/v1\s+true\s+Widget/m);
    const explain = await srv.kubectl(['explain', 'widgets.spec.size']);
    expect(explain.stdout).toContain('How big it is.');

    const manifest = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: default\nspec:\n  size: 3\n';
    const created = await srv.kubectl(['apply', '-f', '-'], { input: manifest });
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('widget.example.com/w1 created');
    const got = JSON.parse((await srv.kubectl(['get', 'widgets', 'w1', '-n', 'default', '-o', 'json'])).stdout) as KubeObject;
    expect(got.spec).toEqual({ size: 3 });
    const strict = await srv.kubectl(['create', '--validate=strict', '-f', '-'], { input: manifest.replace('w1', 'w2').replace('size: 3', 'size: 3\n  colour: red') });
    expect(strict.stderr).toContain('unknown field "spec.colour"');

    const stored = await srv.etcdStore.etcd.get(`${srv.prefix}/example.com/widgets/default/w1`).string();
    expect(JSON.parse(stored ?? '{}')).toMatchObject({ kind: 'Widget', spec: { size: 3 } });
    // No protobuf form was declared: as for kube's custom resources, protobuf alone is not acceptable.
    const pb = await srv.request('GET', '/apis/example.com/v1/namespaces/default/widgets/w1', { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(pb.status).toBe(406);
  });

  test('a removed resource is no longer routed, discovered or documented; its watches end; its objects stay and come back with it', async () => {
    const watch = await openWatch(srv, '/apis/example.com/v1/namespaces/default/widgets?watch=1&resourceVersion=0');
    expect(watch.status).toBe(200);
    await watch.next(1);
    expect(srv.server.removeResource('example.com', 'v1', 'widgets')).toBe(true);
    await watch.ended;

    expect((await srv.request('GET', '/apis/example.com/v1/namespaces/default/widgets/w1')).status).toBe(404);
    expect((await srv.request('GET', '/apis/example.com')).status).toBe(404);
    const aggregated = await srv.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    expect(aggregated.text).not.toContain('example.com');
    const v3 = (await srv.request('GET', '/openapi/v3')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(v3.paths)).not.toContain('apis/example.com/v1');
    expect((await srv.request('GET', '/openapi/v2')).text).not.toContain('com.example.v1.Widget');
    expect((await srv.kubectl(['api-resources', '--no-headers'])).stdout).not.toContain('example.com');
    expect(await srv.etcdStore.etcd.get(`${srv.prefix}/example.com/widgets/default/w1`).string()).not.toBeNull();
    expect(srv.server.removeResource('example.com', 'v1', 'widgets')).toBe(false);

    srv.server.addResource(widgets, schemaDoc(widgets));
    const again = await srv.request('GET', '/apis/example.com/v1/namespaces/default/widgets/w1');
    expect(again.status).toBe(200);
    expect(again.json().spec).toEqual({ size: 3 });
    srv.server.removeResource('example.com', 'v1', 'widgets');
  });

  test('two groups with one plural keep separate keys; a clash of storage prefixes or schemas is refused and changes nothing', async () => {
    const a = customResource('a.example.com', 'Thing', 'things');
    const b = customResource('b.example.com', 'Thing', 'things');
    srv.server.addResource(a, schemaDoc(a));
    srv.server.addResource(b, schemaDoc(b));
    for (const [def, size] of [[a, 1], [b, 2]] as const) {
      const r = await srv.request('POST', `/apis/${def.group}/v1/namespaces/default/things`, { body: { apiVersion: `${def.group}/v1`, kind: 'Thing', metadata: { name: 't' }, spec: { size } } });
      expect(r.status).toBe(201);
    }
    expect((await srv.request('GET', '/apis/a.example.com/v1/namespaces/default/things/t')).json().spec).toEqual({ size: 1 });
    expect((await srv.request('GET', '/apis/b.example.com/v1/namespaces/default/things/t')).json().spec).toEqual({ size: 2 });
    const keys = await srv.etcdStore.etcd.getAll().prefix(`${srv.prefix}/`).keys();
    expect(keys.filter((k) => k.includes('/things/'))).toEqual([`${srv.prefix}/a.example.com/things/default/t`, `${srv.prefix}/b.example.com/things/default/t`]);

    // Same plural, no storage prefix of its own: it would read another kind's objects.
    const clash = { ...customResource('c.example.com', 'Other', 'secrets'), storagePrefix: undefined };
    expect(() => srv.server.addResource(clash, schemaDoc(clash))).toThrow('storage prefix secrets overlaps secrets of Secret');
    expect((await srv.request('GET', '/apis/c.example.com/v1')).status).toBe(404);
    // Its schemas went with the refusal: adding them again is no clash.
    expect(() => srv.server.addResource({ ...clash, storagePrefix: 'c.example.com/secrets' }, schemaDoc(clash))).not.toThrow();
    srv.server.removeResource('c.example.com', 'v1', 'secrets');
    expect(() => srv.server.addResource(a, schemaDoc(a))).toThrow('is served already');
    expect((await srv.request('GET', '/apis/a.example.com/v1/namespaces/default/things/t')).status).toBe(200);
    // A protobuf message proto/ lacks is refused before anything changes: schemas and routes as they were.
    const p = { ...customResource('p.example.com', 'Thing', 'things'), protobufMessage: 'com.example.p.v1.Thing' };
    expect(() => srv.server.addResource(p, schemaDoc(p))).toThrow('protobuf: no message com.example.p.v1.Thing in proto/ for things');
    expect((await srv.request('GET', '/apis/p.example.com/v1')).status).toBe(404);
    expect(() => srv.server.addResource({ ...p, protobufMessage: undefined }, schemaDoc(p))).not.toThrow();
    // Removing a resource takes the schemas added with it, but not those another served resource names.
    const pv2 = { ...customResource('p.example.com', 'Thing', 'things'), version: 'v2' };
    srv.server.addResource(pv2);
    expect(srv.server.removeResource('p.example.com', 'v1', 'things')).toBe(true);
    const v2Thing = await srv.request('POST', '/apis/p.example.com/v2/namespaces/default/things', { body: { apiVersion: 'p.example.com/v2', kind: 'Thing', metadata: { name: 'v2' }, spec: { size: 4 } } });
    expect(v2Thing.status).toBe(201);
    expect(v2Thing.json().spec).toEqual({ size: 4 });
    srv.server.removeResource('p.example.com', 'v2', 'things');
    for (const g of ['a', 'b']) srv.server.removeResource(`${g}.example.com`, 'v1', 'things');
  });

  test('a review resource answers POST with what its declaration computes, keeps nothing and serves no other verb', async () => {
    const reviews: ResourceDefinition = {
      ...customResource('review.example.com', 'EchoReview', 'echoreviews'),
      verbs: ['create'],
      store: 'review',
      review: (ctx, obj) => ({ ...obj, status: { user: ctx.user?.name, size: (obj.spec as { size?: number } | undefined)?.size } }),
    };
    srv.server.addResource(reviews, schemaDoc(reviews));
    const body = { apiVersion: 'review.example.com/v1', kind: 'EchoReview', metadata: {}, spec: { size: 7, unknown: 1 } };
    const r = await srv.request('POST', '/apis/review.example.com/v1/namespaces/default/echoreviews', { body });
    expect(r.status).toBe(201);
    expect(r.json()).toMatchObject({ kind: 'EchoReview', metadata: { namespace: 'default' }, spec: { size: 7 }, status: { user: 'admin', size: 7 } });
    expect(r.json().spec).not.toHaveProperty('unknown');
    expect(r.headers.warning).toContain('unknown field \\"spec.unknown\\"');
    // kubectl checks fieldValidation support on a kind's PATCH operation; a kind without one (a review)
    // sends it to list CustomResourceDefinitions, not served here yet: so validation is off for this one.
    const created = await srv.kubectl(['create', '--validate=false', '-o', 'jsonpath={.status.size}', '-f', '-'], { input: JSON.stringify({ ...body, spec: { size: 9 } }) });
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe('9');

    // Discovery as kube's installer writes it for a resource without storage: no storageVersionHash.
    const discovered = (await srv.request('GET', '/apis/review.example.com/v1')).json<{ resources: Array<Record<string, unknown>> }>();
    expect(discovered.resources).toEqual([expect.objectContaining({ name: 'echoreviews', verbs: ['create'] })]);
    expect(discovered.resources[0]).not.toHaveProperty('storageVersionHash');
    expect((await srv.request('GET', '/apis/review.example.com/v1/namespaces/default/echoreviews')).status).toBe(405);
    expect((await srv.request('GET', '/apis/review.example.com/v1/namespaces/default/echoreviews/x')).status).toBe(405);
    const keys = await srv.etcdStore.etcd.getAll().prefix(`${srv.prefix}/review.example.com/`).keys();
    expect(keys).toEqual([]);
    srv.server.removeResource('review.example.com', 'v1', 'echoreviews');
  });
});

describe('--runtime-config', () => {
  // kube turns v1/<resource> into v1: the core group switches as a whole, so this turns all of it off.
  const { srv, etcd } = useTestServer({ runtimeConfig: { 'v1/configmaps': 'false' } });

  test('a disabled group version is not routed, discovered or documented (kube: v1/configmaps=false is v1=false)', async () => {
    expect((await srv.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(404);
    expect((await srv.request('GET', '/api/v1/namespaces/default/secrets')).status).toBe(404);
    expect((await srv.request('GET', '/api/v1')).status).toBe(404);
    const aggregated = await srv.request('GET', '/api', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    expect(aggregated.text).not.toContain('secrets');
    const v3 = (await srv.request('GET', '/openapi/v3')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(v3.paths)).not.toContain('api/v1');
    const get = await srv.kubectl(['get', 'secrets']);
    expect(get.stderr).toContain('the server doesn\'t have a resource type "secrets"');
  });

  test('a server with every API on serves the core group again (api/all=true, v1=true)', async () => {
    const other = await startTestServer({ etcdEndpoints: etcd.endpoints, runtimeConfig: { 'api/all': 'true', v1: 'true' } });
    try {
      expect((await other.request('GET', '/api/v1/namespaces/default/secrets')).status).toBe(200);
    } finally {
      await other.stop();
    }
  });

  test("a setting kube refuses stops the server from being made, with kube's message", async () => {
    await expect(startTestServer({ etcdEndpoints: etcd.endpoints, runtimeConfig: { 'foo.example.com/v1': 'true' } })).rejects.toThrow('unknown api groups foo.example.com');
    await expect(startTestServer({ etcdEndpoints: etcd.endpoints, runtimeConfig: { 'api/all': 'false' } })).rejects.toThrow('invalid key with only api/all=false');
  });
});
