/**
 * The service accounts controller (kube-controller-manager's ServiceAccountsController, run
 * in-process): every active namespace has a `default` ServiceAccount. A namespace is synced when it
 * is added or changes, and again when its `default` account is deleted; the account is made when
 * missing, and a namespace that is gone or terminating is left alone.
 */
import { ApiError, KubeObject } from '../api';
import type { Registry, RequestContext } from '../registry';
import { WatchKeeper } from './watch-keeper';
import { WorkQueue } from './work-queue';

/** kube's ServiceAccountsControllerOptions.ServiceAccounts default: one account named `default`. */
export const managedServiceAccounts = ['default'];

export interface ServiceAccountControllerOptions {
  registry: Registry;
  onError?: (err: unknown) => void;
}

export class ServiceAccountController {
  private run?: { queue: WorkQueue<string>; watches: WatchKeeper };

  constructor(private readonly opts: ServiceAccountControllerOptions) {}

  private ctx(namespace = ''): RequestContext {
    return {
      namespace,
      warnings: [],
      dryRun: false,
      now: () => new Date(),
      user: { name: 'system:serviceaccount:kube-system:service-account-controller', uid: '', groups: ['system:masters'] },
    };
  }

  /** Opens the namespace and service-account watches; resolves once they opened or failed (and will retry). */
  async start(): Promise<void> {
    if (this.run) return;
    const onError = (e: unknown) => this.opts.onError?.(e);
    const queue = new WorkQueue<string>({ handler: async (ns) => void (await this.sync(ns)), workers: 2, baseDelayMs: 5, maxDelayMs: 60_000, onError });
    const watches = new WatchKeeper({ onError });
    this.run = { queue, watches };
    const namespaces = this.opts.registry.get('', 'v1', 'namespaces');
    const accounts = this.opts.registry.get('', 'v1', 'serviceaccounts');
    if (!namespaces || !accounts) return;
    watches.keep(
      'namespaces',
      (e) => {
        if (e.type === 'ADDED' || e.type === 'MODIFIED') queue.add((e.object as KubeObject).metadata.name ?? '');
      },
      (sink) => namespaces.watch(this.ctx(), {}, sink),
    );
    watches.keep(
      'serviceaccounts',
      (e) => {
        const sa = e.object as KubeObject;
        if (e.type === 'DELETED' && managedServiceAccounts.includes(sa.metadata.name ?? '')) queue.add(sa.metadata.namespace ?? '');
      },
      (sink) => accounts.watch(this.ctx(), {}, sink),
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

  /** kube's syncNamespace: each managed account that is missing in an active namespace is created. */
  async sync(namespace: string): Promise<void> {
    const nsStore = this.opts.registry.get('', 'v1', 'namespaces');
    const saStore = this.opts.registry.get('', 'v1', 'serviceaccounts');
    if (!nsStore || !saStore) return;
    let ns: KubeObject;
    try {
      ns = await nsStore.get(this.ctx(), namespace);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return;
      throw e;
    }
    if (ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') return;
    const ctx = this.ctx(namespace);
    for (const name of managedServiceAccounts) {
      try {
        await saStore.get(ctx, name);
        continue;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
      try {
        await saStore.create(ctx, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
      } catch (e) {
        // Made meanwhile, or the namespace went or began terminating: nothing to do (kube's skips).
        if (e instanceof ApiError && (e.code === 409 || e.code === 404 || e.code === 403)) continue;
        throw e;
      }
    }
  }
}
