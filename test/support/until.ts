/**
 * Waiting in tests for something the server does asynchronously (a controller, the watch cache, a
 * restart): one helper with a deadline and a failure that names what was awaited.
 *
 *   await until('the namespace to disappear', async () => (await srv.request('GET', p)).status === 404);
 *   const q = await until(() => `quota used = 3 (last ${last})`, async () => ..., { timeoutMs: 15_000 });
 *   await until('kubectl -w printed "second"', () => /second/.test(out), { wakeOn: emitted(child.stdout, 'data') });
 *
 * Where there is an event to await, `wakeOn` re-checks on it; otherwise the check is polled with a
 * short backoff (10 ms, doubling, at most 100 ms apart).
 */
import type { EventEmitter } from 'node:events';

/** Subscribes `wake` to whatever may make the condition true; returns the unsubscribe. */
export type WakeOn = (wake: () => void) => () => void;

export interface UntilOptions {
  /** How long to wait before failing (default 10 s). */
  timeoutMs?: number;
  /** Re-check when this fires instead of polling (the check still runs once at the start). */
  wakeOn?: WakeOn;
}

const defaultUntilTimeoutMs = 10_000;
const firstPollMs = 10;
const maxPollMs = 100;

/**
 * Resolves with the first result of `check` that is neither undefined nor false; rejects with
 * "timed out after N ms waiting for <what>" once `timeoutMs` has passed (`what` may be a function,
 * read at that moment, to say what was last seen). An error thrown by `check` fails at once.
 */
export async function until<T>(
  what: string | (() => string),
  check: () => T | undefined | false | Promise<T | undefined | false>,
  opts: UntilOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const timeoutMs = opts.timeoutMs ?? defaultUntilTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  let woken = false;
  let wake: (() => void) | undefined;
  const unsubscribe = opts.wakeOn?.(() => {
    woken = true;
    wake?.();
  });
  try {
    for (let pollMs = firstPollMs; ; pollMs = Math.min(2 * pollMs, maxPollMs)) {
      woken = false;
      const v = await check();
      if (v !== undefined && v !== false) return v as Exclude<T, undefined | false>;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
      if (woken) continue; // it fired while the check ran
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, opts.wakeOn ? left : Math.min(pollMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    unsubscribe?.();
  }
}

/** A `wakeOn` for Node event emitters: any of `events` on `emitter`. */
export function emitted(emitter: EventEmitter, ...events: string[]): WakeOn {
  return (wake) => {
    for (const e of events) emitter.on(e, wake);
    return () => {
      for (const e of events) emitter.off(e, wake);
    };
  };
}
