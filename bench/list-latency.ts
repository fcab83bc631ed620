/**
 * List latency for one namespace's N objects, each way a list can be answered, measured round-robin
 * (so drift hits every variant alike): from the watch cache (RV=0; RV unset = consistent), from etcd
 * through the API (limit=N is delegated to etcd by kube's rules; a --watch-cache=false server), and
 * raw etcd3 range reads of the same key prefix; and the same paged by `limit` (continue tokens through
 * the API, which kube always serves from etcd; a start-key loop at one revision raw).
 */
import { Etcd3 } from 'etcd3';
import type { ApiClient } from './support/api-client';
import type { Progress } from './support/progress';
import { msSince, summarize, type Summary } from './support/stats';

/** One way of listing. */
export interface ListVariant {
  id: string;
  label: string;
  /** Which kind of source answers: the cache, etcd via the API, or etcd directly. */
  source: 'cache' | 'etcd-via-api' | 'raw-etcd';
  /** The raw-etcd variant this one's ratio is taken against (raw variants: none). */
  rawId?: string;
  /** Lists once; with `count`, returns how many items came back (parsing the body), else -1. */
  run(count: boolean): Promise<number>;
}

export interface ListRow {
  id: string;
  label: string;
  source: ListVariant['source'];
  rawId?: string;
  items: number;
  latencyMs: Summary;
}

/** An API list variant: GET `path` (the whole body is received; it is parsed only to count). */
export function apiList(client: ApiClient, id: string, label: string, source: ListVariant['source'], path: string, rawId: string): ListVariant {
  return {
    id,
    label,
    source,
    rawId,
    run: async (count) => {
      const res = await client.expect('GET', path);
      return count ? (JSON.parse(res.body.toString('utf8')) as { items: unknown[] }).items.length : -1;
    },
  };
}

/**
 * An API list paged by `limit`: GET `path?limit=N`, then `&continue=<token>` until the token is empty.
 * The token is cut from the list's metadata (which precedes the items) without parsing the page.
 */
export function apiPagedList(client: ApiClient, id: string, label: string, path: string, limit: number, rawId: string): ListVariant {
  return {
    id,
    label,
    source: 'etcd-via-api',
    rawId,
    run: async (count) => {
      let items = 0;
      let token = '';
      do {
        const res = await client.expect('GET', `${path}?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
        if (count) items += (JSON.parse(res.body.toString('utf8')) as { items: unknown[] }).items.length;
        const head = res.body.toString('utf8', 0, Math.min(res.body.length, 2048));
        token = /"metadata":\{[^{}]*?"continue":"([^"]*)"/.exec(head)?.[1] ?? '';
      } while (token);
      return count ? items : -1;
    },
  };
}

/**
 * A raw etcd paged read, as kube's store pages a list: ranges of `limit` keys from a start key to the
 * prefix's end, every page after the first at the first page's revision.
 */
export function rawEtcdPagedList(etcd: Etcd3, id: string, label: string, prefix: string, limit: number): ListVariant {
  const rangeEnd = prefixEnd(prefix);
  return {
    id,
    label,
    source: 'raw-etcd',
    run: async () => {
      let key = Buffer.from(prefix);
      let revision: string | undefined;
      let items = 0;
      for (;;) {
        const res = await etcd.kv.range({ key, range_end: rangeEnd, limit, ...(revision ? { revision } : {}) });
        revision ??= res.header.revision;
        items += res.kvs.length;
        const last = res.kvs[res.kvs.length - 1];
        if (!res.more || !last) return items;
        key = Buffer.concat([last.key, Buffer.from([0])]);
      }
    },
  };
}

/** The first key after every key starting with `prefix` (etcd's range_end for a prefix). */
function prefixEnd(prefix: string): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** A raw etcd range read of every key under `prefix` (values as bytes, undecoded). */
export function rawEtcdList(etcd: Etcd3, id: string, label: string, prefix: string): ListVariant {
  return {
    id,
    label,
    source: 'raw-etcd',
    run: async () => {
      const res = await etcd.getAll().prefix(prefix).exec();
      // The values stay bytes: this is the floor any server reading etcd pays.
      return res.kvs.length;
    },
  };
}

/**
 * Runs each variant `warmup` times (the first run also checks it returns all `expected` objects,
 * else throws), then `reps` rounds of every variant once, timed.
 */
export async function measureListLatency(
  variants: ListVariant[],
  opts: { reps: number; warmup: number; expected: number },
  progress: Progress,
): Promise<ListRow[]> {
  const samples = new Map<string, number[]>(variants.map((v) => [v.id, []]));
  const items = new Map<string, number>();
  for (const v of variants) {
    const n = await v.run(true);
    if (n !== opts.expected) throw new Error(`${v.label}: got ${n} items, expected ${opts.expected}`);
    items.set(v.id, n);
    for (let i = 1; i < opts.warmup; i++) await v.run(false);
  }
  for (let r = 0; r < opts.reps; r++) {
    // Each round starts one variant later: whatever one variant leaves behind (client garbage from a
    // 15 MB body, a busy etcd) falls on every variant in turn, not always on the same successor.
    const order = variants.map((_, i) => variants[(i + r) % variants.length] as ListVariant);
    for (const v of order) {
      const t = process.hrtime.bigint();
      await v.run(false);
      samples.get(v.id)?.push(msSince(t));
    }
    progress('list', `round ${r + 1}/${opts.reps}`);
  }
  return variants.map((v) => ({
    id: v.id,
    label: v.label,
    source: v.source,
    rawId: v.rawId,
    items: items.get(v.id) ?? 0,
    latencyMs: summarize(samples.get(v.id) ?? []),
  }));
}
