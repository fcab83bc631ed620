/**
 * The storage a declaration with `storedAs` sees (kube: a resource served in one version and kept
 * in etcd in another, as events.k8s.io/v1 Events are kept as core/v1 Events): a Storage that
 * converts what goes in to the stored form and what comes out to the served one, predicates
 * (field and label selectors) included, so GenericStore works on one version only.
 */
import { hasSharedItems, markSharedItems, type KubeObject } from '../api';
import { semanticEqual } from '../api/semantic-equal';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  Predicate,
  Storage,
  UpdateOptions,
  Watch,
  WatchOptions,
  WatchSink,
  WriteContext,
} from '../storage';
import type { StoredVersion } from './resource';

export function storedVersionStorage(storage: Storage, version: StoredVersion): Storage {
  return new StoredVersionStorage(storage, version);
}

class StoredVersionStorage implements Storage {
  /**
   * Each stored object's served form, made once: the watch cache hands every watcher and list the
   * same objects, so their served forms are shared too (one frame encoded per event, as for any
   * resource) and, like them, never modified.
   */
  private readonly served = new WeakMap<KubeObject, KubeObject>();

  constructor(
    private readonly storage: Storage,
    private readonly version: StoredVersion,
  ) {}

  private out(stored: KubeObject): KubeObject {
    let obj = this.served.get(stored);
    if (!obj) {
      obj = this.version.fromStored(stored);
      this.served.set(stored, obj);
    }
    return obj;
  }

  private predicate(p: Predicate | undefined): Predicate | undefined {
    return p && ((stored) => p(this.out(stored)));
  }

  async create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject> {
    return this.out(await this.storage.create(key, this.version.toStored(obj), opts));
  }

  async get(key: string, opts?: GetOptions): Promise<KubeObject> {
    return this.out(await this.storage.get(key, opts));
  }

  async guaranteedUpdate(key: string, opts: UpdateOptions): Promise<{ object: KubeObject; created: boolean }> {
    const r = await this.storage.guaranteedUpdate(key, {
      ...opts,
      cachedExisting: opts.cachedExisting && this.version.toStored(opts.cachedExisting),
      tryUpdate: async (current) => {
        if (!current) return this.version.toStored(await opts.tryUpdate(null));
        const served = this.version.fromStored(current);
        // The current object as this version would write it back unchanged, taken before tryUpdate
        // (which may modify `served` in place, as a deletion's marking does).
        const unchanged = this.version.toStored(served);
        const next = this.version.toStored(await opts.tryUpdate(served));
        // An update that changes nothing in this version hands back the stored object itself, so
        // storage sees the unchanged bytes and writes nothing, whatever key order or zero values
        // the stored form was written with.
        return semanticEqual(next, unchanged) ? current : next;
      },
    });
    return { object: this.out(r.object), created: r.created };
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    const { validateDeletion } = opts;
    return this.out(
      await this.storage.delete(key, {
        ...opts,
        cachedExisting: opts.cachedExisting && this.version.toStored(opts.cachedExisting),
        validateDeletion: validateDeletion && ((current) => validateDeletion(this.out(current))),
      }),
    );
  }

  deleteIgnoringReadError(key: string, opts?: { ctx?: WriteContext }): Promise<boolean> {
    return this.storage.deleteIgnoringReadError(key, opts);
  }

  async list(prefix: string, opts: ListOptions): Promise<ListResult> {
    const r = await this.storage.list(prefix, { ...opts, predicate: this.predicate(opts.predicate) });
    const items = r.items.map((o) => this.out(o));
    // Served forms of shared (watch cache) objects are shared too: encoders may memoise them.
    return { ...r, items: hasSharedItems(r.items) ? markSharedItems(items) : items };
  }

  watch(prefix: string, opts: WatchOptions, sink: WatchSink): Watch {
    return this.storage.watch(prefix, { ...opts, predicate: this.predicate(opts.predicate) }, {
      // Bookmarks carry only a resourceVersion, errors a Status: neither is converted.
      event: (e) =>
        sink.event(e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED' ? { type: e.type, object: this.out(e.object as KubeObject) } : e),
      closed: () => sink.closed(),
    });
  }

  currentRevision(): Promise<bigint> {
    return this.storage.currentRevision();
  }

  ping(timeoutMs?: number): Promise<boolean> {
    return this.storage.ping(timeoutMs);
  }

  close(): Promise<void> {
    return this.storage.close();
  }
}
