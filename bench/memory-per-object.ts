/**
 * Memory per cached object: the server child's heap and RSS (after a forced GC) before and after
 * creating N 1 KiB Secrets through the API. The creates are timed too, as context.
 */
import type { ApiClient } from './support/api-client';
import { runPool } from './support/pool';
import { every, type Progress } from './support/progress';
import { secret } from './support/secrets';
import type { ServerHandle } from './support/server-handle';
import type { MemorySample } from './support/server-protocol';
import { msSince, summarize, type Summary } from './support/stats';

/** Where the N objects go: `count` secrets in each namespace. */
export interface LoadPlan {
  namespaces: Array<{ name: string; count: number }>;
  concurrency: number;
}

export interface MemoryResult {
  objects: number;
  before: MemorySample & { procRssBytes: number };
  after: MemorySample & { procRssBytes: number };
  heapBytesPerObject: number;
  rssBytesPerObject: number;
  /** Serialized size of one stored Secret (its JSON as the API returns it), bytes. */
  objectJsonBytes: number;
  create: { latencyMs: Summary; throughputPerSec: number; concurrency: number };
}

/** Loads the plan's secrets through `client` and measures the server's memory around it. */
export async function measureMemoryPerObject(client: ApiClient, server: ServerHandle, plan: LoadPlan, progress: Progress): Promise<MemoryResult> {
  const before = { ...(await server.memory()), procRssBytes: await server.procRss() };
  progress('memory', `before: heapUsed ${mib(before.heapUsedBytes)}, rss ${mib(before.rssBytes)}`);
  const jobs = plan.namespaces.flatMap((ns) => Array.from({ length: ns.count }, (_, i) => ({ ns: ns.name, name: `s-${i}` })));
  const latencies: number[] = [];
  let objectJsonBytes = 0;
  const started = process.hrtime.bigint();
  const stopProgress = every(2000, () => progress('memory', `created ${latencies.length}/${jobs.length}`));
  try {
    await runPool(jobs.length, plan.concurrency, async (i) => {
      const job = jobs[i] as { ns: string; name: string };
      const t = process.hrtime.bigint();
      const res = await client.expect('POST', `/api/v1/namespaces/${job.ns}/secrets`, secret(job.ns, job.name), 201);
      latencies.push(msSince(t));
      objectJsonBytes ||= res.body.length;
    });
  } finally {
    stopProgress();
  }
  const seconds = msSince(started) / 1000;
  await waitForCache(client, plan);
  const after = { ...(await server.memory()), procRssBytes: await server.procRss() };
  progress('memory', `after: heapUsed ${mib(after.heapUsedBytes)}, rss ${mib(after.rssBytes)}`);
  return {
    objects: jobs.length,
    before,
    after,
    heapBytesPerObject: (after.heapUsedBytes - before.heapUsedBytes) / jobs.length,
    rssBytesPerObject: (after.rssBytes - before.rssBytes) / jobs.length,
    objectJsonBytes,
    create: { latencyMs: summarize(latencies), throughputPerSec: jobs.length / seconds, concurrency: plan.concurrency },
  };
}

/** Waits until a consistent (cache-served) list of each namespace has every object. */
async function waitForCache(client: ApiClient, plan: LoadPlan): Promise<void> {
  for (const ns of plan.namespaces) {
    const res = await client.expect('GET', `/api/v1/namespaces/${ns.name}/secrets`);
    const n = (JSON.parse(res.body.toString('utf8')) as { items: unknown[] }).items.length;
    if (n !== ns.count) throw new Error(`namespace ${ns.name} lists ${n} secrets, expected ${ns.count}`);
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
