/**
 * Namespace lifecycle against the real server and etcd: system namespaces, the name label,
 * protected namespaces, two-phase deletion with the namespace controller, and the lifecycle
 * admission of a terminating namespace (kube-facts §7).
 */
import { useTestServer } from '../support/server-fixture';
import { expectStatus, failure } from '../support/kube-status';
import { namespace, secret } from '../support/factories';
import { until } from '../support/until';

const { srv } = useTestServer();

/** Awaits a GET answering 404 (the namespace controller works asynchronously). */
async function awaitGone(path: string): Promise<void> {
  let last = '';
  await until(() => `${path} to be gone (last answer: ${last})`, async () => {
    const r = await srv.request('GET', path);
    last = r.text;
    return r.status === 404;
  }, { timeoutMs: 15_000 });
}

test.each(['default', 'kube-system', 'kube-public', 'kube-node-lease'])('system namespace %s exists, Active, labelled', async (name) => {
  const r = await srv.request('GET', `/api/v1/namespaces/${name}`);
  expect(r.status).toBe(200);
  expect(r.json()).toMatchObject({
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
});

test('the name label is forced on create, on generateName and on update', async () => {
  const created = (await srv.request('POST', '/api/v1/namespaces', { body: { ...namespace('labelled'), metadata: { name: 'labelled', labels: { 'kubernetes.io/metadata.name': 'lie', a: 'b' } } } })).json();
  expect(created.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'labelled', a: 'b' });
  const gen = (await srv.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'gen-' } } })).json();
  expect(gen.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': gen.metadata.name });
  const put = await srv.request('PUT', '/api/v1/namespaces/labelled', { body: { ...created, metadata: { ...created.metadata, labels: {} } } });
  expect(put.json().metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'labelled' });
  // The main resource ignores status and spec.finalizers.
  const current = put.json() as Record<string, unknown>;
  const ignored = await srv.request('PUT', '/api/v1/namespaces/labelled', { body: { ...current, spec: { finalizers: [] }, status: { phase: 'Terminating' } } });
  expect(ignored.json()).toMatchObject({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
});

test.each(['default', 'kube-system', 'kube-public'])('DELETE of %s is forbidden', async (name) => {
  expectStatus(
    await srv.request('DELETE', `/api/v1/namespaces/${name}`),
    failure(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, { name, kind: 'namespaces' }),
  );
  expect((await srv.request('GET', `/api/v1/namespaces/${name}`)).json().status.phase).toBe('Active');
});

test('DELETE answers the Terminating namespace; the controller removes its content, then the namespace', async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: namespace('doomed') })).status).toBe(201);
  const secrets = '/api/v1/namespaces/doomed/secrets';
  // A finalizer keeps content (and so the namespace) alive until this test releases it.
  expect((await srv.request('POST', secrets, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'held', finalizers: ['example.com/hold'] } } })).status).toBe(201);
  expect((await srv.request('POST', secrets, { body: secret('free') })).status).toBe(201);

  const del = await srv.request('DELETE', '/api/v1/namespaces/doomed');
  expect(del.status).toBe(200);
  const ns = del.json();
  expect(ns).toMatchObject({ kind: 'Namespace', metadata: { name: 'doomed' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } });
  expect(ns.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  // Creating content in a terminating namespace is refused by the lifecycle admission.
  expectStatus(
    await srv.request('POST', secrets, { body: secret('late') }),
    failure(403, 'Forbidden', 'secrets "late" is forbidden: unable to create new content in namespace doomed because it is being terminated', {
      name: 'late',
      kind: 'secrets',
      causes: [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }],
    }),
  );

  await awaitGone(`${secrets}/free`);
  const held = (await srv.request('GET', `${secrets}/held`)).json();
  expect(held.metadata.deletionTimestamp).toEqual(expect.any(String));
  expect((await srv.request('GET', '/api/v1/namespaces/doomed')).json().status.phase).toBe('Terminating');

  // Updates stay allowed while terminating: releasing the finalizer lets everything go.
  const patch = await srv.request('PATCH', `${secrets}/held`, {
    body: { metadata: { finalizers: null } },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  expect(patch.status).toBe(200);
  await awaitGone(`${secrets}/held`);
  await awaitGone('/api/v1/namespaces/doomed');
  expect((await srv.request('GET', '/api/v1/secrets?fieldSelector=metadata.namespace%3Ddoomed')).json().items).toEqual([]);
});
