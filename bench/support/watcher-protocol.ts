/** The IPC messages between the bench (parent) and its watcher process (support/watcher-process.ts). */
import type { ApiTarget } from './api-client';
import type { DeliveryCounters } from './delivery-log';

/** What the watcher process opens (passed as JSON in BENCH_WATCHERS_OPTIONS). */
export interface WatcherProcessOptions {
  target: ApiTarget;
  protocol: 'h1' | 'h2';
  /** HTTP/2 connections the streams share (h2 only). */
  connections: number;
  watchers: number;
  /** The watch path, `?watch=1` included. */
  path: string;
  /** Watch streams opened in parallel while connecting. */
  connectConcurrency: number;
  /** The annotation whose value numbers a write. */
  markerKey: string;
  /** Writes the phase will number (0..writes-1). */
  writes: number;
  /** process.hrtime.bigint() of the parent's base, as a decimal string: hrtime is CLOCK_MONOTONIC, shared by every process of the machine. */
  baseNs: string;
}

/** The watcher process's event-loop delay over the writes, ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export type WatcherParentMessage = { type: 'measure' } | { type: 'finish' };

export type WatcherChildMessage =
  | { type: 'connecting'; connected: number }
  | { type: 'connected'; seconds: number }
  | { type: 'progress'; delivered: number }
  | { type: 'result'; received: Float64Array; counters: DeliveryCounters; endedEarly: number; loopDelayMs: LoopDelay; cpuSeconds: number }
  | { type: 'failed'; message: string };
