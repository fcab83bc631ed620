/**
 * Writes the RBAC bootstrap policy through the registry (kube-apiserver's `rbac/bootstrap-roles`
 * PostStartHook, pkg/registry/rbac/rest/storage_rbac.go): every bootstrap ClusterRole,
 * ClusterRoleBinding, Role and RoleBinding is created when missing and reconciled when present,
 * additively (missing rules, subjects, labels and annotations added; nothing removed), unless the
 * stored object is annotated `rbac.authorization.kubernetes.io/autoupdate: "false"`. A binding
 * whose roleRef changed is deleted and created again.
 *
 * The policy and its reconciliation are pure and live in auth/authz/rbac/bootstrap; this folder
 * may not import auth/, so the server hands them in (`bootstrapPolicyPlan()` fits RbacBootstrapPlan).
 *
 * As in kube: the old aggregated roles and the split discovery binding are primed first; each
 * object's write is retried on a conflict (or 503) with kube's DefaultBackoff; a failure does not
 * stop the others; and while some write failed for a reason that may pass (etcd away, a 5xx, a
 * 429), the whole pass runs again every second, for 30 s. A refusal (another 4xx: admission, a
 * webhook, an invalid object) is logged and not retried. kube stops the server when the policy
 * cannot be written within 30 s; here the server goes on, and the result says what failed.
 */
import { ApiError, KubeObject, RBAC_GROUP } from '../api';
import { getOrUndefined, type GenericStore, type Registry, type RequestContext } from '../registry';
import { controllerContext } from './context';
import { sleep } from './sleep';

/** What reconciling one role produced (auth's RoleReconcileResult fits it). */
export interface RoleOutcome {
  operation: 'none' | 'create' | 'update' | 'recreate';
  protected: boolean;
  role: KubeObject;
  missingRules: unknown[];
}

/** What reconciling one binding produced (auth's BindingReconcileResult fits it). */
export interface BindingOutcome {
  operation: 'none' | 'create' | 'update' | 'recreate';
  protected: boolean;
  binding: KubeObject;
  missingSubjects: unknown[];
}

/** The policy and how to reconcile it (auth/authz/rbac/bootstrap's `bootstrapPolicyPlan()`). */
export interface RbacBootstrapPlan {
  clusterRoles: KubeObject[];
  clusterRoleBindings: KubeObject[];
  roles: KubeObject[];
  roleBindings: KubeObject[];
  clusterRolesToAggregate?: Record<string, string>;
  clusterRoleBindingsToSplit?: Record<string, KubeObject>;
  reconcileRole(existing: KubeObject | undefined, expected: KubeObject): RoleOutcome;
  reconcileBinding(existing: KubeObject | undefined, expected: KubeObject): BindingOutcome;
}

