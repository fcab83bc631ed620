/**
 * kube's etcd compactor: every interval, compact etcd to the revision observed one interval earlier.
 * Several servers on one etcd coordinate through the version of `compact_rev_key` (a CAS), so one of
 * them compacts per interval; the others learn the new version and wait for the next tick.
 */
import type { Etcd3 } from 'etcd3';
import { toStorageError } from './etcd-errors';

/** The key kube uses, without the server's prefix (compaction is global to the etcd cluster). */
export const compactRevKey = 'compact_rev_key';

export interface CompactorOptions {
  client: Etcd3;
  intervalMs: number;
  onCompacted?: (revision: bigint) => void;
  onError?: (err: unknown) => void;
}

export class Compactor {
  private timer?: NodeJS.Timeout;
  /** The version of compact_rev_key we last saw (kube's compactTime). */
  private lastVersion = 0n;
  /** The revision observed at the last tick: what the next successful tick compacts to. */
  private lastRevision = 0n;
  private running = false;

  constructor(private readonly opts: CompactorOptions) {}

  start(): void {
    if (this.opts.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.opts.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round of kube's compact(t, rev); exposed for tests. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const key = Buffer.from(compactRevKey);
      const resp = await this.opts.client.kv.txn({
        compare: [{ key, target: 'Version', result: 'Equal', version: String(this.lastVersion) }],
        success: [{ request_put: { key, value: Buffer.from(String(this.lastRevision)) } }],
        failure: [{ request_range: { key } }],
      });
      const current = BigInt(resp.header.revision);
      if (!resp.succeeded) {
        // Another server compacted this interval: take its version and compact next time.
        const kv = resp.responses[0]?.response_range?.kvs[0];
        this.lastVersion = kv ? BigInt(kv.version) : 0n;
        this.lastRevision = current;
        return;
      }
      const target = this.lastRevision;
      this.lastVersion += 1n;
      this.lastRevision = current;
      // kube does not compact on the first (bootstrap) round.
      if (target === 0n) return;
      await this.opts.client.kv.compact({ revision: String(target) });
      this.opts.onCompacted?.(target);
    } catch (e) {
      const err = toStorageError(e, compactRevKey);
      // Compacting to an already-compacted revision is harmless (another server got there first).
      if (!(err instanceof Error && /compacted/.test(err.message))) this.opts.onError?.(err);
    } finally {
      this.running = false;
    }
  }
}
