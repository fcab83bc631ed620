/**
 * Large YAML bodies are decoded in a worker thread (endpoints/yaml-worker.ts): a thread that dies
 * fails only its request with a 500, and the server goes on serving — the next large body gets a
 * fresh thread.
 */
import { startTestEtcd, TestEtcd } from '../support/etcd';
import { startTestServer, TestServer } from '../support/api-server';
import { stopYamlWorkers, yamlWorkerLimits, yamlWorkerThreshold } from '../../src/endpoints/yaml-worker';

let etcd: TestEtcd;
let srv: TestServer;
const ns = 'yaml-worker';
const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
const yamlHeaders = { 'content-type': 'application/yaml' };
const saved = { ...yamlWorkerLimits };

beforeAll(async () => {
  etcd = await startTestEtcd();
  srv = await startTestServer({ etcdEndpoints: etcd.endpoints });
  const r = await srv.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  expect(r.status).toBe(201);
});
afterAll(async () => {
  Object.assign(yamlWorkerLimits, saved);
  await stopYamlWorkers();
  await srv?.stop();
  await etcd?.stop();
});

/** A ConfigMap of about `size` characters: worker-sized when size ≥ the threshold. */
function bigConfigMap(name: string, size: number): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, 'data:'];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const l = `  key${i}: "value ${i}"`;
    lines.push(l);
    n += l.length + 1;
  }
  return lines.join('\n') + '\n';
}

test('a large body is decoded in the worker and stored', async () => {
  const body = bigConfigMap('big', yamlWorkerThreshold + 1000);
  expect((await srv.request('POST', configmaps, { body, headers: yamlHeaders })).status).toBe(201);
  const r = await srv.request('GET', `${configmaps}/big`);
  expect((r.json() as { data: Record<string, string> }).data.key1234).toBe('value 1234');
});

test('a decoder thread that dies: 500 for its request, the server and later requests unaffected', async () => {
  await stopYamlWorkers();
  // Too small a heap for the thread to live: it dies as it takes the body.
  yamlWorkerLimits.maxOldGenerationSizeMb = 4;
  const body = bigConfigMap('crash', yamlWorkerThreshold + 1000);
  const r = await srv.request('POST', configmaps, { body, headers: yamlHeaders });
  expect(r.status).toBe(500);
  expect(r.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
  expect((await srv.request('GET', `${configmaps}/crash`)).status).toBe(404);

  Object.assign(yamlWorkerLimits, saved);
  expect((await srv.request('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
  expect((await srv.request('POST', configmaps, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: small\n', headers: yamlHeaders })).status).toBe(201);
  expect((await srv.request('POST', configmaps, { body, headers: yamlHeaders })).status).toBe(201);
});
