/**
 * Create throughput and latency, API vs raw etcd, at several concurrency levels: closed-loop creates
 * of fresh 1 KiB Secrets through the API for a fixed time, then the same number of seconds of raw
 * etcd transactions in kube's create shape (`if mod_revision(key) == 0 then put`) from this process,
 * keys under a prefix of their own, values shaped as the server stores a Secret.
 */
import type { Etcd3 } from 'etcd3';
import type { ApiClient } from './support/api-client';
import { cpuMeter } from './support/cpu';
import { every, type Progress } from './support/progress';
import { postSecret } from './support/secrets';
import { msSince, summarize, type Summary } from './support/stats';
import type { StoredSecretFactory } from './support/stored-secret';

/** One side of a row: what the closed loop achieved. */
export interface CreateCell {
  creates: number;
  errors: number;
  firstError: string | undefined;
  perSecond: number;
  latencyMs: Summary;
  /** % of one core each process used during the cell (server, etcd, this bench process). */
  cpuPercent: Record<string, number>;
}

export interface CreateRow {
  concurrency: number;
  api: CreateCell;
  raw: CreateCell;
  /** The same POSTs against the create floor server (bare HTTPS + one etcd3 txn), when it ran. */
  floor?: CreateCell;
  /** The same API POSTs authenticated by a client certificate instead of the bearer token, when asked. */
  apiByCert?: CreateCell;
  /** The same API POSTs with the token, impersonating another user (Impersonate-User/-Group), when asked. */
  apiImpersonating?: CreateCell;
  /** The same API POSTs authenticated by a JWT of an issuer in --authentication-config, when asked. */
  apiByJwt?: CreateCell;
  /** The same API POSTs by a user RBAC allows through a RoleBinding (among many bindings), when asked. */
  apiAsRbacUser?: CreateCell;
  /** The same API POSTs by a user RBAC lets through to an allow-all webhook whose decision is cached, when asked. */
  apiByWebhook?: CreateCell;
  /** The admin token's creates on that second server: the reference its webhook cells are read against. */
  apiSecondServer?: CreateCell;
  /** The webhook user's creates on a second server whose webhook decisions are not cached (every create asks the webhook), when asked. */
  apiByWebhookUncached?: CreateCell;
  /** The token's creates through one mutating and one validating admission webhook (both local), when asked. */
  apiThroughAdmissionWebhooks?: CreateCell;
}

/** The API create cells of a row beside the token's: each is measured after every token cell (measureCreateThroughput). */
export type CreateVariant =
  | 'apiByCert'
  | 'apiImpersonating'
  | 'apiByJwt'
  | 'apiAsRbacUser'
  | 'apiByWebhook'
  | 'apiSecondServer'
  | 'apiByWebhookUncached'
  | 'apiThroughAdmissionWebhooks';

/** A client of a variant's cells; `pids` adds to (or replaces) the plan's measured processes (another server, the webhook). */
export interface VariantClient {
  client: ApiClient;
  label: string;
  pids?: Record<string, number>;
}

export interface CreatePlan {
  concurrencies: number[];
  seconds: number;
  /** Namespace of the API creates. */
  namespace: string;
  /** etcd key prefix of the raw creates (outside the server's prefix). */
  rawPrefix: string;
  /** Processes whose CPU use is measured per cell, by name. */
  pids: Record<string, number>;
  /** The create floor server (support/floor-server-process.ts with etcd), measured between raw and API. */
  floor?: { client: ApiClient; pid: number };
  /**
   * Clients of the same server that authenticate another way (a client certificate; the token plus
   * impersonation headers), each with its own sockets. Their cells run after every token cell, so the
   * token row is measured exactly as without them (no other client's warm-up or keep-alive
   * connections beside it).
   */
  variants?: Partial<Record<CreateVariant, VariantClient>>;
}

/** Creates made before the timed cells, so that V8 has compiled the hot paths of both sides. */
export interface CreateWarmup {
  seconds: number;
  concurrency: number;
  apiCreates: number;
  rawCreates: number;
  floorCreates?: number;
}

/**
 * Untimed creates, raw then API, for `seconds` each: a fresh server's first couple of thousand
 * requests run about twice as slowly as later ones while V8 compiles them, which would otherwise
 * land in the first timed cells. The raw keys go under the raw prefix (deleted with the others),
 * the API's secrets into the create namespace.
 */
export async function warmUpCreates(
  client: ApiClient,
  etcd: Etcd3,
  value: StoredSecretFactory,
  plan: CreatePlan,
  seconds: number,
  progress: Progress,
): Promise<CreateWarmup> {
  const concurrency = 16;
  progress('create', `warming up: raw etcd txn creates${plan.floor ? ', floor creates' : ''} and API creates, ${concurrency} in flight, ${seconds} s each (untimed)`);
  const rawCreates = await untimedLoop(concurrency, seconds, async (i) => {
    const key = Buffer.from(`${plan.rawPrefix}warm-${i}`);
    await etcd.kv.txn({
      compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
      success: [{ request_put: { key, value: value(plan.namespace, `warm-${i}`) } }],
      failure: [],
    });
  });
  const floor = plan.floor;
  const floorCreates = floor
    ? await untimedLoop(concurrency, seconds, async (i) => {
        await postSecret(floor.client, plan.namespace, `warm-${i}`);
      })
    : undefined;
  const apiCreates = await untimedLoop(concurrency, seconds, async (i) => {
    await postSecret(client, plan.namespace, `warm-${i}`);
  });
  return { seconds, concurrency, apiCreates, rawCreates, ...(floorCreates === undefined ? {} : { floorCreates }) };
}

