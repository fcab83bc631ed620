/** ResourceQuota admission (kube-facts §1.7, §6): matching, messages, charging, CAS retries, dry-run. */
import os from 'node:os';
import path from 'node:path';
import { ApiError, errors, KubeObject, RequestContext } from '../../../../src/api';
import { AdmissionAttributes, checkRequest, LimitedResource, objectCountResourceNames, QuotaAccessor, resourceQuota } from '../../../../src/admission';
import { loadResourceQuotaConfiguration } from '../../../../src/admission/plugins/resource-quota';

const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };
const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'secrets',
  subresource: '',
  kind: 'Secret',
  namespace: 'ns',
  name: 's',
  namespaced: true,
  dryRun: false,
  ...over,
});
const quota = (name: string, hard: Record<string, string>, used?: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'ns', resourceVersion: '1' }, spec: { hard, ...spec }, status: { hard, ...(used ? { used } : {}) } }) as KubeObject;
const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as ApiError).status;
  }
  return undefined;
};

test.each([
  ['', 'secrets', ['count/secrets', 'secrets']],
  ['', 'resourcequotas', ['count/resourcequotas', 'resourcequotas']],
  ['', 'events', ['count/events']],
  ['apps', 'deployments', ['count/deployments.apps']],
])('objectCountResourceNames(%j, %s)', (group, resource, expected) => {
  expect(objectCountResourceNames(group, resource)).toEqual(expected);
});

describe('checkRequest', () => {
  test('charges every matching quota, masked to its hard names', () => {
    const out = checkRequest([quota('a', { secrets: '3' }, { secrets: '1' }), quota('b', { 'count/secrets': '5', pods: '1' }, { 'count/secrets': '0', pods: '0' })], attrs());
    expect(out.map((q) => (q.status as { used: unknown }).used)).toEqual([{ secrets: '2' }, { 'count/secrets': '1', pods: '0' }]);
  });

  test('exceeded: kube’s message and 403 details', () => {
    expect(message(() => checkRequest([quota('q', { secrets: '2', 'count/secrets': '9' }, { secrets: '2', 'count/secrets': '2' })], attrs({ name: 's3' })))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'secrets "s3" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=2, limited: secrets=2',
      reason: 'Forbidden',
      details: { name: 's3', kind: 'secrets' },
      code: 403,
    });
  });

  test('other groups use <group>-qualified names and their GR in the message', () => {
    const st = message(() => checkRequest([quota('q', { 'count/widgets.example.com': '0' }, { 'count/widgets.example.com': '0' })], attrs({ group: 'example.com', resource: 'widgets', name: 'w' })));
    expect(st?.message).toBe('widgets.example.com "w" is forbidden: exceeded quota: q, requested: count/widgets.example.com=1, used: count/widgets.example.com=0, limited: count/widgets.example.com=0');
    expect(st?.details).toEqual({ name: 'w', group: 'example.com', kind: 'widgets' });
  });

  test('status not computed yet → status unknown', () => {
    expect(message(() => checkRequest([quota('fresh', { secrets: '2', 'count/secrets': '1' }, {})], attrs()))?.message).toBe(
      'secrets "s" is forbidden: status unknown for quota: fresh, resources: count/secrets,secrets',
    );
  });

  test('quotas that do not match are untouched: other names, scopes, scopeSelector', () => {
    const qs = [
      quota('pods', { pods: '0' }, { pods: '0' }),
      quota('scoped', { secrets: '0' }, { secrets: '0' }, { scopes: ['BestEffort'] }),
      quota('selected', { secrets: '0' }, { secrets: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] } }),
    ];
    expect(checkRequest(qs, attrs())).toBe(qs);
  });
});

