/** Forks the watch phase's watcher process (support/watcher-process.js) and talks to it over IPC. */
import { fork } from 'node:child_process';
import path from 'node:path';
import { DeliveryLog } from './delivery-log';
import type { LoopDelay, WatcherChildMessage, WatcherProcessOptions } from './watcher-protocol';

/** What the watcher process hands back at the end. */
export interface FleetResult {
  log: DeliveryLog;
  /** Streams that ended before the bench closed them. */
  endedEarly: number;
  /** The watcher process's event-loop delay from 'measure' to 'finish'. */
  loopDelayMs: LoopDelay;
  /** The watcher process's CPU use over its life (fork to finish), % of one core. */
  lifeCpuPercent: number;
}

/** Every watcher connected, in a process of its own. */
export interface WatcherFleet {
  pid: number;
  connectSeconds: number;
  /** Events delivered so far (as of the child's last report, every 250 ms once measuring). */
  delivered(): number;
  /** The writes start now: sample the child's event-loop delay and report progress. */
  measure(): void;
  /** Closes every watch and returns the arrivals. */
  finish(): Promise<FleetResult>;
  /** Kills the child if it is still there. */
  kill(): void;
}

/** Starts the watcher process and resolves once all its watches are open. */
export function forkWatchers(o: WatcherProcessOptions, onConnecting: (connected: number) => void): Promise<WatcherFleet> {
  const forkedAt = process.hrtime.bigint();
  const child = fork(path.join(__dirname, 'watcher-process.js'), [], {
    env: { ...process.env, BENCH_WATCHERS_OPTIONS: JSON.stringify(o) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced', // the arrival table is a Float64Array
  });
  let delivered = 0;
  let result: ((msg: Extract<WatcherChildMessage, { type: 'result' }>) => void) | undefined;
  let failed: ((e: Error) => void) | undefined;
  let exited: Error | undefined;
  return new Promise((resolve, reject) => {
    failed = reject;
    child.once('exit', (code) => {
      exited = new Error(`watcher process exited with code ${code}`);
      failed?.(exited);
    });
    child.on('message', (msg: WatcherChildMessage) => {
      if (msg.type === 'failed') failed?.(new Error(`watcher process failed: ${msg.message}`));
      else if (msg.type === 'connecting') onConnecting(msg.connected);
      else if (msg.type === 'progress') delivered = msg.delivered;
      else if (msg.type === 'result') result?.(msg);
      else if (msg.type === 'connected') {
        resolve({
          pid: child.pid as number,
          connectSeconds: msg.seconds,
          delivered: () => delivered,
          measure: () => child.send({ type: 'measure' }),
          finish: () =>
            new Promise<FleetResult>((done, fail) => {
              if (exited) {
                fail(exited);
                return;
              }
              failed = fail;
              result = (r) => {
                failed = undefined;
                const lifeSeconds = Number(process.hrtime.bigint() - forkedAt) / 1e9;
                done({
                  log: new DeliveryLog(o.watchers, o.writes, BigInt(o.baseNs), r),
                  endedEarly: r.endedEarly,
                  loopDelayMs: r.loopDelayMs,
                  lifeCpuPercent: (r.cpuSeconds / lifeSeconds) * 100,
                });
              };
              child.send({ type: 'finish' });
            }),
          kill: () => {
            failed = undefined;
            if (child.exitCode === null) child.kill();
          },
        });
      }
    });
  });
}
