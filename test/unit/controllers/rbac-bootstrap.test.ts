/**
 * ensureBootstrapPolicy's control flow over in-memory stores: conflict retries within a pass,
 * passes repeated while a failure may pass (and not for refusals), the deadline and abort, races
 * with other writers, the upgrade priming steps, namespaces made for namespaced objects, and the
 * skip when RBAC is not served. The writes against the real server are in
 * test/integration/rbac-bootstrap.test.ts.
 */
import { ApiError, KubeObject, errors, failureStatus } from '../../../src/api';
import { bootstrapPolicyPlan, type RbacBinding, type RbacRole } from '../../../src/auth/authz/rbac/bootstrap';
import { ensureBootstrapPolicy, type RbacBootstrapPlan } from '../../../src/controllers/rbac-bootstrap';
import type { Registry } from '../../../src/registry';

type Op = 'get' | 'create' | 'update' | 'delete';

/** Just enough of a GenericStore: objects by namespace/name, resourceVersion and uid checks, injected failures. */
class MemStore {
  readonly items = new Map<string, KubeObject>();
  readonly calls: Array<{ op: Op; name: string }> = [];
  /** Thrown (once each, in order) by the next matching calls. */
  readonly failures: Array<{ op: Op; name: string; error: () => Error }> = [];
  /** Runs before the next matching call (another writer acting meanwhile). */
  readonly interleave: Array<{ op: Op; name: string; run: () => void }> = [];
  private rv = 0;
  private uid = 0;
  readonly def: { group: string; resource: string; namespaced: boolean };

  constructor(group: string, resource: string, namespaced: boolean) {
    this.def = { group, resource, namespaced };
  }

  private gr() {
    return { group: this.def.group, resource: this.def.resource };
  }

  private before(op: Op, name: string): void {
    this.calls.push({ op, name });
    const i = this.interleave.findIndex((x) => x.op === op && x.name === name);
    if (i >= 0) this.interleave.splice(i, 1)[0]?.run();
    const j = this.failures.findIndex((f) => f.op === op && f.name === name);
    if (j >= 0) throw this.failures.splice(j, 1)[0]?.error();
  }

  put(obj: KubeObject): KubeObject {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.uid ??= `uid-${++this.uid}`;
    this.items.set(`${stored.metadata.namespace ?? ''}/${stored.metadata.name}`, stored);
    return stored;
  }

  find(namespace: string, name: string): KubeObject | undefined {
    return this.items.get(`${namespace}/${name}`);
  }

  async get(ctx: { namespace: string }, name: string): Promise<KubeObject> {
    this.before('get', name);
    const o = this.find(ctx.namespace, name);
    if (!o) throw errors.notFound(this.gr(), name);
    return structuredClone(o);
  }

  async create(ctx: { namespace: string }, obj: KubeObject): Promise<KubeObject> {
    this.before('create', obj.metadata.name ?? '');
    if (this.find(ctx.namespace, obj.metadata.name ?? '')) throw errors.alreadyExists(this.gr(), obj.metadata.name ?? '');
    expect(obj.metadata.resourceVersion).toBeUndefined();
    return this.put({ ...obj, metadata: { ...obj.metadata, namespace: this.def.namespaced ? ctx.namespace : undefined, uid: undefined } });
  }

