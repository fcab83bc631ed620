/**
 * Large request bodies decoded off the event loop (docs/architecture.md, "Decoding client input").
 *
 * YAML: `decodeYamlAsync` decodes a small, shallow body on this thread (yaml-decode.ts, no latency
 * added to everyday kubectl YAML) and sends a large one (≥ 256 Ki characters) or a deep one (past
 * 500 levels, where js-yaml's recursive parser needs a large stack) to a persistent worker thread
 * that runs the whole decode — tokenise, walk, depth, alias and repeated-key checks — and answers
 * with go-yaml's error text, or the value as JSON text plus the repeated keys.
 *
 * JSON: `decodeLargeJson` sends a large create, update or patch body (every patch type) to the same
 * threads, which parse it, list its repeated keys and cut out the fields its kind's schema does not
 * declare (registry/schema/prune-unknown.ts), so a body whose bulk is an unknown field never
 * becomes an object graph here. A body the thread cannot parse comes back undecided: the caller's
 * own decode then gives kube's error, as for a small body.
 *
 * Either way what comes back is JSON text, which `JSON.parse` here reads fast and without
 * recursion. A thread loads the schemas from the directory the server's registry came from
 * (SchemaRegistry.source), once.
 *
 * Bounds (docs/limits.md): at most `workers` threads, started lazily, `unref()`ed while idle and
 * ended after `idleMs` idle; one decode at a time each, the rest wait in a FIFO queue of at most
 * `queueLength` jobs, each for at most `queueWaitMs` (past either the request gets 429
 * TooManyRequests with Retry-After: 1 — load, not a fault); each decode may take `timeoutMs` and the
 * thread may use `maxOldGenerationSizeMb` of heap. A thread that dies (out of memory, crash,
 * timeout — none of which a legal body can cause) or cannot be started fails its request with an
 * Error (a 500 the handler logs) and the next request starts a fresh one. A job whose AbortSignal
 * aborts (its client went away: `withCloseSignal`) leaves the queue at once; one already being
 * decoded finishes and its result is dropped.
 *
 * This file is also the worker's entry point (it runs as one when `workerData.bodyDecoder` is set).
 */
import { Worker, parentPort, workerData, type WorkerOptions } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import { errors } from '../api/errors';
import { parseJsonBounded } from '../api/json-depth';
import { loopHeld, nextTurn } from '../api/turns';
import { SchemaRegistry, type PruneMode } from '../registry/schema';
import { jsonDuplicateFields } from './duplicate-fields';
import { TooDeep, YamlError, decodeYamlIn, type YamlDecoded } from './yaml-decode';

/** Bodies of this many characters or more are decoded in the worker. */
export const bodyWorkerThreshold = 256 * 1024;

/** The worker pool's bounds; tests may change them (read when a worker starts or a decode is sent). */
export const bodyWorkerLimits = {
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
  /** Jobs waiting for a thread at most; one more is answered 429. */
  queueLength: 16,
  /** A job still waiting for a thread after this long is answered 429. */
  queueWaitMs: 10_000,
};

/** Internal test hook: how a thread is made (tests make it fail). */
export const bodyWorkerInternals = {
  newWorker: (filename: string, options: WorkerOptions): Worker => new Worker(filename, options),
  /** Decodes handed to a thread so far (tests see which path a body took). */
  sent: 0,
};

/** Which schema cuts a body's unknown fields, and how (prune-unknown.ts). */
export interface PruneTarget {
  registry: SchemaRegistry;
  schemaName: string;
  mode: PruneMode;
}

interface DecodeRequest {
  id: number;
  media: 'yaml' | 'json';
  text: string;
  /** JSON: list the repeated keys (YAML always does). */
  duplicates?: boolean;
  prune?: { dir: string; schemaName: string; mode: PruneMode };
}

type DecodeReply =
  | { id: number; error: string }
  | { id: number; internal: string }
  /** JSON the thread could not parse: the caller decodes it itself (for kube's error). */
  | { id: number; undecided: true }
  /**
   * `json` absent: the value is undefined (an empty body). `nonce`: strings starting with it stand
   * for NaN, ±Infinity or -0. `unknownFields`: the paths cut out (object mode).
   */
  | { id: number; json?: string; nonce?: string; duplicates: string[]; unknownFields: string[] };

