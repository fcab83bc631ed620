/**
 * The namespace controller (kube-controller-manager's, run in-process): for every namespace with a
 * deletionTimestamp it deletes all namespaced content (honouring each object's finalizers),
 * reports progress in the five deletion conditions of status, then removes the `kubernetes`
 * finalizer through /finalize, which lets the registry delete the namespace (kube-facts §7).
 */
import { ApiError, KubeObject, timestamp } from '../api';
import { getOrUndefined, type GenericStore, type Registry, type RequestContext } from '../registry';
import { specFinalizers } from '../registry/namespace-store';
import { controllerContext } from './context';
import { WatchKeeper } from './watch-keeper';
import { WorkQueue } from './work-queue';

export interface NamespaceControllerOptions {
  registry: Registry;
  /**
   * Delay before another pass over a namespace whose content is still going (finalizers); kube waits
   * estimate/2 + 1 s, 1 s when nothing is terminating gracefully.
   */
  retryDelayMs?: number;
  /** First retry delay after a failed pass, doubling per failure (kube's nsControllerRateLimiter: 5 ms). */
  failureBaseDelayMs?: number;
  /** Ceiling of that backoff (kube: 60 s, so a failing namespace is retried at least every minute). */
  failureMaxDelayMs?: number;
  /** Namespaces deleted at once (kube: --concurrent-namespace-syncs, 10). */
  workers?: number;
  onError?: (err: unknown) => void;
}

export class NamespaceController {
  private run?: { queue: WorkQueue<string>; watches: WatchKeeper };

  constructor(private readonly opts: NamespaceControllerOptions) {}

  private ctx(namespace = ''): RequestContext {
    return controllerContext('system:serviceaccount:kube-system:namespace-controller', ['system:masters'], namespace);
  }

  /** Opens the namespace watch (its initial events queue every terminating namespace); resolves once it opened or failed (and will retry). */
  async start(): Promise<void> {
    if (this.run) return;
    const onError = (e: unknown) => this.opts.onError?.(e);
    const queue = new WorkQueue<string>({
      handler: async (name) => ((await this.sync(name)) ? undefined : { requeueAfterMs: this.opts.retryDelayMs ?? 1000 }),
      workers: this.opts.workers ?? 10,
      baseDelayMs: this.opts.failureBaseDelayMs ?? 5,
      maxDelayMs: this.opts.failureMaxDelayMs ?? 60_000,
      onError,
    });
    const watches = new WatchKeeper({ onError });
    this.run = { queue, watches };
    const store = this.opts.registry.get('', 'v1', 'namespaces');
    if (!store) return;
    // Reopened, the watch replays every namespace again: one whose deletion began meanwhile is not missed.
    watches.keep(
      'namespaces',
      (e) => {
        if (e.type === 'ADDED' || e.type === 'MODIFIED') {
          const ns = e.object as KubeObject;
          if (ns.metadata.deletionTimestamp) queue.add(ns.metadata.name ?? '');
        }
      },
      (sink) => store.watch(this.ctx(), {}, sink),
    );
    await watches.idle();
  }

  stop(): void {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    void run.watches.stop();
    void run.queue.shutDown();
  }

  /**
   * One pass over a terminating namespace (kube's namespacedResourcesDeleter.Delete): phase
   * Terminating, delete all content, report it in the five status conditions, and once nothing is
   * left remove the `kubernetes` finalizer through /finalize. True when nothing is left to do.
   */
  private async sync(name: string): Promise<boolean> {
    const nsStore = this.opts.registry.get('', 'v1', 'namespaces');
    if (!nsStore) return true;
    let ns = await getOrUndefined(nsStore, this.ctx(), name);
    if (!ns?.metadata.deletionTimestamp) return true;
    if ((ns.status as { phase?: string } | undefined)?.phase !== 'Terminating') {
      ns = await this.updateStatus(name, (status) => ({ ...status, phase: 'Terminating' }));
    }
    // kube: finalized once spec.finalizers is empty.
    if (!specFinalizers(ns).length) return true;
    const totals = await this.deleteAllContent(name);
    const conditions = namespaceConditions(totals, (ns.status as NamespaceStatus | undefined)?.conditions ?? [], timestamp(new Date()));
    if (conditions.changed) await this.updateStatus(name, (status) => ({ ...status, conditions: conditions.list }));
    if (totals.errors.length) throw new Error(totals.errors.join(', '));
    if (totals.remaining.size > 0) return false;
    await nsStore.update(
      this.ctx(),
      name,
      (cur) => {
        const obj = cur as KubeObject;
        obj.spec = { ...(obj.spec as object), finalizers: specFinalizers(obj).filter((f) => f !== 'kubernetes') };
        return obj;
      },
      { subresource: 'finalize' },
    );
    return true;
  }

