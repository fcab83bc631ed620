/**
 * DELETE of a ResourceQuota answers the ResourceQuota (kube's resourcequota storage sets
 * ReturnDeletedObject: true; seed 001 "200 or 202 ResourceQuota"), and the OpenAPI says so.
 * With a finalizer pending, kube's Store.Delete returns the object it marked (deletionTimestamp,
 * deletionGracePeriodSeconds 0), 200 — the same as for any type, Status-returning or not.
 */
import { useTestServer } from '../support/server-fixture';

const { srv } = useTestServer();
const ns = 'qdel';
const quotas = `/api/v1/namespaces/${ns}/resourcequotas`;
const quota = (name: string, finalizers?: string[]) => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, ...(finalizers ? { finalizers } : {}) },
  spec: { hard: { secrets: '5' } },
});

beforeAll(async () => {
  expect((await srv.kubectl(['create', 'namespace', ns])).code).toBe(0);
});

async function create(name: string, finalizers?: string[]): Promise<Record<string, any>> {
  const r = await srv.request('POST', quotas, { body: quota(name, finalizers) });
  expect(r.status).toBe(201);
  return r.json();
}

test('kubectl delete resourcequota works', async () => {
  expect((await srv.kubectl(['-n', ns, 'create', 'quota', 'k1', '--hard=secrets=3'])).code).toBe(0);
  const r = await srv.kubectl(['-n', ns, 'delete', 'resourcequota', 'k1']);
  expect(r).toMatchObject({ code: 0, stdout: 'resourcequota "k1" deleted\n' });
  expect((await srv.request('GET', `${quotas}/k1`)).status).toBe(404);
});

test('a raw DELETE answers the deleted ResourceQuota (JSON), without deletionTimestamp', async () => {
  const created = await create('raw');
  const r = await srv.request('DELETE', `${quotas}/raw`);
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('application/json');
  const body = r.json();
  expect(Object.keys(body)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  expect(body).toMatchObject({ kind: 'ResourceQuota', apiVersion: 'v1', spec: { hard: { secrets: '5' } } });
  expect(body.metadata).toMatchObject({ name: 'raw', namespace: ns, uid: created.metadata.uid, creationTimestamp: created.metadata.creationTimestamp });
  expect(body.metadata.resourceVersion).toEqual(expect.stringMatching(/^\d+$/));
  expect(body.metadata.deletionTimestamp).toBeUndefined();
  expect(body.metadata.deletionGracePeriodSeconds).toBeUndefined();
  expect((await srv.request('GET', `${quotas}/raw`)).status).toBe(404);
});

test('a dry-run DELETE answers the ResourceQuota and keeps it', async () => {
  const created = await create('dry');
  const r = await srv.request('DELETE', `${quotas}/dry?dryRun=All`);
  expect(r.status).toBe(200);
  expect(r.json()).toMatchObject({ kind: 'ResourceQuota', metadata: { name: 'dry', uid: created.metadata.uid } });
  expect((await srv.request('GET', `${quotas}/dry`)).status).toBe(200);
});

test('with a finalizer pending: 200 and the ResourceQuota marked for deletion; gone once the finalizer is removed', async () => {
  const created = await create('fin', ['example.com/keep']);
  const r = await srv.request('DELETE', `${quotas}/fin`);
  expect(r.status).toBe(200);
  const body = r.json();
  expect(body).toMatchObject({ kind: 'ResourceQuota', apiVersion: 'v1', metadata: { name: 'fin', uid: created.metadata.uid, finalizers: ['example.com/keep'], deletionGracePeriodSeconds: 0 } });
  expect(body.metadata.deletionTimestamp).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/));
  const still = await srv.request('GET', `${quotas}/fin`);
  expect(still.json().metadata.deletionTimestamp).toBe(body.metadata.deletionTimestamp);
  // A second DELETE answers the same marked object.
  const again = await srv.request('DELETE', `${quotas}/fin`);
  expect(again.status).toBe(200);
  expect(again.json().metadata.deletionTimestamp).toBe(body.metadata.deletionTimestamp);
  const patched = await srv.request('PATCH', `${quotas}/fin`, {
    body: { metadata: { finalizers: null } },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  expect(patched.status).toBe(200);
  expect((await srv.request('GET', `${quotas}/fin`)).status).toBe(404);
});

test('the OpenAPI documents DELETE of a ResourceQuota as answering the ResourceQuota (namespaces: Status)', async () => {
  const v2 = (await srv.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } })).json();
  const ref = (path: string) => Object.fromEntries(['200', '202'].map((c) => [c, v2.paths[path].delete.responses[c].schema.$ref]));
  expect(ref('/api/v1/namespaces/{namespace}/resourcequotas/{name}')).toEqual({
    '200': '#/definitions/io.k8s.api.core.v1.ResourceQuota',
    '202': '#/definitions/io.k8s.api.core.v1.ResourceQuota',
  });
  expect(ref('/api/v1/namespaces/{name}')['200']).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status');
  expect(ref('/api/v1/namespaces/{namespace}/secrets/{name}')['200']).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status');
  const v3 = (await srv.request('GET', '/openapi/v3/api/v1')).json();
  expect(v3.paths['/api/v1/namespaces/{namespace}/resourcequotas/{name}'].delete.responses['200'].content['application/json'].schema.$ref).toBe(
    '#/components/schemas/io.k8s.api.core.v1.ResourceQuota',
  );
});
