/** IndexedStore: the namespace index, named indexes moved on update and delete, replace diffs, label selectors. */
import { IndexedStore, IndexFunc, KubeObject, NAMESPACE_INDEX, objectKey, parseLabelSelector } from '../../../src/api';

const obj = (namespace: string, name: string, opts: { rv?: string; labels?: Record<string, string>; users?: string[] } = {}): KubeObject => ({
  metadata: { namespace: namespace || undefined, name, resourceVersion: opts.rv ?? '1', labels: opts.labels },
  users: opts.users ?? [],
});

const byUser: IndexFunc = (o) => (o.users as string[]) ?? [];
const byApp: IndexFunc = (o) => (o.metadata.labels?.app ? [o.metadata.labels.app] : []);
const names = (objs: KubeObject[]) => objs.map((o) => objectKey(o.metadata.namespace, o.metadata.name)).sort();

test('objectKey is namespace/name, or name when cluster-scoped', () => {
  expect(objectKey('ns', 'a')).toBe('ns/a');
  expect(objectKey('', 'a')).toBe('a');
  expect(objectKey(undefined, 'a')).toBe('a');
});

test('get, getByKey, list and the namespace index', () => {
  const s = new IndexedStore();
  expect(s.hasSynced()).toBe(false);
  s.upsert(obj('a', 'x'));
  s.upsert(obj('a', 'y'));
  s.upsert(obj('b', 'x'));
  s.upsert(obj('', 'cluster'));
  expect(s.size).toBe(4);
  expect(s.get('a', 'x')?.metadata.name).toBe('x');
  expect(s.get('b', 'y')).toBeUndefined();
  expect(s.get('', 'cluster')?.metadata.name).toBe('cluster');
  expect(s.getByKey('b/x')?.metadata.namespace).toBe('b');
  expect(names(s.listInNamespace('a'))).toEqual(['a/x', 'a/y']);
  expect(names(s.listInNamespace('b'))).toEqual(['b/x']);
  expect(names(s.listInNamespace('none'))).toEqual([]);
  expect(names(s.listInNamespace(''))).toEqual(['a/x', 'a/y', 'b/x', 'cluster']);
  expect(names(s.byIndex(NAMESPACE_INDEX, ''))).toEqual(['cluster']);
  expect(s.indexValues(NAMESPACE_INDEX).sort()).toEqual(['', 'a', 'b']);
  s.delete('a/x');
  s.delete('a/y');
  expect(s.indexValues(NAMESPACE_INDEX).sort()).toEqual(['', 'b']);
  expect(s.delete('a/x')).toBeUndefined();
});

test('a named index moves a key between values on update and drops it on delete', () => {
  const s = new IndexedStore({ user: byUser });
  expect(s.indexNames()).toEqual([NAMESPACE_INDEX, 'user']);
  s.upsert(obj('ns', 'rb1', { users: ['alice', 'bob'] }));
  s.upsert(obj('ns', 'rb2', { users: ['bob'] }));
  expect(names(s.byIndex('user', 'alice'))).toEqual(['ns/rb1']);
  expect(names(s.byIndex('user', 'bob'))).toEqual(['ns/rb1', 'ns/rb2']);

  const prev = s.upsert(obj('ns', 'rb1', { rv: '2', users: ['bob', 'carol'] }));
  expect(prev?.metadata.resourceVersion).toBe('1');
  expect(s.byIndex('user', 'alice')).toEqual([]);
  expect(s.indexValues('user').sort()).toEqual(['bob', 'carol']);
  expect(s.indexKeys('user', 'bob').sort()).toEqual(['ns/rb1', 'ns/rb2']);
  expect(s.byIndex('user', 'carol')[0]?.metadata.resourceVersion).toBe('2');

  s.delete('ns/rb1');
  expect(names(s.byIndex('user', 'bob'))).toEqual(['ns/rb2']);
  expect(s.indexValues('user')).toEqual(['bob']);
  s.delete('ns/rb2');
  expect(s.indexValues('user')).toEqual([]);
});

test('an object that repeats a value is indexed once under it', () => {
  const s = new IndexedStore({ user: byUser });
  s.upsert(obj('ns', 'a', { users: ['x', 'x'] }));
  expect(s.indexKeys('user', 'x')).toEqual(['ns/a']);
  s.delete('ns/a');
  expect(s.indexValues('user')).toEqual([]);
});

