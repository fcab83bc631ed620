/**
 * Encodings (YAML, pretty JSON, Table) and list semantics (selectors, limit/continue paging at one
 * snapshot, remainingItemCount, list option errors) against the real server and etcd
 * (kube-facts §3, §4, §9; seed 000 "Chunked list", "Media types").
 */
import * as yaml from 'js-yaml';
import { useTestServer } from '../support/server-fixture';
import { cause, expectStatus, failure } from '../support/kube-status';
import { configMap, namespace } from '../support/factories';

const { srv } = useTestServer();
const ns = 'lists';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const kubectlGetAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** cm-0 … cm-6 with labels chosen so every selector operator has a distinct answer. */
const labelsOf: Array<Record<string, string>> = [
  { app: 'a', tier: 'web' },
  { app: 'b', tier: 'web' },
  { app: 'a' },
  { app: 'c', tier: 'db' },
  {},
  { app: 'b', tier: 'db' },
  { tier: 'web' },
];

const names = (list: { items: Array<{ metadata: { name: string } }> }) => list.items.map((i) => i.metadata.name);
const b64 = (s: string) => Buffer.from(s).toString('base64url');

beforeAll(async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) })).status).toBe(201);
  for (const [i, labels] of labelsOf.entries()) {
    const r = await srv.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels }, data: { i: String(i) } } });
    expect(r.status).toBe(201);
  }
  for (const body of [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain' }, stringData: { a: '1', b: '2' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } },
  ]) {
    expect((await srv.request('POST', secrets, { body })).status).toBe(201);
  }
});

describe('YAML and pretty JSON', () => {
  test('a YAML request body and a YAML response', async () => {
    const body = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: from-yaml\nstringData:\n  password: hunter2\n';
    const r = await srv.request('POST', secrets, { body, headers: { 'content-type': 'application/yaml', accept: 'application/yaml' } });
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toBe('application/yaml');
    expect(r.text.startsWith('kind: Secret\napiVersion: v1\nmetadata:\n  name: from-yaml\n  namespace: lists\n')).toBe(true);
    // go-yaml double-quotes strings that would otherwise read as another type.
    expect(r.text).toMatch(/\n  creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n/);
    expect(r.text).toMatch(/\n  resourceVersion: "\d+"\n/);
    const obj = yaml.load(r.text) as { data: Record<string, string>; type: string; stringData?: unknown };
    expect(obj.data).toEqual({ password: Buffer.from('hunter2').toString('base64') });
    expect(obj.type).toBe('Opaque');
    expect(obj.stringData).toBeUndefined();

    const list = await srv.request('GET', cms, { headers: { accept: 'application/yaml' } });
    expect(list.headers['content-type']).toBe('application/yaml');
    expect(list.text.startsWith('kind: ConfigMapList\napiVersion: v1\nmetadata:\n  resourceVersion: ')).toBe(true);
  });

  test('errors are negotiated like objects: a YAML Status for Accept: application/yaml', async () => {
    const r = await srv.request('GET', `${secrets}/missing`, { headers: { accept: 'application/yaml' } });
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe('application/yaml');
    expect(yaml.load(r.text)).toEqual(failure(404, 'NotFound', 'secrets "missing" not found', { name: 'missing', kind: 'secrets' }));
  });

  test('pretty=true indents with two spaces and ends with a newline', async () => {
    const r = await srv.request('GET', `${cms}/cm-4?pretty=true`);
    expect(r.status).toBe(200);
    const obj = r.json();
    expect(r.text).toBe(`${JSON.stringify(obj, null, 2)}\n`);
    expect(r.text.startsWith('{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n  "metadata": {\n    "name": "cm-4",')).toBe(true);
  });
});

