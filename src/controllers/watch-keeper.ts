/**
 * Keeps the controllers' watches open: at most one watch per key, opened through a WorkQueue (so
 * two starts of one key never overlap), reopened with backoff whenever it ends (kube's reflector
 * backs off from 800 ms to 30 s), and told when it is a reopening so its owner can make up for the
 * events it may have missed.
 */
import type { Watch, WatchEvent, WatchSink } from '../registry';
import { WorkQueue } from './work-queue';

/**
 * Opens one watch delivering to `sink`. `resumed` is true when an earlier watch under the same key
 * ended or failed to open: events may have been missed since. Throws (rejects) when it cannot open.
 */
export type WatchOpener = (sink: WatchSink, resumed: boolean) => Promise<Watch>;

export interface WatchKeeperOptions {
  onError?: (err: unknown) => void;
  /** First reopen delay, doubling per consecutive failure (default 800 ms). */
  baseDelayMs?: number;
  /** Reopen delay ceiling (default 30 s). */
  maxDelayMs?: number;
}

interface Kept {
  open: WatchOpener;
  onEvent: (e: WatchEvent) => void;
  watch?: Watch;
  resumed: boolean;
}

export class WatchKeeper {
  private readonly kept = new Map<string, Kept>();
  private readonly queue: WorkQueue<string>;
  private stopped = false;

  constructor(opts: WatchKeeperOptions = {}) {
    this.queue = new WorkQueue<string>({
      handler: (key) => this.openKept(key),
      baseDelayMs: opts.baseDelayMs ?? 800,
      maxDelayMs: opts.maxDelayMs ?? 30_000,
      qps: Infinity,
      onError: (e) => opts.onError?.(e),
    });
  }

  /**
   * Keeps a watch open under `key` until stop(): opened soon, reopened whenever it ends. Does
   * nothing when the key is already kept, so repeated or overlapping calls never open a second watch.
   */
  keep(key: string, onEvent: (e: WatchEvent) => void, open: WatchOpener): void {
    if (this.stopped || this.kept.has(key)) return;
    this.kept.set(key, { open, onEvent, resumed: false });
    this.queue.add(key);
  }

  /** Stops keeping `key`'s watch (its resource is no longer served); events still arriving are dropped. */
  forget(key: string): void {
    const kept = this.kept.get(key);
    if (!kept) return;
    this.kept.delete(key);
    kept.watch?.stop();
  }

  /** Every key kept, open or waiting to reopen. */
  keys(): string[] {
    return [...this.kept.keys()];
  }

  has(key: string): boolean {
    return this.kept.has(key);
  }

  /** Keys whose watch is open right now. */
  openKeys(): string[] {
    return [...this.kept].filter(([, k]) => k.watch).map(([key]) => key);
  }

  /** Resolves once every pending open has succeeded or failed (failed ones are retried later). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops every watch and every pending reopen; events arriving afterwards are dropped. */
  stop(): Promise<void> {
    this.stopped = true;
    const done = this.queue.shutDown();
    for (const k of this.kept.values()) k.watch?.stop();
    this.kept.clear();
    return done;
  }

  private async openKept(key: string): Promise<void> {
    const kept = this.kept.get(key);
    if (!kept || kept.watch) return;
    const current = () => this.kept.get(key) === kept;
    let ended = false;
    let watch: Watch | undefined;
    const sink: WatchSink = {
      event: (e) => {
        if (!ended && current()) kept.onEvent(e);
      },
      closed: () => {
        if (ended) return;
        ended = true;
        // Before open resolved, the failure is handled below; after, reopen with backoff.
        if (watch && current() && kept.watch === watch) {
          kept.watch = undefined;
          kept.resumed = true;
          this.queue.addRateLimited(key);
        }
      },
    };
    try {
      watch = await kept.open(sink, kept.resumed);
    } catch (e) {
      kept.resumed = true;
      throw e;
    }
    if (!current()) {
      watch.stop();
      return;
    }
    if (ended) {
      kept.resumed = true;
      throw new Error(`watch ${key} ended as it opened`);
    }
    kept.watch = watch;
    kept.resumed = false;
  }
}