  private async updateStatus(name: string, change: (status: NamespaceStatus) => NamespaceStatus): Promise<KubeObject> {
    const nsStore = this.opts.registry.get('', 'v1', 'namespaces') as GenericStore;
    const r = await nsStore.update(
      this.ctx(),
      name,
      (cur) => {
        const obj = cur as KubeObject;
        obj.status = change((obj.status as NamespaceStatus | undefined) ?? {});
        return obj;
      },
      { subresource: 'status' },
    );
    return r.object;
  }

  /** kube's deleteAllContent over every namespaced resource that supports delete. */
  private async deleteAllContent(namespace: string): Promise<ContentTotals> {
    const totals: ContentTotals = { remaining: new Map(), finalizers: new Map(), errors: [] };
    for (const store of this.opts.registry.all()) {
      const { def } = store;
      if (!def.namespaced || !def.verbs.includes('delete')) continue;
      const gvr = `${def.resource}.${def.group}`;
      try {
        const ctx = this.ctx(namespace);
        if (def.verbs.includes('deletecollection')) {
          await store.deleteCollection(ctx, {}, { propagationPolicy: 'Background' });
        } else {
          for (const item of (await store.list(ctx, {})).items) {
            await store.delete(ctx, item.metadata.name ?? '', { propagationPolicy: 'Background' }).catch((e: unknown) => {
              if (!(e instanceof ApiError && e.code === 404)) throw e;
            });
          }
        }
        const left = (await store.list(ctx, {})).items;
        if (!left.length) continue;
        const withFinalizers = left.filter((o) => o.metadata.finalizers?.length);
        totals.remaining.set(gvr, left.length);
        for (const o of withFinalizers) for (const f of o.metadata.finalizers ?? []) totals.finalizers.set(f, (totals.finalizers.get(f) ?? 0) + 1);
        if (!withFinalizers.length) {
          // Go's %v of the GroupVersionResource struct.
          totals.errors.push(`unexpected items still remain in namespace: ${namespace} for gvr: {${def.group} ${def.version} ${def.resource}}`);
        }
      } catch (e) {
        totals.errors.push(e instanceof Error ? e.message : String(e));
      }
    }
    return totals;
  }
}

interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface NamespaceStatus {
  phase?: string;
  conditions?: NamespaceCondition[];
}

/** What one content-deletion pass found: remaining objects per `<resource>.<group>`, per finalizer, and errors. */
export interface ContentTotals {
  remaining: Map<string, number>;
  finalizers: Map<string, number>;
  errors: string[];
}

/** The condition types the namespace deleter maintains, in kube's order, with their OK reason and message. */
const conditionTypes: Array<[type: string, reason: string, message: string]> = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

/**
 * kube's namespaceConditionUpdater: the failing conditions of this pass, every other type in its OK
 * form, merged into the existing list (lastTransitionTime changes only when status flips).
 */
export function namespaceConditions(totals: ContentTotals, existing: NamespaceCondition[], now: string): { list: NamespaceCondition[]; changed: boolean } {
  const failing = new Map<string, NamespaceCondition>();
  const sortedEntries = (m: Map<string, number>, fmt: (k: string, n: number) => string) =>
    [...m].filter(([, n]) => n > 0).map(([k, n]) => fmt(k, n)).sort();
  if (totals.remaining.size) {
    const parts = sortedEntries(totals.remaining, (gvr, n) => `${gvr} has ${n} resource instances`);
    failing.set('NamespaceContentRemaining', { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: now, reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${parts.join(', ')}` });
  }
  if (totals.finalizers.size) {
    const parts = sortedEntries(totals.finalizers, (f, n) => `${f} in ${n} resource instances`);
    failing.set('NamespaceFinalizersRemaining', {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      lastTransitionTime: now,
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${parts.join(', ')}`,
    });
  }
  if (totals.errors.length) {
    const msgs = [...totals.errors].sort();
    failing.set('NamespaceDeletionContentFailure', {
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      lastTransitionTime: now,
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`,
    });
  }
  const list = existing.map((c) => ({ ...c }));
  let changed = false;
  for (const [type, reason, message] of conditionTypes) {
    const next = failing.get(type) ?? { type, status: 'False', lastTransitionTime: now, reason, message };
    const old = list.find((c) => c.type === type);
    if (!old) {
      list.push(next);
      changed = true;
    } else if (old.status !== next.status || old.message !== next.message || old.reason !== next.reason) {
      if (old.status !== next.status) old.lastTransitionTime = now;
      old.status = next.status;
      old.reason = next.reason;
      old.message = next.message;
      changed = true;
    }
  }
  return { list, changed };
}