  async update(ctx: { namespace: string }, name: string, fn: (cur: KubeObject) => KubeObject): Promise<{ object: KubeObject; created: boolean }> {
    this.before('update', name);
    const cur = this.find(ctx.namespace, name);
    if (!cur) throw errors.notFound(this.gr(), name);
    const next = fn(structuredClone(cur));
    if (next.metadata.resourceVersion && next.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw errors.conflict(this.gr(), name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    return { object: this.put(next), created: false };
  }

  async delete(ctx: { namespace: string }, name: string, opts: { preconditions?: { uid?: string } }): Promise<unknown> {
    this.before('delete', name);
    const cur = this.find(ctx.namespace, name);
    if (!cur) throw errors.notFound(this.gr(), name);
    if (opts.preconditions?.uid && opts.preconditions.uid !== cur.metadata.uid) throw errors.conflict(this.gr(), name, 'uid precondition');
    this.items.delete(`${ctx.namespace}/${name}`);
    return {};
  }
}

const RBAC = 'rbac.authorization.k8s.io';

function memRegistry(opts: { rbac?: boolean; namespaces?: boolean } = {}) {
  const stores = {
    clusterroles: new MemStore(RBAC, 'clusterroles', false),
    clusterrolebindings: new MemStore(RBAC, 'clusterrolebindings', false),
    roles: new MemStore(RBAC, 'roles', true),
    rolebindings: new MemStore(RBAC, 'rolebindings', true),
    namespaces: new MemStore('', 'namespaces', false),
  };
  const registry = {
    get: (group: string, _v: string, resource: string) => {
      if (group === RBAC && opts.rbac === false) return undefined;
      if (resource === 'namespaces' && opts.namespaces === false) return undefined;
      const s = (stores as Record<string, MemStore>)[resource];
      return s && s.def.group === group ? s : undefined;
    },
  };
  return { stores, registry: registry as unknown as Registry };
}

/** A plan with only the given objects (the real reconciliation). */
function smallPlan(parts: Partial<RbacBootstrapPlan>): RbacBootstrapPlan {
  return { ...bootstrapPolicyPlan(), clusterRoles: [], clusterRoleBindings: [], roles: [], roleBindings: [], clusterRolesToAggregate: {}, clusterRoleBindingsToSplit: {}, ...parts };
}

const full = bootstrapPolicyPlan();
const role = (name: string) => full.clusterRoles.find((r) => r.metadata.name === name) as RbacRole;
const binding = (name: string) => full.clusterRoleBindings.find((r) => r.metadata.name === name) as RbacBinding;
// A short wait between passes; a deadline no pass of these tests nears however loaded the machine
// (a pass with the conflict backoff's waits takes some 300 ms), since it ends when the failure does.
const fast = { retryIntervalMs: 5, retryTimeoutMs: 30_000 };
const serverError = () => new ApiError(failureStatus(500, 'InternalError', 'etcd went away'));

test('the whole policy is created, then a second run does nothing', async () => {
  const { stores, registry } = memRegistry();
  const r = await ensureBootstrapPolicy(registry, bootstrapPolicyPlan(), fast);
  expect(r).toMatchObject({ skipped: false, updated: [], recreated: [], protected: [], failed: [], passes: 1 });
  expect(r.created).toHaveLength(64 + 45 + 7 + 7);
  expect(r.created[0]).toBe('clusterroles/cluster-admin');
  expect(stores.clusterroles.items.size).toBe(64);
  expect(stores.roles.find('kube-public', 'system:controller:bootstrap-signer')).toBeDefined();
  const again = await ensureBootstrapPolicy(registry, bootstrapPolicyPlan(), fast);
  expect(again).toMatchObject({ created: [], updated: [], recreated: [], failed: [], passes: 1 });
});

test('nothing is done when the RBAC resources are not served', async () => {
  const { stores, registry } = memRegistry({ rbac: false });
  const r = await ensureBootstrapPolicy(registry, bootstrapPolicyPlan(), fast);
  expect(r).toEqual({ skipped: true, created: [], updated: [], recreated: [], protected: [], failed: [], passes: 0 });
  expect(stores.namespaces.calls).toEqual([]);
});

test('a conflict is retried within the pass (another writer changed the role meanwhile)', async () => {
  const { stores, registry } = memRegistry();
  const basic = role('system:basic-user');
  stores.clusterroles.put({ ...structuredClone(basic), rules: [] });
  // Between the controller's read and its write, someone else writes: the first update conflicts.
  stores.clusterroles.interleave.push({ op: 'update', name: 'system:basic-user', run: () => void stores.clusterroles.put({ ...structuredClone(basic), rules: [] }) });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoles: [basic] }), fast);
  expect(r).toMatchObject({ updated: ['clusterroles/system:basic-user'], failed: [], passes: 1 });
  expect(stores.clusterroles.calls.filter((c) => c.op === 'update')).toHaveLength(2);
  expect(stores.clusterroles.find('', 'system:basic-user')?.rules).toHaveLength(3);
});

