/**
 * The watch cache's fan-out: every watcher told of one change gets the same event object (so the
 * endpoint encodes it once), a selector transition's DELETED included, with kube's content: the
 * previous state stamped with the change's revision. The etcd feed is a fake the test drives.
 */
import type { KubeObject } from '../../../src/api';
import { Cacher, type EtcdStore, type WatchEvent } from '../../../src/storage';
import type { FeedListener } from '../../../src/storage/etcd/etcd-feed';

const secret = (name: string, rv: number, app: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns', resourceVersion: String(rv), labels: { app } },
});

async function cacheWithFeed() {
  let listener: FeedListener | undefined;
  const etcd = {
    corruptErrors: { gate: false, keyPrefix: '/r' },
    listEntries: async () => ({ entries: [{ key: '/r/secrets/ns/a', object: secret('a', 3, 'x') }], revision: 5n, more: false }),
    feed: (_prefix: string, _rev: bigint, l: FeedListener) => {
      listener = l;
      return { stop: () => undefined };
    },
    currentRevision: async () => 5n,
    assertRevisionAvailable: async () => undefined,
    close: async () => undefined,
  };
  const c = new Cacher({ etcd: etcd as unknown as EtcdStore, prefix: '/r', bookmarkIntervalMs: 3_600_000 });
  await c.ready();
  return { c, feed: () => listener as FeedListener };
}

function watchAll(c: Cacher, n: number, predicate?: (o: KubeObject) => boolean): WatchEvent[][] {
  const seen: WatchEvent[][] = [];
  for (let i = 0; i < n; i++) {
    const events: WatchEvent[] = [];
    seen.push(events);
    c.watch('/r/secrets/', { start: { kind: 'after', revision: 5n }, predicate }, { event: (e) => events.push(e), closed: () => undefined });
  }
  return seen;
}

const settle = () => new Promise((r) => setImmediate(r));

test('every watcher gets the same event object for one change', async () => {
  const { c, feed } = await cacheWithFeed();
  const seen = watchAll(c, 3);
  await settle();
  feed().events([{ type: 'PUT', key: '/r/secrets/ns/a', revision: 6n, object: secret('a', 6, 'x') }], 6n);
  feed().events([{ type: 'DELETE', key: '/r/secrets/ns/a', revision: 7n }], 7n);
  expect(seen.map((s) => s.map((e) => `${e.type}@${(e.object as KubeObject).metadata.resourceVersion}`))).toEqual([
    ['MODIFIED@6', 'DELETED@7'],
    ['MODIFIED@6', 'DELETED@7'],
    ['MODIFIED@6', 'DELETED@7'],
  ]);
  for (let i = 0; i < 2; i++) {
    expect(seen[1]?.[i]).toBe(seen[0]?.[i]);
    expect(seen[2]?.[i]).toBe(seen[0]?.[i]);
  }
  await c.close();
});

test('a selector transition: each watcher that stops matching gets the one DELETED of the previous state at the new revision', async () => {
  const { c, feed } = await cacheWithFeed();
  const matching = watchAll(c, 2, (o) => o.metadata.labels?.app === 'x');
  const others = watchAll(c, 1, (o) => o.metadata.labels?.app === 'y');
  await settle();
  feed().events([{ type: 'PUT', key: '/r/secrets/ns/a', revision: 6n, object: secret('a', 6, 'y') }], 6n);
  const [first, second] = matching.map((s) => s[0]);
  expect(first).toEqual({ type: 'DELETED', object: secret('a', 6, 'x') });
  expect(second).toBe(first);
  // The watcher that starts matching is told ADDED of the new state.
  expect(others[0]).toEqual([{ type: 'ADDED', object: secret('a', 6, 'y') }]);
  await c.close();
});
