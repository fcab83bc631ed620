/**
 * The watch cache's feed: ONE etcd watch over the whole keyspace, so that every etcd revision is
 * observed (etcd 3.4.23 has no reliable progress notifications, and a prefix watch never learns of
 * revisions spent on other keys). Values under the server's prefix are decoded once here; other keys
 * only advance the revision. It asks etcd for no previous values: the cache holds every key's
 * previous state already, so a DELETE names only its key. etcd3 reconnects the stream after an etcd
 * restart and resumes after the last revision seen; a compacted resume is reported as an error.
 */
import { Etcd3, IKeyValue, IWatchResponse, Range, Watcher } from 'etcd3';
import type { KubeObject } from '../../api';
import type { CorruptValue } from '../corrupt';

/** A PUT with the key's new state (or the CorruptValue it is), or a DELETE of the key. */
export type FeedEvent =
  | { type: 'PUT'; key: string; revision: bigint; object: KubeObject | CorruptValue }
  | { type: 'DELETE'; key: string; revision: bigint };

export interface FeedListener {
  /** Events of one etcd revision batch in order; `revision` is the newest revision now known. */
  events(events: FeedEvent[], revision: bigint): void;
  /** The feed broke for good (compaction during an outage, or etcd refused the watch). */
  failed(err: unknown): void;
}

export interface FeedArgs {
  client: Etcd3;
  /** Only keys starting with this are decoded and reported. */
  prefix: string;
  sinceRevision: bigint;
  /** A value that cannot be read back comes as its CorruptValue (the cache keeps it as such); at once or as a promise. */
  decode: (kv: IKeyValue, revision: bigint) => KubeObject | CorruptValue | Promise<KubeObject | CorruptValue>;
  listener: FeedListener;
}

export interface Feed {
  stop(): void;
}

export function watchKeyspace({ client, prefix, sinceRevision, decode, listener }: FeedArgs): Feed {
  let stopped = false;
  let watcher: Watcher | undefined;
  let chain: Promise<void> = Promise.resolve();

  const handle = async (res: IWatchResponse): Promise<void> => {
    const out: FeedEvent[] = [];
    let newest = BigInt(res.header.revision);
    for (const ev of res.events) {
      const rev = BigInt(ev.kv.mod_revision);
      if (rev > newest) newest = rev;
      const key = ev.kv.key.toString();
      if (!key.startsWith(prefix)) continue;
      if (ev.type === 'Put') {
        const object = decode(ev.kv, rev);
        out.push({ type: 'PUT', key, revision: rev, object: object instanceof Promise ? await object : object });
      }
      else out.push({ type: 'DELETE', key, revision: rev });
    }
    if (!stopped) listener.events(out, newest);
  };

  const fail = (err: unknown): void => {
    if (stopped) return;
    stopped = true;
    if (watcher) void watcher.cancel().catch(() => undefined);
    listener.failed(err);
  };

  client
    .watch()
    .inRange(new Range(Buffer.from([0]), Buffer.from([0])))
    .startRevision(String(sinceRevision + 1n))
    .create()
    .then(
      (w) => {
        watcher = w;
        if (stopped) {
          void w.cancel().catch(() => undefined);
          return;
        }
        w.on('data', (res: IWatchResponse) => {
          chain = chain.then(() => handle(res)).catch(fail);
        });
        w.on('error', (err: unknown) => {
          chain = chain.then(() => fail(err));
        });
      },
      (err: unknown) => fail(err),
    );

  return {
    stop() {
      if (stopped) return;
      stopped = true;
      if (watcher) void watcher.cancel().catch(() => undefined);
    },
  };
}
