/**
 * A registry of in-memory stores for controller unit tests: enough of GenericStore (def, watch,
 * list, get, update) to drive a controller, recording every watch it opens.
 */
import { errors, KubeObject } from '../../../src/api';
import type { GenericStore, ListQuery, Registry, WatchSink } from '../../../src/registry';

export interface FakeWatch {
  query: ListQuery;
  sink: WatchSink;
  stopped: boolean;
}

export class FakeStore {
  readonly watches: FakeWatch[] = [];
  readonly items: KubeObject[] = [];
  readonly statusWrites: KubeObject[] = [];
  /** While set, watch() waits for it (a slow watch start). */
  gate?: Promise<void>;
  def: { group: string; version: string; resource: string; namespaced: boolean; verbs: string[] };

  constructor(group: string, resource: string, opts: { namespaced?: boolean; verbs?: string[] } = {}) {
    this.def = { group, version: 'v1', resource, namespaced: opts.namespaced ?? true, verbs: opts.verbs ?? ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] };
  }

  /** Watches that are still open. */
  open(): FakeWatch[] {
    return this.watches.filter((w) => !w.stopped);
  }

  async watch(_ctx: unknown, query: ListQuery, sink: WatchSink): Promise<{ stop(): void }> {
    if (this.gate) await this.gate;
    const w: FakeWatch = { query, sink, stopped: false };
    this.watches.push(w);
    const replay = query.sendInitialEvents !== false && (query.resourceVersion ?? '') === '';
    if (replay) for (const o of this.items) sink.event({ type: 'ADDED', object: o });
    return { stop: () => void (w.stopped = true) };
  }

  async list(ctx: { namespace: string }, _query: ListQuery): Promise<{ items: KubeObject[] }> {
    return { items: this.items.filter((o) => !ctx.namespace || o.metadata.namespace === ctx.namespace) };
  }

  async get(ctx: { namespace: string }, name: string): Promise<KubeObject> {
    const o = this.items.find((i) => i.metadata.name === name && (i.metadata.namespace ?? '') === ctx.namespace);
    if (!o) throw errors.notFound({ group: this.def.group, resource: this.def.resource }, name);
    return JSON.parse(JSON.stringify(o)) as KubeObject;
  }

  async update(ctx: { namespace: string }, name: string, fn: (cur: KubeObject) => KubeObject | Promise<KubeObject>): Promise<{ object: KubeObject; created: boolean }> {
    const i = this.items.findIndex((o) => o.metadata.name === name && (o.metadata.namespace ?? '') === ctx.namespace);
    const next = await fn(JSON.parse(JSON.stringify(this.items[i])) as KubeObject);
    this.items[i] = next;
    this.statusWrites.push(next);
    return { object: next, created: false };
  }

  /** Deletes a namespace's content: objects with finalizers are only marked for deletion. */
  async deleteCollection(ctx: { namespace: string }): Promise<void> {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const o = this.items[i] as KubeObject;
      if (o.metadata.namespace !== ctx.namespace) continue;
      if (o.metadata.finalizers?.length) o.metadata.deletionTimestamp ??= new Date().toISOString();
      else this.items.splice(i, 1);
    }
  }

  /** Ends a watch from the storage side (etcd gone, compaction): it is over, and its sink hears closed(). */
  close(w: FakeWatch | undefined): void {
    if (!w) return;
    w.stopped = true;
    w.sink.closed();
  }

  /** Emits an event to every open watch. */
  emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    for (const w of this.open()) w.sink.event({ type, object });
  }
}

export class FakeRegistry {
  readonly stores: FakeStore[] = [];
  private readonly listeners: Array<() => void> = [];

  add(store: FakeStore): FakeStore {
    this.stores.push(store);
    for (const l of this.listeners) l();
    return store;
  }

  get(group: string, _version: string, resource: string): FakeStore | undefined {
    return this.stores.find((s) => s.def.group === group && s.def.resource === resource);
  }

  all(): FakeStore[] {
    return [...this.stores];
  }

  onChange(l: () => void): void {
    this.listeners.push(l);
  }

  /** Fires the change listeners without adding anything (a registry change racing a start). */
  fireChange(): void {
    for (const l of this.listeners) l();
  }

  asRegistry(): Registry {
    return this as unknown as Registry;
  }
}

export const asStore = (s: FakeStore) => s as unknown as GenericStore;

export const obj = (namespace: string, name: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { namespace, name }, ...extra });

export const quota = (namespace: string, name: string, hard: Record<string, string>, used?: Record<string, string>): KubeObject =>
  obj(namespace, name, { kind: 'ResourceQuota', spec: { hard }, status: used ? { hard, used } : {} });
