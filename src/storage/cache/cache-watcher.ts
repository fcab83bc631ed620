/**
 * One client watch served by the cache: key-prefix and selector filtering with kube's transitions
 * (an object that starts matching is ADDED, one that stops matching is DELETED in its previous
 * state at the new revision), bookmarks, and a stop flag. The events it hands its sink are the
 * cache event's shared ones (history.ts ToldEvents): sinks must not modify them.
 */
import type { KubeObject } from '../../api';
import type { Predicate, WatchSink } from '../interface';
import type { CacheEvent } from './history';
import { withRevision } from '../revision';

export class CacheWatcher {
  stopped = false;

  constructor(
    readonly prefix: string,
    readonly exactKey: boolean,
    private readonly predicate: Predicate | undefined,
    private readonly sink: WatchSink,
    readonly bookmarks: boolean,
  ) {}

  matchesKey(key: string): boolean {
    return this.exactKey ? key === this.prefix : key.startsWith(this.prefix);
  }

  private passes(obj: KubeObject): boolean {
    return !this.predicate || this.predicate(obj);
  }

  /** Delivers one cache event if it concerns this watcher. */
  deliver(e: CacheEvent): void {
    if (this.stopped || !this.matchesKey(e.key)) return;
    // As kube's etcd3 watcher: an event whose value cannot be read back ends the watch with an ERROR.
    if (e.type === 'CORRUPT') {
      this.error(e.status);
      return;
    }
    const told = e.told;
    if (e.type === 'DELETE') {
      if (this.passes(e.object)) this.sink.event((told.deleted ??= { type: 'DELETED', object: e.object }));
      return;
    }
    const curPass = this.passes(e.object);
    const prevPass = e.prev ? this.passes(e.prev) : false;
    if (curPass && prevPass) this.sink.event((told.modified ??= { type: 'MODIFIED', object: e.object }));
    else if (curPass) this.sink.event((told.added ??= { type: 'ADDED', object: e.object }));
    else if (prevPass && e.prev) {
      this.sink.event((told.deleted ??= { type: 'DELETED', object: withRevision(e.prev, e.revision) }));
    }
  }

  /** Initial state: a synthetic ADDED for an existing object. */
  added(obj: KubeObject): void {
    if (!this.stopped && this.passes(obj)) this.sink.event({ type: 'ADDED', object: obj });
  }

  bookmark(revision: bigint, annotations?: Record<string, string>): void {
    if (this.stopped) return;
    const metadata: KubeObject['metadata'] = { resourceVersion: revision.toString() };
    if (annotations) metadata.annotations = annotations;
    this.sink.event({ type: 'BOOKMARK', object: { metadata } });
  }

  error(status: Parameters<WatchSink['event']>[0]['object']): void {
    if (this.stopped) return;
    this.sink.event({ type: 'ERROR', object: status });
    this.close();
  }

  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.sink.closed();
  }
}
