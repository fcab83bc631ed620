/**
 * One etcd watch feeding one sink, with kube's selector transitions: an object that starts matching
 * arrives as ADDED, one that stops matching as DELETED (its previous state at the new revision).
 * etcd3 reconnects the stream by itself after etcd restarts and resumes after the last revision.
 */
import { Etcd3, IKeyValue, IWatchResponse, Watcher } from 'etcd3';
import { KubeObject } from '../../api';
import { Watch, WatchEvent, WatchOptions, WatchSink } from '../interface';
import { toStorageError } from './etcd-errors';
import { isStorageError, watchErrorStatus } from '../errors';
import { CorruptErrorOptions, CorruptValue, corruptWatchError } from '../corrupt';

export interface WatchPrefixArgs {
  client: Etcd3;
  prefix: string;
  opts: WatchOptions;
  /** Deliver events for revisions strictly after this one. */
  sinceRevision: bigint;
  sink: WatchSink;
  decode: (kv: IKeyValue, revision: bigint) => Promise<KubeObject | CorruptValue>;
  /** How a value that cannot be read back is reported (the watch then ends with that ERROR). */
  corruptErrors: CorruptErrorOptions;
}

export function watchPrefix({ client, prefix, opts, sinceRevision, sink, decode, corruptErrors }: WatchPrefixArgs): Watch {
  let stopped = false;
  let watcher: Watcher | undefined;
  let chain: Promise<void> = Promise.resolve();
  let last = sinceRevision;
  const pass = opts.predicate ?? (() => true);

  // etcd3 emits 'error' only after it has dropped a watcher that etcd canceled (e.g. compacted); a
  // cancel() then would make etcd answer for a watch id etcd3 no longer knows, and etcd3 throws.
  let canceledByEtcd = false;
  const cancel = (): void => {
    if (watcher && !canceledByEtcd) void watcher.cancel().catch(() => undefined);
  };

  const bookmark = (): void => {
    if (!stopped && opts.bookmarks) sink.event({ type: 'BOOKMARK', object: { metadata: { resourceVersion: last.toString() } } });
  };
  // kube's cacher sends bookmarks about once a minute; the etcd path does the same.
  const bookmarkTimer = opts.bookmarks ? setInterval(bookmark, 60_000) : undefined;
  bookmarkTimer?.unref();

  const finish = (event?: WatchEvent): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(bookmarkTimer);
    if (event) sink.event(event);
    sink.closed();
    cancel();
  };

  /** A value as its object; one that cannot be read back ends the watch with that ERROR (kube's watcher). */
  const readable = async (kv: IKeyValue, rev: bigint, deleted: boolean): Promise<KubeObject> => {
    const v = await decode(kv, rev);
    if (v instanceof CorruptValue) throw corruptWatchError(v, deleted, corruptErrors);
    return v;
  };

  const handle = async (res: IWatchResponse): Promise<void> => {
    for (const ev of res.events) {
      if (stopped) return;
      const rev = BigInt(ev.kv.mod_revision);
      // As kube's etcd3 watcher: the previous state is read only for a delete or a filtered watch.
      if (ev.type === 'Put') {
        const cur = await readable(ev.kv, rev, false);
        const prev = ev.prev_kv && opts.predicate ? await readable(ev.prev_kv, rev, false) : null;
        const curPass = pass(cur);
        const prevPass = opts.predicate ? prev !== null && pass(prev) : !!ev.prev_kv;
        if (curPass && prevPass) sink.event({ type: 'MODIFIED', object: cur });
        else if (curPass) sink.event({ type: 'ADDED', object: cur });
        else if (prevPass && prev) sink.event({ type: 'DELETED', object: prev });
      } else if (ev.prev_kv) {
        const prev = await readable(ev.prev_kv, rev, true);
        if (pass(prev)) sink.event({ type: 'DELETED', object: prev });
      }
      last = rev;
    }
    const headerRev = BigInt(res.header.revision);
    if (headerRev > last) last = headerRev;
  };

  /** etcd cancels a watch whose start revision was compacted; tell that apart from other failures. */
  const onError = async (err: unknown): Promise<void> => {
    if (stopped) return;
    try {
      await client.kv.range({ key: Buffer.from(prefix), limit: 1, keys_only: true, revision: String(last + 1n) });
    } catch (e) {
      const compacted = toStorageError(e, prefix);
      if (isStorageError(compacted, 'Compacted')) {
        finish({ type: 'ERROR', object: watchErrorStatus(compacted) });
        return;
      }
    }
    finish({ type: 'ERROR', object: watchErrorStatus(err) });
  };

  const builder = client.watch();
  (opts.exactKey ? builder.key(prefix) : builder.prefix(prefix))
    .startRevision(String(sinceRevision + 1n))
    .withPreviousKV();
  builder.create().then(
    (w) => {
      watcher = w;
      if (stopped) {
        void w.cancel().catch(() => undefined);
        return;
      }
      w.on('data', (res: IWatchResponse) => {
        chain = chain.then(() => handle(res)).catch((e) => onError(e));
      });
      w.on('error', (err: unknown) => {
        canceledByEtcd = true;
        chain = chain.then(() => onError(err));
      });
    },
    (err: unknown) => {
      chain = chain.then(() => onError(err));
    },
  );

  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(bookmarkTimer);
      cancel();
    },
    requestBookmark: bookmark,
  };
}
