/** The resource table: every served resource's store, found by group/version/resource; resources can be added at run time. */
import { GenericStore, type GenericStoreDeps } from './generic-store';
import { NamespaceStore } from './namespace-store';
import type { ResourceDefinition } from './resource';

export type RegistryDeps = GenericStoreDeps;

/** The stores a declaration may ask for (ResourceDefinition.store). */
const storeVariants = { generic: GenericStore, namespace: NamespaceStore } as const;

export interface GroupVersionInfo {
  group: string;
  version: string;
  stores: GenericStore[];
}

export class Registry {
  private readonly stores = new Map<string, GenericStore>();
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly deps: RegistryDeps) {}

  /** Serves a resource from now on (built-ins at start, custom resources later). */
  add(def: ResourceDefinition): GenericStore {
    const store = new storeVariants[def.store ?? 'generic'](def, this.deps);
    this.stores.set(keyOf(def.group, def.version, def.resource), store);
    for (const l of this.listeners) l();
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

  /** Called after every change of the table (discovery and OpenAPI rebuild their documents). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}

function keyOf(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
