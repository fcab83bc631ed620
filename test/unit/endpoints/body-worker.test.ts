import { decodeYaml, YamlError } from '../../../src/endpoints/yaml-decode';
import { EventEmitter } from 'node:events';
import { ApiError } from '../../../src/api/errors';
import {
  decodeYamlAsync,
  decodeYamlInWorker,
  stopBodyWorkers,
  withCloseSignal,
  bodyWorkerInternals,
  bodyWorkerLimits,
} from '../../../src/endpoints/body-worker';
import { yamlValueCorpus } from './yaml-corpus';

afterAll(async () => {
  await stopBodyWorkers();
});

type Outcome = { ok: { value: unknown; duplicates: string[] } } | { error: string };

async function outcome(p: () => Promise<{ value: unknown; duplicates: string[] }> | { value: unknown; duplicates: string[] }): Promise<Outcome> {
  try {
    // The value and repeated keys (no prune target is given here, so nothing is cut).
    const { value, duplicates } = await p();
    return { ok: { value, duplicates } };
  } catch (e) {
    expect(e).toBeInstanceOf(YamlError);
    return { error: (e as Error).message };
  }
}

/** Deep equality with an explicit stack (Object.is on leaves, own keys in order): 'same' or where they differ. */
function sameValue(a: unknown, b: unknown): string {
  const stack: Array<[unknown, unknown, string]> = [[a, b, '']];
  while (stack.length) {
    const [x, y, at] = stack.pop() as [unknown, unknown, string];
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') {
      if (!Object.is(x, y)) return `${at}: ${String(x)} vs ${String(y)}`;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y) || (Object.getPrototypeOf(x) === null) !== (Object.getPrototypeOf(y) === null)) return `${at}: kinds differ`;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.join('\u0000') !== ky.join('\u0000')) return `${at}: keys differ`;
    for (const k of kx) stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${at}/${k}`]);
  }
  return 'same';
}

const MiB = 1024 * 1024;
const fill = (unit: (i: number) => string, head = '', tail = '', size = MiB): string => {
  const parts: string[] = [head];
  let n = head.length;
  for (let i = 0; n < size; i++) {
    const u = unit(i);
    parts.push(u);
    n += u.length;
  }
  parts.push(tail);
  return parts.join('');
};
const flow = (d: number): string => '['.repeat(d) + ']'.repeat(d);
const blockMap = (d: number): string => Array.from({ length: d }, (_, i) => ' '.repeat(i) + 'k:').join('\n') + ' 1\n';

/** yaml-decode.test.ts's corpus, plus what JSON alone could not carry. */
const corpus: string[] = [
  ...yamlValueCorpus,
  'a: 1\n---\nb: 2\n',
  'a: 1\na: 2\na: 3\n',
  'metadata:\n  name: x\n  name: y\ndata:\n  k: v\n  j: w\n  k: u\n',
  '{a: 1, a: 2}',
  'a: 1\na:\n  x: 1\n  x: 2\n',
  '1: a\n"1": b\n',
  'k: "a\\nb"\n"k": c\n',
  '__proto__: {polluted: true}\n',
  'a: {__proto__: [1], b: 2}\n',
  // Numbers JSON cannot carry, and ones it must carry exactly.
  'a: .nan\nb: .inf\nc: -.inf\nd: -0.0\ne: -0\nf: [.NaN, -.Inf, {g: -0.0}]\nh: *missing\n',
  'a: .nan\nb: .inf\nc: -.inf\nd: -0.0\ne: -0\nf: [.NaN, -.Inf, {g: -0.0}]\nh: &n .nan\ni: *n\n',
  '.nan',
  '-0.0',
  'big: 123456789012345678901234567890\nhex: 0xffffffffffffffffff\nmax: 9007199254740993\ntiny: 5e-324\nhuge: 1e400\n',
  'u: "\\ud800 lone"\nv: "tab\\tnul\\0"\nw: "é漢😀"\n',
  'x: "\u0000yaml-number-0123:NaN"\n',
  // Errors: go-yaml's text either way.
  'a: [1, 2\n',
  'a: !!foo 1\n',
  'a: *nope\n',
  'a: &a [*a]\n',
  '\tbad: tab\n',
  fill((i) => `  key${i}: "value ${i}"\n`, 'data:\n'),
  fill((i) => `- {a: ${i}, b: [1, .5, true, null, .nan]}\n`),
  fill(() => 'k: v\n'),
  fill(() => '*s,', 's: &s [a, b, c]\nl: [', '*s]\n'),
];

/** Nested one-element containers, built without recursion: `depth` arrays around [] or maps {k: …} around 1. */
function nested(depth: number, kind: 'seq' | 'map'): unknown {
  let v: unknown = kind === 'seq' ? [] : 1;
  for (let i = kind === 'seq' ? 1 : 0; i < depth; i++) v = kind === 'seq' ? [v] : { k: v };
  return v;
}

/** Past 500 levels only a decoder thread can parse a document (decodeYaml refuses): go-yaml's answers, written out. */
const deepCases: Array<[string, Outcome]> = [
  [`a: 1\nb: ${flow(10001)}\n`, { error: 'yaml: line 2: exceeded max depth of 10000' }],
  [flow(10000), { ok: { value: nested(10000, 'seq'), duplicates: [] } }],
  [blockMap(600), { ok: { value: nested(600, 'map'), duplicates: [] } }],
  [blockMap(10001), { error: 'yaml: line 10001: exceeded max depth of 10000' }],
  ['['.repeat(20010), { error: 'yaml: exceeded max depth of 10000' }],
  [`${flow(12000).slice(0, 11000)} ]]] :`, { error: 'yaml: exceeded max depth of 10000' }],
];

describe('deep documents: the decoder thread answers as go-yaml', () => {
  test.each(deepCases.map(([t, want], i) => [i, `${t.slice(0, 40)}… (${t.length} chars)`, t, want] as const))('%i %j', async (_i, _label, text, want) => {
    for (const got of [await outcome(() => decodeYamlInWorker(text)), await outcome(() => decodeYamlAsync(text))]) {
      if ('ok' in want) expect('ok' in got && sameValue(got.ok.value, want.ok.value)).toBe('same');
      else expect(got).toEqual(want);
    }
  });
});

/** Puts the pool's limits and hooks back and ends its threads after each test of the calling block; returns both as they were. */
function restoreWorkerPoolAfterEach(): { saved: typeof bodyWorkerLimits; savedInternals: typeof bodyWorkerInternals } {
  const saved = { ...bodyWorkerLimits };
  const savedInternals = { ...bodyWorkerInternals };
  afterEach(async () => {
    Object.assign(bodyWorkerLimits, saved);
    Object.assign(bodyWorkerInternals, savedInternals);
    await stopBodyWorkers();
  });
  return { saved, savedInternals };
}

describe('the worker decodes exactly as decodeYaml does', () => {
  test.each(corpus.map((t, i) => [i, t.length > 80 ? `${t.slice(0, 60)}… (${t.length} chars)` : t, t] as const))('%i %j', async (_i, _label, text) => {
    const want = await outcome(() => decodeYaml(text));
    const got = await outcome(() => decodeYamlInWorker(text));
    const viaAsync = await outcome(() => decodeYamlAsync(text));
    expect(got).toEqual(want);
    expect(viaAsync).toEqual(want);
    // toEqual tells -0 from 0 and NaN from null; own __proto__ keys need a look of their own.
    if ('ok' in got && got.ok.value && typeof got.ok.value === 'object') {
      expect(Object.getPrototypeOf(got.ok.value)).toBe(Object.getPrototypeOf((want as { ok: { value: object } }).ok.value));
      expect(Object.keys(got.ok.value)).toEqual(Object.keys((want as { ok: { value: object } }).ok.value));
    }
  });

  test('own __proto__ keys stay own keys and pollute nothing', async () => {
    const { value } = await decodeYamlInWorker('__proto__: {polluted: true}\n');
    expect(Object.prototype.hasOwnProperty.call(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('special numbers come back as numbers', async () => {
    const { value } = (await decodeYamlInWorker('a: .nan\nb: -.inf\nc: -0.0\nd: [.inf]\n')) as { value: Record<string, unknown> };
    expect(Number.isNaN(value.a)).toBe(true);
    expect(value.b).toBe(-Infinity);
    expect(Object.is(value.c, -0)).toBe(true);
    expect(value.d).toEqual([Infinity]);
  });

  test('concurrent decodes are queued and each gets its own answer', async () => {
    const texts = Array.from({ length: 6 }, (_, i) => fill((j) => `k${j}: ${i}\n`, '', '', 300 * 1024));
    const results = await Promise.all(texts.map((t) => decodeYamlAsync(t)));
    results.forEach((r, i) => expect((r.value as Record<string, number>).k0).toBe(i));
  });
});

describe('a failing worker fails only its request', () => {
  const saved = { ...bodyWorkerLimits };
  afterEach(async () => {
    Object.assign(bodyWorkerLimits, saved);
    await stopBodyWorkers();
  });

  test('out of memory: a plain Error (500), then a fresh thread decodes', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.maxOldGenerationSizeMb = 4;
    const text = fill((i) => `- {k${i}: [a, b, c, d, e, f, g, h, i, j, k, l, m, n]}\n`, '', '', 3 * MiB - 200);
    const err = await decodeYamlInWorker(text).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(YamlError);
    expect((err as Error).message).toMatch(/body decoder thread/);
    Object.assign(bodyWorkerLimits, saved);
    expect((await decodeYamlInWorker('a: 1\n')).value).toEqual({ a: 1 });
  });

  test('too slow: the thread is ended, the request fails, the next one is served', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.timeoutMs = 1;
    const text = fill((i) => `k${i}: v\n`, '', '', 3 * MiB - 200);
    await expect(decodeYamlInWorker(text)).rejects.toThrow(/body decode took longer than 1 ms/);
    bodyWorkerLimits.timeoutMs = saved.timeoutMs;
    expect((await decodeYamlInWorker('a: 1\n')).value).toEqual({ a: 1 });
  });

  test('a thread that exits mid-decode: its queued neighbours are still served', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 1;
    bodyWorkerLimits.maxOldGenerationSizeMb = 4;
    const big = fill((i) => `- {k${i}: [a, b, c, d, e, f, g, h, i, j, k, l, m, n]}\n`, '', '', 3 * MiB - 200);
    const first = decodeYamlInWorker(big).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    // The first thread has started with the small heap; the one started after it dies has the usual one.
    bodyWorkerLimits.maxOldGenerationSizeMb = saved.maxOldGenerationSizeMb;
    const second = decodeYamlInWorker('b: 2\n');
    expect(await first).toMatch(/body decoder thread/);
    expect((await second).value).toEqual({ b: 2 });
  });
});

describe('the queue: bounded, timed and cancellable', () => {
  const { saved } = restoreWorkerPoolAfterEach();

  const big = (): string => fill((i) => `k${i}: v\n`, '', '', MiB);
  const settled = <T>(p: Promise<T>): Promise<T | Error> => p.then((v) => v, (e: Error) => e);
  const expectBusy = (e: unknown): void => {
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.code).toBe(429);
    expect(err.reason).toBe('TooManyRequests');
    expect(err.status.message).toBe('Too many requests: the server is busy decoding request bodies, please try again later');
    expect(err.headers()).toEqual({ 'Retry-After': '1' });
  };

  test('an aborted job leaves the queue and rejects with the reason; the running one finishes', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 1;
    bodyWorkerLimits.queueLength = 1;
    // Everything up to the first await runs before the thread can answer: the first job holds it.
    const first = decodeYamlInWorker(big());
    const ac = new AbortController();
    const queued = settled(decodeYamlInWorker('q: 1\n', ac.signal));
    const reason = new Error('client went away');
    ac.abort(reason);
    // Its place in the queue is free again: the next job waits instead of getting 429.
    const next = decodeYamlInWorker('n: 2\n');
    const over = settled(decodeYamlInWorker('o: 3\n'));
    expect(await queued).toBe(reason);
    expectBusy(await over);
    expect(((await first).value as Record<string, string>).k0).toBe('v');
    expect((await next).value).toEqual({ n: 2 });
  });

  test('an already aborted signal never queues; an abort mid-decode rejects at once and the thread goes on', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 1;
    const gone = new AbortController();
    gone.abort(new Error('gone'));
    await expect(decodeYamlInWorker('a: 1\n', gone.signal)).rejects.toThrow('gone');
    const ac = new AbortController();
    const running = settled(decodeYamlInWorker(big(), ac.signal));
    const after = decodeYamlInWorker('b: 2\n');
    ac.abort(new Error('dropped'));
    expect(((await running) as Error).message).toBe('dropped');
    expect((await after).value).toEqual({ b: 2 });
  });

  test('past the cap a job gets 429 TooManyRequests with Retry-After: 1', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 1;
    bodyWorkerLimits.queueLength = 2;
    const running = decodeYamlInWorker(big());
    const waiting = [decodeYamlInWorker('a: 1\n'), decodeYamlInWorker('b: 2\n')];
    expectBusy(await settled(decodeYamlInWorker('c: 3\n')));
    // Through decodeYamlAsync (the handlers' way in) too.
    expectBusy(await settled(decodeYamlAsync(big())));
    await running;
    expect((await Promise.all(waiting)).map((d) => d.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect((await decodeYamlInWorker('d: 4\n')).value).toEqual({ d: 4 });
  });

  test('a job that waits too long gets 429', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 1;
    bodyWorkerLimits.queueWaitMs = 1;
    // The thread starts and decodes a MiB: far longer than 1 ms.
    const running = decodeYamlInWorker(big());
    expectBusy(await settled(decodeYamlInWorker('a: 1\n')));
    await running;
    bodyWorkerLimits.queueWaitMs = saved.queueWaitMs;
    expect((await decodeYamlInWorker('b: 2\n')).value).toEqual({ b: 2 });
  });

  test('withCloseSignal: a closing response aborts the queued decode; no listener stays behind', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 1;
    const res = new EventEmitter();
    const running = withCloseSignal(res, (signal) => decodeYamlAsync(big(), signal));
    expect(res.listenerCount('close')).toBe(1);
    const queued = settled(withCloseSignal(res, (signal) => decodeYamlAsync(big(), signal)));
    res.emit('close');
    const err = await queued;
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status.message).toBe('Timeout: request did not complete within requested timeout - context canceled');
    // The running decode was aborted too (its result is dropped); the thread still serves the next.
    await expect(running).rejects.toBeInstanceOf(ApiError);
    expect(res.listenerCount('close')).toBe(0);
    const open = new EventEmitter();
    expect((await withCloseSignal(open, (signal) => decodeYamlAsync(big(), signal))).value).toBeDefined();
    expect((await withCloseSignal(open, (signal) => decodeYamlAsync('s: 1\n', signal))).value).toEqual({ s: 1 });
    expect(open.listenerCount('close')).toBe(0);
    // Closed before it started: never queued.
    const closed = Object.assign(new EventEmitter(), { closed: true });
    await expect(withCloseSignal(closed, (signal) => decodeYamlInWorker('a: 1\n', signal))).rejects.toBeInstanceOf(ApiError);
    expect(closed.listenerCount('close')).toBe(0);
  });
});

describe('a thread that cannot start fails only its job', () => {
  const { saved, savedInternals } = restoreWorkerPoolAfterEach();

  /** Makes the `n`th thread started from now fail to start (ERR_WORKER_INIT_FAILED). */
  const failStart = (n: number): void => {
    let calls = 0;
    bodyWorkerInternals.newWorker = (file, options) => {
      if (++calls === n) throw Object.assign(new Error('Worker initialization failure: EAGAIN'), { code: 'ERR_WORKER_INIT_FAILED' });
      return savedInternals.newWorker(file, options);
    };
  };
  const expectStartFailure = (e: unknown): void => {
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(ApiError);
    expect(e).not.toBeInstanceOf(YamlError);
    expect((e as Error).message).toBe('body decoder thread could not be started: Worker initialization failure: EAGAIN');
  };

  test('on request: that request fails (a 500), the next one starts a thread', async () => {
    await stopBodyWorkers();
    failStart(1);
    expectStartFailure(await decodeYamlInWorker('a: 1\n').catch((e: unknown) => e));
    expect((await decodeYamlInWorker('b: 2\n')).value).toEqual({ b: 2 });
  });

  test('next to a working thread: only the job that needed the new thread fails', async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 2;
    failStart(2);
    const first = decodeYamlInWorker(fill((i) => `k${i}: v\n`, '', '', MiB));
    const second = decodeYamlInWorker('b: 2\n').catch((e: unknown) => e);
    const third = decodeYamlInWorker('c: 3\n');
    expectStartFailure(await second);
    expect((await third).value).toEqual({ c: 3 });
    expect(((await first).value as Record<string, string>).k0).toBe('v');
  });

  test("from a dead thread's exit listener: the queued job fails, nothing is thrown, the next request is served", async () => {
    await stopBodyWorkers();
    bodyWorkerLimits.workers = 1;
    bodyWorkerLimits.maxOldGenerationSizeMb = 4;
    failStart(2);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown): void => void uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const dies = decodeYamlInWorker(fill((i) => `- {k${i}: [a, b, c, d, e, f, g, h, i, j, k, l, m, n]}\n`, '', '', 3 * MiB - 200)).catch((e: Error) => e);
      const queued = decodeYamlInWorker('q: 1\n').catch((e: unknown) => e);
      expect(((await dies) as Error).message).toMatch(/body decoder thread (failed|exited)/);
      expectStartFailure(await queued);
      bodyWorkerLimits.maxOldGenerationSizeMb = saved.maxOldGenerationSizeMb;
      expect((await decodeYamlInWorker('r: 2\n')).value).toEqual({ r: 2 });
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
