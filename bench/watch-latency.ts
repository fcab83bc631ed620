/**
 * Watch event delivery latency: W watchers on one namespace's secrets (HTTP/1.1: each its own
 * socket; HTTP/2: streams multiplexed over a few connections, as client-go does; all started at a
 * list's resourceVersion), in a process of their own, while an open-loop writer in this process
 * creates, then updates, 1 KiB Secrets at a fixed rate. Each write carries its sequence number in
 * an annotation; each watcher records when it received each one. Latency is measured from the
 * write being sent and from the write's response, on the machine's monotonic clock (hrtime), which
 * both processes share.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ApiClient } from './support/api-client';
import { cpuMeter } from './support/cpu';
import { runPacedWrites, sendRate } from './support/paced-writer';
import { every, type Progress } from './support/progress';
import { summarize, type Summary } from './support/stats';
import type { WatcherFleet } from './support/watcher-fleet';
import type { LoopDelay } from './support/watcher-protocol';

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
  /** Processes whose CPU use is measured from the first write to the end of the drain. */
  pids: Record<string, number>;
  /** The server's event-loop delay over the same span, when the server can report it (the API server child can, the floor cannot). */
  serverLoopDelay?: { start(): void; stop(): Promise<LoopDelay> };
}

export interface WatchResult {
  watchers: number;
  writesPlanned: number;
  writesOk: number;
  writeErrors: number;
  /** Rate writes were actually sent: open loop, except that a write waits for the previous write to the same object. */
  issuedWritesPerSecond: number;
  /** From the first write due to the last write's response. */
  writesSeconds: number;
  /** From the last write's response until every event arrived or arrivals stopped. */
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
  /** The watcher process's event-loop delay during the writes: how late its arrival timestamps can be. */
  watcherLoopDelayMs: LoopDelay;
  /** The server's event-loop delay from the first write to the end of the drain (absent for the floor server). */
  serverLoopDelayMs?: LoopDelay;
  /** The writer's (this process's) event-loop delay during the writes: how late its send times can be. */
  writerLoopDelayMs: LoopDelay;
  /** CPU use of plan.pids and the watcher process from the first write to the end of the drain (connecting excluded), % of one core. */
  deliveryCpuPercent: Record<string, number>;
  /** The watcher process's CPU use from its start (connecting included) to the end, % of one core. */
  watcherLifeCpuPercent: number;
  /** Server CPU time over that span divided by the events delivered, µs. */
  serverCpuUsPerEvent: number;
}

/** Starts the watchers (in a process of their own) on `path`, numbering `writes` writes, times relative to `baseNs`. */
export type WatcherStarter = (path: string, writes: number, baseNs: bigint) => Promise<WatcherFleet>;

/** Runs the watch phase: `writer` sends the writes, `startWatchers` opens the watch streams elsewhere. */
export async function measureWatchLatency(writer: ApiClient, startWatchers: WatcherStarter, plan: WatchPlan, progress: Progress): Promise<WatchResult> {
  const totalWrites = Math.round(plan.writesPerSecond * plan.durationSeconds);
  const listRes = await writer.expect('GET', `/api/v1/namespaces/${plan.namespace}/secrets`);
  const listRv = (JSON.parse(listRes.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const base = process.hrtime.bigint();
  const path = `/api/v1/namespaces/${plan.namespace}/secrets?watch=1&resourceVersion=${listRv}&timeoutSeconds=600`;
  const fleet = await startWatchers(path, totalWrites, base);
  try {
    progress('watch', `${plan.watchers} watchers connected in ${fleet.connectSeconds.toFixed(1)}s (process ${fleet.pid}); writing ${plan.writesPerSecond}/s for ${plan.durationSeconds}s`);
    let acked = 0;
    const deliveryStart = process.hrtime.bigint();
    const pids = { ...plan.pids, watchers: fleet.pid };
    const deliveryCpu = await cpuMeter(pids);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    fleet.measure();
    plan.serverLoopDelay?.start();
    const stopProgress = every(1000, () => progress('watch', `writes ${acked}/${totalWrites} acked, events ${fleet.delivered()}/${acked * plan.watchers} delivered`));
    try {
      const writes = await runPacedWrites(
        writer,
        { namespace: plan.namespace, writes: totalWrites, writesPerSecond: plan.writesPerSecond, objects: plan.objects, markerKey: WRITE_MARKER },
        base,
        () => acked++,
      );
      loopDelay.disable();
      if (writes.firstError) progress('watch', `${writes.errors} writes failed, first: ${writes.firstError}`);
      const expected = writes.latenciesMs.length * plan.watchers;
      const drainSeconds = await drain(() => fleet.delivered(), expected, plan.maxDrainSeconds);
      const deliveryCpuPercent = await deliveryCpu();
      const serverLoopDelayMs = await plan.serverLoopDelay?.stop();
      const deliverySeconds = Number(process.hrtime.bigint() - deliveryStart) / 1e9;
      const { log, endedEarly, loopDelayMs, lifeCpuPercent } = await fleet.finish();
      const serverCpuSeconds = ((deliveryCpuPercent.server ?? Number.NaN) / 100) * deliverySeconds;
      const { fromSend, fromAck, received } = log.latencies(writes.sentAt, writes.ackAt);
      const c = log.counters;
      const ms = (ns: number) => ns / 1e6;
      return {
        watchers: plan.watchers,
        writesPlanned: totalWrites,
        writesOk: writes.latenciesMs.length,
        writeErrors: writes.errors,
        issuedWritesPerSecond: sendRate(writes.sentAt),
        writesSeconds: writes.seconds,
        drainSeconds,
        eventsExpected: expected,
        eventsDelivered: c.delivered,
        missing: expected - received,
        duplicated: c.duplicated,
        outOfOrder: c.outOfOrder,
        unexpected: c.unexpected,
        streamsEndedEarly: endedEarly,
        fromSendMs: summarize(fromSend),
        fromAckMs: summarize(fromAck),
        writeMs: summarize(writes.latenciesMs),
        connectSeconds: fleet.connectSeconds,
        watcherLoopDelayMs: loopDelayMs,
        serverLoopDelayMs,
        writerLoopDelayMs: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) },
        deliveryCpuPercent,
        watcherLifeCpuPercent: lifeCpuPercent,
        serverCpuUsPerEvent: (serverCpuSeconds * 1e6) / Math.max(1, c.delivered),
      };
    } finally {
      stopProgress();
      loopDelay.disable();
    }
  } finally {
    fleet.kill();
  }
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
