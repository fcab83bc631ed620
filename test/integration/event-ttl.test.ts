/**
 * --event-ttl on a real etcd: events are written with an etcd lease of the TTL, other kinds without
 * one, and etcd deletes an event when its lease runs out, which watchers see as DELETED. (Sharing
 * leases needs a reuse window, 5% of the TTL: none below 20 s; the unit test covers it.)
 */
import { useTestServer } from '../support/server-fixture';
import { openWatch } from '../support/watch-stream';
import { namespace, secret } from '../support/factories';

const { srv } = useTestServer({ eventTtlSeconds: 2 });
const ns = 'ttl';

beforeAll(async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) })).status).toBe(201);
});

const event = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Secret', namespace: ns, name: 's' },
  reason: 'Tested',
  message: 'a test event',
  type: 'Normal',
});

/** The etcd lease ID of a stored key ('0': none). */
async function leaseOf(key: string): Promise<string> {
  const r = await srv.etcdStore.etcd.kv.range({ key: Buffer.from(key) });
  return r.kvs[0]?.lease ?? 'missing';
}

test('events carry an etcd lease of the TTL; other kinds none; etcd deletes an event when it runs out', async () => {
  const first = await srv.request('POST', `/api/v1/namespaces/${ns}/events`, { body: event('e1') });
  expect(first.status).toBe(201);
  expect((await srv.request('POST', `/api/v1/namespaces/${ns}/events`, { body: event('e2') })).status).toBe(201);
  expect((await srv.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('s') })).status).toBe(201);

  const lease = await leaseOf(`${srv.prefix}/events/${ns}/e1`);
  expect(lease).not.toBe('0');
  expect(await leaseOf(`${srv.prefix}/events/${ns}/e2`)).not.toBe('0');
  expect(await leaseOf(`${srv.prefix}/secrets/${ns}/s`)).toBe('0');
  const ttl = await srv.etcdStore.etcd.leaseClient.leaseTimeToLive({ ID: lease });
  expect(Number(ttl.grantedTTL)).toBe(2); // 2 s plus a 5% reuse window, floored to 0

  const w = await openWatch(srv, `/api/v1/namespaces/${ns}/events?watch=1&resourceVersion=${first.json().metadata.resourceVersion}`);
  try {
    // etcd revokes expired leases in no particular order.
    const events = await w.next(3, 15_000);
    expect(events.map((e) => [e.type, e.object.metadata.name]).sort()).toEqual([
      ['ADDED', 'e2'],
      ['DELETED', 'e1'],
      ['DELETED', 'e2'],
    ]);
  } finally {
    w.close();
  }
  expect((await srv.request('GET', `/api/v1/namespaces/${ns}/events/e1`)).status).toBe(404);
  expect((await srv.request('GET', `/api/v1/namespaces/${ns}/secrets/s`)).status).toBe(200);
});
