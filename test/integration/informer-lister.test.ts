/**
 * The in-process informer and its indexed lister over the real registry, watch cache and etcd:
 * writes through HTTP reach the lister and its indexes; a watch that ends is reopened from the
 * last version (no list); a re-watch from a compacted version gets 410 and relists, reporting the
 * deletion it missed as final state unknown.
 */
import { useTestServer } from '../support/server-fixture';
import type { KubeObject } from '../../src/api';
import { Informer, InformerEventHandler, ListWatcher } from '../../src/controllers/informer';
import type { GenericStore, Watch, WatchSink } from '../../src/registry';

const { srv } = useTestServer();

beforeAll(async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'lst' } } })).status).toBe(201);
});

const cmPath = (name = '') => `/api/v1/namespaces/lst/configmaps${name ? `/${name}` : ''}`;
const configMap = (name: string, team: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { team } },
  data,
});

/** The store's list and watch, with the open watch reachable (to end it) and reopening held while `hold` is set. */
class Tap implements ListWatcher {
  current?: { watch: Watch; sink: WatchSink };
  hold?: Promise<void>;
  constructor(private readonly store: GenericStore) {}
  list: ListWatcher['list'] = (ctx, q) => this.store.list(ctx, q);
  watch: ListWatcher['watch'] = async (ctx, q, sink) => {
    if (this.hold) await this.hold;
    const watch = await this.store.watch(ctx, q, sink);
    this.current = { watch, sink };
    return watch;
  };
  /** Ends the open watch as the server would (its sink hears closed()). */
  endWatch(): void {
    const c = this.current;
    this.current = undefined;
    c?.watch.stop();
    c?.sink.closed();
  }
}

/** Resolves on the first handler call `match` accepts (registered before the write that causes it). */
function nextEvent(informer: Informer, match: (kind: 'add' | 'update' | 'delete', obj: KubeObject, flag: boolean) => boolean): Promise<KubeObject> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reg.remove();
      reject(new Error('timed out waiting for an informer event'));
    }, 15_000);
    const hit = (kind: 'add' | 'update' | 'delete', obj: KubeObject, flag: boolean) => {
      if (!match(kind, obj, flag)) return;
      clearTimeout(timer);
      reg.remove();
      resolve(obj);
    };
    const handler: InformerEventHandler = {
      onAdd: (o, initial) => hit('add', o, initial),
      onUpdate: (_, o) => hit('update', o, false),
      onDelete: (o, unknown) => hit('delete', o, unknown),
    };
    const reg = informer.addEventHandler(handler);
  });
}

const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();

test('the lister follows writes, re-watches after a close and relists after a 410', async () => {
  expect((await srv.request('POST', cmPath(), { body: configMap('a', 'x') })).status).toBe(201);
  const store = srv.server.registry.get('', 'v1', 'configmaps') as GenericStore;
  const tap = new Tap(store);
  const reported: unknown[] = [];
  const informer = new Informer({
    source: tap,
    retryDelayMs: 10,
    indexers: { team: (o) => (o.metadata.labels?.team ? [o.metadata.labels.team] : []) },
    onError: (e) => reported.push(e),
  });
  const lister = informer.indexer;
  informer.start();
  try {
    expect(await informer.waitForSync()).toBe(true);
    expect(lister.get('lst', 'a')?.metadata.labels).toEqual({ team: 'x' });
    expect(names(lister.byIndex('team', 'x'))).toEqual(['a']);

    // Create, update (the index moves), delete.
    let seen = nextEvent(informer, (k, o) => k === 'add' && o.metadata.name === 'b');
    expect((await srv.request('POST', cmPath(), { body: configMap('b', 'x') })).status).toBe(201);
    await seen;
    expect(names(lister.byIndex('team', 'x'))).toEqual(['a', 'b']);

    seen = nextEvent(informer, (k, o) => k === 'update' && o.metadata.name === 'a');
    const a = (await srv.request('GET', cmPath('a'))).json();
    expect((await srv.request('PUT', cmPath('a'), { body: { ...a, metadata: { ...a.metadata, labels: { team: 'y' } } } })).status).toBe(200);
    await seen;
    expect(names(lister.byIndex('team', 'x'))).toEqual(['b']);
    expect(names(lister.byIndex('team', 'y'))).toEqual(['a']);

    seen = nextEvent(informer, (k, o) => k === 'delete' && o.metadata.name === 'b');
    expect((await srv.request('DELETE', cmPath('b'))).status).toBe(200);
    await seen;
    expect(lister.get('lst', 'b')).toBeUndefined();
    const served = (await srv.request('GET', cmPath())).json().items as KubeObject[];
    expect(names(lister.listInNamespace('lst'))).toEqual(names(served));
    expect(names(lister.listInNamespace('lst'))).toContain('a');
    expect(lister.list('team=y').map((o) => o.metadata.name)).toEqual(['a']);
    expect(informer.stats.lists).toBe(1);

    // A watch that ends: reopened from the last version, nothing listed again, nothing missed.
    tap.endWatch();
    seen = nextEvent(informer, (k, o) => k === 'add' && o.metadata.name === 'c');
    expect((await srv.request('POST', cmPath(), { body: configMap('c', 'x') })).status).toBe(201);
    await seen;
    expect(informer.stats).toMatchObject({ lists: 1, watches: 2 });

    // A watch that ends while the state changes and etcd compacts past the lister's version:
    // the re-watch gets 410, the informer relists and reports what it missed.
    let release!: () => void;
    tap.hold = new Promise<void>((r) => (release = r));
    tap.endWatch();
    expect((await srv.request('DELETE', cmPath('a'))).status).toBe(200);
    expect((await srv.request('POST', cmPath(), { body: configMap('d', 'y') })).status).toBe(201);
    await srv.etcdStore.etcd.kv.compact({ revision: String(await srv.etcdStore.currentRevision()), physical: true });
    const missedDelete = nextEvent(informer, (k, o, unknown) => k === 'delete' && o.metadata.name === 'a' && unknown);
    const missedAdd = nextEvent(informer, (k, o) => k === 'add' && o.metadata.name === 'd');
    tap.hold = undefined;
    release();
    await Promise.all([missedDelete, missedAdd]);
    expect(informer.stats.lists).toBe(2);
    expect(lister.get('lst', 'a')).toBeUndefined();
    expect(names(lister.byIndex('team', 'y'))).toEqual(['d']);
    expect(names(lister.byIndex('team', 'x'))).toEqual(['c']);
    expect(reported).toEqual([]);

    // And it goes on following writes after the relist.
    seen = nextEvent(informer, (k, o) => k === 'update' && o.metadata.name === 'c');
    const c = (await srv.request('GET', cmPath('c'))).json();
    expect((await srv.request('PUT', cmPath('c'), { body: { ...c, data: { k: 'v' } } })).status).toBe(200);
    expect((await seen).data).toEqual({ k: 'v' });
  } finally {
    await informer.stop();
  }
});