function isSpecial(v: unknown): v is number {
  return typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0));
}

/**
 * Whether a parsed value holds a number JSON.stringify would not give back (±Infinity from a huge
 * exponent or mantissa, -0 from `-0` or an underflowing negative), so the slow replacer is used
 * only then. A walk of the value (explicit stack, any depth), in the worker.
 */
function holdsSpecialNumber(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (isSpecial(v)) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

/** Schemas by directory, loaded once per thread. */
const registries = new Map<string, Promise<SchemaRegistry>>();

async function pruneIn(m: DecodeRequest, value: unknown): Promise<string[]> {
  if (!m.prune || value === undefined) return [];
  const { dir, schemaName, mode } = m.prune;
  let r = registries.get(dir);
  if (!r) {
    registries.set(dir, (r = SchemaRegistry.load(dir)));
    // A load that failed is tried again by the next body, not remembered.
    r.catch(() => registries.delete(dir));
  }
  return (await r).pruneUnknown(schemaName, value, mode);
}

function toJson(value: unknown, special: boolean): { json?: string; nonce?: string } {
  if (value === undefined) return {};
  if (!special) return { json: JSON.stringify(value) };
  const n = `\u0000body-number-${randomBytes(16).toString('hex')}:`;
  return { json: JSON.stringify(value, (_k, v: unknown) => (isSpecial(v) ? n + (Object.is(v, -0) ? '-0' : String(v)) : v)), nonce: n };
}

async function decodeIn(m: DecodeRequest): Promise<DecodeReply> {
  if (m.media === 'yaml') {
    const d = decodeYamlIn(m.text, 'deep');
    const unknownFields = await pruneIn(m, d.value);
    return { id: m.id, ...toJson(d.value, d.special), duplicates: d.duplicates, unknownFields };
  }
  let value: unknown;
  try {
    value = parseJsonBounded(m.text);
  } catch {
    return { id: m.id, undecided: true };
  }
  const duplicates = m.duplicates ? jsonDuplicateFields(m.text, value) : [];
  const unknownFields = await pruneIn(m, value);
  return { id: m.id, ...toJson(value, holdsSpecialNumber(value)), duplicates, unknownFields };
}

/** The worker's side: decode each body sent, answer with its JSON or its error. */
function serve(): void {
  const port = parentPort;
  if (!port) return;
  port.on('message', (m: DecodeRequest) => {
    decodeIn(m).then(
      (reply) => port.postMessage(reply),
      (e: unknown) => port.postMessage(e instanceof YamlError ? { id: m.id, error: e.message } : { id: m.id, internal: String((e as Error)?.stack ?? e) }),
    );
  });
}

const wd = workerData as { bodyDecoder?: boolean } | null | undefined;
if (wd?.bodyDecoder === true) serve();

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

/** What a thread gives back: the value, its repeated keys and the unknown fields cut out of it. */
export interface BodyDecoded extends YamlDecoded {
  /** Strict-decoding paths of the fields removed (`object` mode), in the decoder's order. */
  unknownFields: string[];
}

interface Job {
  request: Omit<DecodeRequest, 'id'>;
  /** Each settles the job once (later calls do nothing) and drops its timer and abort listener. `undefined`: JSON left undecided. */
  resolve(d: BodyDecoded | undefined): void;
  reject(e: Error): void;
  /** Whether it has settled (its client went away, say): an answer then is dropped unread. */
  settled(): boolean;
  /** The deadline of its wait in the queue. */
  wait?: NodeJS.Timeout;
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
  const resourceLimits = { stackSizeMb: bodyWorkerLimits.stackSizeMb, maxOldGenerationSizeMb: bodyWorkerLimits.maxOldGenerationSizeMb };
  // May throw (ERR_WORKER_INIT_FAILED, EAGAIN): nothing is recorded until it has returned.
  const worker = __filename.endsWith('.ts')
    ? bodyWorkerInternals.newWorker(tsBootstrap, { eval: true, workerData: { bodyDecoder: true, entry: __filename, typescript: require.resolve('typescript') }, resourceLimits })
    : bodyWorkerInternals.newWorker(__filename, { workerData: { bodyDecoder: true }, resourceLimits });
  worker.unref();
  const slot: Slot = { worker, dead: false };
  worker.on('message', (reply: DecodeReply) => finish(slot, reply));
  worker.on('error', (e: Error) => fail(slot, new Error(`body decoder thread failed: ${e.message}`)));
  worker.on('exit', (code) => fail(slot, new Error(`body decoder thread exited (code ${code})`)));
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
  slot.worker.terminate().catch(() => undefined);
  dispatch();
}

function finish(slot: Slot, reply: DecodeReply): void {
  const job = slot.job;
  if (!job || reply.id !== job.id) return;
  clearTimeout(job.timer);
  slot.job = undefined;
  slot.worker.unref();
  if ('error' in reply) job.reject(new YamlError(reply.error));
  else if ('internal' in reply) job.reject(new Error(`body decoder thread: ${reply.internal}`));
  else if ('undecided' in reply) job.resolve(undefined);
  else {
    const parse = (): void => {
      if (job.settled()) return;
      try {
        let value: unknown = reply.json === undefined ? undefined : JSON.parse(reply.json);
        if (reply.nonce) value = revive(value, reply.nonce);
        job.resolve({ value, duplicates: reply.duplicates, unknownFields: reply.unknownFields });
      } catch (e) {
        job.reject(e as Error);
      }
    };
    // The parse is a stage of its request (api/turns.ts): it starts this turn's clock, or waits
    // for a turn of its own when the loop is already held (two threads' answers may arrive in
    // one poll of the loop).
    if (loopHeld()) void nextTurn().then(parse);
    else parse();
  }
  dispatch();
}

/** Takes a job out of the queue (aborted or waited too long); false if it was not there. */
function unqueue(job: Job): boolean {
  const i = queue.indexOf(job);
  if (i < 0) return false;
  queue.splice(i, 1);
  return true;
}

/** 429: waiting for a decoder thread is load, not a fault (ours: kube decodes on the request's goroutine). */
function busy(): Error {
  return errors.tooManyRequests('the server is busy decoding request bodies, please try again later', 1);
}

/** Gives queued jobs to free threads, starting threads up to the limit. Never throws (it runs in listeners and timers). */
function dispatch(): void {
  while (queue.length) {
    let slot = slots.find((s) => !s.job);
    if (!slot && slots.length >= Math.max(1, bodyWorkerLimits.workers)) break;
    // The job is taken first: if no thread can be started, it fails alone and the rest go on.
    const job = queue.shift() as Job;
    if (job.wait) clearTimeout(job.wait);
    job.wait = undefined;
    if (!slot) {
      try {
        slot = startWorker();
      } catch (e) {
        job.reject(new Error(`body decoder thread could not be started: ${(e as Error)?.message ?? String(e)}`));
        continue;
      }
    }
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = undefined;
    const id = nextId++;
    const s = slot;
    const timer = setTimeout(() => fail(s, new Error(`body decode took longer than ${bodyWorkerLimits.timeoutMs} ms`)), bodyWorkerLimits.timeoutMs);
    slot.job = { ...job, id, timer };
    slot.worker.ref();
    bodyWorkerInternals.sent++;
    slot.worker.postMessage({ id, ...job.request } satisfies DecodeRequest);
  }
  for (const s of slots) {
    if (s.job || s.idle) continue;
    s.idle = setTimeout(() => fail(s, new Error('idle')), bodyWorkerLimits.idleMs);
    s.idle.unref();
  }
}

/**
 * Runs one decode in a worker thread. When `signal` aborts, a queued job leaves the queue and one
 * being decoded is left to finish; either way the promise rejects with the signal's reason at once.
 */
function inWorker(request: Omit<DecodeRequest, 'id'>, signal?: AbortSignal): Promise<BodyDecoded | undefined> {
  return new Promise<BodyDecoded | undefined>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      if (job.wait) clearTimeout(job.wait);
      job.wait = undefined;
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const job: Job = {
      request,
      resolve: (d) => {
        if (settle()) resolve(d);
      },
      reject: (e) => {
        if (settle()) reject(e);
      },
      settled: () => settled,
    };
    const onAbort = (): void => {
      unqueue(job);
      job.reject(abortReason(signal as AbortSignal));
    };
    queue.push(job);
    dispatch();
    if (settled || !queue.includes(job)) {
      // Given to a thread (or failed) at once: only an abort can still concern it.
      if (!settled) signal?.addEventListener('abort', onAbort, { once: true });
      return;
    }
    if (queue.length > Math.max(0, bodyWorkerLimits.queueLength)) {
      unqueue(job);
      job.reject(busy());
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    job.wait = setTimeout(() => {
      if (unqueue(job)) job.reject(busy());
    }, bodyWorkerLimits.queueWaitMs);
  });
}

