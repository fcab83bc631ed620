/**
 * A @kubernetes/client-node informer (list-then-watch) stays exactly in sync with the server through
 * creates, updates and deletes, an etcd restart, a server restart, and a forced 410 (it relists).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, TestServer } from '../support/api-server';
import { useTestEtcd } from '../support/server-fixture';
import { until } from '../support/until';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

type K8s = typeof K8sModule;

let k8s: K8s;
let dir: string;
let srv: TestServer;
const prefix = '/registry-informer';
const token = 'informer-test-token';

// Own server lifecycle: the test stops the server and starts it again (same port, certificates, token).
const etcd = useTestEtcd({
  beforeStop: async () => {
    await srv?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  },
});
beforeAll(async () => {
  k8s = await import('@kubernetes/client-node');
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-informer-'));
  srv = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix, certDir: path.join(dir, 'pki'), token });
});

/** The same server again: same etcd, prefix, port, certificates and token, so clients keep working. */
function restartServer(port: number): Promise<TestServer> {
  return startTestServer({ etcdEndpoints: etcd.endpoints, prefix, certDir: path.join(dir, 'pki'), token, port });
}

async function secret(s: TestServer, method: 'POST' | 'PUT' | 'DELETE', name: string, value = 'v'): Promise<void> {
  const p = method === 'POST' ? '/api/v1/namespaces/inf/secrets' : `/api/v1/namespaces/inf/secrets/${name}`;
  const body = method === 'DELETE' ? undefined : { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { k: value } };
  const r = await s.request(method, p, { body });
  expect(r.status).toBeLessThan(300);
}

/** Awaits the informer's cache equal to the server's list (names and resourceVersions). */
async function inSync(informer: { list(): ReadonlyArray<{ metadata?: { name?: string; resourceVersion?: string } }> }, s: TestServer): Promise<string[]> {
  let seen: string[] = [];
  let truth: string[] = [];
  return until(
    () => `the informer in sync:\n seen  ${seen.join(' ')}\n truth ${truth.join(' ')}`,
    async () => {
      truth = (await s.request('GET', '/api/v1/namespaces/inf/secrets')).json().items.map(
        (i: { metadata: { name: string; resourceVersion: string } }) => `${i.metadata.name}@${i.metadata.resourceVersion}`,
      ) as string[];
      seen = informer
        .list()
        .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
        .sort();
      return JSON.stringify(seen) === JSON.stringify([...truth].sort()) && seen;
    },
    { timeoutMs: 15_000 },
  );
}

test('informer stays in sync through writes, an etcd restart, a server restart and a forced 410', async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'inf' } } })).status).toBe(201);
  await secret(srv, 'POST', 'a');

  const kc = new k8s.KubeConfig();
  kc.loadFromFile(srv.kubeconfig);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, '/api/v1/namespaces/inf/secrets', () => api.listNamespacedSecret({ namespace: 'inf' }));
  let relists = 0;
  let stopped = false;
  // Informers stop on a broken connection; their owner restarts them (as controllers do).
  informer.on('error', () => {
    if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 100);
  });
  informer.on('connect', () => relists++);
  await informer.start();
  try {
    // 1. ordinary writes
    await secret(srv, 'POST', 'b');
    await secret(srv, 'PUT', 'a', 'changed');
    await secret(srv, 'DELETE', 'b');
    expect(await inSync(informer, srv)).toHaveLength(1);

    // 2. etcd restart: the server's watch resumes; writes after it reach the informer
    await etcd.kill();
    await etcd.restart();
    await until('the server to recover from the etcd restart (/readyz 200)', async () => (await srv.request('GET', '/readyz')).status === 200, { timeoutMs: 15_000 });
    await secret(srv, 'POST', 'c');
    await secret(srv, 'PUT', 'a', 'again');
    expect(await inSync(informer, srv)).toHaveLength(2);

    // 3. server restart with a forced 410: while the server is down the state changes and etcd
    // compacts past the informer's resourceVersion, so its re-watch gets 410 and it relists.
    const port = srv.port;
    await srv.stop();
    const other = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix });
    try {
      await secret(other, 'DELETE', 'c');
      await secret(other, 'POST', 'd');
      await secret(other, 'PUT', 'a', 'while-down');
      await other.etcdStore.etcd.kv.compact({ revision: String(await other.etcdStore.currentRevision()), physical: true });
    } finally {
      await other.stop();
    }
    const relistsBefore = relists;
    srv = await restartServer(port);
    const final = await inSync(informer, srv);
    expect(final.map((x) => x.split('@')[0])).toEqual(['a', 'd']);
    expect(relists).toBeGreaterThan(relistsBefore);
  } finally {
    stopped = true;
    await informer.stop();
  }
});
