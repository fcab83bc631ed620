/**
 * The disk's and etcd's own write floor, for reading the other rows: raw etcd3 puts of a 1 KiB value,
 * one in flight, for a couple of seconds, under a scratch prefix outside the server's.
 */
import { randomBytes } from 'node:crypto';
import { Etcd3 } from 'etcd3';
import { msSince, summarize, type Summary } from './support/stats';

export interface EtcdBaseline {
  putLatencyMs: Summary;
  putsPerSecond: number;
}

/** Puts `/bench-raw/<i>` sequentially for `seconds`, then deletes the prefix. */
export async function measureEtcdPutBaseline(endpoints: string[], seconds: number): Promise<EtcdBaseline> {
  const etcd = new Etcd3({ hosts: endpoints });
  const value = randomBytes(768).toString('base64');
  const latencies: number[] = [];
  try {
    const start = process.hrtime.bigint();
    while (msSince(start) < seconds * 1000) {
      const t = process.hrtime.bigint();
      await etcd.put(`/bench-raw/${latencies.length}`).value(value);
      latencies.push(msSince(t));
    }
    const elapsed = msSince(start) / 1000;
    await etcd.delete().prefix('/bench-raw/');
    return { putLatencyMs: summarize(latencies), putsPerSecond: latencies.length / elapsed };
  } finally {
    etcd.close();
  }
}
