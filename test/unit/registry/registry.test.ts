/** A resource declaration carries its store variant and its TTL; Registry.add installs both. */
import { AdmissionChain, type AdmissionPlugin } from '../../../src/admission';
import { Registry } from '../../../src/registry/registry';
import { NamespaceStore } from '../../../src/registry/namespace-store';
import { GenericStore } from '../../../src/registry/generic-store';
import { builtinResources } from '../../../src/registry/resources';
import { ReviewStore } from '../../../src/registry/review-store';
import { customResourceStoragePrefix } from '../../../src/registry/resource';
import type { KubeObject } from '../../../src/api';
import type { Storage } from '../../../src/storage';

const storage = {} as Storage;
const registry = (settings?: { eventTtlSeconds: number }) => new Registry({ storage, prefix: '/r', admission: new AdmissionChain([]), settings });
const def = (resource: string) => builtinResources.find((d) => d.resource === resource)!;

test('namespaces declare the namespace store; the rest get the generic one', () => {
  const r = registry();
  expect(r.add(def('namespaces'))).toBeInstanceOf(NamespaceStore);
  const secrets = r.add(def('secrets'));
  expect(secrets).toBeInstanceOf(GenericStore);
  expect(secrets).not.toBeInstanceOf(NamespaceStore);
});

test("events read their TTL from the server's settings when installed (--event-ttl); others have none", () => {
  expect(registry({ eventTtlSeconds: 120 }).add(def('events')).ttlSeconds).toBe(120);
  expect(registry().add(def('events')).ttlSeconds).toBe(3600);
  expect(registry().add(def('configmaps')).ttlSeconds).toBeUndefined();
  expect(registry().add({ ...def('configmaps'), ttlSeconds: 5 }).ttlSeconds).toBe(5);
});

describe('storage keys', () => {
  test("kube's built-ins live under <prefix>/<resource>; a declaration may name its own prefix (custom resources: <group>/<resource>)", () => {
    const r = registry();
    expect(r.add(def('secrets')).keyFor('ns', 's1')).toBe('/r/secrets/ns/s1');
    expect(r.add(def('namespaces')).prefixFor('')).toBe('/r/namespaces/');
    const widgets = { ...def('configmaps'), group: 'example.com', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', storagePrefix: customResourceStoragePrefix({ group: 'example.com', resource: 'widgets' }) };
    expect(r.add(widgets).keyFor('ns', 'w')).toBe('/r/example.com/widgets/ns/w');
    expect(r.get('example.com', 'v1', 'widgets')?.prefixFor('ns')).toBe('/r/example.com/widgets/ns/');
  });

  test('two kinds may not share a storage prefix; the same group/version/resource may not be added twice', () => {
    const r = registry();
    r.add(def('secrets'));
    expect(() => r.add(def('secrets'))).toThrow('secrets.core/v1 is served already');
    const clash = { ...def('configmaps'), group: 'other.io', resource: 'secrets', kind: 'OtherSecret' };
    expect(() => r.add(clash)).toThrow('secrets.other.io: storage prefix secrets overlaps secrets of Secret (secrets.core)');
    // The same kind and plural in another group shares nothing unless it names the prefix itself.
    expect(() => r.add({ ...clash, kind: 'Secret' })).toThrow('overlaps');
    expect(() => r.add({ ...clash, kind: 'Secret', storagePrefix: 'secrets' })).not.toThrow();
    expect(r.add({ ...clash, resource: 'others', storagePrefix: 'other.io/secrets' }).keyFor('n', 'x')).toBe('/r/other.io/secrets/n/x');
    // One prefix may not lie inside another.
    expect(() => r.add({ ...clash, resource: 'nested', storagePrefix: 'secrets/nested' })).toThrow('storage prefix secrets/nested overlaps secrets');
    // Another version of the same kind in the same group shares its objects.
    expect(() => r.add({ ...def('secrets'), version: 'v2' })).not.toThrow();
    expect(r.get('', 'v2', 'secrets')?.keyFor('n', 's')).toBe('/r/secrets/n/s');
  });
});

describe('run-time changes', () => {
  test('remove ends the store (its signal aborts), reports the change and forgets it; unknown resources are false', () => {
    const r = registry();
    const changes: string[] = [];
    r.onChange((c) => changes.push('added' in c ? `+${c.added.resource}` : `-${c.removed.resource}`));
    const store = r.add(def('configmaps'));
    expect(store.removedSignal.aborted).toBe(false);
    expect(r.remove('', 'v1', 'configmaps')).toBe(true);
    expect(store.removedSignal.aborted).toBe(true);
    expect(r.get('', 'v1', 'configmaps')).toBeUndefined();
    expect(r.remove('', 'v1', 'configmaps')).toBe(false);
    expect(changes).toEqual(['+configmaps', '-configmaps']);
  });
});

describe('review store (create-only, nothing stored)', () => {
  const review = {
    ...def('configmaps'),
    group: 'example.com',
    resource: 'echoreviews',
    kind: 'EchoReview',
    listKind: 'EchoReviewList',
    verbs: ['create' as const],
    store: 'review' as const,
    review: (_ctx: unknown, obj: KubeObject) => ({ ...obj, status: { echoed: true } }),
  };
  const ctx = (namespace: string) => ({ namespace, warnings: [], dryRun: false, now: () => new Date(), user: { name: 'u', uid: '', groups: [] } });

  test('create answers what the declaration returns, admitted, without touching storage', async () => {
    const seen: string[] = [];
    const spy: AdmissionPlugin = {
      name: 'spy',
      handles: () => true,
      admit: async (_c, a) => void seen.push(`admit ${a.operation} ${a.resource}`),
      validate: async (_c, a) => void seen.push(`validate ${a.resource}`),
    };
    const admission = new AdmissionChain([spy]);
    const r = new Registry({ storage: {} as Storage, prefix: '/r', admission });
    const store = r.add(review);
    expect(store).toBeInstanceOf(ReviewStore);
    expect(store.stored).toBe(false);
    const out = await store.create(ctx('ns1'), { apiVersion: 'example.com/v1', kind: 'EchoReview', metadata: {} });
    expect(out).toEqual({ apiVersion: 'example.com/v1', kind: 'EchoReview', metadata: { namespace: 'ns1' }, status: { echoed: true } });
    expect(seen).toEqual(['admit CREATE echoreviews', 'validate echoreviews']);
  });

  test("kube's namespace rules: another namespace is refused; a cluster-scoped review drops it", async () => {
    const store = registry().add(review);
    await expect(store.create(ctx('ns1'), { metadata: { namespace: 'ns2' } } as KubeObject)).rejects.toThrow('the namespace of the provided object does not match the namespace sent on the request');
    const cluster = registry().add({ ...review, namespaced: false });
    expect((await cluster.create(ctx(''), { metadata: { namespace: 'x' } } as KubeObject)).metadata).toEqual({});
  });

  test('a review declaration needs its function and serves only create', () => {
    expect(() => registry().add({ ...review, review: undefined })).toThrow('needs the declaration');
    expect(() => registry().add({ ...review, verbs: ['create', 'get'] })).toThrow('serves only create');
  });

  test('reviews keep nothing, so they never clash with a stored kind on a storage prefix', () => {
    const r = registry();
    r.add(def('configmaps'));
    expect(() => r.add({ ...review, resource: 'configmaps' })).not.toThrow();
  });
});
