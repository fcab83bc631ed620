/**
 * api/turns.ts: a request that yields lets the I/O and timers waiting now run before it resumes,
 * even when it yields from an I/O callback, and several waiting requests resume one per loop
 * iteration, each with a fresh clock.
 */
import * as fs from 'node:fs';
import { beginHeavy, loopHeld, nextTurn } from '../../../src/api/turns';

/** Busy-waits `ms` milliseconds (holds the loop as a large write's stage does). */
function hold(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** Counts loop iterations (one per check phase) until stopped. */
function iterationCounter(): { now(): number; stop(): void } {
  let n = 0;
  let on = true;
  const tick = (): void => {
    n++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => n, stop: () => void (on = false) };
}

let end: () => void;
beforeEach(() => {
  end = beginHeavy();
});
afterEach(() => end());

test('without a large request in flight a checkpoint never yields', () => {
  end();
  hold(30);
  expect(loopHeld()).toBe(false);
});

test('a checkpoint yields once the loop has been held for a slice', async () => {
  // Only the clock (performance.now) is fake; the loop's immediates and timers stay real. On the
  // real clock, a loaded machine pausing the process 20 ms between two statements would count as
  // holding the loop.
  jest.useFakeTimers({
    doNotFake: ['Date', 'hrtime', 'nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
  });
  try {
    await nextTurn();
    expect(loopHeld()).toBe(false);
    jest.advanceTimersByTime(25); // the loop held for 25 ms
    expect(loopHeld()).toBe(true);
    await nextTurn();
    // the resumed request starts a fresh clock
    expect(loopHeld()).toBe(false);
  } finally {
    jest.useRealTimers();
  }
});

test('yielding from an I/O callback lets a timer due meanwhile run before the request resumes', async () => {
  const order: string[] = [];
  await new Promise<void>((done) => {
    fs.stat(__filename, () => {
      // In the poll phase: a timer that is due waits for the next iteration's timers phase.
      setTimeout(() => order.push('timer'), 0);
      hold(5);
      void nextTurn().then(() => {
        order.push('resumed');
        done();
      });
    });
  });
  expect(order).toEqual(['timer', 'resumed']);
});

test('several waiting requests resume one per loop iteration, in order', async () => {
  const counter = iterationCounter();
  const resumedAt: Array<[string, number]> = [];
  await Promise.all(['a', 'b', 'c'].map((name) => nextTurn().then(() => void resumedAt.push([name, counter.now()]))));
  counter.stop();
  expect(resumedAt.map(([n]) => n)).toEqual(['a', 'b', 'c']);
  const [a, b, c] = resumedAt.map(([, i]) => i) as [number, number, number];
  expect(b).toBeGreaterThan(a);
  expect(c).toBeGreaterThan(b);
});

test('a turn begun by a resumed request ends before the next poll: an I/O callback starts its own clock', async () => {
  await nextTurn();
  hold(25);
  const held = await new Promise<boolean>((done) => fs.stat(__filename, () => done(loopHeld())));
  expect(held).toBe(false);
});
