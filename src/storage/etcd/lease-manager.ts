/**
 * kube's etcd3 leaseManager: objects with a time to live (events, under --event-ttl) are attached
 * to shared etcd leases instead of one lease per write. A lease is reused while it outlives the
 * requested TTL and expires within TTL plus a reuse window (5% of the TTL, at most 60 s), for at
 * most 1,000 objects; a new lease is granted for TTL plus that window, so every object lives at
 * least its TTL and at most the window longer.
 */
import type { Etcd3 } from 'etcd3';
import type { EtcdCallOptions } from './call-context';

export interface LeaseManagerOptions {
  /** Upper bound of the reuse window, seconds (kube: 60). */
  reuseDurationSeconds?: number;
  /** Objects one lease may carry (kube: 1000). */
  maxObjectCount?: number;
  /** The clock, ms (tests). */
  now?: () => number;
}

const reuseDurationPercent = 0.05;

export class LeaseManager {
  private prevId = '0';
  private prevExpiresAt = 0;
  private attached = 0;
  /** A grant in flight: concurrent writes wait for it rather than each granting a lease. */
  private granting?: Promise<void>;
  private readonly reuseSeconds: number;
  private readonly maxObjects: number;
  private readonly now: () => number;

  constructor(
    private readonly client: Etcd3,
    opts: LeaseManagerOptions = {},
  ) {
    this.reuseSeconds = opts.reuseDurationSeconds ?? 60;
    this.maxObjects = opts.maxObjectCount ?? 1000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * The lease (etcd's int64 ID, as a string) an object written now with `ttlSeconds` to live
   * attaches to. A grant is made with the caller's call options (its request's context).
   */
  async leaseFor(ttlSeconds: number, callOptions?: EtcdCallOptions): Promise<string> {
    while (this.granting) await this.granting;
    const now = this.now();
    const reuse = Math.min(Math.floor(reuseDurationPercent * ttlSeconds), this.reuseSeconds);
    const valid = now + ttlSeconds * 1000 < this.prevExpiresAt;
    const sufficient = now + (ttlSeconds + reuse) * 1000 > this.prevExpiresAt;
    if (valid && sufficient && this.attached < this.maxObjects) {
      this.attached++;
      return this.prevId;
    }
    let done = (): void => undefined;
    this.granting = new Promise<void>((r) => (done = r));
    try {
      const granted = await this.client.leaseClient.leaseGrant({ TTL: ttlSeconds + reuse, ID: 0 }, callOptions);
      this.prevId = granted.ID;
      this.prevExpiresAt = now + (ttlSeconds + reuse) * 1000;
      this.attached = 1;
      return granted.ID;
    } finally {
      this.granting = undefined;
      done();
    }
  }
}