/** The parts of a logger this uses (winston's Logger fits). */
export interface BootstrapLogger {
  info(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  debug?(message: string, meta?: Record<string, unknown>): unknown;
}

export interface EnsureBootstrapOptions {
  logger?: BootstrapLogger;
  /** Time between passes while a write failed for a passing reason (kube: 1 s). */
  retryIntervalMs?: number;
  /** How long passes are retried (kube: 30 s). */
  retryTimeoutMs?: number;
  /** Ends the retries (the server stopping). */
  signal?: AbortSignal;
}

export interface EnsureBootstrapResult {
  /** No RBAC resource is served (--runtime-config): nothing was done. */
  skipped: boolean;
  /** `<resource>/<namespace/>name` of each object written, by what was done to it (over every pass). */
  created: string[];
  updated: string[];
  recreated: string[];
  /** Objects that differ from the policy but are annotated autoupdate=false. */
  protected: string[];
  /** What the last pass could not write. */
  failed: Array<{ object: string; error: string }>;
  passes: number;
}

const RBAC_VERSION = 'v1';

/** kube's retry.DefaultBackoff: 4 tries, 10 ms growing 5 times, jitter 0.1. */
const conflictBackoffMs = [10, 50, 250];

/** Objects of one kind reconciled at once. */
const RECONCILE_CONCURRENCY = 8;

type Kind = 'clusterroles' | 'clusterrolebindings' | 'roles' | 'rolebindings';

interface Pass {
  result: EnsureBootstrapResult;
  /** Some failure may pass: run again. */
  retry: boolean;
}

/** Reconciles the whole policy once (with kube's retries); resolves when done, never rejects. */
export async function ensureBootstrapPolicy(registry: Registry, plan: RbacBootstrapPlan, opts: EnsureBootstrapOptions = {}): Promise<EnsureBootstrapResult> {
  const stores = {
    clusterroles: registry.get(RBAC_GROUP, RBAC_VERSION, 'clusterroles'),
    clusterrolebindings: registry.get(RBAC_GROUP, RBAC_VERSION, 'clusterrolebindings'),
    roles: registry.get(RBAC_GROUP, RBAC_VERSION, 'roles'),
    rolebindings: registry.get(RBAC_GROUP, RBAC_VERSION, 'rolebindings'),
  };
  if (!Object.values(stores).some(Boolean)) return { ...emptyResult(), skipped: true };
  const deadline = Date.now() + (opts.retryTimeoutMs ?? 30_000);
  const total = emptyResult();
  for (;;) {
    total.passes++;
    const pass = await runPass(registry, stores, plan, opts);
    // What was written adds up over the passes; what failed is the last pass's.
    for (const k of ['created', 'updated', 'recreated', 'protected'] as const) {
      for (const label of pass.result[k]) if (!total[k].includes(label)) total[k].push(label);
    }
    total.failed = pass.result.failed;
    const again = pass.retry && !opts.signal?.aborted && Date.now() + (opts.retryIntervalMs ?? 1000) <= deadline;
    if (!again) {
      report(total, opts.logger);
      return total;
    }
    await sleep(opts.retryIntervalMs ?? 1000, opts.signal);
  }
}

function emptyResult(): EnsureBootstrapResult {
  return { skipped: false, created: [], updated: [], recreated: [], protected: [], failed: [], passes: 0 };
}

function report(r: EnsureBootstrapResult, logger: BootstrapLogger | undefined): void {
  if (!logger) return;
  for (const f of r.failed) logger.warn('unable to reconcile RBAC bootstrap object', { object: f.object, error: f.error });
  logger.info('RBAC bootstrap policy reconciled', {
    created: r.created.length,
    updated: r.updated.length,
    recreated: r.recreated.length,
    protected: r.protected.length,
    failed: r.failed.length,
  });
}

async function runPass(registry: Registry, stores: Record<Kind, GenericStore | undefined>, plan: RbacBootstrapPlan, opts: EnsureBootstrapOptions): Promise<Pass> {
  const pass: Pass = { result: emptyResult(), retry: false };
  const fail = (object: string, e: unknown) => {
    pass.result.failed.push({ object, error: e instanceof Error ? e.message : String(e) });
    if (mayPass(e)) pass.retry = true;
  };
  const w = new Writer(registry, opts.logger);

  // kube primes both before reconciling; a failure there makes the pass fail (and run again).
  try {
    if (stores.clusterroles) await primeAggregatedClusterRoles(w, stores.clusterroles, plan.clusterRolesToAggregate ?? {});
    if (stores.clusterrolebindings) await primeSplitBindings(w, stores.clusterrolebindings, plan.clusterRoleBindingsToSplit ?? {});
  } catch (e) {
    fail('priming', e);
    return pass;
  }

  const kinds: Array<[Kind, KubeObject[]]> = [
    ['clusterroles', plan.clusterRoles],
    ['clusterrolebindings', plan.clusterRoleBindings],
    ['roles', plan.roles],
    ['rolebindings', plan.roleBindings],
  ];
  for (const [kind, objects] of kinds) {
    const store = stores[kind];
    if (!store) continue;
    const isRole = kind === 'clusterroles' || kind === 'roles';
    // kube reconciles one object after another; objects of one kind are independent, so a few at a
    // time (each an etcd read and maybe a write) make a fresh start's ~120 writes quick.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < objects.length) {
        const expected = objects[next++] as KubeObject;
        const label = objectLabel(kind, expected);
        try {
          const op = await retryOnConflict(() => (isRole ? w.reconcileRole(store, plan, expected) : w.reconcileBinding(store, plan, expected)));
          if (op === 'protected') pass.result.protected.push(label);
          else if (op === 'create') pass.result.created.push(label);
          else if (op === 'update') pass.result.updated.push(label);
          else if (op === 'recreate') pass.result.recreated.push(label);
        } catch (e) {
          fail(label, e);
        }
      }
    };
    await Promise.all(Array.from({ length: RECONCILE_CONCURRENCY }, worker));
  }
  return pass;
}

