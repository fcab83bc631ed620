/** kube's compactor on a real etcd: one compaction per interval across replicas, one interval behind. */
import { Compactor, EtcdStore } from '../../src/storage';
import { useTestEtcd } from '../support/server-fixture';

let a: EtcdStore;
let b: EtcdStore;

const etcd = useTestEtcd({
  beforeStop: async () => {
    await a?.close();
    await b?.close();
  },
});
beforeAll(() => {
  a = new EtcdStore({ endpoints: etcd.endpoints });
  b = new EtcdStore({ endpoints: etcd.endpoints });
});

async function isCompacted(store: EtcdStore, revision: bigint): Promise<boolean> {
  try {
    await store.assertRevisionAvailable(revision);
    return false;
  } catch (e) {
    if ((e as { code?: string }).code === 'Compacted') return true;
    throw e;
  }
}

test('two replicas: the first round only records, then exactly one compacts per round, to the revision of the round before', async () => {
  const compacted: Array<[string, bigint]> = [];
  const ca = new Compactor({ client: a.etcd, intervalMs: 0, onCompacted: (r) => compacted.push(['a', r]) });
  const cb = new Compactor({ client: b.etcd, intervalMs: 0, onCompacted: (r) => compacted.push(['b', r]) });
  const put = (k: string) => a.etcd.put(`/t/${k}`).value('x');

  await put('1');
  await ca.tick(); // bootstrap: wins the CAS, records the current revision, compacts nothing
  await cb.tick(); // loses the CAS: learns the version and the current revision
  expect(compacted).toEqual([]);
  const firstRound = await a.currentRevision();

  await put('2');
  await put('3');
  await ca.tick(); // a knows the current version: it wins and compacts to the revision of round 1
  await cb.tick(); // b is one version behind: it loses and catches up
  expect(compacted).toEqual([['a', firstRound]]);
  expect(await isCompacted(a, firstRound - 1n)).toBe(true);
  expect(await isCompacted(a, firstRound)).toBe(false);
  const secondRound = await b.currentRevision();

  await put('4');
  await cb.tick(); // this round b ticks first and wins, compacting to what it saw in round 2
  await ca.tick();
  expect(compacted).toEqual([
    ['a', firstRound],
    ['b', secondRound],
  ]);
  expect(await isCompacted(a, secondRound - 1n)).toBe(true);
  expect(await isCompacted(a, await a.currentRevision())).toBe(false);
});

test('an interval of 0 disables compaction', async () => {
  const c = new Compactor({ client: a.etcd, intervalMs: 0 });
  c.start();
  c.stop();
});
