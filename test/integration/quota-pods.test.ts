/**
 * ResourceQuota over pods through kubectl and HTTP (issue 26, seed 001): compute quotas charged at
 * admission (requests defaulted from limits), kube's 403s for exceeded quotas and for containers
 * missing what a quota requires, each scope and a PriorityClass scopeSelector, usage shown by
 * `kubectl describe quota` and `get quota -o yaml`, and usage released when a pod is deleted or
 * its status turns Succeeded (the quota controller's replenishment).
 */
import { TestServer } from '../support/api-server';
import { expectStatus, failure } from '../support/kube-status';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

const { srv } = useTestServer();

async function awaitUsed(s: TestServer, ns: string, name: string, used: Record<string, string>): Promise<void> {
  let last: unknown;
  await until(() => `status.used of ${ns}/${name} = ${JSON.stringify(used)} (last ${JSON.stringify(last)})`, async () => {
    const q = (await s.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json();
    last = q.status?.used;
    return JSON.stringify(q.status?.used ?? null) === JSON.stringify(used);
  });
}

const usedNow = async (ns: string, name: string) => (await srv.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json().status.used;

interface PodOpts {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
  spec?: Record<string, unknown>;
}
const pod = (name: string, o: PodOpts = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    containers: [{ name: 'app', image: 'busybox', resources: { ...(o.requests ? { requests: o.requests } : {}), ...(o.limits ? { limits: o.limits } : {}) } }],
    ...(o.spec ?? {}),
  },
});
const createPod = (ns: string, name: string, o: PodOpts = {}) => srv.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(name, o) });
const kubectlCreate = (ns: string, obj: unknown) => srv.kubectl(['-n', ns, 'create', '-f', '-'], { input: JSON.stringify(obj) });

