/**
 * The resource-quota controller (kube-controller-manager's, run in-process): keeps every quota's
 * status.hard equal to spec.hard and status.used equal to what the store holds, measured by the
 * same evaluators admission charges with (api/quota: object counts, and kube's pod evaluator with
 * its scopes). A quota is recalculated when it is created or its spec changes, when a counted
 * object in its namespace is deleted or a pod stops being charged (terminal phase, deletion past
 * its grace period: replenishment), and on every resync period; the status is written with the
 * quota's resourceVersion as precondition so it never overwrites a concurrent admission charge.
 */
import {
  ApiError,
  KubeObject,
  QuotaEvaluator,
  ResourceList,
  Quantity,
  addLists,
  cloneJson,
  isQuotaIgnoredResource,
  isQuotaV1Pod,
  maskList,
  matchedByBuiltinEvaluator,
  parseQuantity,
  quotaEvaluatorFor,
  quotableVerbs,
  usageStats,
  type PodShape,
} from '../api';
import type { GenericStore, ListQuery, Registry, RequestContext, WatchEvent } from '../registry';
import { getOrUndefined } from '../registry/generic-store';
import { controllerContext } from './context';
import { WatchKeeper } from './watch-keeper';
import { WorkQueue } from './work-queue';

export interface QuotaControllerOptions {
  registry: Registry;
  /** Full recalculation period (kube: --resource-quota-sync-period, 5 min). */
  resyncPeriodMs?: number;
  /** First retry delay of a quota whose sync failed (conflict, etcd down), doubling per failure (kube: 5 ms). */
  retryDelayMs?: number;
  /** Ceiling of that backoff (kube's DefaultControllerRateLimiter: 1000 s). */
  maxRetryDelayMs?: number;
  /** Quotas synced at once per queue (kube: --concurrent-resource-quota-syncs, 5). */
  workers?: number;
  /** First delay before reopening a watch that ended (doubling to 30 s; default 800 ms). */
  watchRetryDelayMs?: number;
  onError?: (err: unknown) => void;
}