/** Untimed creates through `client` for `seconds`, 16 in flight (a server of its own warmed up as the main one is); returns how many succeeded. */
export function warmUpClient(client: ApiClient, namespace: string, seconds: number): Promise<number> {
  return untimedLoop(16, seconds, async (i) => {
    await postSecret(client, namespace, `warm-${i}`);
  });
}

/** `concurrency` workers call `op(i)` until `seconds` have passed; returns how many succeeded. */
async function untimedLoop(concurrency: number, seconds: number, op: (i: number) => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (msSince(start) < seconds * 1000) {
      await op(next++).then(
        () => done++,
        () => undefined,
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done;
}

/** Runs raw, the floor (if any), then API at each concurrency, then each variant's API cells at each concurrency; deletes the raw keys (and the floor's, under the same prefix) at the end. */
export async function measureCreateThroughput(
  client: ApiClient,
  etcd: Etcd3,
  value: StoredSecretFactory,
  plan: CreatePlan,
  progress: Progress,
): Promise<CreateRow[]> {
  const rows: CreateRow[] = [];
  try {
    for (const c of plan.concurrencies) {
      progress('create', `raw etcd txn creates, ${c} in flight, ${plan.seconds} s`);
      const raw = await closedLoop(c, plan.seconds, plan.pids, progress, async (i) => {
        const key = Buffer.from(`${plan.rawPrefix}c${c}-${i}`);
        const res = await etcd.kv.txn({
          compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
          success: [{ request_put: { key, value: value(plan.namespace, `c${c}-${i}`) } }],
          failure: [],
        });
        if (!res.succeeded) throw new Error(`raw create of ${key.toString()} found the key`);
      });
      let floor: CreateCell | undefined;
      if (plan.floor) {
        const { client: floorClient, pid } = plan.floor;
        progress('create', `floor creates (bare HTTPS server + etcd3 txn), ${c} in flight, ${plan.seconds} s`);
        floor = await closedLoop(c, plan.seconds, { ...plan.pids, server: pid }, progress, async (i) => {
          await postSecret(floorClient, plan.namespace, `c${c}-${i}`);
        });
      }
      progress('create', `API creates (POST), ${c} in flight, ${plan.seconds} s`);
      const api = await closedLoop(c, plan.seconds, plan.pids, progress, async (i) => {
        await postSecret(client, plan.namespace, `c${c}-${i}`);
      });
      rows.push({ concurrency: c, api, raw, ...(floor ? { floor } : {}) });
      progress('create', `c=${c}: API ${api.perSecond.toFixed(0)}/s p99 ${api.latencyMs.p99.toFixed(1)} ms; raw ${raw.perSecond.toFixed(0)}/s p99 ${raw.latencyMs.p99.toFixed(1)} ms`);
    }
    for (const [variant, v] of Object.entries(plan.variants ?? {}) as [CreateVariant, VariantClient][]) await measureVariantCells(rows, variant, v, plan, progress);
  } finally {
    await etcd.delete().prefix(plan.rawPrefix);
  }
  return rows;
}

/** A variant's API cells, one at each row's concurrency, stored in the rows. */
export async function measureVariantCells(rows: CreateRow[], variant: CreateVariant, v: VariantClient, plan: Pick<CreatePlan, 'seconds' | 'namespace' | 'pids'>, progress: Progress): Promise<void> {
  for (const row of rows) {
    const c = row.concurrency;
    progress('create', `API creates (POST) ${v.label}, ${c} in flight, ${plan.seconds} s`);
    row[variant] = await closedLoop(c, plan.seconds, { ...plan.pids, ...v.pids }, progress, async (i) => {
      await postSecret(v.client, plan.namespace, `${variant.toLowerCase()}-c${c}-${i}`);
    });
  }
}

/** `concurrency` workers call `op(i)` with fresh i until `seconds` have passed (after one untimed op each); failures are counted, not thrown. */
async function closedLoop(
  concurrency: number,
  seconds: number,
  pids: Record<string, number>,
  progress: Progress,
  op: (i: number) => Promise<void>,
): Promise<CreateCell> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  // Untimed, one op per worker first: the API's c keep-alive TLS connections get established (the raw
  // side's gRPC channel is already up), so the cell measures steady state, not c handshakes at once.
  await Promise.all(Array.from({ length: concurrency }, () => op(next++).catch(() => undefined)));
  const cpu = await cpuMeter(pids);
  const start = process.hrtime.bigint();
  const stop = every(2000, () => progress('create', `${latencies.length} done`));
  const worker = async (): Promise<void> => {
    while (msSince(start) < seconds * 1000) {
      const t = process.hrtime.bigint();
      try {
        await op(next++);
        latencies.push(msSince(t));
      } catch (e) {
        errors++;
        firstError ??= (e as Error).message.slice(0, 300);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    stop();
  }
  const elapsed = msSince(start) / 1000;
  return { creates: latencies.length, errors, firstError, perSecond: latencies.length / elapsed, latencyMs: summarize(latencies), cpuPercent: await cpu() };
}