type Done = 'none' | 'create' | 'update' | 'recreate' | 'protected';

/** The writes of one pass, acting as the API server itself. */
class Writer {
  constructor(
    private readonly registry: Registry,
    private readonly logger: BootstrapLogger | undefined,
  ) {}

  ctx(namespace = ''): RequestContext {
    return controllerContext('system:apiserver', ['system:masters'], namespace);
  }

  get(store: GenericStore, namespace: string, name: string): Promise<KubeObject | undefined> {
    return getOrUndefined(store, this.ctx(namespace), name);
  }

  /** kube's ReconcileRoleOptions.run: re-run (at most twice more) when the object appears or goes meanwhile. */
  async reconcileRole(store: GenericStore, plan: RbacBootstrapPlan, expected: KubeObject, attempt = 0): Promise<Done> {
    if (attempt > 2) throw new Error('exceeded maximum attempts');
    const ns = expected.metadata.namespace ?? '';
    const name = expected.metadata.name ?? '';
    const existing = await this.get(store, ns, name);
    const r = plan.reconcileRole(existing, expected);
    if (r.protected) return this.protectedResult(r.operation, store, expected, { missingRules: r.missingRules.length });
    if (r.operation === 'create') {
      try {
        await this.create(store, r.role);
      } catch (e) {
        if (isReason(e, 409, 'AlreadyExists')) return this.reconcileRole(store, plan, expected, attempt + 1);
        throw e;
      }
    } else if (r.operation === 'update') {
      try {
        await store.update(this.ctx(ns), name, () => structuredClone(r.role), { create: 'never' });
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return this.reconcileRole(store, plan, expected, attempt + 1);
        throw e;
      }
    }
    this.logged(r.operation, store, expected);
    return r.operation;
  }

