/**
 * YAML request bodies decoded off the event loop (docs/architecture.md, "Decoding client input").
 *
 * `decodeYamlAsync` decodes a small, shallow body on this thread (yaml-decode.ts, no latency added
 * to everyday kubectl YAML) and sends a large one (≥ 256 Ki characters) or a deep one (past 500
 * levels, where js-yaml's recursive parser needs a large stack) to a persistent worker thread that
 * runs the whole decode — tokenise, walk, depth, alias and repeated-key checks — and answers with
 * go-yaml's error text, or the value as JSON text plus the repeated keys. `JSON.parse` here is fast
 * and not recursive, so the main thread never holds the loop for the decode itself.
 *
 * Bounds (docs/limits.md): at most `workers` threads, started lazily, `unref()`ed while idle and
 * ended after `idleMs` idle; one decode at a time each, the rest wait in a FIFO queue (bounded by
 * the server's in-flight request limits); each decode may take `timeoutMs` and the thread may use
 * `maxOldGenerationSizeMb` of heap. A thread that dies (out of memory, crash, timeout — none of
 * which a legal body can cause) fails its request with an Error (a 500 the handler logs) and the
 * next request starts a fresh one.
 *
 * This file is also the worker's entry point (it runs as one when `workerData.yamlDecoder` is set).
 */
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import { loopHeld } from '../api/turns';
import { TooDeep, YamlError, decodeYamlIn, type YamlDecoded } from './yaml-decode';

/** Bodies of this many characters or more are decoded in the worker. */
export const yamlWorkerThreshold = 256 * 1024;

/** The worker pool's bounds; tests may change them (read when a worker starts or a decode is sent). */
export const yamlWorkerLimits = {
  /** Threads at most (each decodes one body at a time). */
  workers: 2,
  /** One decode's time before its thread is ended and the request answered 500. */
  timeoutMs: 10_000,
  /** Heap of one thread: a 3 MiB body's value, its alias copies (≤ 64 MiB of text) and its JSON fit. */
  maxOldGenerationSizeMb: 512,
  /** Stack: js-yaml's parser recurses per level, twice go-yaml's 10,000 levels included. */
  stackSizeMb: 256,
  /** An idle thread is ended after this long. */
  idleMs: 30_000,
};

interface DecodeRequest {
  id: number;
  text: string;
}

type DecodeReply =
  | { id: number; error: string }
  | { id: number; internal: string }
  /** `json` absent: the value is undefined (an empty body). `nonce`: strings starting with it stand for NaN, ±Infinity or -0. */
  | { id: number; json?: string; nonce?: string; duplicates: string[] };

function isSpecial(v: unknown): v is number {
  return typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0));
}

/** The worker's side: decode each body sent, answer with its JSON or its error. */
function serve(): void {
  const port = parentPort;
  if (!port) return;
  port.on('message', (m: DecodeRequest) => {
    let reply: DecodeReply;
    try {
      const d = decodeYamlIn(m.text, 'deep');
      let json: string | undefined;
      let nonce: string | undefined;
      if (d.value !== undefined) {
        if (d.special) {
          const n = (nonce = `\u0000yaml-number-${randomBytes(16).toString('hex')}:`);
          json = JSON.stringify(d.value, (_k, v: unknown) => (isSpecial(v) ? n + (Object.is(v, -0) ? '-0' : String(v)) : v));
        } else json = JSON.stringify(d.value);
      }
      reply = { id: m.id, json, nonce, duplicates: d.duplicates };
    } catch (e) {
      reply = e instanceof YamlError ? { id: m.id, error: e.message } : { id: m.id, internal: String((e as Error)?.stack ?? e) };
    }
    port.postMessage(reply);
  });
}

const wd = workerData as { yamlDecoder?: boolean } | null | undefined;
if (wd?.yamlDecoder === true) serve();

/** Puts the numbers JSON cannot carry back (explicit stack: the value may be 10,000 levels deep). */
function revive(root: unknown, nonce: string): unknown {
  const num = (s: string): number => {
    const t = s.slice(nonce.length);
    return t === '-0' ? -0 : Number(t);
  };
  if (typeof root === 'string') return root.startsWith(nonce) ? num(root) : root;
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const o = v as Record<string, unknown>;
    for (const k of Array.isArray(v) ? v.keys() : Object.keys(v)) {
      const x = o[k as string];
      if (typeof x === 'string') {
        if (x.startsWith(nonce)) o[k as string] = num(x);
      } else if (x !== null && typeof x === 'object') stack.push(x);
    }
  }
  return root;
}

interface Job {
  text: string;
  resolve(d: YamlDecoded): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number; timer: NodeJS.Timeout };
  idle?: NodeJS.Timeout;
  dead: boolean;
}

const slots: Slot[] = [];
const queue: Job[] = [];
let nextId = 1;

