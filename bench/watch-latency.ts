/**
 * Watch event delivery latency: W watchers on one namespace's secrets (each its own HTTP/1.1 stream,
 * started at the list's resourceVersion) while an open-loop writer creates, then updates, 1 KiB
 * Secrets at a fixed rate. Each write carries its sequence number in an annotation; each watcher
 * records when it received each sequence number. Latency is measured from the write being sent and
 * from the write's response, on this process's monotonic clock.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ApiClient } from './support/api-client';
import { runPool } from './support/pool';
import { every, type Progress } from './support/progress';
import { secret } from './support/secrets';
import { summarize, type Summary } from './support/stats';
import { openBenchWatch, type BenchWatch, type ScannedEvent } from './support/watch-stream';

export const WRITE_MARKER = 'bench.platform-apiserver.io/write';

export interface WatchPlan {
  namespace: string;
  watchers: number;
  writesPerSecond: number;
  durationSeconds: number;
  /** Distinct secrets written: the first `objects` writes create, later ones update (PUT, unconditional). */
  objects: number;
  /** After the last write's response, wait for stragglers while events keep coming (at most this long). */
  maxDrainSeconds: number;
  /** Watch streams opened in parallel while connecting. */
  connectConcurrency: number;
}

export interface WatchResult {
  watchers: number;
  writesPlanned: number;
  writesOk: number;
  writeErrors: number;
  /** Rate at which writes were actually sent: open loop, except that a write waits for the previous write to the same object. */
  issuedWritesPerSecond: number;
  /** From the first write sent to the last write's response. */
  writesSeconds: number;
  /** From the last write's response until every event arrived or arrivals stopped (drain). */
  drainSeconds: number;
  eventsExpected: number;
  eventsDelivered: number;
  /** Expected events that had not arrived when the drain ended. */
  missing: number;
  duplicated: number;
  /** Events whose resourceVersion was not greater than the watcher's previous one. */
  outOfOrder: number;
  /** Events that were not one of our writes (ERROR, BOOKMARK, unmarked). */
  unexpected: number;
  /** Watch streams that ended before the bench closed them. */
  streamsEndedEarly: number;
  /** Write sent → event received, ms. */
  fromSendMs: Summary;
  /** Write response received → event received, ms (negative when the event beat the response). */
  fromAckMs: Summary;
  /** Write round trip (create/update through the API, etcd fsync included), ms. */
  writeMs: Summary;
  connectSeconds: number;
  /** This (client) process's event-loop delay during the writes: how late its own timestamps can be. */
  clientLoopDelayMs: { p50: number; p99: number; max: number };
}

