/** Waiting for the server's watch cache to hold everything written so far. */
import type { Etcd3 } from 'etcd3';
import type { ApiClient } from './api-client';
import { etcdRevision } from './stored-secret';

/**
 * Waits until the watch cache has applied etcd's current revision: a get of an existing secret with
 * resourceVersion=<that revision> (kube's "not older than", answered by the cache once it has caught
 * up), retried while it times out; throws after `timeoutMs`.
 */
export async function waitForCache(client: ApiClient, etcd: Etcd3, namespace: string, name: string, timeoutMs = 120_000): Promise<void> {
  const rev = await etcdRevision(etcd);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.request('GET', `/api/v1/namespaces/${namespace}/secrets/${name}?resourceVersion=${rev}`);
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the watch cache did not reach revision ${rev}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
  }
}
