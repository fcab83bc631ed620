/**
 * Which watcher received which write, when: the bookkeeping of the watch phase. Writes are numbered
 * 0..writes-1 (the marker annotation's value); times are ms since a common hrtime base.
 */
import type { ScannedEvent } from './watch-stream';

/** Counts of the checks every event goes through. */
export interface DeliveryCounters {
  /** First receipts of a write by a watcher. */
  delivered: number;
  /** A watcher receiving the same write again. */
  duplicated: number;
  /** An event whose resourceVersion is not above the same watcher's previous event. */
  outOfOrder: number;
  /** Events that are not ADDED/MODIFIED of a numbered write (ERROR, BOOKMARK, unmarked). */
  unexpected: number;
}

/** A DeliveryLog's state, as the watcher process hands it to the bench (see snapshot()). */
export interface DeliverySnapshot {
  received: Float64Array;
  counters: DeliveryCounters;
}

export class DeliveryLog {
  readonly counters: DeliveryCounters = { delivered: 0, duplicated: 0, outOfOrder: 0, unexpected: 0 };
  /** received[w * writes + seq]: arrival of write seq at watcher w (ms since base); NaN = not yet. */
  private readonly received: Float64Array;
  private readonly lastRv: bigint[];

  constructor(
    readonly watchers: number,
    readonly writes: number,
    private readonly baseNs: bigint,
    snapshot?: DeliverySnapshot,
  ) {
    this.received = snapshot?.received ?? new Float64Array(watchers * writes).fill(Number.NaN);
    if (snapshot) Object.assign(this.counters, snapshot.counters);
    this.lastRv = new Array<bigint>(watchers).fill(0n);
  }

  /** What another process needs to compute the latencies: the arrival table and the counters. */
  snapshot(): DeliverySnapshot {
    return { received: this.received, counters: { ...this.counters } };
  }

  /** Records one event seen by watcher `w`. */
  record(w: number, e: ScannedEvent): void {
    const c = this.counters;
    const seq = e.marker === undefined ? Number.NaN : Number(e.marker);
    if (!(seq >= 0 && seq < this.writes) || (e.type !== 'ADDED' && e.type !== 'MODIFIED')) {
      c.unexpected++;
      return;
    }
    const rv = BigInt(e.resourceVersion ?? '0');
    if (rv <= (this.lastRv[w] as bigint)) c.outOfOrder++;
    this.lastRv[w] = rv;
    const slot = w * this.writes + seq;
    if (!Number.isNaN(this.received[slot] as number)) {
      c.duplicated++;
      return;
    }
    this.received[slot] = Number(e.receivedNs - this.baseNs) / 1e6;
    c.delivered++;
  }

  /**
   * Latency samples of every receipt of a write that succeeded (ackAt not NaN): arrival − sentAt and
   * arrival − ackAt; `received` counts them (so expected − received = missing).
   */
  latencies(sentAt: Float64Array, ackAt: Float64Array): { fromSend: number[]; fromAck: number[]; received: number } {
    const fromSend: number[] = [];
    const fromAck: number[] = [];
    for (let w = 0; w < this.watchers; w++) {
      for (let seq = 0; seq < this.writes; seq++) {
        const at = this.received[w * this.writes + seq] as number;
        if (Number.isNaN(at) || Number.isNaN(ackAt[seq] as number)) continue;
        fromSend.push(at - (sentAt[seq] as number));
        fromAck.push(at - (ackAt[seq] as number));
      }
    }
    return { fromSend, fromAck, received: fromSend.length };
  }
}
