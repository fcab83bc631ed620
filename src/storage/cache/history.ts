/**
 * The watch cache's event history: a bounded window of recent events (by count and by age) that
 * watches starting at a recent resourceVersion replay from. Older starts go to etcd itself.
 */
import type { KubeObject, Status } from '../../api';
import type { WatchEvent } from '../interface';

export type CacheEvent = ObjectEvent | CorruptEvent;

/** A change of a readable object. */
export interface ObjectEvent {
  type: 'PUT' | 'DELETE';
  key: string;
  revision: bigint;
  /** PUT: the new state; DELETE: the last state stamped with the delete revision. */
  object: KubeObject;
  /** PUT of an existing key: the state before. */
  prev?: KubeObject;
  /** When the event arrived (ms), for the age bound. */
  at: number;
  /**
   * What watchers are told of it, each made for the first watcher told so and then the same object
   * for every other (sinks never modify events): one allocation per event, not per watcher, and
   * one identity for the frame memo (a DELETED of the previous state included).
   */
  told: ToldEvents;
}

export interface ToldEvents {
  added: WatchEvent | undefined;
  modified: WatchEvent | undefined;
  /** DELETE: the last state; PUT: the previous state at the new revision (a selector transition). */
  deleted: WatchEvent | undefined;
}

/** A key now holds a value that cannot be read back, or such a value was deleted: watchers of it end with an ERROR. */
export interface CorruptEvent {
  type: 'CORRUPT';
  key: string;
  revision: bigint;
  /** The ERROR a watcher of the key ends with. */
  status: Status;
  at: number;
}

export class EventHistory {
  private events: CacheEvent[] = [];
  private head = 0;
  /** Every event with a revision greater than this is in the window. */
  private oldest: bigint;

  constructor(
    startRevision: bigint,
    private readonly maxEvents: number,
    private readonly maxAgeMs: number,
  ) {
    this.oldest = startRevision;
  }

  /** The revision after which the window is complete. */
  get oldestRevision(): bigint {
    return this.oldest;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  push(e: CacheEvent): void {
    this.events.push(e);
  }

  /** Drops events beyond the count bound or older than the age bound. */
  trim(now: number): void {
    while (this.size > 0) {
      const first = this.events[this.head] as CacheEvent;
      if (this.size <= this.maxEvents && now - first.at <= this.maxAgeMs) break;
      this.oldest = first.revision;
      this.head++;
    }
    // Compact the backing array once the dead prefix dominates.
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** Whether a watch starting after `revision` can be served from the window. */
  covers(revision: bigint): boolean {
    return revision >= this.oldest;
  }

  /** Events with a revision greater than `revision`, oldest first. */
  *after(revision: bigint): Generator<CacheEvent> {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid] as CacheEvent).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) yield this.events[i] as CacheEvent;
  }
}
