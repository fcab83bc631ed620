/** The resource table: every served resource's store, found by group/version/resource; resources can be added at run time. */
import { GenericStore, getOrUndefined, type GenericStoreDeps } from './generic-store';
import { DeleteGuardedStore } from './delete-guarded-store';
import { NamespaceStore } from './namespace-store';
import { defaultResourceSettings, storagePrefixOf, type ResourceDefinition, type SubresourceEnv } from './resource';
import type { RequestContext } from './context';
import { ReviewStore, SubresourceStore } from './review-store';

export type RegistryDeps = GenericStoreDeps;

/** The stores a declaration may ask for (ResourceDefinition.store). */
const storeVariants = { generic: GenericStore, namespace: NamespaceStore, review: ReviewStore } as const;

/** What changed in the table: a resource served from now on, or one no longer served. */
export type RegistryChange = { added: ResourceDefinition } | { removed: ResourceDefinition };

export interface GroupVersionInfo {
  group: string;
  version: string;
  stores: GenericStore[];
}

export class Registry {
  private readonly stores = new Map<string, GenericStore>();
  private readonly listeners: Array<(change: RegistryChange) => void> = [];
  /** The stores of answered subresources, made the first time each is routed to. */
  private readonly answered = new WeakMap<GenericStore, Map<string, SubresourceStore>>();

  /**
   * What answers and reviews reach of the server: its settings and every served resource (a
   * binding updates a pod, an eviction deletes one), looked up when they are used.
   */
  readonly env: SubresourceEnv;

  constructor(private readonly deps: RegistryDeps) {
    this.env = {
      settings: deps.settings ?? defaultResourceSettings,
      get: async (ctx: RequestContext, gvr: { group: string; version: string; resource: string }, objName: string) => {
        const s = this.get(gvr.group, gvr.version, gvr.resource);
        return s ? getOrUndefined(s, ctx, objName) : undefined;
      },
      store: (gvr) => this.get(gvr.group, gvr.version, gvr.resource),
    };
  }

  /**
   * Serves a resource from now on (built-ins at start, others at run time). Throws Error, changing
   * nothing, when check() refuses it.
   */
  add(def: ResourceDefinition): GenericStore {
    this.check(def);
    const Store = def.refuseDelete && (def.store ?? 'generic') === 'generic' ? DeleteGuardedStore : storeVariants[def.store ?? 'generic'];
    const store = new Store(def, { ...this.deps, env: this.env });
    this.stores.set(keyOf(def.group, def.version, def.resource), store);
    this.emit({ added: def });
    return store;
  }

  /**
   * Throws Error when `def` cannot be added: its group/version/resource is served already, or its
   * objects would share keys with another resource's. Keys are shared only by versions of one kind
   * in one group, across groups when one of them names the shared storage prefix itself, and by a
   * declaration `storedAs` another (kube's events.k8s.io Events live with core Events), which must
   * then have that one's prefix. Two groups with one plural need their own prefixes, as custom
   * resources have, and one prefix may not lie inside another.
   */
  check(def: ResourceDefinition): void {
    if (this.stores.has(keyOf(def.group, def.version, def.resource))) {
      throw new Error(`${def.resource}.${def.group || 'core'}/${def.version} is served already`);
    }
    if (def.store === 'review') return;
    const prefix = storagePrefixOf(def);
    for (const s of this.stores.values()) {
      if (!s.stored) continue;
      const other = storagePrefixOf(s.def);
      const overlaps = other === prefix || other.startsWith(`${prefix}/`) || prefix.startsWith(`${other}/`);
      const named = def.storagePrefix !== undefined || s.def.storagePrefix !== undefined;
      const cohabits = storedWith(def, s.def) || storedWith(s.def, def);
      if (cohabits && other !== prefix) {
        throw new Error(`${def.resource}.${def.group || 'core'}: storage prefix ${prefix} is not ${other} of ${s.def.resource}.${s.def.group || 'core'}, whose objects it shares`);
      }
      const shares = other === prefix && ((s.def.kind === def.kind && (s.def.group === def.group || named)) || cohabits);
      if (overlaps && !shares) {
        throw new Error(`${def.resource}.${def.group || 'core'}: storage prefix ${prefix} overlaps ${other} of ${s.def.kind} (${s.def.resource}.${s.def.group || 'core'})`);
      }
    }
  }

  /**
   * Stops serving a resource: routing, discovery and OpenAPI drop it and its open watches end (kube,
   * when a custom resource goes). Its objects stay in etcd. False when it was not served.
   */
  remove(group: string, version: string, resource: string): boolean {
    const key = keyOf(group, version, resource);
    const store = this.stores.get(key);
    if (!store) return false;
    this.stores.delete(key);
    store.markRemoved();
    this.emit({ removed: store.def });
    return true;
  }

  /** The store answering POSTs to `parent`'s subresource `name`, when the declaration answers it. */
  subresourceStore(parent: GenericStore, name: string): SubresourceStore | undefined {
    const answer = parent.def.subresources.find((s) => s.name === name)?.answer;
    if (!answer) return undefined;
    let byName = this.answered.get(parent);
    if (!byName) this.answered.set(parent, (byName = new Map()));
    let store = byName.get(name);
    if (!store) byName.set(name, (store = new SubresourceStore(parent, name, answer, this.deps, this.env)));
    return store;
  }

  get(group: string, version: string, resource: string): GenericStore | undefined {
    return this.stores.get(keyOf(group, version, resource));
  }

  all(): GenericStore[] {
    return [...this.stores.values()];
  }

  definitions(): ResourceDefinition[] {
    return this.all().map((s) => s.def);
  }

  /** Group-versions in registration order (core first), each with its stores. */
  groupVersions(): GroupVersionInfo[] {
    const out = new Map<string, GroupVersionInfo>();
    for (const s of this.stores.values()) {
      const k = `${s.def.group}/${s.def.version}`;
      let gv = out.get(k);
      if (!gv) out.set(k, (gv = { group: s.def.group, version: s.def.version, stores: [] }));
      gv.stores.push(s);
    }
    return [...out.values()];
  }

  /** Called after every change of the table (discovery and OpenAPI rebuild, codecs learn kinds). */
  onChange(listener: (change: RegistryChange) => void): void {
    this.listeners.push(listener);
  }

  private emit(change: RegistryChange): void {
    for (const l of this.listeners) l(change);
  }
}

/** Whether `a` serves objects `b` stores (ResourceDefinition.storedAs names b's group and plural). */
function storedWith(a: ResourceDefinition, b: ResourceDefinition): boolean {
  return a.storedAs !== undefined && a.storedAs.group === b.group && a.storedAs.resource === b.resource;
}

function keyOf(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
