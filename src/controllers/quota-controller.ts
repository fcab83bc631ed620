/**
 * The resource-quota controller (kube-controller-manager's, run in-process): keeps every quota's
 * status.hard equal to spec.hard and status.used equal to what the store holds. A quota is
 * recalculated when it is created or its spec changes, when a counted object in its namespace is
 * deleted (replenishment), and on every resync period; the status is written with the quota's
 * resourceVersion as precondition so it never overwrites a concurrent admission charge.
 */
import { Timers } from './timers';
import { ApiError, KubeObject, Quantity, parseQuantity, cloneJson } from '../api';
import type { GenericStore, Registry, RequestContext, Watch } from '../registry';

export interface QuotaControllerOptions {
  registry: Registry;
  /** Full recalculation period (kube: --resource-quota-sync-period, 5 min). */
  resyncPeriodMs?: number;
  /** Delay before retrying a quota whose sync failed (conflict, etcd down). */
  retryDelayMs?: number;
  onError?: (err: unknown) => void;
}

type QuantityMap = Record<string, string | number>;
interface QuotaShape {
  spec?: { hard?: QuantityMap; scopes?: string[]; scopeSelector?: { matchExpressions?: unknown[] } };
  status?: { hard?: QuantityMap; used?: QuantityMap };
}
const shape = (q: KubeObject) => q as unknown as QuotaShape;

