/**
 * Entry of the watch phase's watcher process: it opens every watch stream (HTTP/1.1: a socket each;
 * HTTP/2: streams round-robin over a few sessions, as client-go) and does nothing but receive and
 * record arrivals, so the writer and the bench's bookkeeping do not delay its timestamps. The
 * parent says when the writes start ('measure': the event-loop delay is sampled from then) and when
 * to stop ('finish': the arrival table goes back to it). Arrival times are process.hrtime.bigint()
 * minus the parent's base: hrtime is the machine's monotonic clock, the same in both processes.
 */
import type http2 from 'node:http2';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ApiClient } from './api-client';
import { DeliveryLog } from './delivery-log';
import { runPool } from './pool';
import { connectH2Sessions, openBenchWatch, openBenchWatchH2, type BenchWatch, type WatchOpener } from './watch-stream';
import type { WatcherChildMessage, WatcherParentMessage, WatcherProcessOptions } from './watcher-protocol';

const send = (msg: WatcherChildMessage) => process.send?.(msg);

async function openers(o: WatcherProcessOptions, closers: Array<() => void>): Promise<WatchOpener> {
  if (o.protocol === 'h1') {
    const client = new ApiClient(o.target, { maxSockets: o.watchers + 100 });
    closers.push(() => client.close());
    return (path, onEvent) => openBenchWatch(client, path, o.markerKey, onEvent);
  }
  const sessions: http2.ClientHttp2Session[] = await connectH2Sessions(o.target, o.connections);
  closers.push(() => sessions.forEach((s) => s.destroy()));
  let next = 0;
  return (path, onEvent) => openBenchWatchH2(sessions[next++ % sessions.length] as http2.ClientHttp2Session, o.target, path, o.markerKey, onEvent);
}

async function main(): Promise<void> {
  const o = JSON.parse(process.env.BENCH_WATCHERS_OPTIONS ?? '{}') as WatcherProcessOptions;
  const log = new DeliveryLog(o.watchers, o.writes, BigInt(o.baseNs));
  const closers: Array<() => void> = [];
  const watches: BenchWatch[] = [];
  const state = { closing: false, endedEarly: 0 };
  const open = await openers(o, closers);

  const start = process.hrtime.bigint();
  const connecting = setInterval(() => send({ type: 'connecting', connected: watches.length }), 2000);
  try {
    await runPool(o.watchers, o.connectConcurrency, async (w) => {
      const watch = await open(o.path, (e) => log.record(w, e));
      void watch.ended.then(() => {
        if (!state.closing) state.endedEarly++;
      });
      watches.push(watch);
    });
  } finally {
    clearInterval(connecting);
  }
  send({ type: 'connected', seconds: Number(process.hrtime.bigint() - start) / 1e9 });

  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  let progress: NodeJS.Timeout | undefined;
  process.on('message', (msg: WatcherParentMessage) => {
    if (msg.type === 'measure') {
      loopDelay.enable();
      progress = setInterval(() => send({ type: 'progress', delivered: log.counters.delivered }), 250);
      return;
    }
    loopDelay.disable();
    clearInterval(progress);
    state.closing = true;
    for (const w of watches) w.close();
    for (const c of closers) c();
    const ms = (ns: number) => ns / 1e6;
    const result: WatcherChildMessage = {
      type: 'result',
      ...log.snapshot(),
      endedEarly: state.endedEarly,
      loopDelayMs: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) },
      cpuSeconds: ((u) => (u.user + u.system) / 1e6)(process.cpuUsage()),
    };
    // Exit only once the (large) result has left.
    process.send?.(result, undefined, {}, () => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((e: unknown) => {
  send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  process.exit(1);
});