test('a 503 is retried with the conflict backoff; four failures end the object for this pass', async () => {
  const { stores, registry } = memRegistry();
  const unavailable = () => new ApiError(failureStatus(503, 'ServiceUnavailable', 'busy'));
  for (let i = 0; i < 3; i++) stores.clusterroles.failures.push({ op: 'get', name: 'cluster-admin', error: unavailable });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoles: [role('cluster-admin')] }), fast);
  expect(r).toMatchObject({ created: ['clusterroles/cluster-admin'], failed: [], passes: 1 });

  const other = memRegistry();
  for (let i = 0; i < 4; i++) other.stores.clusterroles.failures.push({ op: 'get', name: 'cluster-admin', error: unavailable });
  const r2 = await ensureBootstrapPolicy(other.registry, smallPlan({ clusterRoles: [role('cluster-admin')] }), fast);
  // The pass failed for a reason that may pass: the next pass wrote it.
  expect(r2).toMatchObject({ created: ['clusterroles/cluster-admin'], failed: [], passes: 2 });
});

test('a server error fails the object, the others go on, and the next pass retries it', async () => {
  const { stores, registry } = memRegistry();
  stores.clusterroles.failures.push({ op: 'create', name: 'system:discovery', error: serverError });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoles: [role('system:discovery'), role('system:basic-user')] }), fast);
  expect(r).toMatchObject({ failed: [], passes: 2 });
  // What was written adds up over the passes.
  expect(r.created).toEqual(['clusterroles/system:basic-user', 'clusterroles/system:discovery']);
  expect(stores.clusterroles.items.size).toBe(2);
});

test('a failure that persists is reported once the deadline passes; abort ends the retries at once', async () => {
  // A fake clock: the passes, the deadline and the abort are counted in its time, not the machine's.
  jest.useFakeTimers({ now: 0 });
  try {
    const { stores, registry } = memRegistry();
    const plan = smallPlan({ clusterRoles: [role('system:discovery'), role('system:basic-user')] });
    stores.clusterroles.failures.push(...Array.from({ length: 1000 }, () => ({ op: 'create' as Op, name: 'system:discovery', error: serverError })));
    const warnings: unknown[] = [];
    const logger = { info: () => undefined, warn: (m: string, meta?: Record<string, unknown>) => warnings.push({ m, meta }) };
    let settled = false;
    const running = ensureBootstrapPolicy(registry, plan, { logger, retryIntervalMs: 10, retryTimeoutMs: 100 }).finally(() => (settled = true));
    for (let i = 0; i < 100 && !settled; i++) await jest.advanceTimersByTimeAsync(10);
    const r = await running;
    // Passes at 0, 10, ..., 100: a wait after the last would end past the deadline.
    expect(r.passes).toBe(11);
    expect(Date.now()).toBe(100);
    expect(r.failed).toEqual([{ object: 'clusterroles/system:discovery', error: 'etcd went away' }]);
    expect(stores.clusterroles.find('', 'system:basic-user')).toBeDefined();
    expect(warnings).toEqual([{ m: 'unable to reconcile RBAC bootstrap object', meta: { object: 'clusterroles/system:discovery', error: 'etcd went away' } }]);

    const ac = new AbortController();
    const started = Date.now();
    const pending = ensureBootstrapPolicy(registry, plan, { retryIntervalMs: 60_000, retryTimeoutMs: 120_000, signal: ac.signal });
    await jest.advanceTimersByTimeAsync(20);
    // The first pass failed; the 60 s wait before the next has begun.
    expect(jest.getTimerCount()).toBe(1);
    ac.abort();
    const aborted = await pending;
    // Ended at the abort: the clock has not moved on to the next pass's time.
    expect(Date.now() - started).toBe(20);
    expect(aborted).toMatchObject({ passes: 2, failed: [{ object: 'clusterroles/system:discovery', error: 'etcd went away' }] });
  } finally {
    jest.useRealTimers();
  }
});