describe('Table responses', () => {
  test.each([
    ['secrets', secrets, ['Name', 'Type', 'Data', 'Age']],
    ['configmaps', cms, ['Name', 'Data', 'Age']],
    ['namespaces', '/api/v1/namespaces', ['Name', 'Status', 'Age']],
    ['resourcequotas', `/api/v1/namespaces/${ns}/resourcequotas`, ['Name', 'Age', 'Request', 'Limit']],
  ])('%s columns', async (_r, path, columns) => {
    const r = await srv.request('GET', path, { headers: { accept: tableAccept } });
    expect(r.status).toBe(200);
    const t = r.json();
    expect(t).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(t.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(columns);
    for (const c of t.columnDefinitions) expect(Object.keys(c)).toEqual(['name', 'type', 'format', 'description', 'priority']);
    expect(t.columnDefinitions[0]).toMatchObject({ name: 'Name', type: 'string', format: 'name', priority: 0 });
  });

  test('rows, list metadata and includeObject', async () => {
    const meta = await srv.request('GET', `${secrets}?fieldSelector=metadata.name%3Dtls`, { headers: { accept: kubectlGetAccept } });
    const t = meta.json();
    expect(t.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(t.rows).toHaveLength(1);
    expect(t.rows[0].cells).toEqual(['tls', 'kubernetes.io/tls', 2, expect.stringMatching(/^\d+s$/)]);
    expect(t.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'tls', namespace: ns } });

    const none = (await srv.request('GET', `${secrets}/tls?includeObject=None`, { headers: { accept: tableAccept } })).json();
    expect(none.rows).toHaveLength(1);
    expect(none.rows[0]).not.toHaveProperty('object');

    const full = (await srv.request('GET', `${secrets}/tls?includeObject=Object`, { headers: { accept: tableAccept } })).json();
    expect(full.rows[0].object).toMatchObject({ kind: 'Secret', apiVersion: 'v1', type: 'kubernetes.io/tls', metadata: { name: 'tls' } });

    const beta = (await srv.request('GET', `${secrets}/tls`, { headers: { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' } })).json();
    expect(beta).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    expect(beta.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1' });
  });

  test('a paged Table carries continue and remainingItemCount', async () => {
    const t = (await srv.request('GET', `${cms}?limit=2`, { headers: { accept: tableAccept } })).json();
    expect(t.rows.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['cm-0', 'cm-1']);
    expect(t.metadata).toEqual({ resourceVersion: expect.stringMatching(/^\d+$/), continue: expect.any(String), remainingItemCount: 5 });
  });

  test('an unknown includeObject is a 400', async () => {
    expectStatus(
      await srv.request('GET', `${secrets}?includeObject=Bogus`, { headers: { accept: tableAccept } }),
      failure(400, 'BadRequest', 'unrecognized includeObject value: "Bogus"'),
    );
  });
});

describe('selectors', () => {
  test.each([
    ['app=a', ['cm-0', 'cm-2']],
    ['app==a', ['cm-0', 'cm-2']],
    ['app!=a', ['cm-1', 'cm-3', 'cm-4', 'cm-5', 'cm-6']],
    ['app in (a,b)', ['cm-0', 'cm-1', 'cm-2', 'cm-5']],
    ['app notin (a,b)', ['cm-3', 'cm-4', 'cm-6']],
    ['tier', ['cm-0', 'cm-1', 'cm-3', 'cm-5', 'cm-6']],
    ['!tier', ['cm-2', 'cm-4']],
    ['app=a,tier=web', ['cm-0']],
    ['app in (a),!tier', ['cm-2']],
  ])('labelSelector %p', async (sel, expected) => {
    const r = await srv.request('GET', `${cms}?labelSelector=${encodeURIComponent(sel)}`);
    expect(r.status).toBe(200);
    expect(names(r.json())).toEqual(expected);
  });

  test('field selectors: metadata.name, metadata.namespace, secret type', async () => {
    expect(names((await srv.request('GET', `${cms}?fieldSelector=metadata.name%3Dcm-3`)).json())).toEqual(['cm-3']);
    expect(names((await srv.request('GET', `${cms}?fieldSelector=metadata.name!%3Dcm-3,metadata.name!%3Dcm-4`)).json())).toEqual([
      'cm-0', 'cm-1', 'cm-2', 'cm-5', 'cm-6',
    ]);
    const all = (await srv.request('GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns}`)).json();
    expect(all.kind).toBe('ConfigMapList');
    expect(names(all)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6']);
    expect(names((await srv.request('GET', `${secrets}?fieldSelector=type%3Dkubernetes.io%2Ftls`)).json())).toEqual(['tls']);
    expect(names((await srv.request('GET', `/api/v1/secrets?fieldSelector=type%3Dkubernetes.io%2Ftls`)).json())).toEqual(['tls']);
    expect(names((await srv.request('GET', `${secrets}?fieldSelector=type!%3Dkubernetes.io%2Ftls,metadata.name%3Dplain`)).json())).toEqual(['plain']);
  });
});

describe('limit and continue', () => {
  test('pages are complete, in order and all read at the first page’s revision', async () => {
    const first = (await srv.request('GET', `${cms}?limit=3`)).json();
    expect(names(first)).toEqual(['cm-0', 'cm-1', 'cm-2']);
    expect(first.metadata.remainingItemCount).toBe(4);
    expect(first.metadata.continue).toEqual(expect.any(String));
    const rv = first.metadata.resourceVersion;

    // Writes between pages are not visible to the paged list.
    expect((await srv.request('DELETE', `${cms}/cm-4`)).status).toBe(200);
    expect((await srv.request('POST', cms, { body: configMap('cm-3a') })).status).toBe(201);
    expect(BigInt(await srv.storage.currentRevision())).toBeGreaterThan(BigInt(rv));

    const second = (await srv.request('GET', `${cms}?limit=3&continue=${encodeURIComponent(first.metadata.continue)}`)).json();
    expect(names(second)).toEqual(['cm-3', 'cm-4', 'cm-5']);
    expect(second.metadata.resourceVersion).toBe(rv);
    expect(second.metadata.remainingItemCount).toBe(1);

    const last = (await srv.request('GET', `${cms}?limit=3&continue=${encodeURIComponent(second.metadata.continue)}`)).json();
    expect(names(last)).toEqual(['cm-6']);
    expect(last.metadata).toEqual({ resourceVersion: rv });

    // A fresh list sees the writes; restore the fixture for the other tests.
    expect(names((await srv.request('GET', cms)).json())).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-3a', 'cm-5', 'cm-6']);
    await srv.request('DELETE', `${cms}/cm-3a`);
    await srv.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-4' }, data: { i: '4' } } });
  });

  test('remainingItemCount is omitted with a selector; continue still pages', async () => {
    const first = (await srv.request('GET', `${cms}?limit=2&labelSelector=tier`)).json();
    expect(names(first)).toEqual(['cm-0', 'cm-1']);
    expect(first.metadata).not.toHaveProperty('remainingItemCount');
    const second = (await srv.request('GET', `${cms}?limit=2&labelSelector=tier&continue=${encodeURIComponent(first.metadata.continue)}`)).json();
    expect(names(second)).toEqual(['cm-3', 'cm-5']);
    expect(second.metadata).not.toHaveProperty('remainingItemCount');
    const third = (await srv.request('GET', `${cms}?limit=2&labelSelector=tier&continue=${encodeURIComponent(second.metadata.continue)}`)).json();
    expect(names(third)).toEqual(['cm-6']);
    expect(third.metadata.continue ?? '').toBe('');
  });

  test('a list that fits in the limit has no continue and no remainingItemCount', async () => {
    const r = (await srv.request('GET', `${secrets}?limit=50`)).json();
    expect(Object.keys(r.metadata)).toEqual(['resourceVersion']);
  });

  test.each([
    ['not base64 JSON', b64('hello'), /^invalid continue token: continue key is not valid: /],
    ['an unknown version', b64('{"v":"x","rv":5,"start":"a"}'), /^invalid continue token: continue key is not valid: server does not recognize this encoded version x$/],
    ['rv 0', b64('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'), /^invalid continue token: continue key is not valid: incorrect encoded start resourceVersion \(version meta\.k8s\.io\/v1\)$/],
    ['an empty start key', b64('{"v":"meta.k8s.io/v1","rv":5,"start":""}'), /^invalid continue token: continue key is not valid: encoded start key empty \(version meta\.k8s\.io\/v1\)$/],
  ])('a malformed continue token (%s) is a 400', async (_what, token, message) => {
    const r = await srv.request('GET', `${cms}?limit=2&continue=${token}`);
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(body.message).toMatch(message);
    expect(body.details).toBeUndefined();
  });

  test('continue with a resourceVersion is a 400', async () => {
    const first = (await srv.request('GET', `${cms}?limit=2`)).json();
    expectStatus(
      await srv.request('GET', `${cms}?limit=2&resourceVersion=${first.metadata.resourceVersion}&continue=${encodeURIComponent(first.metadata.continue)}`),
      failure(400, 'BadRequest', 'specifying resource version is not allowed when using continue'),
    );
  });

  test('resourceVersionMatch without resourceVersion is a 422 on ListOptions', async () => {
    const detail = 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided';
    expectStatus(
      await srv.request('GET', `${cms}?resourceVersionMatch=NotOlderThan`),
      failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: ${detail}`, {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        causes: [cause('FieldValueForbidden', 'resourceVersionMatch', detail)],
      }),
    );
  });
});
