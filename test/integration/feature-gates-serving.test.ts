/**
 * The feature gates of what this server serves, each on and off, through real HTTP (and kubectl,
 * whose client-go streams lists when its WatchListClient gate is on), as kube-apiserver 1.32 does:
 * WatchList, ConsistentListFromCache, WatchFromStorageWithoutResourceVersion, OpenAPIEnums and
 * StorageVersionHash. Three servers on one etcd: kube's defaults; every one of those gates flipped;
 * WatchList alone off (a legacy watch then starts in the cache). Where a gate only moves a read
 * between the watch cache and etcd, the etcd store below the cache is watched with a spy.
 */
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import type { TestServer } from '../support/api-server';
import type { Cacher } from '../../src/storage';
import { cause, failure } from '../support/kube-status';
import { openWatch, type StreamEvent, type WatchStream } from '../support/watch-stream';
import { namespace, secret } from '../support/factories';

const etcd = useTestEtcd();
const { srv: on } = useTestServer({ etcd });
const { srv: off } = useTestServer({
  etcd,
  featureGates: {
    WatchList: false,
    ConsistentListFromCache: false,
    WatchFromStorageWithoutResourceVersion: true,
    OpenAPIEnums: false,
    StorageVersionHash: false,
  },
});
const { srv: legacyFromCache } = useTestServer({ etcd, featureGates: { WatchList: false } });

// A cache still loading sends every read to etcd: the spies below count reads of a loaded one.
beforeAll(async () => {
  for (const srv of [on, off, legacyFromCache]) await (srv.storage as Cacher).ready();
});

const streams: WatchStream[] = [];
afterEach(() => {
  for (const w of streams.splice(0)) w.close();
  jest.restoreAllMocks();
});

let nsCount = 0;
/** A fresh namespace on `srv` holding secrets a and b. */
async function seeded(srv: TestServer): Promise<string> {
  const ns = `fg-${++nsCount}`;
  expect((await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) })).status).toBe(201);
  for (const name of ['a', 'b']) expect((await srv.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret(name) })).status).toBe(201);
  return ns;
}

async function watch(srv: TestServer, path: string, headers?: Record<string, string>): Promise<WatchStream> {
  const w = await openWatch(srv, path, { headers });
  streams.push(w);
  return w;
}

const names = (events: StreamEvent[]) => events.map((e) => [e.type, e.object.metadata?.name]);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const end = 'k8s.io/initial-events-end';
const blueprint = 'kubernetes.io/initial-events-list-blueprint';
/** kube's JSON of an empty SecretList (Go's zero list, encoding/json's trailing newline). */
const secretListBlueprint = b64('{"kind":"SecretList","apiVersion":"v1","metadata":{},"items":null}\n');

/** The calls a store method of the etcd store below `srv`'s cache gets for keys under `prefix`. */
function spyOnEtcd(srv: TestServer, method: 'list' | 'watch', prefix: string): () => number {
  const spy = jest.spyOn(srv.etcdStore, method);
  return () => spy.mock.calls.filter(([p]) => p.startsWith(prefix)).length;
}

