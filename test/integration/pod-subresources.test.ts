/**
 * The pods' subresources beyond status against the real server and etcd, as kube-apiserver 1.32
 * answers them with no scheduler or kubelet: binding (and the legacy bindings collection),
 * eviction, ephemeralcontainers (kubectl debug), log (kubectl logs), exec, attach, portforward and
 * proxy, their discovery and OpenAPI.
 */
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

const { srv } = useTestServer();

let n = 0;
const fresh = async (): Promise<string> => {
  const ns = `podsub-${process.pid}-${++n}`;
  const r = await srv.kubectl(['create', 'namespace', ns]);
  expect(r.stderr).toBe('');
  await until('the default service account', async () => (await srv.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  return ns;
};

const pod = (name: string, containers: string[] = ['app'], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })), ...extra },
});

const createPod = async (ns: string, body: Record<string, unknown>): Promise<Record<string, any>> => {
  const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, { body });
  expect(r.status).toBe(201);
  return r.json();
};

const binding = (name: string, node: string, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target: { kind: 'Node', name: node } });

describe('pods/binding', () => {
  test('binds a pod: nodeName, the binding annotations, PodScheduled; a second binding is kube 409', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-1', { annotations: { 'scheduler/by': 'test' } }) });
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const got = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json();
    expect(got.spec.nodeName).toBe('node-1');
    expect(got.metadata.annotations).toEqual({ 'scheduler/by': 'test' });
    expect(got.status.conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: expect.any(String) }]);

    const again = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-2') });
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"',
      details: { name: 'p', kind: 'pods/binding' },
    });
  });
});
