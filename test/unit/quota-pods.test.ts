/**
 * ResourceQuota for pods (issue 26, kube v1.32's pod evaluator): what a pod charges (init
 * containers, sidecars, overhead, hugepages, extended resources, terminal and expired pods), each
 * scope and scopeSelector operator, admission's check-and-charge with kube's messages (exceeded,
 * missing requests/limits, status unknown, unevaluable selector, resize updates), the controller's
 * recalculation and replenishment, and the scope validation message kube prints for a selector.
 */
import { ApiError, KubeObject, RequestContext, fieldErrorString, fromResourceList, podMatchesScope, podMatchingResources, podUsage, ScopeMatchError, ScopeRequirement, type PodShape } from '../../src/api';
import { checkRequest, QuotaAccessor, resourceQuota } from '../../src/admission';
import { QuotaController } from '../../src/controllers/quota-controller';
import { validateQuotaSpec } from '../../src/registry/resources/core/quota-validation';
import { FakeRegistry, FakeStore, quota as fakeQuota } from './controllers/fake-registry';
import { podAttributes } from '../support/admission';

type Res = Record<string, string>;
interface C {
  name: string;
  requests?: Res;
  limits?: Res;
  restartPolicy?: string;
}
const container = (c: C) => ({
  name: c.name,
  image: 'busybox',
  ...(c.restartPolicy ? { restartPolicy: c.restartPolicy } : {}),
  resources: { ...(c.requests ? { requests: c.requests } : {}), ...(c.limits ? { limits: c.limits } : {}) },
});
const pod = (over: { name?: string; containers?: C[]; initContainers?: C[]; spec?: Record<string, unknown>; status?: Record<string, unknown>; metadata?: Record<string, unknown> } = {}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: over.name ?? 'p', namespace: 'ns', ...(over.metadata ?? {}) },
    spec: {
      containers: (over.containers ?? [{ name: 'c1' }]).map(container),
      ...(over.initContainers ? { initContainers: over.initContainers.map(container) } : {}),
      ...(over.spec ?? {}),
    },
    status: { phase: 'Pending', ...(over.status ?? {}) },
  }) as KubeObject;
const usage = (p: KubeObject, now = new Date()) => fromResourceList(podUsage(p as PodShape, now));

