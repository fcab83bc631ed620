/**
 * The controllers' work queue (client-go util/workqueue semantics): dedupe, one handler per key at a
 * time, re-add during processing, per-key exponential backoff with cap and forget, the overall
 * bucket, and a clean shutdown. Fake timers only, no sleeps.
 */
import { WorkQueue, WorkResult } from '../../../src/controllers/work-queue';

/** A handler whose runs the test finishes by hand. */
function controlledHandler() {
  const runs: Array<{ key: string; resolve: (r?: WorkResult) => void; reject: (e: unknown) => void }> = [];
  const handler = (key: string) =>
    new Promise<WorkResult | void>((resolve, reject) => {
      runs.push({ key, resolve, reject });
    });
  return { runs, handler };
}

/** Lets queued promise callbacks run (the queue starts workers on a microtask). */
const flush = () => jest.advanceTimersByTimeAsync(0);

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

test('a key added many times while waiting is handled once', async () => {
  const seen: string[] = [];
  const q = new WorkQueue<string>({ handler: async (k) => void seen.push(k) });
  for (const k of ['a', 'b', 'a', 'a', 'b', 'c']) q.add(k);
  expect(q.len()).toBe(3);
  await flush();
  expect(seen).toEqual(['a', 'b', 'c']);
  await q.shutDown();
});

test('one key is never handled twice at once, even with several workers', async () => {
  const { runs, handler } = controlledHandler();
  const q = new WorkQueue<string>({ handler, workers: 4 });
  q.add('a');
  await flush();
  q.add('a');
  q.add('b');
  await flush();
  expect(runs.map((r) => r.key)).toEqual(['a', 'b']);
  runs[0]?.resolve();
  await flush();
  // The re-add of 'a' during its run is handled once it ended.
  expect(runs.map((r) => r.key)).toEqual(['a', 'b', 'a']);
  runs[1]?.resolve();
  runs[2]?.resolve();
  await flush();
  expect(runs).toHaveLength(3);
  await q.shutDown();
});

test('a key re-added several times during its run comes back exactly once', async () => {
  const { runs, handler } = controlledHandler();
  const q = new WorkQueue<string>({ handler });
  q.add('a');
  await flush();
  q.add('a');
  q.add('a');
  q.add('a');
  expect(q.len()).toBe(0);
  runs[0]?.resolve();
  await flush();
  expect(runs.map((r) => r.key)).toEqual(['a', 'a']);
  runs[1]?.resolve();
  await flush();
  expect(runs).toHaveLength(2);
  await q.shutDown();
});

test('workers bound how many keys run at once', async () => {
  const { runs, handler } = controlledHandler();
  const q = new WorkQueue<string>({ handler, workers: 2 });
  for (const k of ['a', 'b', 'c', 'd']) q.add(k);
  await flush();
  expect(runs.map((r) => r.key)).toEqual(['a', 'b']);
  runs[1]?.resolve();
  await flush();
  expect(runs.map((r) => r.key)).toEqual(['a', 'b', 'c']);
  const stopped = q.shutDown();
  for (const r of runs) r.resolve();
  await stopped;
  expect(runs).toHaveLength(3);
});

test('per-key backoff doubles from the base and stops at the cap (ItemExponentialFailureRateLimiter)', () => {
  const q = new WorkQueue<string>({ handler: async () => undefined, baseDelayMs: 5, maxDelayMs: 1000, qps: Infinity });
  expect(Array.from({ length: 10 }, () => q.when('a'))).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
  expect(q.numRequeues('a')).toBe(10);
  // Each key has its own count.
  expect(q.when('b')).toBe(5);
  q.forget('a');
  expect(q.numRequeues('a')).toBe(0);
  expect(q.when('a')).toBe(5);
  void q.shutDown();
});

test('kube defaults: 5 ms base, 1000 s cap, and a 10 qps / 100 burst bucket over all keys', () => {
  const q = new WorkQueue<string>({ handler: async () => undefined });
  let last = 0;
  for (let i = 0; i < 40; i++) last = q.when('x');
  expect(last).toBe(1_000_000);
  // 40 tokens of 100 spent; 60 more keys pass at their own backoff, the 101st waits for the bucket.
  for (let i = 0; i < 60; i++) expect(q.when(`k${i}`)).toBe(5);
  expect(q.when('late')).toBe(100);
  expect(q.when('later')).toBe(200);
  void q.shutDown();
});