describe('limitedResources', () => {
  const now = new Date();
  const podAttrs = (spec: Record<string, unknown>, over: Partial<AdmissionAttributes> = {}) =>
    attrs({ resource: 'pods', kind: 'Pod', name: 'p', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec } as KubeObject, ...over });
  const withMemory = { containers: [{ name: 'c', resources: { requests: { memory: '1Gi', cpu: '1' } } }] };
  const critical = { priorityClassName: 'critical', containers: [{ name: 'c' }] };
  const byName: LimitedResource = { apiGroup: '', resource: 'pods', matchContains: ['memory'], matchScopes: [] };
  const byScope: LimitedResource = { apiGroup: '', resource: 'pods', matchContains: [], matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['critical'] }] };
  const check = (qs: KubeObject[], a: AdmissionAttributes, limited: LimitedResource[]) => checkRequest(qs, a, now, undefined, limited);

  test('every consumed name containing a matchContains needs a matching quota limiting it (kube’s sorted list)', () => {
    expect(message(() => check([], podAttrs(withMemory), [byName]))?.message).toBe('pods "p" is forbidden: insufficient quota to consume: memory,requests.memory');
    const memoryOnly = quota('m', { 'requests.memory': '2Gi' }, { 'requests.memory': '0' });
    expect(message(() => check([memoryOnly], podAttrs(withMemory), [byName]))?.message).toBe('pods "p" is forbidden: insufficient quota to consume: memory');
    const both = quota('b', { 'requests.memory': '2Gi', memory: '2Gi' }, { 'requests.memory': '0', memory: '0' });
    expect(check([both], podAttrs(withMemory), [byName])[0]?.status).toEqual({ hard: { 'requests.memory': '2Gi', memory: '2Gi' }, used: { 'requests.memory': '1Gi', memory: '1Gi' } });
    // A quota whose scopes the pod does not match does not cover it.
    const scoped = quota('s', { 'requests.memory': '2Gi', memory: '2Gi' }, { 'requests.memory': '0', memory: '0' }, { scopes: ['Terminating'] });
    expect(message(() => check([scoped], podAttrs(withMemory), [byName]))?.code).toBe(403);
  });

  test('nothing consumed, another resource, or another group: not limited', () => {
    expect(check([], podAttrs({ containers: [{ name: 'c' }] }), [byName])).toEqual([]);
    expect(check([], attrs(), [{ ...byName, resource: 'secrets' }])).toEqual([]);
    expect(check([], podAttrs(withMemory), [{ ...byName, apiGroup: 'example.com' }])).toEqual([]);
    // Object counts are names too.
    expect(message(() => check([], attrs(), [{ apiGroup: '', resource: 'secrets', matchContains: ['count/'], matchScopes: [] }]))?.message).toBe(
      'secrets "s" is forbidden: insufficient quota to consume: count/secrets',
    );
  });

  test('a matched limited scope needs a quota with a matching scope of that name: kube’s plain error', () => {
    const st = message(() => check([], podAttrs(critical), [byScope]));
    expect(st).toMatchObject({ code: 500, message: 'insufficient quota to match these scopes: [{PriorityClass In [critical]}]' });
    expect(st?.reason).toBeUndefined();
    const covering = quota('c', { pods: '10' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] } });
    expect((check([covering], podAttrs(critical), [byScope])[0]?.status as { used: unknown }).used).toEqual({ pods: '1' });
    // A pod of another class does not match the limited scope.
    expect(check([], podAttrs({ priorityClassName: 'usual', containers: [{ name: 'c' }] }), [byScope])).toEqual([]);
    // A limited scope that cannot be evaluated lets the request through, as kube's does.
    const broken: LimitedResource = { ...byScope, matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['not a value!'] }] };
    expect(check([], podAttrs(critical), [broken])).toEqual([]);
  });

  test('the plugin evaluates a namespace without quotas when resources are limited', async () => {
    // Whether the accessor had to list (a promise) or knew at once (the server's informer).
    for (const empty of [
      { getQuotas: async () => [], updateQuotaStatus: async (q) => q },
      { getQuotas: () => [], updateQuotaStatus: async (q) => q },
    ] as QuotaAccessor[]) {
      await expect(resourceQuota({ accessor: empty }).validate?.(ctx, podAttrs(withMemory))).resolves.toBeUndefined();
      await expect(resourceQuota({ accessor: empty, limitedResources: [byName] }).validate?.(ctx, podAttrs(withMemory))).rejects.toMatchObject({
        status: { code: 403, message: 'pods "p" is forbidden: insufficient quota to consume: memory,requests.memory' },
      });
    }
  });

  test('a quota the accessor knows at once is still evaluated and charged through the queue', async () => {
    let stored = quota('q', { secrets: '1' }, { secrets: '0' });
    const sync: QuotaAccessor = {
      getQuotas: () => [stored],
      updateQuotaStatus: async (q) => (stored = { ...q, metadata: { ...q.metadata, resourceVersion: '2' } }),
    };
    const plugin = resourceQuota({ accessor: sync });
    await expect(plugin.validate?.(ctx, attrs())).resolves.toBeUndefined();
    expect(stored.status).toMatchObject({ used: { secrets: '1' } });
    await expect(plugin.validate?.(ctx, attrs({ name: 's2' }))).rejects.toMatchObject({ status: { code: 403 } });
  });
});

