/** WatchKeeper: one watch per key, reopened with backoff after it ends, told when it resumes; clean stop. */
import type { KubeObject } from '../../../src/api';
import { WatchKeeper } from '../../../src/controllers/watch-keeper';
import type { Watch, WatchEvent, WatchSink } from '../../../src/registry';

interface Opened {
  sink: WatchSink;
  resumed: boolean;
  at: number;
  stopped: boolean;
}

function opener(opts: { failFirst?: number; closeWhileOpening?: boolean } = {}) {
  const opened: Opened[] = [];
  let failures = opts.failFirst ?? 0;
  const open = async (sink: WatchSink, resumed: boolean): Promise<Watch> => {
    if (failures > 0) {
      failures--;
      throw new Error('etcd unavailable');
    }
    const o: Opened = { sink, resumed, at: Date.now(), stopped: false };
    opened.push(o);
    if (opts.closeWhileOpening && opened.length === 1) sink.closed();
    return { stop: () => void (o.stopped = true) };
  };
  return { opened, open };
}

const event = (name: string): WatchEvent => ({ type: 'DELETED', object: { metadata: { name } } });

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

test('a key is kept by one watch however often keep() is called', async () => {
  const k = new WatchKeeper();
  const { opened, open } = opener();
  const events: string[] = [];
  for (let i = 0; i < 3; i++) k.keep('secrets', (e) => events.push(String((e.object as KubeObject).metadata.name)), open);
  await k.idle();
  expect(opened).toHaveLength(1);
  expect(opened[0]?.resumed).toBe(false);
  opened[0]?.sink.event(event('a'));
  expect(events).toEqual(['a']);
  expect(k.openKeys()).toEqual(['secrets']);
  await k.stop();
});

test('a watch that ends is reopened after the backoff, marked resumed; success resets the backoff', async () => {
  const k = new WatchKeeper({ baseDelayMs: 800 });
  const { opened, open } = opener();
  k.keep('secrets', () => undefined, open);
  await k.idle();
  opened[0]?.sink.closed();
  expect(k.openKeys()).toEqual([]);
  await jest.advanceTimersByTimeAsync(799);
  expect(opened).toHaveLength(1);
  await jest.advanceTimersByTimeAsync(1);
  expect(opened.map((o) => [o.at, o.resumed])).toEqual([
    [0, false],
    [800, true],
  ]);
  // Closed again: the count was forgotten on success, so the delay starts from the base again.
  opened[1]?.sink.closed();
  await jest.advanceTimersByTimeAsync(800);
  expect(opened.map((o) => o.at)).toEqual([0, 800, 1600]);
  expect(opened[2]?.resumed).toBe(true);
  await k.stop();
});

test('failed opens are retried with a doubling delay, and the next open is a resumption', async () => {
  const errors: unknown[] = [];
  const k = new WatchKeeper({ baseDelayMs: 100, maxDelayMs: 1000, onError: (e) => errors.push(e) });
  const { opened, open } = opener({ failFirst: 3 });
  k.keep('secrets', () => undefined, open);
  await k.idle();
  expect(opened).toHaveLength(0);
  await jest.advanceTimersByTimeAsync(10_000);
  expect(errors).toHaveLength(3);
  // 100 + 200 + 400 after the first attempt at 0.
  expect(opened.map((o) => [o.at, o.resumed])).toEqual([[700, true]]);
  await k.stop();
});

test('a watch that closes while opening counts as a failed open', async () => {
  const errors: unknown[] = [];
  const k = new WatchKeeper({ baseDelayMs: 100, onError: (e) => errors.push(e) });
  const { opened, open } = opener({ closeWhileOpening: true });
  k.keep('secrets', () => undefined, open);
  await jest.advanceTimersByTimeAsync(100);
  expect(errors).toHaveLength(1);
  expect(opened.map((o) => [o.at, o.resumed])).toEqual([
    [0, false],
    [100, true],
  ]);
  expect(k.openKeys()).toEqual(['secrets']);
  await k.stop();
});

test('stop() stops the watches, cancels pending reopens and drops later events', async () => {
  const k = new WatchKeeper();
  const { opened, open } = opener();
  const events: WatchEvent[] = [];
  k.keep('a', (e) => events.push(e), open);
  k.keep('b', (e) => events.push(e), open);
  await k.idle();
  opened[1]?.sink.closed(); // 'b' waits for its reopen
  expect(jest.getTimerCount()).toBe(1);
  await k.stop();
  expect(jest.getTimerCount()).toBe(0);
  expect(opened[0]?.stopped).toBe(true);
  opened[0]?.sink.event(event('late'));
  opened[0]?.sink.closed();
  await jest.advanceTimersByTimeAsync(60_000);
  expect(events).toEqual([]);
  expect(opened).toHaveLength(2);
  // A stopped keeper keeps nothing new.
  k.keep('c', () => undefined, open);
  await jest.advanceTimersByTimeAsync(1000);
  expect(opened).toHaveLength(2);
});

test('a forgotten key stops its watch, drops later events, is not reopened, and may be kept again', async () => {
  const k = new WatchKeeper({ baseDelayMs: 10 });
  const { opened, open } = opener();
  const events: string[] = [];
  k.keep('widgets', (e) => events.push(String((e.object as KubeObject).metadata.name)), open);
  await k.idle();
  expect(k.keys()).toEqual(['widgets']);
  k.forget('widgets');
  expect(opened[0]?.stopped).toBe(true);
  opened[0]?.sink.event(event('late'));
  opened[0]?.sink.closed();
  await jest.advanceTimersByTimeAsync(1000);
  expect(opened).toHaveLength(1);
  expect(events).toEqual([]);
  expect(k.keys()).toEqual([]);
  k.forget('widgets');
  k.keep('widgets', (e) => events.push(String((e.object as KubeObject).metadata.name)), open);
  await k.idle();
  expect(opened).toHaveLength(2);
  await k.stop();
});