describe('compute quota', () => {
  const ns = 'qpods';
  beforeAll(async () => {
    expect((await srv.kubectl(['create', 'namespace', ns])).code).toBe(0);
    const r = await srv.kubectl(['-n', ns, 'create', 'quota', 'compute', '--hard=pods=3,requests.cpu=1,limits.cpu=2,requests.memory=1Gi,limits.memory=2Gi']);
    expect(r).toMatchObject({ code: 0, stdout: 'resourcequota/compute created\n' });
    await awaitUsed(srv, ns, 'compute', { 'limits.cpu': '0', 'limits.memory': '0', pods: '0', 'requests.cpu': '0', 'requests.memory': '0' });
  });

  test('a pod naming no cpu or memory is refused with kube’s failed-quota 403', async () => {
    const r = await kubectlCreate(ns, pod('bare'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: app; limits.memory for: app; requests.cpu for: app; requests.memory for: app',
    );
    expectStatus(
      await createPod(ns, 'half', { requests: { cpu: '100m', memory: '64Mi' } }),
      failure(403, 'Forbidden', 'pods "half" is forbidden: failed quota: compute: must specify limits.cpu for: app; limits.memory for: app', { name: 'half', kind: 'pods' }),
    );
  });

  test('limits alone are enough (requests default to them) and are charged at once', async () => {
    const r = await kubectlCreate(ns, pod('p1', { limits: { cpu: '500m', memory: '512Mi' } }));
    expect(r).toMatchObject({ code: 0, stdout: 'pod/p1 created\n' });
    expect(await usedNow(ns, 'compute')).toEqual({ 'limits.cpu': '500m', 'limits.memory': '512Mi', pods: '1', 'requests.cpu': '500m', 'requests.memory': '512Mi' });
  });

  test('a pod over the quota is refused with kube’s exceeded-quota 403', async () => {
    const r = await kubectlCreate(ns, pod('p2', { requests: { cpu: '600m', memory: '100Mi' }, limits: { cpu: '600m', memory: '100Mi' } }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (Forbidden): error when creating "STDIN": pods "p2" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=500m, limited: requests.cpu=1');
    // Dry-run is checked the same way and charges nothing.
    const dry = await srv.kubectl(['-n', ns, 'create', '-f', '-', '--dry-run=server'], { input: JSON.stringify(pod('p3', { limits: { cpu: '200m', memory: '100Mi' } })) });
    expect(dry).toMatchObject({ code: 0, stdout: 'pod/p3 created (server dry run)\n' });
    expect((await usedNow(ns, 'compute'))['requests.cpu']).toBe('500m');
  });

  test('kubectl describe quota and get -o yaml show the usage', async () => {
    const describe = await srv.kubectl(['-n', ns, 'describe', 'quota', 'compute']);
    expect(describe.stdout.split('\n').map((l) => l.trimEnd())).toEqual([
      'Name:            compute',
      'Namespace:       qpods',
      'Resource         Used   Hard',
      '--------         ----   ----',
      'limits.cpu       500m   2',
      'limits.memory    512Mi  2Gi',
      'pods             1      3',
      'requests.cpu     500m   1',
      'requests.memory  512Mi  1Gi',
      '',
    ]);
    const yaml = await srv.kubectl(['-n', ns, 'get', 'quota', 'compute', '-o', 'yaml']);
    expect(yaml.stdout).toContain(['  used:', '    limits.cpu: 500m', '    limits.memory: 512Mi', '    pods: "1"', '    requests.cpu: 500m', '    requests.memory: 512Mi'].join('\n'));
  });

  test('a pod whose status turns Succeeded frees its usage', async () => {
    const r = await srv.kubectl(['-n', ns, 'patch', 'pod', 'p1', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Succeeded"}}']);
    expect(r).toMatchObject({ code: 0, stdout: 'pod/p1 patched\n' });
    await awaitUsed(srv, ns, 'compute', { 'limits.cpu': '0', 'limits.memory': '0', pods: '0', 'requests.cpu': '0', 'requests.memory': '0' });
    expect((await createPod(ns, 'p4', { limits: { cpu: '1', memory: '1Gi' } })).status).toBe(201);
    expect(await usedNow(ns, 'compute')).toEqual({ 'limits.cpu': '1', 'limits.memory': '1Gi', pods: '1', 'requests.cpu': '1', 'requests.memory': '1Gi' });
  });

  test('a deleted pod frees its usage', async () => {
    expect((await srv.kubectl(['-n', ns, 'delete', 'pod', 'p4'])).code).toBe(0);
    await awaitUsed(srv, ns, 'compute', { 'limits.cpu': '0', 'limits.memory': '0', pods: '0', 'requests.cpu': '0', 'requests.memory': '0' });
    // The finished pod is still stored: count/pods would count it, pods does not.
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods`)).json().items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['p1']);
  });
});

describe('scopes', () => {
  const ns = 'qscopes';
  beforeAll(async () => {
    expect((await srv.kubectl(['create', 'namespace', ns])).code).toBe(0);
    // The classes the PriorityClass scope tests name: kube's Priority plugin refuses a pod naming a missing one.
    for (const [name, value] of [['high', '1000'], ['low', '10']] as const) expect((await srv.kubectl(['create', 'priorityclass', name, `--value=${value}`])).code).toBe(0);
    for (const [name, hard, scopes] of [
      ['besteffort', 'pods=1', 'BestEffort'],
      ['notbesteffort', 'pods=5,requests.cpu=1', 'NotBestEffort'],
      ['terminating', 'pods=1,count/pods=1', 'Terminating'],
    ] as const) {
      expect((await srv.kubectl(['-n', ns, 'create', 'quota', name, `--hard=${hard}`, `--scopes=${scopes}`])).code).toBe(0);
    }
    const high = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'high' },
      spec: { hard: { pods: '1' }, scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
    };
    expect((await kubectlCreate(ns, high)).code).toBe(0);
    await awaitUsed(srv, ns, 'besteffort', { pods: '0' });
    await awaitUsed(srv, ns, 'notbesteffort', { pods: '0', 'requests.cpu': '0' });
    await awaitUsed(srv, ns, 'terminating', { 'count/pods': '0', pods: '0' });
    await awaitUsed(srv, ns, 'high', { pods: '0' });
  });

  test('BestEffort limits only pods asking nothing', async () => {
    expect((await srv.kubectl(['-n', ns, 'run', 'be1', '--image=busybox'])).code).toBe(0);
    const r = await srv.kubectl(['-n', ns, 'run', 'be2', '--image=busybox']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pods "be2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1');
    expect(await usedNow(ns, 'notbesteffort')).toEqual({ pods: '0', 'requests.cpu': '0' });
  });

  test('NotBestEffort limits the others (and requires their cpu requests)', async () => {
    expect((await createPod(ns, 'nbe1', { requests: { cpu: '800m' } })).status).toBe(201);
    expect(await usedNow(ns, 'notbesteffort')).toEqual({ pods: '1', 'requests.cpu': '800m' });
    expect((await createPod(ns, 'nbe2', { requests: { cpu: '300m' } })).json().message).toBe(
      'pods "nbe2" is forbidden: exceeded quota: notbesteffort, requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1',
    );
    expect((await createPod(ns, 'nbe3', { requests: { memory: '1Mi' } })).json().message).toBe('pods "nbe3" is forbidden: failed quota: notbesteffort: must specify requests.cpu for: app');
  });

  test('Terminating limits pods with activeDeadlineSeconds, count/pods included', async () => {
    // Small cpu requests keep these pods NotBestEffort well inside that quota's room.
    const job = (name: string) => createPod(ns, name, { requests: { cpu: '10m' }, spec: { activeDeadlineSeconds: 60 } });
    expect((await job('t1')).status).toBe(201);
    expect(await usedNow(ns, 'terminating')).toEqual({ 'count/pods': '1', pods: '1' });
    expect((await job('t2')).json().message).toBe('pods "t2" is forbidden: exceeded quota: terminating, requested: count/pods=1,pods=1, used: count/pods=1,pods=1, limited: count/pods=1,pods=1');
  });

  test('a PriorityClass scopeSelector and scopes must both match', async () => {
    const withClass = (name: string, spec: Record<string, unknown> = {}) => createPod(ns, name, { requests: { cpu: '10m' }, spec: { priorityClassName: 'high', ...spec } });
    expect((await withClass('h1')).status).toBe(201);
    expect(await usedNow(ns, 'high')).toEqual({ pods: '1' });
    expect((await withClass('h2')).json().message).toBe('pods "h2" is forbidden: exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1');
    // Another class is not limited by it, nor is a terminating pod of that class (NotTerminating).
    expect((await createPod(ns, 'low', { requests: { cpu: '10m' }, spec: { priorityClassName: 'low' } })).status).toBe(201);
    expect((await srv.request('DELETE', `/api/v1/namespaces/${ns}/resourcequotas/terminating`)).status).toBe(200);
    expect((await withClass('h3', { activeDeadlineSeconds: 30 })).status).toBe(201);
    expect(await usedNow(ns, 'high')).toEqual({ pods: '1' });
  });

  test('the controller recalculates scoped usage and releases it on delete', async () => {
    expect(await usedNow(ns, 'notbesteffort')).toEqual({ pods: '5', 'requests.cpu': '840m' });
    expect((await srv.kubectl(['-n', ns, 'delete', 'pod', 'h1', 't1', 'be1', 'h3'])).code).toBe(0);
    await awaitUsed(srv, ns, 'high', { pods: '0' });
    await awaitUsed(srv, ns, 'besteffort', { pods: '0' });
    // nbe1 and low remain, both NotBestEffort.
    await awaitUsed(srv, ns, 'notbesteffort', { pods: '2', 'requests.cpu': '810m' });
  });

  test('kube refuses scopes on resources they cannot limit', async () => {
    const r = await srv.kubectl(['-n', ns, 'create', 'quota', 'bad', '--hard=requests.cpu=1', '--scopes=BestEffort']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ResourceQuota "bad" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource');
  });
});
