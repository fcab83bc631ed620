/**
 * The watch phase's writer: open loop at a fixed rate, write `seq` due at seq / rate. The first
 * `objects` writes create w-0…w-(objects-1); later ones replace them with unconditional PUTs. Each
 * body is a fresh 1 KiB Secret whose marker annotation holds `seq`.
 */
import type { ApiClient } from './api-client';
import { secret } from './secrets';

export interface PacedWrites {
  /** Send and response times per seq (ms since base); ackAt is NaN for a failed write. */
  sentAt: Float64Array;
  ackAt: Float64Array;
  /** Round trips of the successful writes, ms. */
  latenciesMs: number[];
  errors: number;
  firstError: string | undefined;
  /** From the first write due until the last response. */
  seconds: number;
}

export interface PacedWriterPlan {
  namespace: string;
  writes: number;
  writesPerSecond: number;
  objects: number;
  markerKey: string;
}

/** Sends every write on schedule (a write to a name still waits for that name's previous write). */
export async function runPacedWrites(client: ApiClient, plan: PacedWriterPlan, baseNs: bigint, onAck: () => void): Promise<PacedWrites> {
  const out: PacedWrites = {
    sentAt: new Float64Array(plan.writes).fill(Number.NaN),
    ackAt: new Float64Array(plan.writes).fill(Number.NaN),
    latenciesMs: [],
    errors: 0,
    firstError: undefined,
    seconds: 0,
  };
  const sinceBase = (t: bigint) => Number(t - baseNs) / 1e6;
  const inFlight: Array<Promise<void>> = [];
  const lastWriteOf = new Map<string, Promise<void>>();
  const start = process.hrtime.bigint();
  for (let seq = 0; seq < plan.writes; seq++) {
    const waitMs = (seq * 1000) / plan.writesPerSecond - Number(process.hrtime.bigint() - start) / 1e6;
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    const name = `w-${seq % plan.objects}`;
    const previous = lastWriteOf.get(name);
    const write = (async () => {
      // An update waits for the same object's previous write (its create may still be in flight).
      await previous;
      const body = secret(plan.namespace, name, { [plan.markerKey]: String(seq) });
      const t = process.hrtime.bigint();
      out.sentAt[seq] = sinceBase(t);
      const res = await (seq < plan.objects
        ? client.request('POST', `/api/v1/namespaces/${plan.namespace}/secrets`, body)
        : client.request('PUT', `/api/v1/namespaces/${plan.namespace}/secrets/${name}`, body)
      ).catch((e: Error) => ({ status: 0, body: Buffer.from(e.message) }));
      const done = process.hrtime.bigint();
      if (res.status === 200 || res.status === 201) {
        out.ackAt[seq] = sinceBase(done);
        out.latenciesMs.push(Number(done - t) / 1e6);
        onAck();
      } else {
        out.errors++;
        out.firstError ??= `${res.status}: ${res.body.toString('utf8').slice(0, 200)}`;
      }
    })();
    lastWriteOf.set(name, write);
    inFlight.push(write);
  }
  await Promise.all(inFlight);
  out.seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return out;
}

/** Writes per second actually sent: (n - 1) over the span between the first and the last send. */
export function sendRate(sentAtMs: Float64Array): number {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let n = 0;
  for (const t of sentAtMs) {
    if (Number.isNaN(t)) continue;
    n++;
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  return n < 2 ? Number.NaN : ((n - 1) * 1000) / (last - first);
}
