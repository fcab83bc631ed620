/** The bench's objects: 1 KiB Secrets and the namespaces that hold them. */
import { randomBytes } from 'node:crypto';
import type { ApiClient } from './api-client';
import { runPool } from './pool';
import { msSince } from './stats';

/** Bytes of secret data per object before base64 (base64 of 768 bytes is 1,024 characters). */
const PAYLOAD_BYTES = 768;

/** A v1 Secret with 1 KiB of base64 data and optional annotations. */
export function secret(namespace: string, name: string, annotations?: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: { app: 'bench' }, ...(annotations ? { annotations } : {}) },
    type: 'Opaque',
    data: { payload: randomBytes(PAYLOAD_BYTES).toString('base64') },
  };
}

/** Creates one fresh 1 KiB secret through `client` (the API server or a floor server); throws unless 201. */
export async function postSecret(client: ApiClient, namespace: string, name: string): Promise<void> {
  await client.expect('POST', `/api/v1/namespaces/${namespace}/secrets`, secret(namespace, name), 201);
}

/** Creates a namespace through the API (409 = already there is fine). */
export async function ensureNamespace(client: ApiClient, name: string): Promise<void> {
  const res = await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (res.status !== 201 && res.status !== 409) {
    throw new Error(`create namespace ${name} → ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  }
}

/**
 * Creates secrets s-0 … s-(count-1) in `namespace` through the API, `concurrency` in flight (throws on
 * the first failure); resolves with each create's latency (ms) and the total seconds.
 */
export async function createSecrets(
  client: ApiClient,
  namespace: string,
  count: number,
  concurrency: number,
): Promise<{ latenciesMs: number[]; seconds: number }> {
  const latenciesMs: number[] = [];
  const start = process.hrtime.bigint();
  await runPool(count, concurrency, async (i) => {
    const t = process.hrtime.bigint();
    await postSecret(client, namespace, `s-${i}`);
    latenciesMs.push(msSince(t));
  });
  return { latenciesMs, seconds: msSince(start) / 1000 };
}