/** The names kube's pod, service and PVC evaluators track: always 0 here, as none of those kinds is served. */
function trackedButUncountable(name: string): boolean {
  const fixed = [
    'pods', 'services', 'services.nodeports', 'services.loadbalancers', 'persistentvolumeclaims', 'replicationcontrollers',
    'count/pods', 'count/services', 'count/persistentvolumeclaims', 'count/replicationcontrollers',
    'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
    'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  ];
  if (fixed.includes(name)) return true;
  if (name.startsWith('hugepages-') || name.startsWith('requests.hugepages-')) return true;
  if (/^[^/]+\.storageclass\.storage\.k8s\.io\/(requests\.storage|persistentvolumeclaims)$/.test(name)) return true;
  // Extended resources are tracked by the pod evaluator as requests.<domain>/<name>.
  return name.startsWith('requests.') && name.includes('/') && !name.includes('kubernetes.io/');
}

const legacyCountNames = ['secrets', 'configmaps', 'resourcequotas', 'replicationcontrollers'];

/** The (group, resource) a quota name counts: `count/<r>[.<g>]` or a legacy core name. */
function countedResource(name: string): { group: string; resource: string } | undefined {
  if (legacyCountNames.includes(name)) return { group: '', resource: name };
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

function quantitiesEqual(a: QuantityMap | undefined, b: QuantityMap | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => b?.[k] !== undefined && parseQuantity((a ?? {})[k] as string).equals(parseQuantity(b[k] as string)));
}

export class QuotaController {
  private readonly watches = new Map<string, Watch>();
  private readonly queue = new Set<string>();
  private readonly timers = new Timers();
  private running = false;
  private stopped = true;
  private listening = false;
  private resync?: NodeJS.Timeout;

  constructor(private readonly opts: QuotaControllerOptions) {}

  private ctx(namespace = ''): RequestContext {
    return {
      namespace,
      warnings: [],
      dryRun: false,
      now: () => new Date(),
      user: { name: 'system:serviceaccount:kube-system:resourcequota-controller', uid: '', groups: ['system:serviceaccounts'] },
    };
  }

  /** Starts the quota watch (its initial ADDED events sync every quota), the replenishment watches and the resync timer. */
  async start(): Promise<void> {
    this.stopped = false;
    this.timers.start();
    if (!this.listening) {
      // Resources added at run time (custom resources) are watched too; the registry keeps listeners for good.
      this.opts.registry.onChange(() => void this.watchCountedResources());
      this.listening = true;
    }
    await this.watchCountedResources();
    this.resync = setInterval(() => void this.enqueueAll(), this.opts.resyncPeriodMs ?? 5 * 60_000);
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
    this.timers.stop();
    if (this.resync) clearInterval(this.resync);
  }

  /** One watch per namespaced store: quotas (to sync them) and everything else (deletions replenish). */
  private async watchCountedResources(): Promise<void> {
    for (const store of this.opts.registry.all()) {
      const key = `${store.def.group}/${store.def.resource}`;
      if (!store.def.namespaced || !store.def.verbs.includes('watch') || this.watches.has(key) || this.stopped) continue;
      await this.startWatch(key, store);
    }
  }

  private async startWatch(key: string, store: GenericStore): Promise<void> {
    const isQuota = store.def.group === '' && store.def.resource === 'resourcequotas';
    try {
      const watch = await store.watch(this.ctx(), {}, {
        event: (e) => {
          if (e.object.kind === 'Status') return;
          const obj = e.object as KubeObject;
          // kube's informer add handler queues every quota it sees (so a restart recalculates all of them);
          // an update only when spec.hard is not yet mirrored or usage is missing.
          if (isQuota && (e.type === 'ADDED' || (e.type === 'MODIFIED' && this.needsSync(obj)))) this.enqueue(obj);
          if (e.type === 'DELETED') void this.replenish(store, obj.metadata.namespace ?? '');
        },
        closed: () => {
          this.watches.delete(key);
          // Events may have been missed while the watch was down: recalculate everything.
          this.timers.later(() => void this.startWatch(key, store).then(() => this.enqueueAll()), 1000);
        },
      });
      if (this.stopped) watch.stop();
      else this.watches.set(key, watch);
    } catch (e) {
      this.opts.onError?.(e);
      this.timers.later(() => void this.startWatch(key, store), 1000);
    }
  }

  /** kube's addQuota: a spec not yet mirrored in status, or a hard name without usage. */
  private needsSync(q: KubeObject): boolean {
    const { spec, status } = shape(q);
    if (!quantitiesEqual(spec?.hard, status?.hard)) return true;
    return Object.keys(status?.hard ?? {}).some((n) => status?.used?.[n] === undefined && this.canEvaluate(n));
  }

  private canEvaluate(name: string): boolean {
    return trackedButUncountable(name) || this.storeFor(name) !== undefined;
  }

  private storeFor(name: string): GenericStore | undefined {
    const r = countedResource(name);
    if (!r) return undefined;
    return this.opts.registry.all().find((s) => s.def.namespaced && s.def.group === r.group && s.def.resource === r.resource);
  }

  /** A deletion frees quota: recalculate the namespace's quotas that track this resource. */
  private async replenish(store: GenericStore, namespace: string): Promise<void> {
    const quotas = this.opts.registry.get('', 'v1', 'resourcequotas');
    if (!quotas || !namespace) return;
    try {
      const list = await quotas.list(this.ctx(namespace), {});
      for (const q of list.items) {
        const names = Object.keys(shape(q).status?.hard ?? {});
        if (names.some((n) => this.storeFor(n) === store)) this.enqueue(q);
      }
    } catch (e) {
      this.opts.onError?.(e);
    }
  }

  private async enqueueAll(): Promise<void> {
    const quotas = this.opts.registry.get('', 'v1', 'resourcequotas');
    if (!quotas) return;
    try {
      for (const q of (await quotas.list(this.ctx(), {})).items) this.enqueue(q);
    } catch (e) {
      this.opts.onError?.(e);
    }
  }

  private enqueue(q: KubeObject): void {
    this.enqueueKey(`${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`);
  }

  private enqueueKey(key: string): void {
    this.queue.add(key);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.size && !this.stopped) {
        const key = this.queue.values().next().value as string;
        this.queue.delete(key);
        const [namespace = '', name = ''] = key.split('/');
        try {
          await this.sync(namespace, name);
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 409)) this.opts.onError?.(e);
          this.timers.later(() => this.enqueueKey(key), this.opts.retryDelayMs ?? 200);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** kube's syncResourceQuota: status.hard = spec.hard, status.used = observed usage masked to hard. */
  private async sync(namespace: string, name: string): Promise<void> {
    const store = this.opts.registry.get('', 'v1', 'resourcequotas');
    if (!store) return;
    let quota: KubeObject;
    try {
      quota = await store.get(this.ctx(namespace), name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return;
      throw e;
    }
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
      } else if (trackedButUncountable(n)) {
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