describe('pod usage', () => {
  test('requests under bare and requests. names, limits under limits., pods and count/pods', () => {
    const p = pod({ containers: [{ name: 'c1', requests: { cpu: '100m', memory: '64Mi', 'ephemeral-storage': '1Gi' }, limits: { cpu: '200m', memory: '128Mi' } }] });
    expect(usage(p)).toEqual({
      'count/pods': '1',
      pods: '1',
      cpu: '100m',
      'requests.cpu': '100m',
      memory: '64Mi',
      'requests.memory': '64Mi',
      'ephemeral-storage': '1Gi',
      'requests.ephemeral-storage': '1Gi',
      'limits.cpu': '200m',
      'limits.memory': '128Mi',
    });
  });

  test('a pod asking nothing still counts as one pod', () => {
    expect(usage(pod())).toEqual({ 'count/pods': '1', pods: '1' });
  });

  test('init containers: the larger of the app containers’ sum and each init container', () => {
    const p = pod({
      containers: [
        { name: 'a', requests: { cpu: '100m', memory: '1Gi' } },
        { name: 'b', requests: { cpu: '200m', memory: '1Gi' } },
      ],
      initContainers: [
        { name: 'i1', requests: { cpu: '500m', memory: '1Gi' } },
        { name: 'i2', requests: { cpu: '100m' } },
      ],
    });
    expect(usage(p)).toMatchObject({ 'requests.cpu': '500m', 'requests.memory': '2Gi' });
  });

  test('restartable (sidecar) init containers add to the app sum and to every later init container', () => {
    const p = pod({
      containers: [{ name: 'app', requests: { cpu: '200m' } }],
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', requests: { cpu: '100m' } },
        { name: 'setup', requests: { cpu: '300m' } },
      ],
    });
    // app 200m + sidecar 100m = 300m; setup runs beside the sidecar: 300m + 100m = 400m.
    expect(usage(p)['requests.cpu']).toBe('400m');
  });

  test('overhead adds to every request, and to a limit only where one is set', () => {
    const p = pod({
      containers: [{ name: 'c', requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2' } }],
      spec: { overhead: { cpu: '250m', memory: '120Mi' } },
    });
    expect(usage(p)).toMatchObject({ 'requests.cpu': '1250m', cpu: '1250m', 'requests.memory': '1144Mi', 'limits.cpu': '2250m' });
    expect(usage(p)['limits.memory']).toBeUndefined();
  });

  test('hugepages under both names; extended resources only as requests.<name>; kubernetes.io names are native', () => {
    const p = pod({ containers: [{ name: 'c', requests: { 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2', 'kubernetes.io/thing': '1' }, limits: { 'example.com/gpu': '2' } }] });
    expect(usage(p)).toEqual({ 'count/pods': '1', pods: '1', 'hugepages-2Mi': '4Mi', 'requests.hugepages-2Mi': '4Mi', 'requests.example.com/gpu': '2' });
  });

  test.each(['Succeeded', 'Failed'])('a %s pod is charged its object count only', (phase) => {
    const p = pod({ containers: [{ name: 'c', requests: { cpu: '1' } }], status: { phase } });
    expect(usage(p)).toEqual({ 'count/pods': '1' });
  });

  test('a pod being deleted is charged until its grace period has passed', () => {
    const p = pod({ containers: [{ name: 'c', requests: { cpu: '1' } }], metadata: { deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 } });
    expect(usage(p, new Date('2025-01-01T00:00:30Z'))).toMatchObject({ pods: '1', 'requests.cpu': '1' });
    expect(usage(p, new Date('2025-01-01T00:00:31Z'))).toEqual({ 'count/pods': '1' });
  });

  test.each([
    ['pods', true],
    ['count/pods', true],
    ['limits.ephemeral-storage', true],
    ['hugepages-1Gi', true],
    ['requests.hugepages-2Mi', true],
    ['requests.example.com/gpu', true],
    ['limits.example.com/gpu', false],
    ['requests.kubernetes.io/x', false],
    ['secrets', false],
    ['requests.storage', false],
  ])('the pod evaluator measures %s: %s', (name, expected) => {
    expect(podMatchingResources([name])).toEqual(expected ? [name] : []);
  });
});

describe('scopes', () => {
  const matches = (r: ScopeRequirement, p: KubeObject) => podMatchesScope(r, p as PodShape);
  const exists = (scopeName: string): ScopeRequirement => ({ scopeName, operator: 'Exists' });

  test.each([
    [0, true],
    [30, true],
    [-1, false],
    [undefined, false],
  ])('activeDeadlineSeconds %s → Terminating %s', (deadline, terminating) => {
    const p = pod({ spec: deadline === undefined ? {} : { activeDeadlineSeconds: deadline } });
    expect(matches(exists('Terminating'), p)).toBe(terminating);
    expect(matches(exists('NotTerminating'), p)).toBe(!terminating);
  });

  test.each<[string, KubeObject, boolean]>([
    ['no requests or limits', pod(), true],
    ['a zero memory request', pod({ containers: [{ name: 'c', requests: { memory: '0' } }] }), true],
    ['only an extended resource', pod({ containers: [{ name: 'c', requests: { 'example.com/gpu': '1' } }] }), true],
    ['a cpu request', pod({ containers: [{ name: 'c', requests: { cpu: '1m' } }] }), false],
    ['an init container limit', pod({ initContainers: [{ name: 'i', limits: { memory: '1Mi' } }] }), false],
    ['status.qosClass BestEffort wins over the containers', pod({ containers: [{ name: 'c', requests: { cpu: '1' } }], status: { qosClass: 'BestEffort' } }), true],
    ['status.qosClass Burstable wins too', pod({ status: { qosClass: 'Burstable' } }), false],
  ])('BestEffort: %s → %s', (_what, p, bestEffort) => {
    expect(matches(exists('BestEffort'), p)).toBe(bestEffort);
    expect(matches(exists('NotBestEffort'), p)).toBe(!bestEffort);
  });

  const high = pod({ spec: { priorityClassName: 'high' } });
  const none = pod();
  test.each<[ScopeRequirement, boolean, boolean]>([
    [{ scopeName: 'PriorityClass', operator: 'In', values: ['high', 'mid'] }, true, false],
    [{ scopeName: 'PriorityClass', operator: 'In', values: ['low'] }, false, false],
    [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['low'] }, true, true],
    [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }, false, true],
    [{ scopeName: 'PriorityClass', operator: 'Exists' }, true, false],
    [{ scopeName: 'PriorityClass', operator: 'DoesNotExist' }, false, true],
  ])('%j: pod with class high %s, pod without class %s', (r, withClass, without) => {
    expect(matches(r, high)).toBe(withClass);
    expect(matches(r, none)).toBe(without);
  });

  test('CrossNamespacePodAffinity: a term naming namespaces or a namespace selector', () => {
    expect(matches(exists('CrossNamespacePodAffinity'), none)).toBe(false);
    const local = pod({ spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', labelSelector: {} }] } } } });
    expect(matches(exists('CrossNamespacePodAffinity'), local)).toBe(false);
    const cross = pod({ spec: { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'zone', namespaceSelector: {} } }] } } } });
    expect(matches(exists('CrossNamespacePodAffinity'), cross)).toBe(true);
  });

  test('an unknown scope never matches', () => {
    expect(matches(exists('Sometimes'), none)).toBe(false);
  });

  test('a value that is no label value cannot be evaluated', () => {
    const long = 'a'.repeat(64);
    expect(() => matches({ scopeName: 'PriorityClass', operator: 'In', values: [long] }, high)).toThrow(ScopeMatchError);
    expect(() => matches({ scopeName: 'PriorityClass', operator: 'In', values: [long] }, high)).toThrow(
      `error on matching scope {PriorityClass In [${long}]}: failed to parse and convert selector: values[0][PriorityClass]: Invalid value: "${long}": must be no more than 63 characters`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Admission

const quota = (name: string, hard: Res, used?: Res, spec: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'ns', resourceVersion: '1' }, spec: { hard, ...spec }, status: { hard, ...(used ? { used } : {}) } }) as KubeObject;
const usedOf = (q: KubeObject | undefined) => (q?.status as { used?: Res } | undefined)?.used;
function failure(fn: () => unknown): { code?: number; reason?: string; message?: string } | undefined {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return e.status;
  }
  return undefined;
}
const cpuPod = (cpu: string, name = 'p') => pod({ name, containers: [{ name: 'c1', requests: { cpu, memory: '64Mi' }, limits: { cpu, memory: '64Mi' } }] });

describe('checkRequest for pods', () => {
  test('charges requests, limits and pods to every matching quota', () => {
    const out = checkRequest(
      [quota('compute', { 'requests.cpu': '2', 'limits.memory': '1Gi', pods: '5' }, { 'requests.cpu': '500m', 'limits.memory': '0', pods: '1' }), quota('other', { secrets: '1' }, { secrets: '0' })],
      podAttributes(cpuPod('1')),
    );
    expect(out.map(usedOf)).toEqual([{ 'requests.cpu': '1500m', 'limits.memory': '64Mi', pods: '2' }, { secrets: '0' }]);
  });

  test('exceeded: kube’s 403 naming only the exceeded names', () => {
    const st = failure(() => checkRequest([quota('q', { 'requests.cpu': '2', pods: '10' }, { 'requests.cpu': '1500m', pods: '1' })], podAttributes(cpuPod('1'))));
    expect(st).toMatchObject({ code: 403, reason: 'Forbidden', message: 'pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=1, used: requests.cpu=1500m, limited: requests.cpu=2' });
  });

  test('extended resources and hugepages are limited under their requests. names', () => {
    const gpu = pod({ containers: [{ name: 'c', requests: { 'example.com/gpu': '2', 'hugepages-2Mi': '4Mi' }, limits: { 'example.com/gpu': '2', 'hugepages-2Mi': '4Mi' } }] });
    expect(failure(() => checkRequest([quota('q', { 'requests.example.com/gpu': '1' }, { 'requests.example.com/gpu': '0' })], podAttributes(gpu)))?.message).toBe(
      'pods "p" is forbidden: exceeded quota: q, requested: requests.example.com/gpu=2, used: requests.example.com/gpu=0, limited: requests.example.com/gpu=1',
    );
    const out = checkRequest([quota('hp', { 'requests.hugepages-2Mi': '8Mi', 'hugepages-2Mi': '8Mi' }, { 'requests.hugepages-2Mi': '0', 'hugepages-2Mi': '2Mi' })], podAttributes(gpu));
    expect(usedOf(out[0])).toEqual({ 'requests.hugepages-2Mi': '4Mi', 'hugepages-2Mi': '6Mi' });
  });

  test('a quota on cpu or memory requires every container to set it: kube’s message, names and containers sorted', () => {
    const p = pod({
      containers: [{ name: 'c2', requests: { cpu: '1' } }, { name: 'c1' }],
      initContainers: [{ name: 'init', requests: { cpu: '1' }, limits: { memory: '1Gi' } }],
    });
    const st = failure(() => checkRequest([quota('q', { 'requests.cpu': '4', 'limits.memory': '4Gi', 'requests.ephemeral-storage': '1Gi' }, { 'requests.cpu': '0', 'limits.memory': '0', 'requests.ephemeral-storage': '0' })], podAttributes(p)));
    expect(st).toMatchObject({ code: 403, message: 'pods "p" is forbidden: failed quota: q: must specify limits.memory for: c1,c2; requests.cpu for: c1' });
  });

  test('bare cpu and memory are requests, and require them too', () => {
    const q = quota('q', { cpu: '1', memory: '1Gi' }, { cpu: '0', memory: '0' });
    expect(usedOf(checkRequest([q], podAttributes(cpuPod('500m')))[0])).toEqual({ cpu: '500m', memory: '64Mi' });
    expect(failure(() => checkRequest([q], podAttributes(pod())))?.message).toBe('pods "p" is forbidden: failed quota: q: must specify cpu for: c1; memory for: c1');
  });

  test('other compute names (ephemeral-storage, extended) are never required', () => {
    const q = quota('q', { 'requests.ephemeral-storage': '1Gi', 'requests.example.com/gpu': '1', pods: '2' }, { 'requests.ephemeral-storage': '0', 'requests.example.com/gpu': '0', pods: '0' });
    expect(usedOf(checkRequest([q], podAttributes(pod()))[0])).toEqual({ 'requests.ephemeral-storage': '0', 'requests.example.com/gpu': '0', pods: '1' });
  });

  test('a quota without usage for a pod name yet: status unknown, listing the names the pod evaluator restricts', () => {
    const st = failure(() => checkRequest([quota('fresh', { pods: '1', 'requests.cpu': '1', secrets: '1' }, { pods: '0' })], podAttributes(cpuPod('1'))));
    expect(st).toMatchObject({ code: 403, message: 'pods "p" is forbidden: status unknown for quota: fresh, resources: pods,requests.cpu' });
  });

  test('scopes: a quota limits only the pods it matches', () => {
    const be = quota('be', { pods: '1' }, { pods: '1' }, { scopes: ['BestEffort'] });
    // A pod with requests is not BestEffort: the quota is left alone.
    const qs = [be];
    expect(checkRequest(qs, podAttributes(cpuPod('1')))).toBe(qs);
    expect(failure(() => checkRequest(qs, podAttributes(pod())))?.message).toBe('pods "p" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1');
  });

  test('scopes and scopeSelector must all match', () => {
    const q = quota('q', { pods: '0' }, { pods: '0' }, { scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
    const highDeadline = pod({ spec: { priorityClassName: 'high', activeDeadlineSeconds: 60 } });
    const high = pod({ spec: { priorityClassName: 'high' } });
    const low = pod({ spec: { priorityClassName: 'low' } });
    expect(checkRequest([q], podAttributes(highDeadline))).toEqual([q]);
    expect(checkRequest([q], podAttributes(low))).toEqual([q]);
    expect(failure(() => checkRequest([q], podAttributes(high)))?.message).toBe('pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0');
  });

  test('count/pods follows the pod evaluator’s scopes; object counts of other kinds never match a scoped quota', () => {
    const q = quota('q', { 'count/pods': '0' }, { 'count/pods': '0' }, { scopes: ['Terminating'] });
    expect(checkRequest([q], podAttributes(pod()))).toEqual([q]);
    expect(failure(() => checkRequest([q], podAttributes(pod({ spec: { activeDeadlineSeconds: 10 } }))))?.message).toBe(
      'pods "p" is forbidden: exceeded quota: q, requested: count/pods=1, used: count/pods=0, limited: count/pods=0',
    );
    const secrets = quota('s', { 'count/secrets': '0' }, { 'count/secrets': '0' }, { scopes: ['Terminating'] });
    expect(checkRequest([secrets], podAttributes(undefined, { resource: 'secrets', kind: 'Secret', name: 's' }))).toEqual([secrets]);
  });

  test('a terminal pod is charged its object count only', () => {
    const out = checkRequest([quota('q', { pods: '0', 'count/pods': '5' }, { pods: '0', 'count/pods': '0' })], podAttributes(pod({ status: { phase: 'Succeeded' } })));
    expect(usedOf(out[0])).toEqual({ pods: '0', 'count/pods': '1' });
  });

  test('a selector kube cannot evaluate fails the request as a plain 500', () => {
    const long = 'x'.repeat(64);
    const q = quota('q', { pods: '5' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: [long] }] } });
    expect(failure(() => checkRequest([q], podAttributes(pod())))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `error matching scopes of quota q, err: error on matching scope {PriorityClass In [${long}]}: failed to parse and convert selector: values[0][PriorityClass]: Invalid value: "${long}": must be no more than 63 characters`,
      code: 500,
    });
  });

  test('an unnamed create is refused under its generateName', () => {
    const p = pod({ name: '', metadata: { name: undefined, generateName: 'web-' } });
    expect(failure(() => checkRequest([quota('q', { pods: '0' }, { pods: '0' })], podAttributes(p, { name: '' })))?.message).toBe(
      'pods "web-" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0',
    );
  });

  describe('resize (UPDATE of pods/resize)', () => {
    const q = quota('q', { 'requests.cpu': '2', 'limits.cpu': '10', pods: '5' }, { 'requests.cpu': '1', 'limits.cpu': '1', pods: '1' });
    const old = { ...cpuPod('1'), metadata: { name: 'p', namespace: 'ns', resourceVersion: '7' } } as KubeObject;
    const resize = (next: KubeObject, oldObject: KubeObject | undefined = old) => podAttributes(next, { operation: 'UPDATE', subresource: 'resize', oldObject });

    test('only the growth is charged', () => {
      expect(usedOf(checkRequest([q], resize(cpuPod('2')))[0])).toEqual({ 'requests.cpu': '2', 'limits.cpu': '2', pods: '1' });
    });

    test('a growth past the quota is refused, naming the growth', () => {
      expect(failure(() => checkRequest([q], resize(cpuPod('3'))))?.message).toBe(
        'pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=2, used: requests.cpu=1, limited: requests.cpu=2',
      );
    });

    test('a shrink charges nothing', () => {
      const qs = [q];
      expect(checkRequest(qs, resize(cpuPod('500m')))).toBe(qs);
    });

    test('without the old object the update is refused', () => {
      expect(failure(() => checkRequest([q], { ...resize(cpuPod('2')), oldObject: undefined }))?.message).toBe(
        'pods "p" is forbidden: unable to get previous usage since prior version of object was not found',
      );
    });

    test('an old object never stored (no resourceVersion) is charged in full', () => {
      const fresh = { ...cpuPod('1'), metadata: { name: 'p', namespace: 'ns' } } as KubeObject;
      expect(usedOf(checkRequest([q], resize(cpuPod('1'), fresh))[0])).toEqual({ 'requests.cpu': '2', 'limits.cpu': '2', pods: '2' });
    });

    test('an UPDATE of the pod itself or of its status is not charged', () => {
      const qs = [q];
      expect(checkRequest(qs, podAttributes(cpuPod('5'), { operation: 'UPDATE', oldObject: old }))).toBe(qs);
      expect(checkRequest(qs, podAttributes(cpuPod('5'), { operation: 'UPDATE', subresource: 'status', oldObject: old }))).toBe(qs);
    });
  });
});

describe('the plugin with pods', () => {
  const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };
  function accessor(initial: KubeObject[]) {
    const store = new Map(initial.map((q) => [q.metadata.name ?? '', structuredClone(q)]));
    const a: QuotaAccessor = {
      getQuotas: async () => [...store.values()].map((q) => structuredClone(q)),
      updateQuotaStatus: async (q) => (store.set(q.metadata.name ?? '', structuredClone(q)), q),
    };
    return { a, store };
  }

  test('concurrent pod creates never exceed requests.cpu', async () => {
    const mem = accessor([quota('q', { 'requests.cpu': '1', 'limits.cpu': '1', 'requests.memory': '1Gi', 'limits.memory': '1Gi' }, { 'requests.cpu': '0', 'limits.cpu': '0', 'requests.memory': '0', 'limits.memory': '0' })]);
    const plugin = resourceQuota({ accessor: mem.a });
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => plugin.validate?.(ctx, podAttributes(cpuPod('300m', `p${i}`)))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(usedOf(mem.store.get('q'))).toEqual({ 'requests.cpu': '900m', 'limits.cpu': '900m', 'requests.memory': '192Mi', 'limits.memory': '192Mi' });
  });

  test('a resize is charged; a plain pod update is not', async () => {
    const mem = accessor([quota('q', { 'requests.cpu': '4' }, { 'requests.cpu': '1' })]);
    const plugin = resourceQuota({ accessor: mem.a });
    const old = { ...cpuPod('1'), metadata: { name: 'p', namespace: 'ns', resourceVersion: '3' } } as KubeObject;
    await plugin.validate?.(ctx, podAttributes(cpuPod('2'), { operation: 'UPDATE', oldObject: old }));
    expect(usedOf(mem.store.get('q'))).toEqual({ 'requests.cpu': '1' });
    await plugin.validate?.(ctx, podAttributes(cpuPod('2'), { operation: 'UPDATE', subresource: 'resize', oldObject: old }));
    expect(usedOf(mem.store.get('q'))).toEqual({ 'requests.cpu': '2' });
  });
});