type QuantityMap = Record<string, string | number>;
interface QuotaShape {
  spec?: { hard?: QuantityMap };
  status?: { hard?: QuantityMap; used?: QuantityMap };
}
const shape = (q: KubeObject) => q as unknown as QuotaShape;
/** A watch of changes after the current revision, with no initial events (kube: sendInitialEvents=false, resourceVersion unset). */
const fromNow = (): ListQuery => ({ watch: true, sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' });
const isQuotaStore = (s: GenericStore) => s.def.group === '' && s.def.resource === 'resourcequotas';
const isPodStore = (s: GenericStore) => s.def.group === '' && s.def.resource === 'pods';

function quantitiesEqual(a: QuantityMap | undefined, b: QuantityMap | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => b?.[k] !== undefined && parseQuantity((a ?? {})[k] as string).equals(parseQuantity(b[k] as string)));
}

/** The queues and watches of one run (start → stop); a new run builds new ones. */
interface Run {
  /** kube's primary queue: resyncs, replenishment, spec changes. */
  queue: WorkQueue<string>;
  /** kube's missingUsageQueue: quotas whose status does not yet reflect spec.hard, handled apart so a backlog never delays them. */
  missingUsage: WorkQueue<string>;
  /** Deletions to replenish, one key per `<namespace>/<group>/<resource>` (a burst of deletes lists the quotas once). */
  replenish: WorkQueue<string>;
  watches: WatchKeeper;
  /**
   * Pods seen no longer charged (`<namespace>/<name>`): kube replenishes when an update turns a
   * charged pod into an uncharged one, and our watch events carry no old object, so the first such
   * update per pod replenishes and later ones do not.
   */
  uncharged: Set<string>;
  resync?: NodeJS.Timeout;
}

/** An evaluator and the store whose objects it measures. */
interface BoundEvaluator {
  ev: QuotaEvaluator;
  store: GenericStore;
}

export class QuotaController {
  private run?: Run;
  private listening = false;

  constructor(private readonly opts: QuotaControllerOptions) {}

  private ctx(namespace = ''): RequestContext {
    return controllerContext('system:serviceaccount:kube-system:resourcequota-controller', ['system:serviceaccounts'], namespace);
  }

  /**
   * Opens the replenishment watches, then the quota watch (whose initial events queue every quota),
   * and starts the resync timer. Resolves once every watch has opened or failed (and will retry).
   */
  async start(): Promise<void> {
    if (this.run) return;
    const onError = (e: unknown) => this.opts.onError?.(e);
    const syncQueue = () =>
      new WorkQueue<string>({
        handler: (key) => this.sync(key),
        workers: this.opts.workers ?? 5,
        baseDelayMs: this.opts.retryDelayMs ?? 5,
        maxDelayMs: this.opts.maxRetryDelayMs ?? 1_000_000,
        // A conflict is the expected race with admission's charges: retried quietly.
        onError: (e) => {
          if (!(e instanceof ApiError && e.code === 409)) onError(e);
        },
      });
    const run: Run = {
      queue: syncQueue(),
      missingUsage: syncQueue(),
      replenish: new WorkQueue<string>({ handler: (key) => this.replenish(key), onError }),
      watches: new WatchKeeper({ onError, baseDelayMs: this.opts.watchRetryDelayMs }),
      uncharged: new Set(),
    };
    this.run = run;
    if (!this.listening) {
      // Resources added at run time (custom resources) are watched too; the registry keeps listeners for good.
      this.opts.registry.onChange(() => this.watchCountedResources());
      this.listening = true;
    }
    this.watchCountedResources();
    await run.watches.idle();
    if (this.run !== run) return;
    run.resync = setInterval(() => void this.enqueueAll(), this.opts.resyncPeriodMs ?? 5 * 60_000);
  }

  stop(): void {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    if (run.resync) clearInterval(run.resync);
    void run.watches.stop();
    void run.queue.shutDown();
    void run.missingUsage.shutDown();
    void run.replenish.shutDown();
  }

  /** The keys (`<group>/<resource>`) whose watch is open: for tests and diagnostics. */
  watchedResources(): string[] {
    return this.run?.watches.openKeys() ?? [];
  }

  /**
   * One watch per quotable resource (kube's QuotaMonitor): the quota store last, so every
   * replenishment watch is open before the first quota is counted. Keys already kept are skipped,
   * however often or concurrently this runs.
   */
  private watchCountedResources(): void {
    const run = this.run;
    if (!run) return;
    const stores = this.opts.registry.all().filter((s) => this.isQuotable(s));
    // A resource no longer served is no longer counted from events (kube's monitor drops it too).
    const served = new Set(stores.map((s) => `${s.def.group}/${s.def.resource}`));
    for (const key of run.watches.keys()) if (!served.has(key)) run.watches.forget(key);
    for (const store of [...stores.filter((s) => !isQuotaStore(s)), ...stores.filter(isQuotaStore)]) {
      const key = `${store.def.group}/${store.def.resource}`;
      if (run.watches.has(key)) continue;
      run.watches.keep(key, (e) => this.onEvent(store, e), async (sink, resumed) => {
        // Replenishment needs only deletions from now on: no replay of existing objects. The quota watch
        // replays every quota once (its ADDED events queue them); reopened, it starts from now like the
        // others, and a full recalculation covers whatever happened while no watch ran.
        const initialEvents = isQuotaStore(store) && !resumed;
        const watch = await store.watch(this.ctx(), initialEvents ? {} : fromNow(), sink);
        if (resumed) {
          // Deletions may have been missed: forget what was seen of pods, and recalculate everything.
          if (isPodStore(store)) run.uncharged.clear();
          void this.enqueueAll();
        }
        return watch;
      });
    }
  }

  /** kube's GetQuotableResources minus the ignored ones: namespaced, create/list/watch/delete. */
  private isQuotable(store: GenericStore): boolean {
    const { def } = store;
    return def.namespaced && quotableVerbs.every((v) => (def.verbs as string[]).includes(v)) && !isQuotaIgnoredResource(def.group, def.resource);
  }

  private onEvent(store: GenericStore, e: WatchEvent): void {
    const run = this.run;
    if (e.object.kind === 'Status' || !run) return;
    const obj = e.object as KubeObject;
    // kube's informer add handler queues every quota it sees (so a restart recalculates all of them);
    // an update only when spec.hard is not yet mirrored or usage is missing.
    if (isQuotaStore(store) && (e.type === 'ADDED' || (e.type === 'MODIFIED' && this.needsSync(obj)))) this.addQuota(obj);
    const namespace = obj.metadata.namespace;
    if (!namespace) return;
    const replenish = () => run.replenish.add(`${namespace}/${store.def.group}/${store.def.resource}`);
    if (e.type === 'DELETED') {
      if (isPodStore(store)) run.uncharged.delete(`${namespace}/${obj.metadata.name ?? ''}`);
      replenish();
    } else if (e.type === 'MODIFIED' && isPodStore(store) && !isQuotaV1Pod(obj as PodShape, new Date())) {
      // kube's DefaultUpdateFilter for pods: usage is freed when a pod stops being charged.
      const key = `${namespace}/${obj.metadata.name ?? ''}`;
      if (!run.uncharged.has(key)) {
        run.uncharged.add(key);
        replenish();
      }
    }
  }

  private needsSync(q: KubeObject): boolean {
    const { spec, status } = shape(q);
    return !quantitiesEqual(spec?.hard, status?.hard) || this.missesUsage(q);
  }

  /** A hard name with no usage yet that this controller can evaluate. */
  private missesUsage(q: KubeObject): boolean {
    const { status } = shape(q);
    return Object.keys(status?.hard ?? {}).some((n) => status?.used?.[n] === undefined && this.canEvaluate(n));
  }

  /** kube's addQuota: a spec not yet mirrored in status, or a hard name without usage, goes to the priority queue. */
  private addQuota(q: KubeObject): void {
    const run = this.run;
    if (!run) return;
    const key = `${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`;
    const { spec, status } = shape(q);
    if (!quantitiesEqual(spec?.hard, status?.hard) || this.missesUsage(q)) run.missingUsage.add(key);
    else run.queue.add(key);
  }

  private canEvaluate(name: string): boolean {
    return this.evaluators().some(({ ev }) => ev.matchingResources([name]).length > 0) || matchedByBuiltinEvaluator(name);
  }

  /**
   * kube's quota registry: an evaluator per quotable store this server serves (kube's pod
   * evaluator for pods, an object count for the rest), each bound to the store it lists.
   */
  private evaluators(): BoundEvaluator[] {
    return this.opts.registry
      .all()
      .filter((s) => this.isQuotable(s))
      .map((store) => ({ ev: quotaEvaluatorFor(store.def.group, store.def.resource), store }));
  }

  /** kube's replenishQuota: freed usage, so recalculate the namespace's quotas that track a name the resource's evaluator measures. */
  private async replenish(key: string): Promise<void> {
    const [namespace = '', group = '', resource = ''] = key.split('/');
    const quotas = this.opts.registry.get('', 'v1', 'resourcequotas');
    const run = this.run;
    if (!quotas || !run) return;
    const ev = quotaEvaluatorFor(group, resource);
    for (const q of (await quotas.list(this.ctx(namespace), {})).items) {
      // kube looks at status.hard only; spec.hard too covers a quota whose first sync has not written it yet.
      const { spec, status } = shape(q);
      if (ev.matchingResources([...Object.keys(spec?.hard ?? {}), ...Object.keys(status?.hard ?? {})]).length) {
        run.queue.add(`${namespace}/${q.metadata.name ?? ''}`);
      }
    }
  }

  /** kube's enqueueAll: every quota into the primary queue (the resync, and after a watch reopened). */
  private async enqueueAll(): Promise<void> {
    const quotas = this.opts.registry.get('', 'v1', 'resourcequotas');
    const run = this.run;
    if (!quotas || !run) return;
    try {
      for (const q of (await quotas.list(this.ctx(), {})).items) run.queue.add(`${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`);
    } catch (e) {
      this.opts.onError?.(e);
    }
  }

  /**
   * kube's CalculateUsage: each evaluator measuring some of the hard names lists the namespace's
   * objects once and sums the usage of those meeting the quota's scopes (an object count meets
   * none, so a scoped quota reads 0 for it). Names of kube's always-registered evaluators whose
   * kinds are not served here (services, PVCs) read 0, as kube's empty informer.
   */
  private async calculateUsage(quota: KubeObject, hardNames: string[]): Promise<ResourceList> {
    const namespace = quota.metadata.namespace ?? '';
    let usage: ResourceList = new Map();
    const measured = new Set<string>();
    for (const { ev, store } of this.evaluators()) {
      const names = [...new Set(ev.matchingResources(hardNames))];
      if (!names.length) continue;
      const objects = (await store.list(this.ctx(namespace), {})).items;
      usage = addLists(usage, usageStats(ev, quota, objects, names, new Date()));
      for (const n of names) measured.add(n);
    }
    // An evaluator's usage names more than the quota limits: only the measured hard names count.
    usage = maskList(usage, measured);
    for (const n of hardNames) if (!measured.has(n) && matchedByBuiltinEvaluator(n)) usage.set(n, Quantity.zero());
    return usage;
  }

  /** kube's syncResourceQuota: status.hard = spec.hard, status.used = observed usage masked to hard. */
  private async sync(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const store = this.opts.registry.get('', 'v1', 'resourcequotas');
    if (!store) return;
    const quota = await getOrUndefined(store, this.ctx(namespace), name);
    if (!quota) return;
    const { spec, status } = shape(quota);
    const hard = { ...(spec?.hard ?? {}) };
    const used: QuantityMap = {};
    // Previous observations are kept for names nothing here can evaluate (kube merges into the old usage).
    for (const [k, v] of Object.entries(status?.used ?? {})) if (k in hard) used[k] = v;
    for (const [k, v] of await this.calculateUsage(quota, Object.keys(hard))) used[k] = v.toString();
    const dirty = !status?.hard || !status.used || !quantitiesEqual(hard, status.hard) || !quantitiesEqual(used, status.used);
    if (!dirty) return;
    const next = cloneJson(quota);
    (next as unknown as QuotaShape).status = { hard, used };
    // The read's resourceVersion makes this a compare-and-swap: a concurrent charge wins and we retry.
    await store.update(this.ctx(namespace), name, () => next, { subresource: 'status' });
  }
}
