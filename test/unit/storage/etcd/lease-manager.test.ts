import type { Etcd3 } from 'etcd3';
import { LeaseManager } from '../../../../src/storage/etcd/lease-manager';

/** A client whose leaseGrant records the TTLs asked for and answers IDs 1, 2, … (after `delay`). */
function fakeClient(delay?: Promise<void>) {
  const grants: number[] = [];
  const client = {
    leaseClient: {
      leaseGrant: async (req: { TTL: number }) => {
        grants.push(req.TTL);
        await delay;
        return { ID: String(grants.length), TTL: String(req.TTL) };
      },
    },
  };
  return { client: client as unknown as Etcd3, grants };
}

describe("LeaseManager (kube's etcd3 leaseManager)", () => {
  test('grants TTL plus a 5% reuse window, and reuses that lease while it still outlives the TTL', async () => {
    let now = 0;
    const { client, grants } = fakeClient();
    const m = new LeaseManager(client, { now: () => now });
    expect(await m.leaseFor(3600)).toBe('1');
    expect(grants).toEqual([3600 + 60]); // 5% of an hour is 180 s, capped at 60 s
    now += 59_000;
    expect(await m.leaseFor(3600)).toBe('1');
    now += 1_000; // the lease would now expire exactly at now + TTL: no longer enough
    expect(await m.leaseFor(3600)).toBe('2');
    expect(grants).toEqual([3660, 3660]);
  });

  test('as in kube, a lease is reused only once the clock has moved past its grant (it must expire within TTL + window)', async () => {
    const { client, grants } = fakeClient();
    const m = new LeaseManager(client, { now: () => 0 });
    await m.leaseFor(60);
    await m.leaseFor(60);
    expect(grants).toEqual([63, 63]);
  });

  test('a short TTL gets a 5% window (floored); a different TTL the old lease no longer fits gets its own', async () => {
    const { client, grants } = fakeClient();
    const m = new LeaseManager(client, { now: () => 0 });
    await m.leaseFor(100);
    expect(grants).toEqual([105]);
    await m.leaseFor(10); // the 105 s lease would keep a 10 s object far too long
    expect(grants).toEqual([105, 10]);
  });

  test('at most maxObjectCount objects per lease', async () => {
    const { client, grants } = fakeClient();
    let t = 0;
    const m = new LeaseManager(client, { now: () => t++, maxObjectCount: 3 });
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(await m.leaseFor(60));
    expect(ids).toEqual(['1', '1', '1', '2', '2', '2', '3']);
    expect(grants).toHaveLength(3);
  });

  test('concurrent writes share the one grant in flight', async () => {
    let release = (): void => undefined;
    const { client, grants } = fakeClient(new Promise<void>((r) => (release = r)));
    let t = 0;
    const m = new LeaseManager(client, { now: () => t++ });
    const pending = Promise.all(Array.from({ length: 5 }, () => m.leaseFor(60)));
    release();
    expect(await pending).toEqual(['1', '1', '1', '1', '1']);
    expect(grants).toHaveLength(1);
  });

  test('a failed grant is reported to the write, and the next write tries again', async () => {
    let fail = true;
    const client = {
      leaseClient: {
        leaseGrant: async () => {
          if (fail) throw new Error('etcd unavailable');
          return { ID: '9', TTL: '63' };
        },
      },
    } as unknown as Etcd3;
    const m = new LeaseManager(client, { now: () => 0 });
    await expect(m.leaseFor(60)).rejects.toThrow('etcd unavailable');
    fail = false;
    expect(await m.leaseFor(60)).toBe('9');
  });
});
