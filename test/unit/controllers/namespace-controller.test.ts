/**
 * NamespaceController against in-memory stores: its one namespace watch (reopened with a full
 * replay, so a deletion that began meanwhile is seen), passes repeated every retryDelayMs while
 * content with finalizers remains, failures retried with a doubling backoff, a clean stop.
 */
import type { KubeObject } from '../../../src/api';
import { NamespaceController } from '../../../src/controllers/namespace-controller';
import { FakeRegistry, FakeStore, obj } from './fake-registry';

let registry: FakeRegistry;
let namespaces: FakeStore;
let secrets: FakeStore;
let controller: NamespaceController | undefined;

const namespace = (name: string, terminating = false): KubeObject => ({
  metadata: { name, ...(terminating ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}) },
  spec: { finalizers: ['kubernetes'] },
});
const nsNamed = (name: string) => namespaces.items.find((n) => n.metadata.name === name) as KubeObject;
const finalized = (name: string) => ((nsNamed(name).spec as { finalizers: string[] }).finalizers.length === 0);

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
  registry = new FakeRegistry();
  namespaces = registry.add(new FakeStore('', 'namespaces', { namespaced: false }));
  secrets = registry.add(new FakeStore('', 'secrets'));
});
afterEach(() => {
  controller?.stop();
  controller = undefined;
  jest.useRealTimers();
});

test('a terminating namespace is emptied and finalized', async () => {
  namespaces.items.push(namespace('gone', true), namespace('kept'));
  secrets.items.push(obj('gone', 's1'), obj('kept', 's2'));
  await (controller = new NamespaceController({ registry: registry.asRegistry() })).start();
  await jest.advanceTimersByTimeAsync(0);
  expect(finalized('gone')).toBe(true);
  expect((nsNamed('gone').status as { phase: string }).phase).toBe('Terminating');
  expect(finalized('kept')).toBe(false);
  expect(secrets.items.map((s) => s.metadata.name)).toEqual(['s2']);
});

test('content held by a finalizer brings the namespace back every retryDelayMs until it is gone', async () => {
  namespaces.items.push(namespace('held', true));
  secrets.items.push(obj('held', 'pinned', { metadata: { namespace: 'held', name: 'pinned', finalizers: ['example.com/hold'] } }));
  const passes: number[] = [];
  const list = secrets.list.bind(secrets);
  secrets.list = (ctx, q) => (passes.push(Date.now()), list(ctx, q));
  await (controller = new NamespaceController({ registry: registry.asRegistry(), retryDelayMs: 1000 })).start();
  await jest.advanceTimersByTimeAsync(2500);
  // One list after each deletion pass: at 0, 1000 and 2000 (a fixed delay, no backoff growth).
  expect(passes).toEqual([0, 1000, 2000]);
  expect(finalized('held')).toBe(false);
  secrets.items.splice(0);
  await jest.advanceTimersByTimeAsync(1000);
  expect(finalized('held')).toBe(true);
});

test('a failing pass is retried with a doubling backoff (kube: 5 ms up to 60 s)', async () => {
  namespaces.items.push(namespace('flaky', true));
  const errors: unknown[] = [];
  const times: number[] = [];
  let failures = 4;
  const deleteCollection = secrets.deleteCollection.bind(secrets);
  secrets.deleteCollection = (ctx) => (times.push(Date.now()), failures-- > 0 ? Promise.reject(new Error('etcd down')) : deleteCollection(ctx));
  await (controller = new NamespaceController({ registry: registry.asRegistry(), onError: (e) => errors.push(e) })).start();
  await jest.advanceTimersByTimeAsync(1000);
  expect(times).toEqual([0, 5, 15, 35, 75]);
  expect(errors).toHaveLength(4);
  expect(finalized('flaky')).toBe(true);
});

test('the namespace watch is reopened with a full replay: a deletion begun while it was down is seen', async () => {
  namespaces.items.push(namespace('late'));
  await (controller = new NamespaceController({ registry: registry.asRegistry() })).start();
  namespaces.close(namespaces.watches[0]);
  (nsNamed('late').metadata as { deletionTimestamp?: string }).deletionTimestamp = '2025-01-01T00:00:00Z';
  await jest.advanceTimersByTimeAsync(800);
  expect(namespaces.watches).toHaveLength(2);
  expect(namespaces.watches[1]?.query.sendInitialEvents).toBeUndefined();
  expect(finalized('late')).toBe(true);
});

test('stop() leaves no watch and no timer', async () => {
  namespaces.items.push(namespace('held', true));
  secrets.items.push(obj('held', 'pinned', { metadata: { namespace: 'held', name: 'pinned', finalizers: ['example.com/hold'] } }));
  const c = (controller = new NamespaceController({ registry: registry.asRegistry() }));
  await c.start();
  await jest.advanceTimersByTimeAsync(0);
  expect(jest.getTimerCount()).toBe(1); // the next pass over 'held'
  c.stop();
  expect(jest.getTimerCount()).toBe(0);
  expect(namespaces.open()).toEqual([]);
});
