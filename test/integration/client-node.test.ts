/** @kubernetes/client-node 1.4 against the real server and a real etcd: CRUD, errors, an informer. */
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

type K8s = typeof K8sModule;
type V1Secret = K8sModule.V1Secret;

const { srv } = useTestServer();
let k8s: K8s;
let core: K8sModule.CoreV1Api;
let kc: K8sModule.KubeConfig;

beforeAll(async () => {
  k8s = await import('@kubernetes/client-node');
  kc = new k8s.KubeConfig();
  kc.loadFromFile(srv.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'cn' } } });
});

const mergePatch = () => k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** The ApiException a call rejects with, with its body parsed (client-node 1.4 keeps it as text). */
async function apiError(p: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof k8s.ApiException)) throw e;
    const err = e as InstanceType<K8s['ApiException']>;
    return { code: err.code, body: typeof err.body === 'string' ? JSON.parse(err.body) : err.body };
  }
  throw new Error('expected the call to fail');
}

describe('CoreV1Api CRUD', () => {
  test('secrets: create, read, list with labelSelector, replace, merge patch, delete', async () => {
    const created = await core.createNamespacedSecret({
      namespace: 'cn',
      body: { metadata: { name: 's1', labels: { app: 'a' } }, stringData: { user: 'admin' } },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.type).toBe('Opaque');
    expect(created.data).toEqual({ user: b64('admin') });
    await core.createNamespacedSecret({ namespace: 'cn', body: { metadata: { name: 's2', labels: { app: 'b' } } } });

    const read = await core.readNamespacedSecret({ name: 's1', namespace: 'cn' });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(read.metadata?.creationTimestamp).toBeInstanceOf(Date);

    const listed = await core.listNamespacedSecret({ namespace: 'cn', labelSelector: 'app=a' });
    expect(listed.items.map((s) => s.metadata?.name)).toEqual(['s1']);
    expect(listed.metadata?.resourceVersion).toMatch(/^\d+$/);

    const replaced = await core.replaceNamespacedSecret({
      name: 's1',
      namespace: 'cn',
      body: { ...read, data: { user: b64('root') } },
    });
    expect(replaced.data).toEqual({ user: b64('root') });
    expect(BigInt(replaced.metadata?.resourceVersion ?? '0')).toBeGreaterThan(BigInt(read.metadata?.resourceVersion ?? '0'));

    const patched = await core.patchNamespacedSecret(
      { name: 's1', namespace: 'cn', body: { metadata: { labels: { app: null, tier: 'web' } }, data: { extra: b64('x') } } },
      mergePatch(),
    );
    expect(patched.metadata?.labels).toEqual({ tier: 'web' });
    expect(patched.data).toEqual({ user: b64('root'), extra: b64('x') });

    const stale = await apiError(core.replaceNamespacedSecret({ name: 's1', namespace: 'cn', body: { ...read } }));
    expect(stale.code).toBe(409);
    expect(stale.body).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on secrets "s1": the object has been modified; please apply your changes to the latest version and try again',
    });

    // kube's generic store (ReturnDeletedObject unset for secrets) answers a Success Status with details.
    const deleted = await core.deleteNamespacedSecret({ name: 's1', namespace: 'cn' });
    expect(deleted).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: 's1', kind: 'secrets', uid: created.metadata?.uid } });
    const gone = await apiError(core.readNamespacedSecret({ name: 's1', namespace: 'cn' }));
    expect(gone).toEqual({
      code: 404,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'secrets "s1" not found',
        reason: 'NotFound',
        details: { name: 's1', kind: 'secrets' },
        code: 404,
      },
    });
  });

  test('configmaps: create, read, list with labelSelector, replace, merge patch, delete', async () => {
    await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'c1', labels: { k: 'v' } }, data: { a: '1' } } });
    await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'c2' }, binaryData: { b: b64('bin') } } });
    const read = await core.readNamespacedConfigMap({ name: 'c2', namespace: 'cn' });
    expect(read.binaryData).toEqual({ b: b64('bin') });
    expect((await core.listNamespacedConfigMap({ namespace: 'cn', labelSelector: 'k' })).items.map((c) => c.metadata?.name)).toEqual(['c1']);
    expect((await core.listNamespacedConfigMap({ namespace: 'cn', labelSelector: '!k' })).items.map((c) => c.metadata?.name)).toEqual(['c2']);

    const c1 = await core.readNamespacedConfigMap({ name: 'c1', namespace: 'cn' });
    const replaced = await core.replaceNamespacedConfigMap({ name: 'c1', namespace: 'cn', body: { ...c1, data: { a: '2' } } });
    expect(replaced.data).toEqual({ a: '2' });
    const patched = await core.patchNamespacedConfigMap({ name: 'c1', namespace: 'cn', body: { data: { a: null, b: '3' } } }, mergePatch());
    expect(patched.data).toEqual({ b: '3' });

    const dup = await apiError(core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'c1' } } }));
    expect(dup.code).toBe(409);
    expect(dup.body).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "c1" already exists', details: { name: 'c1', kind: 'configmaps' } });

    await core.deleteNamespacedConfigMap({ name: 'c1', namespace: 'cn' });
    await core.deleteNamespacedConfigMap({ name: 'c2', namespace: 'cn' });
    expect((await core.listNamespacedConfigMap({ namespace: 'cn' })).items).toEqual([]);
  });

  test('namespaces: create, read, list with labelSelector, replace, merge patch, delete', async () => {
    const created = await core.createNamespace({ body: { metadata: { name: 'cn-ns', labels: { team: 'x' } } } });
    expect(created.status?.phase).toBe('Active');
    expect(created.metadata?.labels).toMatchObject({ team: 'x', 'kubernetes.io/metadata.name': 'cn-ns' });
    const read = await core.readNamespace({ name: 'cn-ns' });
    expect(read.spec?.finalizers).toEqual(['kubernetes']);
    expect((await core.listNamespace({ labelSelector: 'team=x' })).items.map((n) => n.metadata?.name)).toEqual(['cn-ns']);
    const replaced = await core.replaceNamespace({ name: 'cn-ns', body: { ...read, metadata: { ...read.metadata, annotations: { a: 'b' } } } });
    expect(replaced.metadata?.annotations).toEqual({ a: 'b' });
    const patched = await core.patchNamespace({ name: 'cn-ns', body: { metadata: { labels: { team: 'y' } } } }, mergePatch());
    expect(patched.metadata?.labels?.team).toBe('y');

    const deleted = await core.deleteNamespace({ name: 'cn-ns' });
    // kube returns the namespace itself (phase Terminating) while its finalizers run; client-node
    // types the answer as V1Status, so only kind and apiVersion survive its deserialisation.
    expect(deleted).toMatchObject({ kind: 'Namespace', apiVersion: 'v1' });
    const invalid = await apiError(core.createNamespace({ body: { metadata: { name: 'Bad_Name' } } }));
    expect(invalid.code).toBe(422);
    expect(invalid.body).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { name: 'Bad_Name', kind: 'Namespace' } });
  });

  test('resourcequotas: create, read, list with labelSelector, replace, merge patch, delete', async () => {
    const created = await core.createNamespacedResourceQuota({
      namespace: 'cn',
      body: { metadata: { name: 'q1', labels: { tier: 'gold' } }, spec: { hard: { secrets: '10', 'limits.cpu': '2' } } },
    });
    expect(created.spec?.hard).toEqual({ secrets: '10', 'limits.cpu': '2' });
    const read = await core.readNamespacedResourceQuota({ name: 'q1', namespace: 'cn' });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    expect((await core.listNamespacedResourceQuota({ namespace: 'cn', labelSelector: 'tier in (gold,silver)' })).items.map((q) => q.metadata?.name)).toEqual(['q1']);
    // Unconditional (no resourceVersion): the quota controller writes status concurrently, as in kube.
    const replaced = await core.replaceNamespacedResourceQuota({
      name: 'q1',
      namespace: 'cn',
      body: { ...read, metadata: { ...read.metadata, resourceVersion: undefined }, spec: { hard: { secrets: '5' } } },
    });
    expect(replaced.spec?.hard).toEqual({ secrets: '5' });
    const patched = await core.patchNamespacedResourceQuota({ name: 'q1', namespace: 'cn', body: { spec: { hard: { configmaps: '3' } } } }, mergePatch());
    expect(patched.spec?.hard).toEqual({ secrets: '5', configmaps: '3' });
    await core.deleteNamespacedResourceQuota({ name: 'q1', namespace: 'cn' });
    const gone = await apiError(core.deleteNamespacedResourceQuota({ name: 'q1', namespace: 'cn' }));
    expect(gone.code).toBe(404);
    expect(gone.body).toMatchObject({ reason: 'NotFound', message: 'resourcequotas "q1" not found' });
  });

  test('an unknown namespace on create is a NotFound Status', async () => {
    const e = await apiError(core.createNamespacedSecret({ namespace: 'nope', body: { metadata: { name: 'x' } } }));
    expect(e.code).toBe(404);
    expect(e.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'namespaces "nope" not found' });
  });
});

