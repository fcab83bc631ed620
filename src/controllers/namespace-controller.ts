/**
 * The namespace controller (kube-controller-manager's, run in-process): for every namespace with a
 * deletionTimestamp it deletes all namespaced content, then removes the `kubernetes` finalizer
 * through /finalize, which lets the registry delete the namespace.
 */
import { ApiError, KubeObject } from '../api';
import type { Registry, RequestContext, Watch } from '../registry';
import { specFinalizers } from '../registry/namespace-store';

export interface NamespaceControllerOptions {
  registry: Registry;
  /** Delay before retrying a namespace whose content is still going (finalizers). */
  retryDelayMs?: number;
  onError?: (err: unknown) => void;
}

export class NamespaceController {
  private watch?: Watch;
  private stopped = false;
  private readonly queue = new Set<string>();
  private running = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly opts: NamespaceControllerOptions) {}

  private ctx(namespace = ''): RequestContext {
    return { namespace, warnings: [], dryRun: false, now: () => new Date(), user: { name: 'system:serviceaccount:kube-system:namespace-controller', uid: '', groups: ['system:masters'] } };
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.startWatch();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private async startWatch(): Promise<void> {
    const store = this.opts.registry.get('', 'v1', 'namespaces');
    if (!store || this.stopped) return;
    try {
      this.watch = await store.watch(this.ctx(), {}, {
        event: (e) => {
          if (e.type === 'ADDED' || e.type === 'MODIFIED') {
            const ns = e.object as KubeObject;
            if (ns.metadata.deletionTimestamp) this.enqueue(ns.metadata.name ?? '');
          }
        },
        closed: () => this.later(() => void this.startWatch(), 1000),
      });
    } catch (e) {
      this.opts.onError?.(e);
      this.later(() => void this.startWatch(), 1000);
    }
  }

  private later(fn: () => void, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  private enqueue(name: string): void {
    this.queue.add(name);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.size && !this.stopped) {
      const name = this.queue.values().next().value as string;
      this.queue.delete(name);
      try {
        const done = await this.sync(name);
        if (!done) this.later(() => this.enqueue(name), this.opts.retryDelayMs ?? 1000);
      } catch (e) {
        this.opts.onError?.(e);
        this.later(() => this.enqueue(name), this.opts.retryDelayMs ?? 1000);
      }
    }
    this.running = false;
  }

  /** One pass over a terminating namespace; true when nothing is left to do. */
  private async sync(name: string): Promise<boolean> {
    const nsStore = this.opts.registry.get('', 'v1', 'namespaces');
    if (!nsStore) return true;
    let ns: KubeObject;
    try {
      ns = await nsStore.get(this.ctx(), name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return true;
      throw e;
    }
    if (!ns.metadata.deletionTimestamp || !specFinalizers(ns).includes('kubernetes')) return true;
    let remaining = 0;
    for (const store of this.opts.registry.all()) {
      if (!store.def.namespaced || !store.def.verbs.includes('deletecollection')) continue;
      const left = await store.deleteCollection(this.ctx(name), {}, { propagationPolicy: 'Background' });
      remaining += left.items.filter((o) => !!o.metadata.finalizers?.length).length;
    }
    if (remaining > 0) return false;
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
}