test('a refusal (4xx) is reported without another pass', async () => {
  const { stores, registry } = memRegistry();
  stores.clusterroles.failures.push({ op: 'create', name: 'system:discovery', error: () => errors.forbidden({ group: RBAC, resource: 'clusterroles' }, 'system:discovery', 'denied by a webhook') });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoles: [role('system:discovery'), role('system:basic-user')] }), fast);
  expect(r.passes).toBe(1);
  expect(r.failed).toEqual([{ object: 'clusterroles/system:discovery', error: 'clusterroles.rbac.authorization.k8s.io "system:discovery" is forbidden: denied by a webhook' }]);
  expect(r.created).toEqual(['clusterroles/system:basic-user']);
});

test('created meanwhile by someone else: reconciled instead', async () => {
  const { stores, registry } = memRegistry();
  const basic = role('system:basic-user');
  stores.clusterroles.interleave.push({ op: 'create', name: 'system:basic-user', run: () => void stores.clusterroles.put({ ...structuredClone(basic), rules: [basic.rules?.[0]] }) });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoles: [basic] }), fast);
  expect(r).toMatchObject({ created: [], updated: ['clusterroles/system:basic-user'], failed: [] });
  expect(stores.clusterroles.find('', 'system:basic-user')?.rules).toHaveLength(2);
});

test('deleted meanwhile: created instead of updated', async () => {
  const { stores, registry } = memRegistry();
  const basic = role('system:basic-user');
  stores.clusterroles.put({ ...structuredClone(basic), rules: [] });
  stores.clusterroles.interleave.push({ op: 'update', name: 'system:basic-user', run: () => void stores.clusterroles.items.clear() });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoles: [basic] }), fast);
  expect(r).toMatchObject({ created: ['clusterroles/system:basic-user'], updated: [], failed: [] });
});

