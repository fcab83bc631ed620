/**
 * ResourceQuota through kubectl and HTTP (seed 001, kube-facts §1.7, §6): validation and canonical
 * quantities, status mirrored by the in-process quota controller, enforcement by the admission
 * plugin with kube's 403, atomic charging under 50 concurrent creates (one and two servers),
 * replenishment after deletes and convergence after a restart.
 */
import { startTestServer, TestServer } from '../support/api-server';
import { configMap, secret } from '../support/factories';
import { expectStatus, failure } from '../support/kube-status';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';
import { EtcdStore } from '../../src/storage';

const { srv, etcd } = useTestServer();

/** Waits until the quota's status.used equals `used` (the controller works asynchronously). */
async function awaitUsed(s: TestServer, ns: string, name: string, used: Record<string, string>): Promise<Record<string, unknown>> {
  let last: unknown;
  return until(() => `status.used of ${ns}/${name} = ${JSON.stringify(used)} (last ${JSON.stringify(last)})`, async () => {
    const q = (await s.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json();
    last = q.status?.used;
    return JSON.stringify(q.status?.used ?? null) === JSON.stringify(used) ? (q as Record<string, unknown>) : undefined;
  });
}

async function createNamespace(s: TestServer, name: string): Promise<void> {
  expect((await s.kubectl(['create', 'namespace', name])).code).toBe(0);
}

describe('validation and canonical quantities', () => {
  beforeAll(() => createNamespace(srv, 'qv'));

  test('kubectl create quota stores canonical quantities in spec and status', async () => {
    const r = await srv.kubectl(['-n', 'qv', 'create', 'quota', 'canon', '--hard=requests.memory=1024Mi,requests.cpu=0.5,limits.cpu=2000m,secrets=10']);
    expect(r).toMatchObject({ code: 0, stdout: 'resourcequota/canon created\n' });
    const q = await awaitUsed(srv, 'qv', 'canon', { 'limits.cpu': '0', 'requests.cpu': '0', 'requests.memory': '0', secrets: '0' });
    expect(q.spec).toEqual({ hard: { 'limits.cpu': '2', 'requests.cpu': '500m', 'requests.memory': '1Gi', secrets: '10' } });
    expect((q.status as Record<string, unknown>).hard).toEqual({ 'limits.cpu': '2', 'requests.cpu': '500m', 'requests.memory': '1Gi', secrets: '10' });
  });

  test('kubectl get quota and describe quota show used/hard as kube prints them', async () => {
    const get = await srv.kubectl(['-n', 'qv', 'get', 'quota', 'canon']);
    expect(get.stdout).toMatch(/^NAME\s+AGE\s+REQUEST\s+LIMIT\n/);
    expect(get.stdout).toMatch(/^canon\s+\d+s\s+requests\.cpu: 0\/500m, requests\.memory: 0\/1Gi, secrets: 0\/10\s+limits\.cpu: 0\/2\n$/m);
    const describe = await srv.kubectl(['-n', 'qv', 'describe', 'quota', 'canon']);
    expect(describe.stdout.split('\n').map((l) => l.trimEnd())).toEqual([
      'Name:            canon',
      'Namespace:       qv',
      'Resource         Used  Hard',
      '--------         ----  ----',
      'limits.cpu       0     2',
      'requests.cpu     0     500m',
      'requests.memory  0     1Gi',
      'secrets          0     10',
      '',
    ]);
  });

  test.each([
    [
      'a name that is neither standard nor qualified',
      { hard: { foo: '1' } },
      'ResourceQuota "bad" is invalid: [spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified, spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota]',
    ],
    ['a standard resource that quota does not track', { hard: { storage: '1' } }, 'ResourceQuota "bad" is invalid: spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota'],
    ['a negative quantity', { hard: { 'requests.cpu': '-1' } }, 'ResourceQuota "bad" is invalid: spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0'],
    [
      'a fractional object count',
      { hard: { secrets: '1500m' } },
      'ResourceQuota "bad" is invalid: spec.hard[secrets]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer',
    ],
    ['conflicting scopes', { hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] }, 'ResourceQuota "bad" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes'],
    [
      'a scope applied to a resource it cannot limit',
      { hard: { 'requests.cpu': '1' }, scopes: ['BestEffort'] },
      'ResourceQuota "bad" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource',
    ],
    [
      'In without values',
      { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } },
      "ResourceQuota \"bad\" is invalid: spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
    ],
    [
      'Exists with values',
      { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists', values: ['high'] }] } },
      "ResourceQuota \"bad\" is invalid: spec.scopeSelector.matchExpressions.values: Invalid value: []string{\"high\"}: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
    ],
    [
      'a bad operator',
      { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Like', values: ['x'] }] } },
      'ResourceQuota "bad" is invalid: spec.scopeSelector.matchExpressions.operator: Invalid value: "Like": not a valid selector operator',
    ],
  ])('422 for %s', async (_what, spec, message) => {
    const r = await srv.request('POST', '/api/v1/namespaces/qv/resourcequotas', { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'bad' }, spec } });
    expect(r.status).toBe(422);
    expect(r.json().message).toBe(message);
  });

  test('kubectl reports kube’s message for conflicting scopes', async () => {
    const r = await srv.kubectl(['-n', 'qv', 'create', 'quota', 'scoped', '--hard=pods=1', '--scopes=BestEffort,NotBestEffort']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ResourceQuota "scoped" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes');
  });

  test('spec.scopes cannot change on update', async () => {
    expect((await srv.kubectl(['-n', 'qv', 'create', 'quota', 'be', '--hard=pods=2', '--scopes=BestEffort'])).code).toBe(0);
    const r = await srv.request('PATCH', '/api/v1/namespaces/qv/resourcequotas/be', {
      body: { spec: { scopes: ['NotBestEffort'] } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(422);
    expect(r.json().message).toBe('ResourceQuota "be" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotBestEffort"}: field is immutable');
  });
});

describe('enforcement', () => {
  beforeAll(() => createNamespace(srv, 'qe'));

  test('secrets are counted and the third create is refused with kube’s 403', async () => {
    expect((await srv.kubectl(['-n', 'qe', 'create', 'quota', 'q', '--hard=secrets=2,count/widgets.example.com=3,pods=4'])).code).toBe(0);
    // The namespace has no pods yet, so pods reads 0; a count/ name of an unserved resource stays untracked.
    await awaitUsed(srv, 'qe', 'q', { pods: '0', secrets: '0' });
    for (const name of ['s1', 's2']) {
      expect((await srv.kubectl(['-n', 'qe', 'create', 'secret', 'generic', name, '--from-literal=a=b'])).code).toBe(0);
    }
    const kubectl = await srv.kubectl(['-n', 'qe', 'create', 'secret', 'generic', 's3', '--from-literal=a=b']);
    expect(kubectl.code).toBe(1);
    expect(kubectl.stderr).toContain('secrets "s3" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=2, limited: secrets=2');
    expectStatus(
      await srv.request('POST', '/api/v1/namespaces/qe/secrets', { body: secret('s4') }),
      failure(403, 'Forbidden', 'secrets "s4" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=2, limited: secrets=2', { name: 's4', kind: 'secrets' }),
    );
    expect((await srv.request('GET', '/api/v1/namespaces/qe/secrets')).json().items).toHaveLength(2);
    // Other kinds are not limited by this quota.
    expect((await srv.request('POST', '/api/v1/namespaces/qe/configmaps', { body: configMap('free') })).status).toBe(201);
  });

  test('generateName creates are refused with the generated name', async () => {
    const r = await srv.request('POST', '/api/v1/namespaces/qe/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'gen-' } } });
    expect(r.status).toBe(403);
    expect(r.json().message).toMatch(/^secrets "gen-[a-z0-9]{5}" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=2, limited: secrets=2$/);
  });

  test('a delete frees quota (replenishment) and the next create succeeds', async () => {
    expect((await srv.kubectl(['-n', 'qe', 'delete', 'secret', 's1'])).code).toBe(0);
    await awaitUsed(srv, 'qe', 'q', { pods: '0', secrets: '1' });
    expect((await srv.request('POST', '/api/v1/namespaces/qe/secrets', { body: secret('s5') })).status).toBe(201);
    expect((await srv.request('GET', '/api/v1/namespaces/qe/resourcequotas/q')).json().status.used.secrets).toBe('2');
  });

  test('count/<resource> and the legacy name both apply; every exceeded name is listed', async () => {
    await createNamespace(srv, 'qc');
    expect((await srv.kubectl(['-n', 'qc', 'create', 'quota', 'cm', '--hard=configmaps=1,count/configmaps=1'])).code).toBe(0);
    await awaitUsed(srv, 'qc', 'cm', { configmaps: '0', 'count/configmaps': '0' });
    expect((await srv.kubectl(['-n', 'qc', 'create', 'configmap', 'one', '--from-literal=a=b'])).code).toBe(0);
    expect((await srv.request('GET', '/api/v1/namespaces/qc/resourcequotas/cm')).json().status.used).toEqual({ configmaps: '1', 'count/configmaps': '1' });
    const r = await srv.kubectl(['-n', 'qc', 'create', 'configmap', 'two', '--from-literal=a=b']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'configmaps "two" is forbidden: exceeded quota: cm, requested: configmaps=1,count/configmaps=1, used: configmaps=1,count/configmaps=1, limited: configmaps=1,count/configmaps=1',
    );
  });

  test('resourcequotas count themselves; dry-run is checked but never charged', async () => {
    await createNamespace(srv, 'qq');
    expect((await srv.kubectl(['-n', 'qq', 'create', 'quota', 'meta', '--hard=resourcequotas=2'])).code).toBe(0);
    await awaitUsed(srv, 'qq', 'meta', { resourcequotas: '1' });
    const dry = await srv.kubectl(['-n', 'qq', 'create', 'quota', 'second', '--hard=secrets=1', '--dry-run=server']);
    expect(dry).toMatchObject({ code: 0, stdout: 'resourcequota/second created (server dry run)\n' });
    expect((await srv.request('GET', '/api/v1/namespaces/qq/resourcequotas/meta')).json().status.used).toEqual({ resourcequotas: '1' });
    expect((await srv.kubectl(['-n', 'qq', 'create', 'quota', 'second', '--hard=secrets=1'])).code).toBe(0);
    const third = await srv.kubectl(['-n', 'qq', 'create', 'quota', 'third', '--hard=secrets=1', '--dry-run=server']);
    expect(third.code).toBe(1);
    expect(third.stderr).toContain('resourcequotas "third" is forbidden: exceeded quota: meta, requested: resourcequotas=1, used: resourcequotas=2, limited: resourcequotas=2');
  });

  test('a quota with scopes never limits object counts', async () => {
    await createNamespace(srv, 'qs');
    expect((await srv.request('POST', '/api/v1/namespaces/qs/resourcequotas', {
      body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'scoped' }, spec: { hard: { 'count/secrets': '0' }, scopes: ['BestEffort'] } },
    })).status).toBe(201);
    await awaitUsed(srv, 'qs', 'scoped', { 'count/secrets': '0' });
    expect((await srv.request('POST', '/api/v1/namespaces/qs/secrets', { body: secret('allowed') })).status).toBe(201);
  });
});

describe('atomic charging', () => {
  const K = 5;

  async function race(servers: TestServer[], ns: string): Promise<number[]> {
    return Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (servers[i % servers.length] as TestServer).request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret(`r${i}`) }).then((r) => r.status),
      ),
    );
  }

  test(`50 parallel creates against a quota of ${K} store exactly ${K}`, async () => {
    await createNamespace(srv, 'race');
    expect((await srv.kubectl(['-n', 'race', 'create', 'quota', 'q', `--hard=secrets=${K}`])).code).toBe(0);
    await awaitUsed(srv, 'race', 'q', { secrets: '0' });
    const codes = await race([srv], 'race');
    expect(codes.filter((c) => c === 201)).toHaveLength(K);
    expect(codes.filter((c) => c !== 201).every((c) => c === 403)).toBe(true);
    expect((await srv.request('GET', '/api/v1/namespaces/race/secrets')).json().items).toHaveLength(K);
    expect((await srv.request('GET', '/api/v1/namespaces/race/resourcequotas/q')).json().status.used).toEqual({ secrets: String(K) });
  });

  test('two servers on one etcd never store more than the quota', async () => {
    const second = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix: srv.prefix });
    try {
      await createNamespace(srv, 'race2');
      expect((await srv.kubectl(['-n', 'race2', 'create', 'quota', 'q', `--hard=secrets=${K}`])).code).toBe(0);
      await awaitUsed(srv, 'race2', 'q', { secrets: '0' });
      await awaitUsed(second, 'race2', 'q', { secrets: '0' });
      const codes = await race([srv, second], 'race2');
      const stored = (await srv.request('GET', '/api/v1/namespaces/race2/secrets')).json().items.length as number;
      expect(stored).toBeLessThanOrEqual(K);
      expect(codes.filter((c) => c === 201)).toHaveLength(stored);
      // A losing compare-and-swap after kube's retries surfaces as 409, everything else as 403.
      expect(codes.filter((c) => c !== 201).every((c) => c === 403 || c === 409)).toBe(true);
      expect(Number((await srv.request('GET', '/api/v1/namespaces/race2/resourcequotas/q')).json().status.used.secrets)).toBeGreaterThanOrEqual(stored);
    } finally {
      await second.stop();
    }
  });
});