describe('WatchList (beta, on)', () => {
  test.each([[''], ['&resourceVersion=0']])(
    'on: a watch from resourceVersion unset or 0 (here %p) is a streaming list: its state ends with the initial-events-end bookmark carrying the list blueprint',
    async (rv) => {
      const ns = await seeded(on);
      const w = await watch(on, `/api/v1/namespaces/${ns}/secrets?watch=1&allowWatchBookmarks=true${rv}`);
      const [a, b, bookmark] = (await w.next(3)) as [StreamEvent, StreamEvent, StreamEvent];
      expect(names([a, b])).toEqual([
        ['ADDED', 'a'],
        ['ADDED', 'b'],
      ]);
      expect(bookmark).toEqual({
        type: 'BOOKMARK',
        object: {
          kind: 'Secret',
          apiVersion: 'v1',
          metadata: { resourceVersion: bookmark.object.metadata.resourceVersion, creationTimestamp: null, annotations: { [end]: 'true', [blueprint]: secretListBlueprint } },
        },
      });
      expect(BigInt(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(BigInt(b.object.metadata.resourceVersion));
      await on.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('c') });
      expect(names(await w.next(1))).toEqual([['ADDED', 'c']]);
    },
  );

  test('on: the blueprint of a partial-metadata streaming list is an empty PartialObjectMetadataList', async () => {
    const ns = await seeded(on);
    const w = await watch(on, `/api/v1/namespaces/${ns}/secrets?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, {
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    });
    const [, , bookmark] = await w.next(3);
    expect(Buffer.from(bookmark?.object.metadata.annotations[blueprint], 'base64').toString()).toBe(
      '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":null}\n',
    );
  });

  test('on: a streaming list is never a Table (406 when only a Table is acceptable); other watches still are', async () => {
    const ns = await seeded(on);
    const table = { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' };
    const streaming = await watch(on, `/api/v1/namespaces/${ns}/secrets?watch=1&allowWatchBookmarks=true`, table);
    expect(streaming.status).toBe(406);
    const fallback = await watch(on, `/api/v1/namespaces/${ns}/secrets?watch=1&allowWatchBookmarks=true`, { accept: `${table.accept}, application/json` });
    expect((await fallback.next(1))[0]?.object.kind).toBe('Secret');
    // Without allowWatchBookmarks it is no streaming list (kube's isListWatchRequest): Table rows.
    const rows = await watch(on, `/api/v1/namespaces/${ns}/secrets?watch=1`, table);
    expect((await rows.next(1))[0]?.object.kind).toBe('Table');
  });

  test.each([
    ['with', '&resourceVersionMatch=NotOlderThan', [cause('FieldValueForbidden', 'sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled')]],
    [
      'without',
      '',
      [
        cause('FieldValueForbidden', 'resourceVersionMatch', 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
        cause('FieldValueForbidden', 'sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'),
      ],
    ],
  ])('off: sendInitialEvents on a watch (%s resourceVersionMatch) is a 422 naming the gate', async (_which, match, causes) => {
    const ns = await seeded(off);
    const w = await watch(off, `/api/v1/namespaces/${ns}/secrets?watch=1&sendInitialEvents=true${match}`);
    expect(w.status).toBe(422);
    const details = causes.map((c) => `${c.field}: ${c.message}`);
    expect(JSON.parse(w.errorBody as string)).toEqual(
      failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${details.length > 1 ? `[${details.join(', ')}]` : details[0]}`, {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        causes,
      }),
    );
  });

  test('off: a watch from resourceVersion unset is the legacy one: the state, then changes, no initial-events-end bookmark', async () => {
    const ns = await seeded(legacyFromCache);
    const w = await watch(legacyFromCache, `/api/v1/namespaces/${ns}/secrets?watch=1&allowWatchBookmarks=true`);
    expect(names(await w.next(2))).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    await legacyFromCache.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('c') });
    // The next event is the write: no bookmark came between.
    expect(names(await w.next(1))).toEqual([['ADDED', 'c']]);
  });

  test.each([
    ['on', () => on, true],
    ['off', () => off, false],
  ])("kubectl with client-go's WatchListClient, WatchList %s: its reflector streams the list, or falls back to LIST/WATCH after the 422", async (_which, server, streams) => {
    const srv = server();
    const ns = await seeded(srv);
    const r = await srv.kubectl(['wait', '-n', ns, '--for=jsonpath={.type}=Opaque', 'secret/a', '--timeout=20s', '-v=6'], {
      env: { KUBE_FEATURE_WatchListClient: 'true' },
    });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: 'secret/a condition met\n' });
    const requests = r.stderr.split('\n').filter((l) => l.includes(`/api/v1/namespaces/${ns}/secrets?`));
    const streamed = requests.filter((l) => /sendInitialEvents=true/.test(l) && /watch=true/.test(l));
    const listed = requests.filter((l) => !/watch=true/.test(l));
    expect(streamed.length).toBeGreaterThan(0);
    if (streams) {
      expect(streamed[0]).toMatch(/ 200 OK /);
      expect(listed).toEqual([]);
    } else {
      expect(streamed[0]).toMatch(/ 422 Unprocessable Entity /);
      expect(listed.length).toBeGreaterThan(0);
    }
  });
});