/**
 * Decodes YAML in a worker thread (whatever the body's size), its unknown fields cut when `prune`
 * is given (and the registry was loaded from a directory). `signal` as for inWorker.
 */
export async function decodeYamlInWorker(text: string, signal?: AbortSignal, prune?: PruneTarget): Promise<BodyDecoded> {
  return (await inWorker({ media: 'yaml', text, prune: pruneRequest(prune) }, signal)) as BodyDecoded;
}

/** What a thread needs to cut unknown fields: the directory it loads, when the schema is from there (not added at run time). */
function pruneRequest(prune: PruneTarget | undefined): DecodeRequest['prune'] {
  const dir = prune?.registry.source;
  return prune && dir !== undefined && prune.registry.fromSource(prune.schemaName) ? { dir, schemaName: prune.schemaName, mode: prune.mode } : undefined;
}

/**
 * A JSON body of `bodyWorkerThreshold` characters or more, parsed in a worker thread with its
 * repeated keys listed (when `duplicates`) and its unknown fields cut per `prune`. `undefined` when
 * the body is small, the registry was not loaded from a directory (nothing to gain), or the thread
 * could not parse it: the caller decodes it on this thread as always (and gives kube's error).
 * A thread failure is a plain Error, a full queue or too long a wait a 429 ApiError; `signal` as
 * for inWorker.
 */
