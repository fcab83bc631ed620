/**
 * kube's quotaAccessor (apiserver pkg/admission/plugin/resourcequota/resource_access.go): where
 * ResourceQuota admission reads a namespace's quotas and writes their status.
 *
 * - Reads come from the server's quota informer (kube's lister), without I/O.
 * - When the informer holds none for the namespace (none exist, or it has not seen a quota created
 *   moments ago, or it has not synced), a live list is made and remembered for 30 s, per namespace
 *   (an LRU of 100, one list in flight per namespace), as kube's live-lookup cache does. A namespace
 *   without quotas so costs one consistent list per 30 s, not one per write.
 * - A quota this server wrote last is used instead of the informer's copy while that copy is older
 *   (kube's updatedQuotas look-aside cache): back-to-back writes in one namespace charge the quota
 *   they wrote, not a stale copy that would lose its compare-and-swap.
 *
 * Every quota is handed out as it is held (shared with the informer): the plugin never mutates one.
 */
import { LRUCache } from 'lru-cache';
import type { KubeObject } from '../../api';
import type { QuotaAccessor } from '../deps';

/** What the accessor reads and writes through (wired by the server to its informer and registry). */
export interface QuotaSource {
  /** The informer's quotas of the namespace (kube's lister); empty before it has synced. */
  listed(namespace: string): readonly KubeObject[];
  /** A consistent list of the namespace's quotas (kube's live lookup, a client List). */
  live(namespace: string): Promise<KubeObject[]>;
  /** Writes a quota's status, conditional on its resourceVersion; resolves with the stored quota. */
  writeStatus(quota: KubeObject): Promise<KubeObject>;
}

export interface QuotaAccessorOptions {
  /** How long a live lookup is remembered (kube: 30 s). */
  liveTtlMs?: number;
  /** The clock (ms), for tests. */
  now?: () => number;
}

/** kube's live-lookup and updated-quota caches each hold 100 entries. */
const CACHE_SIZE = 100;

interface LiveLookup {
  expiresAt: number;
  /** The list, once it has come back; until then the pending list. */
  items?: readonly KubeObject[];
  pending?: Promise<readonly KubeObject[]>;
}

/** etcd resourceVersions are integers: the numeric order of two of the same object (unparsable as 0). */
function olderThan(a: KubeObject, b: KubeObject): boolean {
  const va = a.metadata.resourceVersion ?? '';
  const vb = b.metadata.resourceVersion ?? '';
  if (va.length !== vb.length) return va.length < vb.length;
  return va < vb;
}

/** The QuotaAccessor kube's ResourceQuota plugin reads through (see the module comment). */
export function quotaAccessor(source: QuotaSource, opts: QuotaAccessorOptions = {}): QuotaAccessor {
  const ttl = opts.liveTtlMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const liveLookups = new LRUCache<string, LiveLookup>({ max: CACHE_SIZE });
  const updated = new LRUCache<string, KubeObject>({ max: CACHE_SIZE });

  // kube's checkCache: this server's last write of the quota while the informer's copy is older.
  const latest = (q: KubeObject): KubeObject => {
    if (updated.size === 0) return q;
    const key = `${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`;
    const written = updated.get(key);
    if (!written) return q;
    if (!olderThan(q, written)) {
      updated.delete(key);
      return q;
    }
    return written;
  };
  const withLatest = (items: readonly KubeObject[]): KubeObject[] => items.map(latest);

  const lookUp = (namespace: string): readonly KubeObject[] | Promise<readonly KubeObject[]> => {
    const cached = liveLookups.get(namespace);
    if (cached && cached.expiresAt >= now()) return cached.items ?? (cached.pending as Promise<readonly KubeObject[]>);
    const entry: LiveLookup = { expiresAt: Number.POSITIVE_INFINITY };
    entry.pending = source.live(namespace).then(
      (items) => {
        entry.items = items;
        entry.pending = undefined;
        entry.expiresAt = now() + ttl;
        return items;
      },
      (e: unknown) => {
        // A failed lookup is not remembered: the next request asks again.
        if (liveLookups.get(namespace) === entry) liveLookups.delete(namespace);
        throw e;
      },
    );
    liveLookups.set(namespace, entry);
    return entry.pending;
  };

  return {
    getQuotas(namespace, o) {
      if (o?.fresh) return source.live(namespace);
      const listed = source.listed(namespace);
      if (listed.length) return withLatest(listed);
      const looked = lookUp(namespace);
      return looked instanceof Promise ? looked.then(withLatest) : withLatest(looked);
    },
    async updateQuotaStatus(quota) {
      const stored = await source.writeStatus(quota);
      updated.set(`${stored.metadata.namespace ?? ''}/${stored.metadata.name ?? ''}`, stored);
      return stored;
    },
  };
}
