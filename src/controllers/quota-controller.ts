/**
 * The resource-quota controller (kube-controller-manager's, run in-process): keeps every quota's
 * status.hard equal to spec.hard and status.used equal to what the store holds. A quota is
 * recalculated when it is created or its spec changes, when a counted object in its namespace is
 * deleted (replenishment), and on every resync period; the status is written with the quota's
 * resourceVersion as precondition so it never overwrites a concurrent admission charge.
 */
import { ApiError, KubeObject, Quantity, parseQuantity, cloneJson, countedGroupResource, isQuotaIgnoredResource, matchedByBuiltinEvaluator, quotableVerbs } from '../api';
import { getOrUndefined, type GenericStore, type ListQuery, type Registry, type RequestContext, type WatchEvent } from '../registry';
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
  spec?: { hard?: QuantityMap; scopes?: string[]; scopeSelector?: { matchExpressions?: unknown[] } };
  status?: { hard?: QuantityMap; used?: QuantityMap };
}
const shape = (q: KubeObject) => q as unknown as QuotaShape;
/** A watch of changes after the current revision, with no initial events (kube: sendInitialEvents=false, resourceVersion unset). */
const fromNow = (): ListQuery => ({ watch: true, sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' });
const isQuotaStore = (s: GenericStore) => s.def.group === '' && s.def.resource === 'resourcequotas';

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
  resync?: NodeJS.Timeout;
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
        if (resumed) void this.enqueueAll();
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
    if (e.object.kind === 'Status') return;
    const obj = e.object as KubeObject;
    // kube's informer add handler queues every quota it sees (so a restart recalculates all of them);
    // an update only when spec.hard is not yet mirrored or usage is missing.
    if (isQuotaStore(store) && (e.type === 'ADDED' || (e.type === 'MODIFIED' && this.needsSync(obj)))) this.addQuota(obj);
    if (e.type === 'DELETED' && obj.metadata.namespace) {
      this.run?.replenish.add(`${obj.metadata.namespace}/${store.def.group}/${store.def.resource}`);
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
    return this.storeFor(name) !== undefined || matchedByBuiltinEvaluator(name);
  }

  /** The quotable store whose objects a quota name counts. */
  private storeFor(name: string): GenericStore | undefined {
    const r = countedGroupResource(name);
    if (!r) return undefined;
    return this.opts.registry.all().find((s) => s.def.group === r.group && s.def.resource === r.resource && this.isQuotable(s));
  }

  /** kube's replenishQuota: a deletion frees quota, so recalculate the namespace's quotas that track the resource. */
  private async replenish(key: string): Promise<void> {
    const [namespace = '', group = '', resource = ''] = key.split('/');
    const quotas = this.opts.registry.get('', 'v1', 'resourcequotas');
    const run = this.run;
    if (!quotas || !run) return;
    const tracks = (n: string) => {
      const r = countedGroupResource(n);
      return r?.group === group && r.resource === resource;
    };
    for (const q of (await quotas.list(this.ctx(namespace), {})).items) {
      // kube looks at status.hard only; spec.hard too covers a quota whose first sync has not written it yet.
      const { spec, status } = shape(q);
      if ([...Object.keys(spec?.hard ?? {}), ...Object.keys(status?.hard ?? {})].some(tracks)) run.queue.add(`${namespace}/${q.metadata.name ?? ''}`);
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

  /** kube's syncResourceQuota: status.hard = spec.hard, status.used = observed usage masked to hard. */
  private async sync(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const store = this.opts.registry.get('', 'v1', 'resourcequotas');
    if (!store) return;
    const quota = await getOrUndefined(store, this.ctx(namespace), name);
    if (!quota) return;
    const { spec, status } = shape(quota);
    const hard = { ...(spec?.hard ?? {}) };
    const scoped = !!(spec?.scopes?.length || spec?.scopeSelector?.matchExpressions?.length);
    const used: QuantityMap = {};
    // Previous observations are kept for names nothing here can evaluate (kube merges into the old usage).
    for (const [k, v] of Object.entries(status?.used ?? {})) if (k in hard) used[k] = v;
    const counts = new Map<GenericStore, number>();
    for (const n of Object.keys(hard)) {
      const counted = this.storeFor(n);
      if (counted) {
        // Object-count evaluators match no scope, so a scoped quota counts nothing.
        if (!counts.has(counted)) counts.set(counted, scoped ? 0 : (await counted.list(this.ctx(namespace), {})).items.length);
        used[n] = Quantity.of(counts.get(counted) ?? 0).toString();
      } else if (matchedByBuiltinEvaluator(n)) {
        // kube's pod, service and PVC evaluators (and the replicationcontrollers count) list kinds not served here.
        used[n] = '0';
      }
    }
    const dirty = !status?.hard || !status.used || !quantitiesEqual(hard, status.hard) || !quantitiesEqual(used, status.used);
    if (!dirty) return;
    const next = cloneJson(quota);
    (next as unknown as QuotaShape).status = { hard, used };
    // The read's resourceVersion makes this a compare-and-swap: a concurrent charge wins and we retry.
    await store.update(this.ctx(namespace), name, () => next, { subresource: 'status' });
  }
}