describe('ConsistentListFromCache (beta, on)', () => {
  test.each([
    ['on', 0, () => on],
    ['off', 2, () => off],
  ])('%s: lists with resourceVersion unset, limited or not, read etcd %p times; a continuation always does', async (_which, etcdReads, server) => {
    const srv = server();
    const ns = await seeded(srv);
    const prefix = `${srv.prefix}/secrets/${ns}/`;
    const reads = spyOnEtcd(srv, 'list', prefix);
    const all = await srv.request('GET', `/api/v1/namespaces/${ns}/secrets`);
    expect(all.json().items.map((s: { metadata: { name: string } }) => s.metadata.name)).toEqual(['a', 'b']);
    const page = (await srv.request('GET', `/api/v1/namespaces/${ns}/secrets?limit=1`)).json();
    expect({ names: page.items.map((s: { metadata: { name: string } }) => s.metadata.name), remaining: page.metadata.remainingItemCount }).toEqual({ names: ['a'], remaining: 1 });
    expect(reads()).toBe(etcdReads);
    const rest = (await srv.request('GET', `/api/v1/namespaces/${ns}/secrets?limit=1&continue=${encodeURIComponent(page.metadata.continue)}`)).json();
    expect(rest.items.map((s: { metadata: { name: string } }) => s.metadata.name)).toEqual(['b']);
    expect(rest.metadata.resourceVersion).toBe(page.metadata.resourceVersion);
    expect(reads()).toBe(etcdReads + 1);
  });

  test.each([
    ['on', () => on],
    ['off', () => off],
  ])('%s: a consistent list sees a write made straight into etcd just before it', async (_which, server) => {
    const srv = server();
    const ns = await seeded(srv);
    const stored = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'z', namespace: ns, uid: 'u-z', creationTimestamp: '2025-01-01T00:00:00Z' }, type: 'Opaque' };
    await srv.etcdStore.etcd.put(`${srv.prefix}/secrets/${ns}/z`).value(JSON.stringify(stored)).exec();
    const list = (await srv.request('GET', `/api/v1/namespaces/${ns}/secrets`)).json();
    expect(list.items.map((s: { metadata: { name: string } }) => s.metadata.name)).toEqual(['a', 'b', 'z']);
  });
});

describe('WatchFromStorageWithoutResourceVersion (beta, off)', () => {
  test.each([
    ['on (WatchList off)', 1, () => off],
    ['off (WatchList off)', 0, () => legacyFromCache],
  ])('%s: a watch without resourceVersion is served by etcd %p times', async (_which, etcdWatches, server) => {
    const srv = server();
    const ns = await seeded(srv);
    const watches = spyOnEtcd(srv, 'watch', `${srv.prefix}/secrets/${ns}/`);
    const w = await watch(srv, `/api/v1/namespaces/${ns}/secrets?watch=1`);
    expect(names(await w.next(2))).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    expect(watches()).toBe(etcdWatches);
    await srv.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('c') });
    expect(names(await w.next(1))).toEqual([['ADDED', 'c']]);
  });

  test('on: resourceVersion 0 and N stay in the cache', async () => {
    const ns = await seeded(off);
    const watches = spyOnEtcd(off, 'watch', `${off.prefix}/secrets/${ns}/`);
    const rv = (await off.request('GET', `/api/v1/namespaces/${ns}/secrets`)).json().metadata.resourceVersion;
    const fromZero = await watch(off, `/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=0`);
    expect(await fromZero.next(2)).toHaveLength(2);
    await watch(off, `/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${rv}`);
    expect(watches()).toBe(0);
  });
});

describe('OpenAPIEnums (beta, on)', () => {
  const phaseText = 'Lifecycle phase of the namespace: Active while in use, Terminating once deletion has been requested and its content is being removed. See https://kubernetes.io/docs/tasks/administer-cluster/namespaces/';

  test.each([
    ['/openapi/v3/api/v1', (doc: any) => doc.components.schemas],
    ['/openapi/v2', (doc: any) => doc.definitions],
  ])('%s: on, schemas carry their enums; off, kube drops them with the "Possible enum values" text', async (path, schemasOf) => {
    const phase = async (srv: TestServer) => schemasOf((await srv.request('GET', path)).json())['io.k8s.api.core.v1.NamespaceStatus'].properties.phase;
    const withEnums = await phase(on);
    expect(withEnums.enum).toEqual(['Active', 'Terminating']);
    expect(withEnums.description).toMatch(/^Lifecycle phase[^]*\n\nPossible enum values:\n/);
    expect(await phase(off)).toEqual({ description: phaseText, type: 'string' });
  });
});

describe('StorageVersionHash (beta, on)', () => {
  test('on, discovery’s resources carry storageVersionHash; off, it is left out', async () => {
    const secrets = async (srv: TestServer) =>
      (await srv.request('GET', '/api/v1')).json().resources.find((r: { name: string }) => r.name === 'secrets') as Record<string, unknown>;
    expect((await secrets(on)).storageVersionHash).toMatch(/^[A-Za-z0-9+/]{11}=$/);
    expect(await secrets(off)).not.toHaveProperty('storageVersionHash');
  });
});
