/**
 * QuotaController against in-memory stores: one watch per quotable resource even when the registry
 * changes during start, replenishment watches from "now" (no replay), the quota watch last and with
 * its initial events, kube's name rules (ignored events, builtin evaluators), deduplicated
 * replenishment, a full recalculation when a watch reopens, retries with backoff, a clean stop.
 */
import { errors } from '../../../src/api';
import { QuotaController } from '../../../src/controllers/quota-controller';
import { FakeRegistry, FakeStore, obj, quota } from './fake-registry';

let registry: FakeRegistry;
let quotas: FakeStore;
let secrets: FakeStore;
let controller: QuotaController | undefined;

function setup(): void {
  registry = new FakeRegistry();
  registry.add(new FakeStore('', 'namespaces', { namespaced: false }));
  secrets = registry.add(new FakeStore('', 'secrets'));
  registry.add(new FakeStore('', 'configmaps'));
  registry.add(new FakeStore('', 'events'));
  quotas = registry.add(new FakeStore('', 'resourcequotas'));
}

const newController = (over: Partial<ConstructorParameters<typeof QuotaController>[0]> = {}) =>
  (controller = new QuotaController({ registry: registry.asRegistry(), ...over }));
const usedOf = (name: string) => (quotas.items.find((q) => q.metadata.name === name)?.status as { used?: Record<string, string> } | undefined)?.used;
const settle = () => jest.advanceTimersByTimeAsync(0);

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
  setup();
});
afterEach(() => {
  controller?.stop();
  controller = undefined;
  jest.useRealTimers();
});

test('one watch per quotable resource even when the registry changes while watches are opening', async () => {
  let release!: () => void;
  secrets.gate = new Promise((r) => (release = r));
  const c = newController();
  const started = c.start();
  await settle();
  // Registry changes (a custom resource arriving) while the secrets watch is still opening.
  registry.fireChange();
  const widgets = registry.add(new FakeStore('example.com', 'widgets'));
  registry.fireChange();
  release();
  await started;
  await settle();
  expect(secrets.watches).toHaveLength(1);
  expect(quotas.watches).toHaveLength(1);
  expect(widgets.watches).toHaveLength(1);
  expect(c.watchedResources().sort()).toEqual(['/configmaps', '/resourcequotas', '/secrets', 'example.com/widgets']);
});

test('replenishment watches start from now; the quota watch opens last and replays every quota', async () => {
  const order: string[] = [];
  for (const s of registry.stores) {
    const watch = s.watch.bind(s);
    s.watch = (ctx, q, sink) => (order.push(s.def.resource), watch(ctx, q, sink));
  }
  for (let i = 0; i < 3; i++) secrets.items.push(obj('ns', `s${i}`));
  quotas.items.push(quota('ns', 'q', { secrets: '10' }));
  await newController().start();
  await settle();
  expect(order).toEqual(['secrets', 'configmaps', 'resourcequotas']);
  expect(secrets.watches[0]?.query).toMatchObject({ sendInitialEvents: false });
  expect(quotas.watches[0]?.query.sendInitialEvents).toBeUndefined();
  // The quota's ADDED event synced it.
  expect(usedOf('q')).toEqual({ secrets: '3' });
});

test("kube's name rules: events are ignored, pods read 0, unserved count names stay untracked", async () => {
  registry.get('', 'v1', 'events')?.items.push(obj('ns', 'e1'));
  quotas.items.push(quota('ns', 'q', { 'count/events': '5', pods: '2', 'count/widgets.example.com': '1', 'count/configmaps': '4', replicationcontrollers: '1' }));
  await newController().start();
  await settle();
  expect(registry.get('', 'v1', 'events')?.watches).toHaveLength(0);
  expect(usedOf('q')).toEqual({ pods: '0', 'count/configmaps': '0', replicationcontrollers: '0' });
});