export async function decodeLargeJson(
  text: string,
  opts: { duplicates: boolean; prune: PruneTarget },
  signal?: AbortSignal,
): Promise<BodyDecoded | undefined> {
  const prune = pruneRequest(opts.prune);
  if (text.length < bodyWorkerThreshold || !prune) return undefined;
  return inWorker({ media: 'json', text, duplicates: opts.duplicates, prune }, signal);
}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error('body decode aborted');
}

/** What `withCloseSignal` needs of a response (express's, over HTTP/1.1 or HTTP/2). */
export interface ClosableResponse {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
  readonly closed?: boolean;
  readonly destroyed?: boolean;
}

/**
 * Runs `work` with a signal that aborts when the response closes before it settles (the client went
 * away), with kube's error for a cancelled request context (504 Timeout; nobody reads it). The
 * 'close' listener is removed when `work` settles.
 */
export async function withCloseSignal<T>(res: ClosableResponse, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onClose = (): void => ac.abort(errors.timeout('request did not complete within requested timeout - context canceled'));
  if (res.closed || res.destroyed) onClose();
  else res.once('close', onClose);
  try {
    return await work(ac.signal);
  } finally {
    res.off('close', onClose);
  }
}

/**
 * decodeYaml (yaml-decode.ts) without holding the event loop: small shallow bodies here, the rest
 * in the worker. Same values, repeated keys and YamlError messages; a thread failure is a plain
 * Error (the server's fault), a full queue or too long a wait a 429 ApiError; `signal` as for
 * decodeYamlInWorker (a body decoded here is not cancelled). `prune` cuts the unknown fields of a
 * body decoded in the worker (a small one keeps them: the caller's schema decode finds them).
 */
export async function decodeYamlAsync(text: string, signal?: AbortSignal, prune?: PruneTarget): Promise<BodyDecoded> {
  if (text.length < bodyWorkerThreshold) {
    try {
      const { value, duplicates } = decodeYamlIn(text, 'shallow');
      return { value, duplicates, unknownFields: [] };
    } catch (e) {
      if (!(e instanceof TooDeep)) throw e;
    }
  }
  return decodeYamlInWorker(text, signal, prune);
}

/** Ends every decoder thread (tests); requests in flight fail. */
export async function stopBodyWorkers(): Promise<void> {
  const all = slots.slice();
  for (const s of all) fail(s, new Error('body decoder threads stopped'));
  await Promise.all(all.map((s) => s.worker.terminate()));
}