/** Runs the watch phase against `writer` (writes) and `watchClient` (the watch streams' agent). */
export async function measureWatchLatency(writer: ApiClient, watchClient: ApiClient, plan: WatchPlan, progress: Progress): Promise<WatchResult> {
  const totalWrites = Math.round(plan.writesPerSecond * plan.durationSeconds);
  const listRes = await writer.expect('GET', `/api/v1/namespaces/${plan.namespace}/secrets`);
  const listRv = (JSON.parse(listRes.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  // received[w * totalWrites + seq] = arrival (ms since base) of write seq at watcher w; NaN = not yet.
  const base = process.hrtime.bigint();
  const received = new Float64Array(plan.watchers * totalWrites).fill(Number.NaN);
  const counters = { delivered: 0, duplicated: 0, outOfOrder: 0, unexpected: 0, endedEarly: 0 };
  const lastRv = new Array<bigint>(plan.watchers).fill(0n);
  const onEvent = (w: number) => (e: ScannedEvent) => {
    const seq = e.marker === undefined ? Number.NaN : Number(e.marker);
    if (!(seq >= 0 && seq < totalWrites) || (e.type !== 'ADDED' && e.type !== 'MODIFIED')) {
      counters.unexpected++;
      return;
    }
    const rv = BigInt(e.resourceVersion ?? '0');
    if (rv <= (lastRv[w] as bigint)) counters.outOfOrder++;
    lastRv[w] = rv;
    const slot = w * totalWrites + seq;
    if (!Number.isNaN(received[slot] as number)) {
      counters.duplicated++;
      return;
    }
    received[slot] = Number(e.receivedNs - base) / 1e6;
    counters.delivered++;
  };

  const path = `/api/v1/namespaces/${plan.namespace}/secrets?watch=1&resourceVersion=${listRv}&timeoutSeconds=600`;
  const watches: BenchWatch[] = [];
  let closing = false;
  const connectStart = process.hrtime.bigint();
  const stopConnectProgress = every(2000, () => progress('watch', `connected ${watches.length}/${plan.watchers} watchers`));
  try {
    await runPool(plan.watchers, plan.connectConcurrency, async (w) => {
      const watch = await openBenchWatch(watchClient, path, WRITE_MARKER, onEvent(w));
      void watch.ended.then(() => {
        if (!closing) counters.endedEarly++;
      });
      watches.push(watch);
    });
  } finally {
    stopConnectProgress();
  }
  const connectSeconds = Number(process.hrtime.bigint() - connectStart) / 1e9;
  progress('watch', `${watches.length} watchers connected in ${connectSeconds.toFixed(1)}s; writing ${plan.writesPerSecond}/s for ${plan.durationSeconds}s`);

  const sentAt = new Float64Array(totalWrites).fill(Number.NaN);
  const ackAt = new Float64Array(totalWrites).fill(Number.NaN);
  const writeMs: number[] = [];
  let writeErrors = 0;
  let firstWriteError: string | undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const stopProgress = every(1000, () => {
    const acked = writeMs.length;
    progress('watch', `writes ${acked}/${totalWrites} acked, events ${counters.delivered}/${acked * plan.watchers} delivered`);
  });
  const writesStart = process.hrtime.bigint();
  try {
    const inFlight: Array<Promise<void>> = [];
    const lastWriteOf = new Map<string, Promise<void>>();
    for (let seq = 0; seq < totalWrites; seq++) {
      // Open loop: write `seq` is due at start + seq / rate, whether or not earlier writes returned.
      const dueMs = (seq * 1000) / plan.writesPerSecond;
      const waitMs = dueMs - Number(process.hrtime.bigint() - writesStart) / 1e6;
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
      const name = `w-${seq % plan.objects}`;
      const previous = lastWriteOf.get(name);
      const write = (async () => {
        // An update waits for the same object's previous write (its create may still be in flight).
        await previous;
        const body = secret(plan.namespace, name, { [WRITE_MARKER]: String(seq) });
        const t = process.hrtime.bigint();
        sentAt[seq] = Number(t - base) / 1e6;
        const res = await (seq < plan.objects
          ? writer.request('POST', `/api/v1/namespaces/${plan.namespace}/secrets`, body)
          : writer.request('PUT', `/api/v1/namespaces/${plan.namespace}/secrets/${name}`, body)
        ).catch((e: Error) => ({ status: 0, body: Buffer.from(e.message) }));
        const done = process.hrtime.bigint();
        if (res.status === 200 || res.status === 201) {
          ackAt[seq] = Number(done - base) / 1e6;
          writeMs.push(Number(done - t) / 1e6);
        } else {
          writeErrors++;
          firstWriteError ??= `${res.status}: ${res.body.toString('utf8').slice(0, 200)}`;
        }
      })();
      lastWriteOf.set(name, write);
      inFlight.push(write);
    }
    await Promise.all(inFlight);
    const writesSeconds = Number(process.hrtime.bigint() - writesStart) / 1e9;
    loopDelay.disable();
    if (firstWriteError) progress('watch', `${writeErrors} writes failed, first: ${firstWriteError}`);

    const writesOk = writeMs.length;
    const expected = writesOk * plan.watchers;
    const drainSeconds = await drain(() => counters.delivered, expected, plan.maxDrainSeconds);

    const fromSend: number[] = [];
    const fromAck: number[] = [];
    for (let w = 0; w < plan.watchers; w++) {
      for (let seq = 0; seq < totalWrites; seq++) {
        const at = received[w * totalWrites + seq] as number;
        if (Number.isNaN(at) || Number.isNaN(ackAt[seq] as number)) continue;
        fromSend.push(at - (sentAt[seq] as number));
        fromAck.push(at - (ackAt[seq] as number));
      }
    }
    const ns = (v: number) => v / 1e6;
    return {
      watchers: watches.length,
      writesPlanned: totalWrites,
      writesOk,
      writeErrors,
      issuedWritesPerSecond: sendRate(sentAt),
      writesSeconds,
      drainSeconds,
      eventsExpected: expected,
      eventsDelivered: counters.delivered,
      missing: expected - fromSend.length,
      duplicated: counters.duplicated,
      outOfOrder: counters.outOfOrder,
      unexpected: counters.unexpected,
      streamsEndedEarly: counters.endedEarly,
      fromSendMs: summarize(fromSend),
      fromAckMs: summarize(fromAck),
      writeMs: summarize(writeMs),
      connectSeconds,
      clientLoopDelayMs: { p50: ns(loopDelay.percentile(50)), p99: ns(loopDelay.percentile(99)), max: ns(loopDelay.max) },
    };
  } finally {
    stopProgress();
    loopDelay.disable();
    closing = true;
    for (const w of watches) w.close();
  }
}

/** Writes per second actually sent: (n - 1) over the span between the first and the last send. */
function sendRate(sentAtMs: Float64Array): number {
  const sent = Array.from(sentAtMs).filter((t) => !Number.isNaN(t));
  if (sent.length < 2) return Number.NaN;
  return ((sent.length - 1) * 1000) / (Math.max(...sent) - Math.min(...sent));
}

/** Waits until `delivered()` reaches `expected`, nothing arrived for 3 s, or `maxSeconds` passed; returns seconds waited. */
async function drain(delivered: () => number, expected: number, maxSeconds: number): Promise<number> {
  const start = process.hrtime.bigint();
  let last = delivered();
  let lastChange = start;
  while (delivered() < expected) {
    const now = process.hrtime.bigint();
    if (delivered() !== last) {
      last = delivered();
      lastChange = now;
    }
    if (Number(now - lastChange) / 1e9 > 3 || Number(now - start) / 1e9 > maxSeconds) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return Number(process.hrtime.bigint() - start) / 1e9;
}