test('a failing key is retried after its growing backoff; success forgets it', async () => {
  let failuresLeft = 3;
  const times: number[] = [];
  const errors: unknown[] = [];
  const q = new WorkQueue<string>({
    handler: async () => {
      times.push(Date.now());
      if (failuresLeft-- > 0) throw new Error('boom');
    },
    baseDelayMs: 100,
    maxDelayMs: 10_000,
    qps: Infinity,
    onError: (e) => errors.push(e),
  });
  q.add('k');
  await jest.advanceTimersByTimeAsync(10_000);
  expect(times).toEqual([0, 100, 300, 700]);
  expect(errors).toHaveLength(3);
  expect(q.numRequeues('k')).toBe(0);
  expect(q.pendingTimers()).toBe(0);
  await q.shutDown();
});

test('requeueAfterMs brings the key back after that delay without counting a failure', async () => {
  const times: number[] = [];
  let passes = 0;
  const q = new WorkQueue<string>({
    handler: async () => {
      times.push(Date.now());
      return ++passes < 3 ? { requeueAfterMs: 1000 } : undefined;
    },
  });
  q.add('ns');
  await jest.advanceTimersByTimeAsync(5000);
  expect(times).toEqual([0, 1000, 2000]);
  expect(q.numRequeues('ns')).toBe(0);
  await q.shutDown();
});

test('of two delayed adds of one key the earlier wins, and it is handled once', async () => {
  const times: number[] = [];
  const q = new WorkQueue<string>({ handler: async () => void times.push(Date.now()) });
  q.addAfter('k', 500);
  q.addAfter('k', 200);
  q.addAfter('k', 900);
  expect(q.pendingTimers()).toBe(1);
  await jest.advanceTimersByTimeAsync(2000);
  expect(times).toEqual([200]);
  await q.shutDown();
});

test('idle() resolves once nothing waits or runs', async () => {
  const { runs, handler } = controlledHandler();
  const q = new WorkQueue<string>({ handler });
  await q.idle();
  q.add('a');
  let idle = false;
  void q.idle().then(() => (idle = true));
  await flush();
  expect(idle).toBe(false);
  runs[0]?.resolve();
  await flush();
  expect(idle).toBe(true);
  await q.shutDown();
});

test('shutDown drops waiting and delayed keys, cancels every timer, and waits for running handlers', async () => {
  const { runs, handler } = controlledHandler();
  const q = new WorkQueue<string>({ handler, baseDelayMs: 50 });
  q.add('running');
  await flush();
  q.add('waiting');
  q.addAfter('delayed', 1000);
  q.addRateLimited('backoff');
  q.add('running'); // re-add during the run: dropped by the shutdown too
  expect(q.pendingTimers()).toBe(2);
  let done = false;
  const stopped = q.shutDown().then(() => (done = true));
  expect(q.pendingTimers()).toBe(0);
  expect(jest.getTimerCount()).toBe(0);
  await flush();
  expect(done).toBe(false);
  runs[0]?.reject(new Error('late failure'));
  await stopped;
  expect(done).toBe(true);
  // Nothing ran after the shutdown and nothing was scheduled: not the failure's retry, not later adds.
  q.add('after');
  q.addAfter('after', 10);
  await jest.advanceTimersByTimeAsync(5000);
  expect(runs.map((r) => r.key)).toEqual(['running']);
  expect(jest.getTimerCount()).toBe(0);
});

test('a throwing error reporter does not stop the queue', async () => {
  const seen: string[] = [];
  const q = new WorkQueue<string>({
    handler: async (k) => {
      seen.push(k);
      if (k === 'bad' && seen.length === 1) throw new Error('first');
    },
    baseDelayMs: 10,
    onError: () => {
      throw new Error('reporter broke');
    },
  });
  q.add('bad');
  q.add('good');
  await jest.advanceTimersByTimeAsync(100);
  expect(seen).toEqual(['bad', 'good', 'bad']);
  await q.shutDown();
});