  /** kube's ReconcileRoleBindingOptions.run (at most three re-runs). */
  async reconcileBinding(store: GenericStore, plan: RbacBootstrapPlan, expected: KubeObject, attempt = 0): Promise<Done> {
    if (attempt > 3) throw new Error('exceeded maximum attempts');
    const ns = expected.metadata.namespace ?? '';
    const name = expected.metadata.name ?? '';
    const existing = await this.get(store, ns, name);
    const r = plan.reconcileBinding(existing, expected);
    if (r.protected) return this.protectedResult(r.operation, store, expected, { missingSubjects: r.missingSubjects.length });
    if (r.operation === 'recreate') {
      try {
        await store.delete(this.ctx(ns), name, { preconditions: { uid: existing?.metadata.uid } });
      } catch (e) {
        // Gone already is what we wanted; another object under the name: start over.
        if (isReason(e, 409, 'Conflict')) return this.reconcileBinding(store, plan, expected, attempt + 1);
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    if (r.operation === 'recreate' || r.operation === 'create') {
      try {
        await this.create(store, r.binding);
      } catch (e) {
        if (isReason(e, 409, 'AlreadyExists')) return this.reconcileBinding(store, plan, expected, attempt + 1);
        throw e;
      }
    } else if (r.operation === 'update') {
      try {
        await store.update(this.ctx(ns), name, () => structuredClone(r.binding), { create: 'never' });
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return this.reconcileBinding(store, plan, expected, attempt + 1);
        throw e;
      }
    }
    this.logged(r.operation, store, expected);
    return r.operation;
  }

  /** A namespaced object's namespace is made first when missing (kube's tryEnsureNamespace). */
  async create(store: GenericStore, obj: KubeObject): Promise<void> {
    const ns = obj.metadata.namespace ?? '';
    if (store.def.namespaced && ns) await this.tryEnsureNamespace(ns);
    await store.create(this.ctx(ns), obj);
  }

  /** Best effort: a namespace that exists, is made meanwhile, or may not be made is no error. */
  async tryEnsureNamespace(namespace: string): Promise<void> {
    const nsStore = this.registry.get('', 'v1', 'namespaces');
    if (!nsStore) return;
    try {
      await nsStore.get(this.ctx(), namespace);
      return;
    } catch (e) {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 403))) throw e;
    }
    try {
      await nsStore.create(this.ctx(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    } catch (e) {
      if (!(e instanceof ApiError && (isReason(e, 409, 'AlreadyExists') || e.code === 403))) throw e;
    }
  }

  private protectedResult(operation: string, store: GenericStore, expected: KubeObject, missing: Record<string, number>): Done {
    if (operation === 'none') return 'none';
    this.logger?.warn('skipped reconcile-protected RBAC bootstrap object', { object: objectLabel(store.def.resource, expected), ...missing });
    return 'protected';
  }

  private logged(operation: string, store: GenericStore, expected: KubeObject): void {
    if (operation !== 'none') this.logger?.debug?.(`${operation}d RBAC bootstrap object`, { object: objectLabel(store.def.resource, expected) });
  }
}

/**
 * kube's primeAggregatedClusterRoles: a cluster that had the old admin/edit/view with rules of their
 * own keeps them, copied to the system:aggregate-to-* role that now feeds the aggregate.
 */
async function primeAggregatedClusterRoles(w: Writer, store: GenericStore, toAggregate: Record<string, string>): Promise<void> {
  for (const [oldName, newName] of Object.entries(toAggregate)) {
    if (await w.get(store, '', newName)) continue;
    const old = await w.get(store, '', oldName);
    // Already an aggregate: nothing of its own to carry over. (kube returns from the whole step
    // here, leaving the other roles to a later start; each role is looked at on its own here.)
    if (!old || old.aggregationRule) continue;
    const copy: KubeObject = { ...old, metadata: copyableMeta(old, newName) };
    try {
      await store.create(w.ctx(), copy);
    } catch (e) {
      if (!isReason(e, 409, 'AlreadyExists')) throw e;
    }
  }
}

/**
 * kube's primeSplitClusterRoleBindings: when the source binding exists and the target does not,
 * the target is created from its template with the source's subjects, labels and annotations.
 */
async function primeSplitBindings(w: Writer, store: GenericStore, toSplit: Record<string, KubeObject>): Promise<void> {
  for (const [sourceName, template] of Object.entries(toSplit)) {
    const source = await w.get(store, '', sourceName);
    if (!source) continue;
    const targetName = template.metadata.name ?? '';
    if (await w.get(store, '', targetName)) continue;
    const target: KubeObject = structuredClone(template);
    target.subjects = structuredClone(source.subjects);
    if (target.subjects === undefined) delete target.subjects;
    target.metadata = { name: targetName };
    if (source.metadata.labels) target.metadata.labels = { ...source.metadata.labels };
    if (source.metadata.annotations) target.metadata.annotations = { ...source.metadata.annotations };
    try {
      await store.create(w.ctx(), target);
    } catch (e) {
      if (!isReason(e, 409, 'AlreadyExists')) throw e;
    }
  }
}

/** The metadata a copy under another name keeps (what a client's create would send). */
function copyableMeta(obj: KubeObject, name: string): KubeObject['metadata'] {
  const { labels, annotations, ownerReferences, finalizers } = obj.metadata;
  return {
    name,
    ...(labels ? { labels: { ...labels } } : {}),
    ...(annotations ? { annotations: { ...annotations } } : {}),
    ...(ownerReferences ? { ownerReferences: structuredClone(ownerReferences) } : {}),
    ...(finalizers ? { finalizers: [...finalizers] } : {}),
  };
}

/** client-go's retry.OnError(DefaultBackoff, IsConflict || IsServiceUnavailable, fn). */
async function retryOnConflict<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      const again = e instanceof ApiError && ((e.code === 409 && e.reason === 'Conflict') || e.code === 503);
      if (!again || i >= conflictBackoffMs.length) throw e;
      const base = conflictBackoffMs[i] as number;
      await sleep(base + Math.random() * 0.1 * base);
    }
  }
}

/** Worth another pass: not a refusal of the object itself. */
function mayPass(e: unknown): boolean {
  if (!(e instanceof ApiError)) return true;
  return e.code >= 500 || e.code === 429 || isReason(e, 409, 'Conflict');
}

function isReason(e: unknown, code: number, reason: string): boolean {
  return e instanceof ApiError && e.code === code && e.reason === reason;
}

function objectLabel(resource: string, obj: KubeObject): string {
  const ns = obj.metadata.namespace;
  return `${resource}/${ns ? `${ns}/` : ''}${obj.metadata.name ?? ''}`;
}