test('a burst of deletions replenishes the namespace quotas with a few reads, not one per deletion', async () => {
  for (let i = 0; i < 100; i++) secrets.items.push(obj('ns', `s${i}`));
  quotas.items.push(quota('ns', 'q', { secrets: '200' }), quota('ns', 'cm', { configmaps: '1' }));
  await newController().start();
  await settle();
  expect(usedOf('q')).toEqual({ secrets: '100' });
  let quotaLists = 0;
  const list = quotas.list.bind(quotas);
  quotas.list = (ctx, q) => (quotaLists++, list(ctx, q));
  const cmWrites = quotas.statusWrites.filter((q) => q.metadata.name === 'cm').length;
  for (const s of secrets.items.splice(0)) secrets.emit('DELETED', s);
  await settle();
  expect(usedOf('q')).toEqual({ secrets: '0' });
  expect(quotaLists).toBeLessThanOrEqual(2);
  // The configmaps quota does not track secrets: left alone.
  expect(quotas.statusWrites.filter((q) => q.metadata.name === 'cm')).toHaveLength(cmWrites);
});

test('a watch that closes is reopened from now and every quota is recalculated (deletions meanwhile count)', async () => {
  secrets.items.push(obj('ns', 'a'), obj('ns', 'b'));
  quotas.items.push(quota('ns', 'q', { secrets: '10' }));
  await newController().start();
  await settle();
  expect(usedOf('q')).toEqual({ secrets: '2' });
  // The watch ends; a secret disappears while no watch runs.
  secrets.close(secrets.watches[0]);
  secrets.items.splice(0, 1);
  await jest.advanceTimersByTimeAsync(800);
  expect(secrets.open()).toHaveLength(1);
  expect(secrets.watches[1]?.query).toMatchObject({ sendInitialEvents: false });
  expect(usedOf('q')).toEqual({ secrets: '1' });
});

test('the quota watch reopened starts from now too; the recalculation covers quotas changed meanwhile', async () => {
  quotas.items.push(quota('ns', 'q', { secrets: '10' }));
  await newController().start();
  await settle();
  quotas.close(quotas.watches[0]);
  quotas.items.push(quota('ns', 'late', { secrets: '1' }));
  await jest.advanceTimersByTimeAsync(800);
  expect(quotas.watches[1]?.query).toMatchObject({ sendInitialEvents: false });
  expect(usedOf('late')).toEqual({ secrets: '0' });
});

test('a failed sync is retried with a doubling backoff; a conflict is not reported', async () => {
  quotas.items.push(quota('ns', 'q', { secrets: '10' }));
  const reported: unknown[] = [];
  let failures = 0;
  const update = quotas.update.bind(quotas);
  const times: number[] = [];
  quotas.update = (ctx, name, fn) => {
    times.push(Date.now());
    if (failures++ < 3) return Promise.reject(failures === 1 ? errors.conflict({ group: '', resource: 'resourcequotas' }, name, 'changed') : new Error('etcd down'));
    return update(ctx, name, fn);
  };
  await newController({ retryDelayMs: 100, onError: (e) => reported.push(e) }).start();
  await jest.advanceTimersByTimeAsync(10_000);
  expect(times).toEqual([0, 100, 300, 700]);
  expect(reported.map((e) => (e as Error).message)).toEqual(['etcd down', 'etcd down']);
  expect(usedOf('q')).toEqual({ secrets: '0' });
});

test('stop() closes every watch and leaves no timer; start() again works', async () => {
  quotas.items.push(quota('ns', 'q', { secrets: '10' }));
  const c = newController({ resyncPeriodMs: 1000 });
  await c.start();
  await settle();
  secrets.close(secrets.watches[0]); // a reopen is pending
  c.stop();
  expect(jest.getTimerCount()).toBe(0);
  expect(registry.stores.flatMap((s) => s.open())).toEqual([]);
  await jest.advanceTimersByTimeAsync(10_000);
  expect(secrets.watches).toHaveLength(1);
  await c.start();
  await settle();
  expect(c.watchedResources().sort()).toEqual(['/configmaps', '/resourcequotas', '/secrets']);
  expect(secrets.open()).toHaveLength(1);
});

test('the resync recalculates every quota each period', async () => {
  quotas.items.push(quota('ns', 'q', { secrets: '10' }));
  await newController({ resyncPeriodMs: 1000 }).start();
  await settle();
  secrets.items.push(obj('ns', 'sneaky')); // no event reaches the controller for a create
  expect(usedOf('q')).toEqual({ secrets: '0' });
  await jest.advanceTimersByTimeAsync(1000);
  expect(usedOf('q')).toEqual({ secrets: '1' });
});