test('a binding whose roleRef changed is deleted by uid and created again', async () => {
  const { stores, registry } = memRegistry();
  const expected = binding('system:discovery');
  stores.clusterrolebindings.put({ ...structuredClone(expected), roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' } });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoleBindings: [expected] }), fast);
  expect(r).toMatchObject({ recreated: ['clusterrolebindings/system:discovery'], failed: [] });
  expect(stores.clusterrolebindings.find('', 'system:discovery')?.roleRef).toEqual(expected.roleRef);
  expect(stores.clusterrolebindings.calls.map((c) => c.op)).toEqual(['get', 'delete', 'create']);
});

test('a protected object is left alone and reported', async () => {
  const { stores, registry } = memRegistry();
  const expected = binding('cluster-admin');
  stores.clusterrolebindings.put({ ...structuredClone(expected), metadata: { name: 'cluster-admin', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, subjects: [] });
  const r = await ensureBootstrapPolicy(registry, smallPlan({ clusterRoleBindings: [expected] }), fast);
  expect(r).toMatchObject({ protected: ['clusterrolebindings/cluster-admin'], updated: [], failed: [] });
  expect(stores.clusterrolebindings.find('', 'cluster-admin')?.subjects).toEqual([]);
});

test('a namespaced object gets its namespace first (a missing or forbidden namespace read is no error)', async () => {
  const { stores, registry } = memRegistry();
  const plan = smallPlan({ roles: full.roles.filter((r) => r.metadata.namespace === 'kube-public') });
  const r = await ensureBootstrapPolicy(registry, plan, fast);
  expect(r.failed).toEqual([]);
  expect(stores.namespaces.find('', 'kube-public')).toMatchObject({ kind: 'Namespace', metadata: { name: 'kube-public' } });

  const other = memRegistry();
  other.stores.namespaces.failures.push({ op: 'get', name: 'kube-public', error: () => errors.forbidden({ group: '', resource: 'namespaces' }, 'kube-public', 'no') });
  other.stores.namespaces.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-public' } });
  expect((await ensureBootstrapPolicy(other.registry, plan, fast)).failed).toEqual([]);
  expect(other.stores.roles.find('kube-public', 'system:controller:bootstrap-signer')).toBeDefined();

  const none = memRegistry({ namespaces: false });
  expect((await ensureBootstrapPolicy(none.registry, plan, fast)).created).toEqual(['roles/kube-public/system:controller:bootstrap-signer']);
});

test('upgrade: an old non-aggregated admin is copied to system:aggregate-to-admin before admin becomes an aggregate', async () => {
  const { stores, registry } = memRegistry();
  const custom = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };
  stores.clusterroles.put({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'admin', labels: { mine: 'yes' } }, rules: [custom] });
  // edit is already an aggregate: nothing of its own to carry over.
  stores.clusterroles.put({ ...structuredClone(role('edit')) });
  const plan = smallPlan({ clusterRoles: [role('admin'), role('edit'), role('system:aggregate-to-admin'), role('system:aggregate-to-edit')] });
  plan.clusterRolesToAggregate = full.clusterRolesToAggregate;
  const r = await ensureBootstrapPolicy(registry, plan, fast);
  expect(r.failed).toEqual([]);
  const copied = stores.clusterroles.find('', 'system:aggregate-to-admin') as RbacRole;
  // The copy keeps the custom rule and gains the policy's rules and metadata.
  expect(copied.rules?.[0]).toEqual(custom);
  expect(copied.metadata.labels).toMatchObject({ mine: 'yes', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });
  expect((stores.clusterroles.find('', 'admin') as RbacRole).aggregationRule).toEqual(role('admin').aggregationRule);
  expect(r.updated).toContain('clusterroles/system:aggregate-to-admin');
  expect(r.created).toEqual(['clusterroles/system:aggregate-to-edit']);
});

test('upgrade: an old discovery binding gives its subjects to a missing public-info-viewer binding', async () => {
  const { stores, registry } = memRegistry();
  const alice = { kind: 'User', apiGroup: RBAC, name: 'alice' };
  stores.clusterrolebindings.put({ ...structuredClone(binding('system:discovery')), subjects: [alice] });
  const plan = smallPlan({ clusterRoleBindings: [binding('system:discovery'), binding('system:public-info-viewer')] });
  plan.clusterRoleBindingsToSplit = full.clusterRoleBindingsToSplit;
  const r = await ensureBootstrapPolicy(registry, plan, fast);
  expect(r.failed).toEqual([]);
  const split = stores.clusterrolebindings.find('', 'system:public-info-viewer') as RbacBinding;
  expect(split.roleRef.name).toBe('system:public-info-viewer');
  expect(split.subjects?.[0]).toEqual(alice);
  expect(split.subjects).toHaveLength(3);
  // Without the old binding nothing is primed.
  const fresh = memRegistry();
  await ensureBootstrapPolicy(fresh.registry, smallPlan({ clusterRoleBindingsToSplit: full.clusterRoleBindingsToSplit }), fast);
  expect(fresh.stores.clusterrolebindings.items.size).toBe(0);
});

test('a priming failure fails the pass (retried when it may pass)', async () => {
  const { stores, registry } = memRegistry();
  stores.clusterroles.failures.push({ op: 'get', name: 'system:aggregate-to-admin', error: serverError });
  const plan = smallPlan({ clusterRoles: [role('cluster-admin')] });
  plan.clusterRolesToAggregate = full.clusterRolesToAggregate;
  const r = await ensureBootstrapPolicy(registry, plan, fast);
  expect(r).toMatchObject({ passes: 2, failed: [], created: ['clusterroles/cluster-admin'] });
});