test('usage converges after a restart, including deletes made while no server ran', async () => {
  await createNamespace(srv, 'restart');
  expect((await srv.kubectl(['-n', 'restart', 'create', 'quota', 'q', '--hard=secrets=10,configmaps=10'])).code).toBe(0);
  await awaitUsed(srv, 'restart', 'q', { configmaps: '0', secrets: '0' });
  for (const n of ['a', 'b', 'c']) expect((await srv.request('POST', '/api/v1/namespaces/restart/secrets', { body: secret(n) })).status).toBe(201);
  await awaitUsed(srv, 'restart', 'q', { configmaps: '0', secrets: '3' });
  const prefix = srv.prefix;
  await srv.stop();

  // While no server runs, two secrets vanish and a configmap appears behind the quota's back.
  const raw = new EtcdStore({ endpoints: etcd.endpoints });
  try {
    await raw.delete(`${prefix}/secrets/restart/a`);
    await raw.delete(`${prefix}/secrets/restart/b`);
    await raw.create(`${prefix}/configmaps/restart/sneaky`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'sneaky', namespace: 'restart', uid: '00000000-0000-0000-0000-000000000001', creationTimestamp: '2025-01-01T00:00:00Z' },
    });
  } finally {
    await raw.close();
  }

  const restarted = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix });
  try {
    await awaitUsed(restarted, 'restart', 'q', { configmaps: '1', secrets: '1' });
    const describe = await restarted.kubectl(['-n', 'restart', 'describe', 'quota', 'q']);
    expect(describe.stdout).toMatch(/^configmaps\s+1\s+10$/m);
    expect(describe.stdout).toMatch(/^secrets\s+1\s+10$/m);
  } finally {
    await restarted.stop();
  }
});