/** An in-memory accessor with etcd-like compare-and-swap on resourceVersion. */
function memoryAccessor(initial: KubeObject[], opts: { failFirstWrites?: number } = {}) {
  const store = new Map(initial.map((q) => [q.metadata.name ?? '', structuredClone(q)]));
  let rv = 1;
  let failures = opts.failFirstWrites ?? 0;
  const writes: KubeObject[] = [];
  const accessor: QuotaAccessor = {
    getQuotas: async () => [...store.values()].map((q) => structuredClone(q)),
    updateQuotaStatus: async (q) => {
      const cur = store.get(q.metadata.name ?? '') as KubeObject;
      if (failures > 0 || cur.metadata.resourceVersion !== q.metadata.resourceVersion) {
        failures--;
        // Someone else wrote in between: the stored object moves on.
        cur.metadata.resourceVersion = String(++rv);
        throw errors.modifiedConflict({ group: '', resource: 'resourcequotas' }, q.metadata.name ?? '');
      }
      const next = { ...structuredClone(q), metadata: { ...q.metadata, resourceVersion: String(++rv) } };
      store.set(q.metadata.name ?? '', next);
      writes.push(next);
      return next;
    },
  };
  return { accessor, store, writes };
}

describe('the plugin', () => {
  test("a configuration file that cannot be read is Go's open error; no configuration is no limited resources", () => {
    const missing = path.join(os.tmpdir(), `papi-quota-config-missing-${process.pid}.yaml`);
    expect(() => loadResourceQuotaConfiguration({ path: missing })).toThrow(new Error(`open ${missing}: no such file or directory`));
    expect(loadResourceQuotaConfiguration(undefined)).toEqual({ limitedResources: [] });
  });

  test('concurrent creates are batched and never exceed the quota', async () => {
    const mem = memoryAccessor([quota('q', { secrets: '3' }, { secrets: '0' })]);
    const plugin = resourceQuota({ accessor: mem.accessor });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => plugin.validate?.(ctx, attrs({ name: `s${i}` }))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect((mem.store.get('q')?.status as { used: unknown }).used).toEqual({ secrets: '3' });
  });

  test('a conflicting write is retried from a fresh read (kube: 3 retries), then surfaces the conflict', async () => {
    const ok = memoryAccessor([quota('q', { secrets: '3' }, { secrets: '0' })], { failFirstWrites: 3 });
    await expect(resourceQuota({ accessor: ok.accessor }).validate?.(ctx, attrs())).resolves.toBeUndefined();
    expect((ok.store.get('q')?.status as { used: unknown }).used).toEqual({ secrets: '1' });

    const bad = memoryAccessor([quota('q', { secrets: '3' }, { secrets: '0' })], { failFirstWrites: 4 });
    await expect(resourceQuota({ accessor: bad.accessor }).validate?.(ctx, attrs())).rejects.toMatchObject({
      status: { code: 409, message: 'Operation cannot be fulfilled on resourcequotas "q": the object has been modified; please apply your changes to the latest version and try again' },
    });
  });

  test('dry-run is checked but never charged; updates, subresources and events are ignored', async () => {
    const mem = memoryAccessor([quota('q', { secrets: '1', 'count/events': '0' }, { secrets: '1', 'count/events': '0' })]);
    const plugin = resourceQuota({ accessor: mem.accessor });
    await expect(plugin.validate?.(ctx, attrs({ dryRun: true }))).rejects.toMatchObject({ status: { code: 403 } });
    const free = memoryAccessor([quota('q', { secrets: '1' }, { secrets: '0' })]);
    await resourceQuota({ accessor: free.accessor }).validate?.(ctx, attrs({ dryRun: true }));
    expect(free.writes).toEqual([]);
    await plugin.validate?.(ctx, attrs({ operation: 'UPDATE' }));
    await plugin.validate?.(ctx, attrs({ subresource: 'status' }));
    await plugin.validate?.(ctx, attrs({ resource: 'events', kind: 'Event' }));
    expect(mem.writes).toEqual([]);
  });

  test('an evaluation that cannot finish in time is an internal error', async () => {
    const never: QuotaAccessor = { getQuotas: () => new Promise(() => undefined), updateQuotaStatus: async (q) => q };
    await expect(resourceQuota({ accessor: never, timeoutMs: 20 }).validate?.(ctx, attrs())).rejects.toMatchObject({
      status: { code: 500, reason: 'InternalError', message: 'Internal error occurred: resource quota evaluation timed out' },
    });
  });
});
