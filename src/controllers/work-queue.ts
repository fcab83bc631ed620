/**
 * The controllers' work queue, with the semantics of client-go's rate-limited workqueue that matter
 * here: a key waits in the queue at most once; a key is never handled by two workers at once; a key
 * added while it is being handled is handled again afterwards; a failed key comes back after a
 * per-key exponential backoff (ItemExponentialFailureRateLimiter) that a success forgets, with an
 * overall token bucket on top (DefaultControllerRateLimiter's MaxOf); shutDown drops everything
 * pending and leaves no timer behind.
 */

/** What a handler may ask for instead of a plain success. */
export interface WorkResult {
  /** Handle the key again after this delay, keeping its failure count (kube's AddAfter without Forget). */
  requeueAfterMs?: number;
}

export interface WorkQueueOptions<K> {
  /**
   * Handles one key. Returning normally forgets the key's failures; throwing (or rejecting) reports
   * the error through onError and re-adds the key after its backoff.
   */
  handler: (key: K) => Promise<WorkResult | void>;
  /** Keys handled at once (kube: the controller's worker count). Default 1. */
  workers?: number;
  /** Backoff of a key's first retry; it doubles with every further failure. Default 5 ms (kube). */
  baseDelayMs?: number;
  /** Ceiling of the per-key backoff. Default 1000 s (kube's DefaultControllerRateLimiter). */
  maxDelayMs?: number;
  /** Overall rate of rate-limited re-adds, per second, and its burst (kube: 10 and 100); Infinity disables it. */
  qps?: number;
  burst?: number;
  onError?: (err: unknown, key: K) => void;
  /** Clock in ms (tests may inject one); default Date.now. */
  now?: () => number;
}

export class WorkQueue<K = string> {
  /** Keys waiting for a worker, in arrival order. */
  private readonly queue = new Set<K>();
  private readonly processing = new Set<K>();
  /** Keys added again while being handled: queued once their handler ends. */
  private readonly dirty = new Set<K>();
  private readonly waiting = new Map<K, { readyAt: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<K, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  private pumpScheduled = false;
  private shuttingDown = false;
  private tokens: number;
  private tokensAt: number;

  constructor(private readonly opts: WorkQueueOptions<K>) {
    this.tokens = opts.burst ?? 100;
    this.tokensAt = this.now();
  }

  /** Queues a key unless it is already waiting; a key being handled is handled once more afterwards. */
  add(key: K): void {
    if (this.shuttingDown) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queue.has(key)) return;
    this.queue.add(key);
    this.schedulePump();
  }

  /** Adds the key after `ms`; of several pending delays for one key the earliest wins (kube's delaying queue). */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.now() + ms;
    const pending = this.waiting.get(key);
    if (pending && pending.readyAt <= readyAt) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { readyAt, timer });
  }

  /** Adds the key after its backoff (and the overall bucket's delay), counting one more failure. */
  addRateLimited(key: K): void {
    this.addAfter(key, this.when(key));
  }

  /** The delay the next rate-limited add of `key` gets; counts a failure (kube's RateLimiter.When). */
  when(key: K): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const item = Math.min((this.opts.baseDelayMs ?? 5) * 2 ** exp, this.opts.maxDelayMs ?? 1_000_000);
    return Math.max(item, this.bucketDelay());
  }

  /** Clears the key's failure count (its next backoff starts from the base again). */
  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** Keys waiting for a worker (not those being handled nor those delayed). */
  len(): number {
    return this.queue.size;
  }

  /** Resolves once no key waits for a worker and none is being handled (delayed keys do not count). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Drops every waiting and delayed key and cancels their timers; later adds do nothing. Handlers
   * already running finish (the returned promise waits for them) but nothing is re-added.
   */
  shutDown(): Promise<void> {
    this.shuttingDown = true;
    this.queue.clear();
    this.dirty.clear();
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    this.waiting.clear();
    this.failures.clear();
    this.releaseIdle();
    return Promise.all([...this.inFlight]).then(() => undefined);
  }

  /** Timers still pending (delayed adds); 0 after shutDown. */
  pendingTimers(): number {
    return this.waiting.size;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** golang.org/x/time/rate Reserve: refill since the last call, take a token, wait while the balance is negative. */
  private bucketDelay(): number {
    const qps = this.opts.qps ?? 10;
    if (qps === Infinity) return 0;
    const burst = this.opts.burst ?? 100;
    const now = this.now();
    this.tokens = Math.min(burst, this.tokens + ((now - this.tokensAt) * qps) / 1000);
    this.tokensAt = now;
    this.tokens -= 1;
    return this.tokens < 0 ? (-this.tokens * 1000) / qps : 0;
  }

  private isIdle(): boolean {
    return this.queue.size === 0 && this.processing.size === 0;
  }

  private releaseIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Workers start on a microtask, so an add never runs a handler inside its caller. */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    void Promise.resolve().then(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const workers = this.opts.workers ?? 1;
    while (!this.shuttingDown && this.processing.size < workers && this.queue.size) {
      const key = this.queue.values().next().value as K;
      this.queue.delete(key);
      this.processing.add(key);
      const run = this.work(key);
      this.inFlight.add(run);
      void run.then(() => this.inFlight.delete(run));
    }
    if (this.isIdle()) this.releaseIdle();
  }

  /** One handler run; never rejects. */
  private async work(key: K): Promise<void> {
    try {
      const result = await this.opts.handler(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
      else this.forget(key);
    } catch (e) {
      if (!this.shuttingDown) {
        try {
          this.opts.onError?.(e, key);
        } catch {
          // A failing error reporter must not stop the queue.
        }
        this.addRateLimited(key);
      }
    } finally {
      this.processing.delete(key);
      if (this.dirty.delete(key) && !this.shuttingDown) this.queue.add(key);
      this.pump();
    }
  }
}