test('indexes added later cover the objects already held; redefining one throws', () => {
  const s = new IndexedStore();
  s.upsert(obj('ns', 'a', { labels: { app: 'web' } }));
  s.upsert(obj('ns', 'b', { labels: { app: 'db' } }));
  s.addIndexers({ app: byApp });
  s.addIndexers({ app: byApp }); // the same function again: nothing happens
  expect(names(s.byIndex('app', 'web'))).toEqual(['ns/a']);
  expect(() => s.addIndexers({ app: (o) => [o.metadata.name ?? ''] })).toThrow('indexer conflict: app');
  expect(() => s.addIndexers({ [NAMESPACE_INDEX]: () => [] })).toThrow('indexer conflict');
});

test('an unknown index throws; an index function that throws is reported and indexes nothing', () => {
  const errors: unknown[] = [];
  const s = new IndexedStore(
    {
      bad: (o) => {
        if (o.metadata.name === 'boom') throw new Error('index failed');
        return ['v'];
      },
    },
    { onError: (e) => errors.push(e) },
  );
  expect(() => s.byIndex('nope', 'x')).toThrow('index with name nope does not exist');
  expect(() => s.indexValues('nope')).toThrow();
  s.upsert(obj('ns', 'boom'));
  s.upsert(obj('ns', 'ok'));
  expect(errors).toHaveLength(1);
  expect(names(s.byIndex('bad', 'v'))).toEqual(['ns/ok']);
  expect(s.get('ns', 'boom')).toBeDefined();
});

test('replace reports what a relist changed and marks the store synced', () => {
  const s = new IndexedStore({ app: byApp });
  const first = s.replace([obj('ns', 'a', { labels: { app: 'web' } }), obj('ns', 'b', { labels: { app: 'web' } })]);
  expect(s.hasSynced()).toBe(true);
  expect(names(first.added)).toEqual(['ns/a', 'ns/b']);
  const keptA = s.get('ns', 'a');

  const second = s.replace([
    obj('ns', 'a', { labels: { app: 'web' } }), // same resourceVersion: untouched
    obj('ns', 'b', { rv: '5', labels: { app: 'db' } }),
    obj('other', 'c', { labels: { app: 'web' } }),
  ]);
  expect(second.added.map((o) => o.metadata.name)).toEqual(['c']);
  expect(second.updated.map(([o, n]) => [o.metadata.resourceVersion, n.metadata.resourceVersion])).toEqual([['1', '5']]);
  expect(second.deleted).toEqual([]);
  expect(s.get('ns', 'a')).toBe(keptA);
  expect(names(s.byIndex('app', 'web'))).toEqual(['ns/a', 'other/c']);
  expect(names(s.byIndex('app', 'db'))).toEqual(['ns/b']);

  const third = s.replace([obj('other', 'c', { labels: { app: 'web' } })]);
  expect(names(third.deleted)).toEqual(['ns/a', 'ns/b']);
  expect(s.indexValues('app')).toEqual(['web']);
  expect(s.indexValues(NAMESPACE_INDEX)).toEqual(['other']);
  expect(s.size).toBe(1);
});

test('label selectors filter list and listInNamespace', () => {
  const s = IndexedStore.of([
    obj('a', 'web', { labels: { app: 'web', tier: 'front' } }),
    obj('a', 'db', { labels: { app: 'db' } }),
    obj('b', 'web', { labels: { app: 'web' } }),
    obj('b', 'none'),
  ]);
  expect(s.hasSynced()).toBe(true);
  expect(names(s.list('app=web'))).toEqual(['a/web', 'b/web']);
  expect(names(s.list(parseLabelSelector('app')))).toEqual(['a/db', 'a/web', 'b/web']);
  expect(names(s.list('!app'))).toEqual(['b/none']);
  expect(names(s.list(''))).toHaveLength(4);
  expect(names(s.listInNamespace('a', 'app=web,tier=front'))).toEqual(['a/web']);
  expect(names(s.listInNamespace('b', 'app!=web'))).toEqual(['b/none']);
  expect(() => s.list('a in (')).toThrow();
});

test('returned arrays are the caller\'s; the objects are the stored ones', () => {
  const s = IndexedStore.of([obj('a', 'x')]);
  const l = s.list();
  l.pop();
  expect(s.list()).toHaveLength(1);
  expect(s.list()[0]).toBe(s.get('a', 'x'));
});
