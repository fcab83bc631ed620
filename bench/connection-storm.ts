/**
 * The connection-storm row (issue 25): `connections` clients each open a TLS connection of their
 * own at the same moment and send one GET. A Go server takes the system's full listen backlog, so
 * kube-apiserver answers every one (200, or 429 past --max-requests-inflight) and resets none.
 * Counts the answers by status, the connection errors by code, and the latency of each answer.
 */
import https from 'node:https';
import type { ApiTarget } from './support/api-client';
import type { Progress } from './support/progress';
import { summarize, type Summary } from './support/stats';

export interface StormResult {
  connections: number;
  /** Answers by HTTP status, e.g. { "200": 1700, "429": 300 }. */
  byStatus: Record<string, number>;
  /** Failures by error code, e.g. { ECONNRESET: 3 }. */
  errors: Record<string, number>;
  /** Time from starting the connection to the whole answer, ms (answers only). */
  latencyMs: Summary;
  /** The body of the first 5xx answer, if any (cut at 300 characters). */
  first5xx?: string;
}

/** Opens `connections` new TLS connections at once, one GET each (no keep-alive, no agent pooling). */
export async function measureConnectionStorm(target: ApiTarget, connections: number, path: string, progress: Progress): Promise<StormResult> {
  progress('storm', `${connections} new TLS connections at once, one GET ${path} each`);
  const byStatus: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const latencies: number[] = [];
  let first5xx: string | undefined;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const start = process.hrtime.bigint();
      const req = https.request(
        `${target.url}${path}`,
        { method: 'GET', agent: false, ca: target.caCert, headers: { authorization: `Bearer ${target.token}`, connection: 'close' }, timeout: 60_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            if ((res.statusCode ?? 0) >= 500 && first5xx === undefined) first5xx = Buffer.concat(chunks).toString('utf8').slice(0, 300);
            byStatus[String(res.statusCode)] = (byStatus[String(res.statusCode)] ?? 0) + 1;
            latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
            resolve();
          });
          res.on('error', (e: NodeJS.ErrnoException) => {
            errors[e.code ?? e.message] = (errors[e.code ?? e.message] ?? 0) + 1;
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
      req.on('error', (e: NodeJS.ErrnoException) => {
        errors[e.code ?? e.message] = (errors[e.code ?? e.message] ?? 0) + 1;
        resolve();
      });
      req.end();
    });
  await Promise.all(Array.from({ length: connections }, one));
  return { connections, byStatus, errors, latencyMs: summarize(latencies), ...(first5xx === undefined ? {} : { first5xx }) };
}
