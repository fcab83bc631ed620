/**
 * Get latency, one request in flight: each round picks a random secret of the listed namespace and
 * gets it every way (API with RV unset = quorum read from etcd; API with resourceVersion=0 = the
 * watch cache; a raw etcd3 get of its key), so drift hits all variants alike.
 */
import type { Etcd3 } from 'etcd3';
import type { ApiClient } from './support/api-client';
import type { Progress } from './support/progress';
import { msSince, summarize, type Summary } from './support/stats';

export interface GetRow {
  id: 'api-etcd' | 'api-cache' | 'raw-etcd';
  label: string;
  latencyMs: Summary;
}

export interface GetPlan {
  namespace: string;
  /** The namespace holds secrets s-0 … s-(objects-1). */
  objects: number;
  reps: number;
  /** The server's etcd prefix (keys are <prefix>/secrets/<ns>/<name>). */
  prefix: string;
}

/** Runs `reps` rounds after 20 warm-up rounds. */
export async function measureGetLatency(client: ApiClient, etcd: Etcd3, plan: GetPlan, progress: Progress): Promise<GetRow[]> {
  const path = (name: string) => `/api/v1/namespaces/${plan.namespace}/secrets/${name}`;
  const variants: Array<{ id: GetRow['id']; label: string; run: (name: string) => Promise<void> }> = [
    { id: 'api-etcd', label: 'API get, RV unset (quorum read, etcd)', run: async (n) => void (await client.expect('GET', path(n))) },
    { id: 'api-cache', label: 'API get, resourceVersion=0 (watch cache)', run: async (n) => void (await client.expect('GET', `${path(n)}?resourceVersion=0`)) },
    {
      id: 'raw-etcd',
      label: 'raw etcd3 get of the key',
      run: async (n) => {
        const v = await etcd.get(`${plan.prefix}/secrets/${plan.namespace}/${n}`).buffer();
        if (!v) throw new Error(`raw get: ${n} not found`);
      },
    },
  ];
  const samples = variants.map(() => [] as number[]);
  for (let r = -20; r < plan.reps; r++) {
    const name = `s-${Math.floor(Math.random() * plan.objects)}`;
    for (const [i, v] of variants.entries()) {
      const t = process.hrtime.bigint();
      await v.run(name);
      if (r >= 0) samples[i]?.push(msSince(t));
    }
    if (r > 0 && r % 500 === 0) progress('get', `round ${r}/${plan.reps}`);
  }
  return variants.map((v, i) => ({ id: v.id, label: v.label, latencyMs: summarize(samples[i] ?? []) }));
}
