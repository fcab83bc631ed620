/**
 * ResourceQuota's limitedResources on a running server, configured as kube-apiserver is: a
 * ResourceQuotaConfiguration embedded in the --admission-control-config-file AdmissionConfiguration.
 * Consuming a limited resource name, or matching a limited scope, needs a covering quota in the
 * namespace (kube's way of keeping the system-critical classes to namespaces given a quota for them).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestServer } from '../support/api-server';
import { expectStatus, failure } from '../support/kube-status';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-rq-'));
const configFile = path.join(dir, 'admission.yaml');
writeFileSync(
  configFile,
  `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ResourceQuota
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ResourceQuotaConfiguration
    limitedResources:
    - resource: pods
      matchContains: [requests.memory]
    - resource: pods
      matchScopes:
      - scopeName: PriorityClass
        operator: In
        values: [system-node-critical, system-cluster-critical]
`,
);

const { srv } = useTestServer({ admission: { configFile } });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pod = (name: string, spec: Record<string, unknown> = {}, requests?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'busybox', ...(requests ? { resources: { requests } } : {}) }], ...spec },
});
const createPod = (ns: string, name: string, spec: Record<string, unknown> = {}, requests?: Record<string, string>) =>
  srv.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(name, spec, requests) });

async function awaitUsed(s: TestServer, ns: string, name: string, used: Record<string, string>): Promise<void> {
  let last: unknown;
  await until(() => `status.used of ${ns}/${name} = ${JSON.stringify(used)} (last ${JSON.stringify(last)})`, async () => {
    last = (await s.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json().status?.used;
    return JSON.stringify(last ?? null) === JSON.stringify(used);
  });
}

const ns = 'limited';
const critical = 'critical';
beforeAll(async () => {
  await srv.server.systemPriorityClassesBootstrapped();
  for (const name of [ns, critical]) expect((await srv.kubectl(['create', 'namespace', name])).code).toBe(0);
});

test('a limited resource name needs a quota limiting it, even in a namespace with no quota', async () => {
  const r = await srv.kubectl(['-n', ns, 'create', '-f', '-'], { input: JSON.stringify(pod('hungry', {}, { memory: '64Mi' })) });
  expect(r.code).toBe(1);
  expect(r.stderr).toBe('Error from server (Forbidden): error when creating "STDIN": pods "hungry" is forbidden: insufficient quota to consume: requests.memory\n');
  // Consuming other names is free.
  expect((await createPod(ns, 'cpu-only', {}, { cpu: '10m' })).status).toBe(201);
  expect((await srv.kubectl(['-n', ns, 'run', 'besteffort', '--image=busybox'])).code).toBe(0);
  // A quota that matches but limits something else does not cover it.
  expect((await srv.kubectl(['-n', ns, 'create', 'quota', 'cpu', '--hard=requests.cpu=1'])).code).toBe(0);
  await awaitUsed(srv, ns, 'cpu', { 'requests.cpu': '10m' });
  expect((await createPod(ns, 'hungry', {}, { cpu: '10m', memory: '64Mi' })).json().message).toBe('pods "hungry" is forbidden: insufficient quota to consume: requests.memory');
  expect((await srv.kubectl(['-n', ns, 'create', 'quota', 'memory', '--hard=requests.memory=1Gi'])).code).toBe(0);
  await awaitUsed(srv, ns, 'memory', { 'requests.memory': '0' });
  expect((await createPod(ns, 'hungry', {}, { cpu: '10m', memory: '64Mi' })).status).toBe(201);
  expect((await srv.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/memory`)).json().status.used).toEqual({ 'requests.memory': '64Mi' });
});

test('a limited scope needs a quota with that scope: kube’s plain 500 until there is one', async () => {
  // A plain Go error from admission: kube's Status has no reason.
  const { reason: _none, ...plain } = failure(500, '', 'insufficient quota to match these scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]');
  expectStatus(await createPod(critical, 'critical', { priorityClassName: 'system-cluster-critical' }), plain);
  // A pod of another class is not limited.
  expect((await srv.kubectl(['create', 'priorityclass', 'ordinary', '--value=10'])).code).toBe(0);
  expect((await createPod(critical, 'ordinary', { priorityClassName: 'ordinary' })).status).toBe(201);
  const quota = {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'critical-pods' },
    spec: { hard: { pods: '10' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['system-node-critical', 'system-cluster-critical'] }] } },
  };
  expect((await srv.kubectl(['-n', critical, 'create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
  await awaitUsed(srv, critical, 'critical-pods', { pods: '0' });
  const created = await createPod(critical, 'critical', { priorityClassName: 'system-cluster-critical' });
  expect(created.status).toBe(201);
  expect(created.json().spec.priority).toBe(2000000000);
  expect((await srv.request('GET', `/api/v1/namespaces/${critical}/resourcequotas/critical-pods`)).json().status.used).toEqual({ pods: '1' });
});