// ---------------------------------------------------------------------------------------------
// Controller

describe('the quota controller with pods', () => {
  let registry: FakeRegistry;
  let pods: FakeStore;
  let quotas: FakeStore;
  let controller: QuotaController | undefined;
  const settle = () => jest.advanceTimersByTimeAsync(0);
  const usedNow = (name: string) => usedOf(quotas.items.find((q) => q.metadata.name === name));
  const scoped = (name: string, hard: Res, spec: Record<string, unknown>) => {
    const q = fakeQuota('ns', name, hard);
    Object.assign(q.spec as object, spec);
    return q;
  };

  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2025-01-01T00:00:00Z') });
    registry = new FakeRegistry();
    pods = registry.add(new FakeStore('', 'pods'));
    registry.add(new FakeStore('', 'secrets'));
    quotas = registry.add(new FakeStore('', 'resourcequotas'));
  });
  afterEach(() => {
    controller?.stop();
    controller = undefined;
    jest.useRealTimers();
  });
  const start = async () => {
    controller = new QuotaController({ registry: registry.asRegistry() });
    await controller.start();
    await settle();
  };

  test('sums the namespace’s pods, skipping terminal ones except for count/pods', async () => {
    pods.items.push(cpuPod('1', 'a'), cpuPod('500m', 'b'), { ...cpuPod('2', 'done'), status: { phase: 'Succeeded' } } as KubeObject, { ...cpuPod('4', 'elsewhere'), metadata: { name: 'elsewhere', namespace: 'other' } } as KubeObject);
    quotas.items.push(fakeQuota('ns', 'q', { pods: '10', 'count/pods': '10', 'requests.cpu': '10', 'limits.memory': '10Gi', 'requests.storage': '1Gi' }));
    await start();
    expect(usedNow('q')).toEqual({ pods: '2', 'count/pods': '3', 'requests.cpu': '1500m', 'limits.memory': '128Mi', 'requests.storage': '0' });
  });

  test('scoped quotas count only the pods they match', async () => {
    pods.items.push(
      pod({ name: 'be' }),
      cpuPod('1', 'burst'),
      pod({ name: 'job', spec: { activeDeadlineSeconds: 60, priorityClassName: 'high' } }),
      pod({ name: 'hi', containers: [{ name: 'c', requests: { cpu: '2' } }], spec: { priorityClassName: 'high' } }),
    );
    quotas.items.push(
      scoped('besteffort', { pods: '10' }, { scopes: ['BestEffort'] }),
      scoped('notbesteffort', { pods: '10', 'requests.cpu': '10' }, { scopes: ['NotBestEffort'] }),
      scoped('terminating', { pods: '10', 'count/pods': '10' }, { scopes: ['Terminating'] }),
      scoped('high', { pods: '10', 'requests.cpu': '10' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }),
      scoped('noclass', { pods: '10' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'DoesNotExist' }] } }),
      scoped('both', { pods: '10' }, { scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] } }),
      scoped('secrets', { 'count/secrets': '10' }, { scopes: ['BestEffort'] }),
    );
    await start();
    // be, job and (no requests) are BestEffort; burst and hi are not.
    expect(usedNow('besteffort')).toEqual({ pods: '2' });
    expect(usedNow('notbesteffort')).toEqual({ pods: '2', 'requests.cpu': '3' });
    expect(usedNow('terminating')).toEqual({ pods: '1', 'count/pods': '1' });
    expect(usedNow('high')).toEqual({ pods: '2', 'requests.cpu': '2' });
    expect(usedNow('noclass')).toEqual({ pods: '2' });
    expect(usedNow('both')).toEqual({ pods: '1' });
    expect(usedNow('secrets')).toEqual({ 'count/secrets': '0' });
  });

  test('a deleted pod frees its usage; a pod turning terminal frees it once', async () => {
    pods.items.push(cpuPod('1', 'a'), cpuPod('1', 'b'), cpuPod('1', 'c'));
    quotas.items.push(fakeQuota('ns', 'q', { pods: '10', 'requests.cpu': '10' }), fakeQuota('ns', 'other', { secrets: '1' }));
    await start();
    expect(usedNow('q')).toEqual({ pods: '3', 'requests.cpu': '3' });
    const writesOf = (name: string) => quotas.statusWrites.filter((q) => q.metadata.name === name).length;
    const otherWrites = writesOf('other');
    let lists = 0;
    const list = quotas.list.bind(quotas);
    quotas.list = (ctx, q) => (lists++, list(ctx, q));

    const a = pods.items.shift() as KubeObject;
    pods.emit('DELETED', a);
    await settle();
    expect(usedNow('q')).toEqual({ pods: '2', 'requests.cpu': '2' });

    // b finishes: its status becomes Succeeded.
    const b = pods.items[0] as KubeObject;
    b.status = { phase: 'Succeeded' };
    pods.emit('MODIFIED', b);
    await settle();
    expect(usedNow('q')).toEqual({ pods: '1', 'requests.cpu': '1' });
    const listsAfter = lists;
    // Further updates of the finished pod, and updates of a running pod, replenish nothing.
    pods.emit('MODIFIED', b);
    pods.emit('MODIFIED', pods.items[1] as KubeObject);
    await settle();
    expect(lists).toBe(listsAfter);
    // The secrets quota does not track pods: never recalculated by these events.
    expect(writesOf('other')).toBe(otherWrites);
  });

  test('a pod deleted long ago but still stored stops counting at the next recalculation', async () => {
    const stuck = { ...cpuPod('1', 'stuck'), metadata: { name: 'stuck', namespace: 'ns', deletionTimestamp: '2024-12-31T23:00:00Z', deletionGracePeriodSeconds: 30 } } as KubeObject;
    pods.items.push(stuck, cpuPod('1', 'ok'));
    quotas.items.push(fakeQuota('ns', 'q', { pods: '10', 'count/pods': '10' }));
    await start();
    expect(usedNow('q')).toEqual({ pods: '1', 'count/pods': '2' });
  });
});

test('validation: conflicting scopes in a scopeSelector print spec.scopes as kube does; scopes limit only pod names', () => {
  const errs = (spec: Parameters<typeof validateQuotaSpec>[0]) => validateQuotaSpec(spec).map(fieldErrorString);
  expect(errs({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'Exists' }, { scopeName: 'NotTerminating', operator: 'Exists' }] } })).toEqual([
    'spec.scopeSelector.matchExpressions: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes',
  ]);
  expect(errs({ hard: { 'requests.ephemeral-storage': '1Gi' }, scopes: ['Terminating'] })).toEqual([
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: unsupported scope applied to resource',
  ]);
  expect(errs({ hard: { 'count/pods': '1', 'requests.example.com/gpu': '1', pods: '1', 'limits.cpu': '1' }, scopes: ['Terminating'] })).toEqual([]);
  expect(errs({ hard: { 'count/pods': '1', pods: '1' }, scopes: ['BestEffort'] })).toEqual([]);
});
