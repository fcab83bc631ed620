/**
 * EventRateLimit's buckets (kube: limitenforcer.go and cache.go over client-go's token bucket,
 * golang.org/x/time/rate): one bucket per key of a limit type, kept in an LRU of cacheSize (4096
 * when unset); the Server type has one bucket for everything.
 */
import { createHash } from 'node:crypto';
import type { Limit } from './config';

/** Milliseconds on a clock that never goes back (tests inject their own). */
export type Clock = () => number;

/** kube's default cache size of a limit type that does not set one. */
export const DEFAULT_CACHE_SIZE = 4096;

/**
 * A SourceAndObject key is the client's own text, as long as an event body allows: past this many
 * characters the LRU holds its SHA-256 instead, so a full cache pins kilobytes, not gigabytes.
 */
const MAX_HELD_KEY_LENGTH = 256;

const heldKey = (key: string): string => (key.length > MAX_HELD_KEY_LENGTH ? createHash('sha256').update(key).digest('base64') : key);

/**
 * x/time/rate's limiter, asked with AllowN(now, 1): it holds up to `burst` tokens, starts full,
 * and earns `qps` tokens a second (fractions included); a request takes one, or is refused and
 * takes nothing.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: Clock,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  tryAccept(): boolean {
    const t = this.now();
    const elapsedSeconds = Math.max(0, t - this.last) / 1000;
    const tokens = Math.min(this.burst, this.tokens + elapsedSeconds * this.qps);
    if (tokens < 1) return false;
    this.tokens = tokens - 1;
    this.last = t;
    return true;
  }
}

/**
 * A least-recently-used map that holds at most `max` entries and grows only as entries are added,
 * as kube's golang-lru does. Not lru-cache: it allocates its index arrays for `max` when it is
 * made, so a cacheSize kube accepts (up to 2^31-1) would take gigabytes, or the heap, at startup.
 * A Map keeps insertion order, so the first key is the least recently used once every hit is
 * moved to the end.
 */
export class GrowingLru<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new Error(`an LRU needs room for at least one entry, not ${max}`);
  }

  /** The value, now the most recently used; undefined when not held. */
  get(key: K): V | undefined {
    const v = this.entries.get(key);
    if (v === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, v);
    return v;
  }

  /** Holds the value as the most recently used, dropping the least recently used past `max`. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as K);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The keys, least recently used first. */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }
}

/** One limit type's buckets and how a request picks its bucket. */
export class LimitEnforcer {
  private readonly single?: TokenBucket;
  private readonly buckets?: GrowingLru<string, TokenBucket>;

  constructor(
    readonly limit: Limit,
    private readonly now: Clock,
  ) {
    if (limit.type === 'Server') this.single = this.newBucket();
    else this.buckets = new GrowingLru(limit.cacheSize || DEFAULT_CACHE_SIZE);
  }

  private newBucket(): TokenBucket {
    return new TokenBucket(this.limit.qps, this.limit.burst, this.now);
  }

  /** kube's accept: undefined when the key's bucket had a token, else kube's reason. */
  accept(key: string): string | undefined {
    const bucket = this.single ?? this.bucketOf(key);
    return bucket.tryAccept() ? undefined : `limit reached on type ${this.limit.type} for key ${key}`;
  }

  /** The key's bucket: a key seen for the first time, or evicted since, gets a full one. */
  private bucketOf(key: string): TokenBucket {
    const held = heldKey(key);
    let bucket = this.buckets?.get(held);
    if (!bucket) {
      bucket = this.newBucket();
      this.buckets?.set(held, bucket);
    }
    return bucket;
  }

  /** How many buckets the LRU holds (tests). */
  get size(): number {
    return this.buckets?.size ?? 1;
  }
}