/** Under ts-jest the sources are TypeScript: the worker transpiles them as it loads them. */
const tsBootstrap = `
const { workerData } = require('node:worker_threads');
const ts = require(workerData.typescript);
const fs = require('node:fs');
require.extensions['.ts'] = (m, f) => m._compile(ts.transpileModule(fs.readFileSync(f, 'utf8'), { fileName: f, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, f);
require(workerData.entry);
`;

function startWorker(): Slot {
  const resourceLimits = { stackSizeMb: yamlWorkerLimits.stackSizeMb, maxOldGenerationSizeMb: yamlWorkerLimits.maxOldGenerationSizeMb };
  const worker = __filename.endsWith('.ts')
    ? new Worker(tsBootstrap, { eval: true, workerData: { yamlDecoder: true, entry: __filename, typescript: require.resolve('typescript') }, resourceLimits })
    : new Worker(__filename, { workerData: { yamlDecoder: true }, resourceLimits });
  worker.unref();
  const slot: Slot = { worker, dead: false };
  worker.on('message', (reply: DecodeReply) => finish(slot, reply));
  worker.on('error', (e: Error) => fail(slot, new Error(`YAML decoder thread failed: ${e.message}`)));
  worker.on('exit', (code) => fail(slot, new Error(`YAML decoder thread exited (code ${code})`)));
  slots.push(slot);
  return slot;
}

/** A thread is gone: its request fails (a 500), the queue goes on with a fresh thread. */
function fail(slot: Slot, err: Error): void {
  if (slot.dead) return;
  slot.dead = true;
  const i = slots.indexOf(slot);
  if (i >= 0) slots.splice(i, 1);
  if (slot.idle) clearTimeout(slot.idle);
  const job = slot.job;
  slot.job = undefined;
  if (job) {
    clearTimeout(job.timer);
    job.reject(err);
  }
  void slot.worker.terminate();
  dispatch();
}

function finish(slot: Slot, reply: DecodeReply): void {
  const job = slot.job;
  if (!job || reply.id !== job.id) return;
  clearTimeout(job.timer);
  slot.job = undefined;
  slot.worker.unref();
  if ('error' in reply) job.reject(new YamlError(reply.error));
  else if ('internal' in reply) job.reject(new Error(`YAML decoder thread: ${reply.internal}`));
  else {
    try {
      // This turn's work starts here (api/turns.ts): the request's next checkpoint counts the parse.
      loopHeld();
      let value: unknown = reply.json === undefined ? undefined : JSON.parse(reply.json);
      if (reply.nonce) value = revive(value, reply.nonce);
      job.resolve({ value, duplicates: reply.duplicates });
    } catch (e) {
      job.reject(e as Error);
    }
  }
  dispatch();
}

function dispatch(): void {
  while (queue.length) {
    let slot = slots.find((s) => !s.job);
    if (!slot) {
      if (slots.length >= Math.max(1, yamlWorkerLimits.workers)) return;
      slot = startWorker();
    }
    const job = queue.shift() as Job;
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = undefined;
    const id = nextId++;
    const s = slot;
    const timer = setTimeout(() => fail(s, new Error(`YAML decode took longer than ${yamlWorkerLimits.timeoutMs} ms`)), yamlWorkerLimits.timeoutMs);
    slot.job = { ...job, id, timer };
    slot.worker.ref();
    slot.worker.postMessage({ id, text: job.text } satisfies DecodeRequest);
  }
  for (const s of slots) {
    if (s.job || s.idle) continue;
    s.idle = setTimeout(() => fail(s, new Error('idle')), yamlWorkerLimits.idleMs);
    s.idle.unref();
  }
}

/** Decodes in a worker thread (whatever the body's size). */
export function decodeYamlInWorker(text: string): Promise<YamlDecoded> {
  return new Promise<YamlDecoded>((resolve, reject) => {
    queue.push({ text, resolve, reject });
    dispatch();
  });
}

/**
 * decodeYaml (yaml-decode.ts) without holding the event loop: small shallow bodies here, the rest
 * in the worker. Same values, repeated keys and YamlError messages; a thread failure is a plain
 * Error (the server's fault).
 */
export async function decodeYamlAsync(text: string): Promise<YamlDecoded> {
  if (text.length < yamlWorkerThreshold) {
    try {
      const { value, duplicates } = decodeYamlIn(text, 'shallow');
      return { value, duplicates };
    } catch (e) {
      if (!(e instanceof TooDeep)) throw e;
    }
  }
  return decodeYamlInWorker(text);
}

/** Ends every decoder thread (tests); requests in flight fail. */
export async function stopYamlWorkers(): Promise<void> {
  const all = slots.slice();
  for (const s of all) fail(s, new Error('YAML decoder threads stopped'));
  await Promise.all(all.map((s) => s.worker.terminate()));
}