describe('informer', () => {
  test('list-then-watch stays in sync through creates, updates and deletes', async () => {
    await core.createNamespace({ body: { metadata: { name: 'inf' } } });
    await core.createNamespacedSecret({ namespace: 'inf', body: { metadata: { name: 'pre' } } });

    const informer = k8s.makeInformer<V1Secret>(kc, '/api/v1/namespaces/inf/secrets', () => core.listNamespacedSecret({ namespace: 'inf' }));
    const seen: string[] = [];
    let recorded = (): void => undefined;
    const record = (verb: string) => (obj: V1Secret) => {
      seen.push(`${verb} ${obj.metadata?.name} ${obj.metadata?.resourceVersion}`);
      recorded();
    };
    const errors: unknown[] = [];
    informer.on('add', record('add'));
    informer.on('update', record('update'));
    informer.on('delete', record('delete'));
    informer.on('error', (e) => errors.push(e));
    const expectEvent = (want: string) =>
      until(() => `the informer's "${want}" event; saw ${JSON.stringify(seen)}`, () => seen.some((s) => s.startsWith(want)), {
        timeoutMs: 5000,
        wakeOn: (wake) => {
          recorded = wake;
          return () => (recorded = () => undefined);
        },
      });

    await informer.start();
    try {
      await expectEvent('add pre ');
      const a = await core.createNamespacedSecret({ namespace: 'inf', body: { metadata: { name: 'a' }, data: { k: b64('1') } } });
      await expectEvent(`add a ${a.metadata?.resourceVersion}`);
      const b = await core.createNamespacedSecret({ namespace: 'inf', body: { metadata: { name: 'b' } } });
      await expectEvent(`add b ${b.metadata?.resourceVersion}`);
      const a2 = await core.patchNamespacedSecret({ name: 'a', namespace: 'inf', body: { data: { k: b64('2') } } }, mergePatch());
      await expectEvent(`update a ${a2.metadata?.resourceVersion}`);
      await core.deleteNamespacedSecret({ name: 'pre', namespace: 'inf' });
      await expectEvent('delete pre ');
      const b2 = await core.replaceNamespacedSecret({
        name: 'b',
        namespace: 'inf',
        body: { ...(await core.readNamespacedSecret({ name: 'b', namespace: 'inf' })), data: { z: b64('z') } },
      });
      await expectEvent(`update b ${b2.metadata?.resourceVersion}`);

      expect(seen.map((s) => s.split(' ').slice(0, 2).join(' '))).toEqual(['add pre', 'add a', 'add b', 'update a', 'delete pre', 'update b']);
      const fresh = await core.listNamespacedSecret({ namespace: 'inf' });
      const key = (s: V1Secret) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`;
      expect(informer.list('inf').map(key).sort()).toEqual(fresh.items.map(key).sort());
      expect(informer.get('a', 'inf')?.data).toEqual({ k: b64('2') });
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });
});
