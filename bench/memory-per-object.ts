/**
 * Server memory with N stored secrets: the server child's heap and RSS (after a forced GC) before and
 * after N 1 KiB Secrets are loaded into one namespace, either created through the API or put straight
 * into etcd under the server's prefix (values shaped as the server stores them) for the watch cache
 * to pick up from its etcd watch. The load is timed too, as context.
 */
import type { Etcd3 } from 'etcd3';
import type { ApiClient } from './support/api-client';
import { waitForCache } from './support/cache-sync';
import type { RssLoad } from './support/options';
import { runPool } from './support/pool';
import { every, type Progress } from './support/progress';
import { secret } from './support/secrets';
import type { ServerHandle } from './support/server-handle';
import type { MemorySample } from './support/server-protocol';
import { msSince, summarize, type Summary } from './support/stats';
import type { StoredSecretFactory } from './support/stored-secret';

export interface LoadPlan {
  namespace: string;
  objects: number;
  concurrency: number;
  via: RssLoad;
  /** The server's etcd prefix (used when loading via etcd). */
  prefix: string;
}

export interface MemoryResult {
  objects: number;
  via: RssLoad;
  /** Secrets stored in the server when the after-sample was taken (this load plus earlier phases'). */
  storedSecrets: number;
  before: MemorySample & { procRssBytes: number };
  after: MemorySample & { procRssBytes: number };
  heapBytesPerObject: number;
  rssBytesPerObject: number;
  /** Serialized size of one stored Secret (its value in etcd), bytes. */
  objectJsonBytes: number;
  /** The load's writes (API creates or etcd puts), and from the first write until the cache had them all. */
  load: { latencyMs: Summary; throughputPerSec: number; concurrency: number; cacheCaughtUpSeconds: number };
}

/** Loads the plan's secrets and measures the server's memory around it; `alreadyStored` counts earlier phases' secrets. */
export async function measureMemoryPerObject(
  client: ApiClient,
  etcd: Etcd3,
  value: StoredSecretFactory,
  server: ServerHandle,
  plan: LoadPlan,
  alreadyStored: number,
  progress: Progress,
): Promise<MemoryResult> {
  const before = { ...(await server.memory()), procRssBytes: await server.procRss() };
  progress('rss', `before: heapUsed ${mib(before.heapUsedBytes)}, rss ${mib(before.rssBytes)}; loading ${plan.objects} via ${plan.via}`);
  const latencies: number[] = [];
  let objectJsonBytes = 0;
  const started = process.hrtime.bigint();
  const stopProgress = every(2000, () => progress('rss', `loaded ${latencies.length}/${plan.objects}`));
  try {
    await runPool(plan.objects, plan.concurrency, async (i) => {
      const name = `s-${i}`;
      const t = process.hrtime.bigint();
      if (plan.via === 'api') {
        await client.expect('POST', `/api/v1/namespaces/${plan.namespace}/secrets`, secret(plan.namespace, name), 201);
      } else {
        const v = value(plan.namespace, name);
        objectJsonBytes ||= v.length;
        await etcd.put(`${plan.prefix}/secrets/${plan.namespace}/${name}`).value(v);
      }
      latencies.push(msSince(t));
    });
  } finally {
    stopProgress();
  }
  const loadSeconds = msSince(started) / 1000;
  await waitForCache(client, etcd, plan.namespace, `s-${plan.objects - 1}`);
  const caughtUp = msSince(started) / 1000;
  progress('rss', `loaded in ${loadSeconds.toFixed(1)} s; the cache had them all after ${caughtUp.toFixed(1)} s`);
  objectJsonBytes ||= (await etcd.get(`${plan.prefix}/secrets/${plan.namespace}/s-0`).buffer())?.length ?? 0;
  const after = { ...(await server.memory()), procRssBytes: await server.procRss() };
  progress('rss', `after: heapUsed ${mib(after.heapUsedBytes)}, rss ${mib(after.rssBytes)}`);
  return {
    objects: plan.objects,
    via: plan.via,
    storedSecrets: alreadyStored + plan.objects,
    before,
    after,
    heapBytesPerObject: (after.heapUsedBytes - before.heapUsedBytes) / plan.objects,
    rssBytesPerObject: (after.rssBytes - before.rssBytes) / plan.objects,
    objectJsonBytes,
    load: {
      latencyMs: summarize(latencies),
      throughputPerSec: plan.objects / loadSeconds,
      concurrency: plan.concurrency,
      cacheCaughtUpSeconds: caughtUp,
    },
  };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
