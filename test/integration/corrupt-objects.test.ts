/**
 * Objects etcd holds but the server cannot read back (seed 000's "corrupt" state), on the watch
 * cache and straight from etcd, with the gate AllowUnsafeMalformedObjectDeletion off and on, as kube
 * 1.32's etcd3 store, registry and delete handler answer: the rest of the cache stays up; gets,
 * lists, deletes and watches that meet the value fail with kube's Status; with the gate on,
 * DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential deletes it, and only it.
 */
import type { TestServer } from '../support/api-server';
import { namespace as ns } from '../support/factories';
import { cause, failure } from '../support/kube-status';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { openWatch } from '../support/watch-stream';
import type { Authorizer } from '../../src/auth';

const etcd = useTestEtcd();

const garbage = 'garbage{{';
/** What kube's json serializer says of the bytes above. */
const decodeError = `couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value`;
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

async function setUp(srv: TestServer, namespace: string): Promise<void> {
  for (const n of [namespace, `${namespace}-other`]) expect((await srv.request('POST', '/api/v1/namespaces', { body: ns(n) })).status).toBe(201);
  expect((await srv.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, { body: cm('good') })).status).toBe(201);
  expect((await srv.request('POST', `/api/v1/namespaces/${namespace}-other/configmaps`, { body: cm('elsewhere') })).status).toBe(201);
}

/** Writes bytes straight into etcd at a configmap's key; returns the key and its revision. */
async function corrupt(srv: TestServer, namespace: string, name: string): Promise<{ key: string; revision: string }> {
  const key = `${srv.prefix}/configmaps/${namespace}/${name}`;
  const r = await srv.etcdStore.etcd.put(key).value(garbage).exec();
  return { key, revision: r.header.revision };
}

const unsafeDelete = { ignoreStoreReadErrorWithClusterBreakingPotential: true };

describe.each([
  ['watch cache', true],
  ['etcd', false],
])('corrupt objects, %s, gate off', (_label, watchCache) => {
  let restarts = 0;
  const n = watchCache ? 'off-cache' : 'off-etcd';
  const { srv } = useTestServer({ etcd, watchCache, cacheOptions: { onRestart: () => restarts++ } });
  beforeAll(async () => {
    await setUp(srv, n);
    await corrupt(srv, n, 'bad');
  });

  test("a get or list that meets it is kube 1.32's 500 with the decoder's words and no reason", async () => {
    for (const path of [`/api/v1/namespaces/${n}/configmaps/bad`, `/api/v1/namespaces/${n}/configmaps/bad?resourceVersion=0`, `/api/v1/namespaces/${n}/configmaps`, `/api/v1/namespaces/${n}/configmaps?resourceVersion=0`, '/api/v1/configmaps']) {
      const r = await srv.request('GET', path);
      expect([path, r.status]).toEqual([path, 500]);
      expect(r.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: decodeError, code: 500 });
    }
  });

  test('everything else is served as before, and the watch cache never restarts', async () => {
    expect((await srv.request('GET', `/api/v1/namespaces/${n}/configmaps/good?resourceVersion=0`)).json().metadata.name).toBe('good');
    const other = await srv.request('GET', `/api/v1/namespaces/${n}-other/configmaps?resourceVersion=0`);
    expect(other.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['elsewhere']);
    expect((await srv.request('GET', '/api/v1/secrets')).status).toBe(200);
    expect((await srv.request('POST', `/api/v1/namespaces/${n}-other/configmaps`, { body: cm('after') })).status).toBe(201);
    expect((await srv.request('GET', `/api/v1/namespaces/${n}-other/configmaps/after?resourceVersion=0`)).status).toBe(200);
    expect(restarts).toBe(0);
  });

  test('a delete or update of it fails the same way; the unsafe option is dropped while the gate is off', async () => {
    for (const [method, body] of [
      ['DELETE', undefined],
      ['DELETE', unsafeDelete],
      ['PUT', cm('bad')],
    ] as const) {
      const r = await srv.request(method, `/api/v1/namespaces/${n}/configmaps/bad`, { body });
      expect([method, r.status, r.json().message]).toEqual([method, 500, decodeError]);
    }
    const r = await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps?ignoreStoreReadErrorWithClusterBreakingPotential=true&fieldSelector=metadata.name=good`);
    expect(r.status).toBe(200);
  });

  test("kubectl shows the server's error", async () => {
    const r = await srv.kubectl(['get', 'configmaps', '-n', n]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`Error from server: ${decodeError}`);
  });
});

describe.each([
  ['watch cache', true],
  ['etcd', false],
])('corrupt objects, %s, gate AllowUnsafeMalformedObjectDeletion on', (_label, watchCache) => {
  let restarts = 0;
  let denyUnsafe = false;
  const authorizer: Authorizer = {
    authorize: async (a) =>
      denyUnsafe && a.verb === 'unsafe-delete-ignore-read-errors' ? { decision: 'no-opinion', reason: 'not in the test policy' } : { decision: 'allow' },
  };
  const n = watchCache ? 'on-cache' : 'on-etcd';
  let bad: { key: string; revision: string };
  const { srv } = useTestServer({
    etcd,
    watchCache,
    featureGates: { AllowUnsafeMalformedObjectDeletion: true },
    authorizer,
    cacheOptions: { onRestart: () => restarts++ },
  });
  beforeAll(async () => {
    await setUp(srv, n);
    bad = await corrupt(srv, n, 'bad');
  });

  const storageError = (key: string, revision: string) =>
    `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${revision}: ${decodeError}`;

  test("a get is InternalError naming the key without the etcd prefix, as kube's registry key", async () => {
    for (const rv of ['', '?resourceVersion=0']) {
      const r = await srv.request('GET', `/api/v1/namespaces/${n}/configmaps/bad${rv}`);
      expect(r.status).toBe(500);
      const message = storageError(`/configmaps/${n}/bad`, bad.revision);
      expect(r.json()).toEqual(failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }));
    }
  });

  test('a list is StorageReadError with one cause per corrupt object, naming its etcd key', async () => {
    const second = await corrupt(srv, n, 'bad2');
    for (const path of [`/api/v1/namespaces/${n}/configmaps`, `/api/v1/namespaces/${n}/configmaps?resourceVersion=0`, `/api/v1/namespaces/${n}/configmaps?limit=1`]) {
      const r = await srv.request('GET', path);
      expect([path, r.status]).toEqual([path, 500]);
      expect(r.json()).toEqual(
        failure(500, 'StorageReadError', 'failed to read one or more configmaps from the storage', {
          name: 'list',
          kind: 'configmaps',
          causes: [
            cause('UnexpectedServerResponse', bad.key, storageError(bad.key, bad.revision)),
            cause('UnexpectedServerResponse', second.key, storageError(second.key, second.revision)),
          ],
        }),
      );
    }
    const kubectl = await srv.kubectl(['get', 'configmaps', '-n', n]);
    expect(kubectl.stderr.trim()).toBe('Error from server (StorageReadError): failed to read one or more configmaps from the storage');
    // Deleted again by the unsafe delete test's loop below.
    expect((await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps/bad2`, { body: unsafeDelete })).status).toBe(200);
    expect(restarts).toBe(0);
  });

  test("a normal delete fails with the get's error; the option is refused for readable and missing objects", async () => {
    const normal = await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps/bad`);
    expect(normal.status).toBe(500);
    expect(normal.json().message).toBe(`Internal error occurred: ${storageError(`/configmaps/${n}/bad`, bad.revision)}`);
    for (const name of ['good', 'missing']) {
      const r = await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps/${name}`, { body: unsafeDelete });
      expect(r.status).toBe(422);
      expect(r.json()).toMatchObject({
        reason: 'Invalid',
        message: `configmaps "${name}" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option`,
        details: { name, kind: 'configmaps' },
      });
    }
    expect((await srv.request('GET', `/api/v1/namespaces/${n}/configmaps/good`)).status).toBe(200);
  });

  test('the option with other delete options, or on deletecollection, is an invalid DeleteOptions', async () => {
    const r = await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps/bad?dryRun=All&gracePeriodSeconds=0`, {
      body: { ...unsafeDelete, propagationPolicy: 'Background', preconditions: { uid: 'x' } },
    });
    expect(r.status).toBe(422);
    const field = 'ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with';
    expect(r.json().message).toBe(
      `DeleteOptions.meta.k8s.io "" is invalid: [${field} .dryRun, ${field} .propagationPolicy, ${field} .gracePeriodSeconds, ${field} .preconditions]`,
    );
    const collection = await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(collection.status).toBe(422);
    expect(collection.json().message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option',
    );
  });

  test('a list names at most 100 corrupt objects, then says there are more', async () => {
    const many = `${n}-many`;
    expect((await srv.request('POST', '/api/v1/namespaces', { body: ns(many) })).status).toBe(201);
    const puts = Array.from({ length: 101 }, (_, i) => ({ request_put: { key: Buffer.from(`${srv.prefix}/configmaps/${many}/c${String(i).padStart(3, '0')}`), value: Buffer.from(garbage) } }));
    await srv.etcdStore.etcd.kv.txn({ compare: [], success: puts, failure: [] });
    const r = await srv.request('GET', `/api/v1/namespaces/${many}/configmaps`);
    expect(r.status).toBe(500);
    const causes = r.json().details.causes as Array<{ reason: string; field?: string; message: string }>;
    expect(causes).toHaveLength(101);
    expect(causes[99]?.field).toBe(`${srv.prefix}/configmaps/${many}/c099`);
    expect(causes[100]).toEqual({ reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
    await srv.etcdStore.etcd.delete().prefix(`${srv.prefix}/configmaps/${many}/`);
  });

  test('a namespace holding one is stuck Terminating with ContentDeletionFailed until the unsafe delete removes it', async () => {
    const doomed = `${n}-doomed`;
    expect((await srv.request('POST', '/api/v1/namespaces', { body: ns(doomed) })).status).toBe(201);
    await corrupt(srv, doomed, 'bad');
    const w = await openWatch(srv, `/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D${doomed}`);
    try {
      expect((await srv.request('DELETE', `/api/v1/namespaces/${doomed}`)).status).toBe(200);
      // Events until the controller reports the failure.
      let failed: { message: string } | undefined;
      while (!failed) {
        const [e] = await w.next(1, 10_000);
        const conditions = (e?.object.status.conditions ?? []) as Array<{ type: string; status: string; message: string }>;
        failed = conditions.find((c) => c.type === 'NamespaceDeletionContentFailure' && c.status === 'True');
      }
      expect(failed.message).toBe('Failed to delete all resource types, 1 remaining: failed to read one or more configmaps from the storage');
      expect((await srv.request('DELETE', `/api/v1/namespaces/${doomed}/configmaps/bad`, { body: unsafeDelete })).status).toBe(200);
      for (;;) {
        const [e] = await w.next(1, 10_000);
        if (e?.type === 'DELETED') break;
      }
    } finally {
      w.close();
    }
    expect((await srv.request('GET', `/api/v1/namespaces/${doomed}`)).status).toBe(404);
  });

  test('the option needs the unsafe-delete-ignore-read-errors verb', async () => {
    denyUnsafe = true;
    try {
      const r = await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps/bad`, { body: unsafeDelete });
      expect(r.status).toBe(403);
      expect(r.json()).toMatchObject({
        reason: 'Forbidden',
        message: `configmaps "bad" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: not in the test policy`,
      });
    } finally {
      denyUnsafe = false;
    }
  });

  test('watchers that meet it end with an ERROR: a write of it, a watch that starts on it, its unsafe deletion', async () => {
    const list = await srv.request('GET', `/api/v1/namespaces/${n}-other/configmaps`);
    const from = list.json().metadata.resourceVersion as string;
    const live = await openWatch(srv, `/api/v1/namespaces/${n}-other/configmaps?watch=1&resourceVersion=${from}`);
    const elsewhere = await openWatch(srv, `/api/v1/namespaces/${n}/configmaps?watch=1&resourceVersion=${from}`);
    try {
      const written = await corrupt(srv, `${n}-other`, 'broken');
      const [err] = await live.next(1, 10_000);
      const notDecodable = `object not decodable revision=${written.revision}: ${decodeError}`;
      expect(err).toEqual({ type: 'ERROR', object: failure(500, 'InternalError', `Internal error occurred: ${notDecodable}`, { causes: [{ message: notDecodable }] }) });
      await live.ended;
      // A watch of another namespace saw nothing of it.
      await elsewhere.expectQuiet(200);

      // A watch that starts with the state meets the corrupt value at once.
      const initial = await openWatch(srv, `/api/v1/namespaces/${n}-other/configmaps?watch=1`);
      const [first] = await initial.next(1, 10_000);
      expect(first?.type).toBe('ERROR');
      expect(first?.object.message).toBe(`Internal error occurred: ${notDecodable}`);
      await initial.ended;

      const before = await srv.etcdStore.currentRevision();
      const deleting = await openWatch(srv, `/api/v1/namespaces/${n}-other/configmaps?watch=1&resourceVersion=${before}`);
      const r = await srv.request('DELETE', `/api/v1/namespaces/${n}-other/configmaps/broken`, { body: unsafeDelete });
      expect(r.status).toBe(200);
      const [gone] = await deleting.next(1, 10_000);
      expect(gone?.type).toBe('ERROR');
      expect(gone?.object).toEqual(
        failure(500, 'StorageReadError', `saw a DELETED event, but object data is corrupt - object not decodable revision=${before + 1n}: ${decodeError}`),
      );
    } finally {
      live.close();
      elsewhere.close();
    }
  });

  test('the unsafe delete removes the key (a Success Status, code 200) and the resource reads normally again', async () => {
    const r = await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps/bad`, { body: unsafeDelete });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'bad', kind: 'ConfigMap' }, code: 200 });
    expect((await srv.etcdStore.etcd.get(bad.key).exists())).toBe(false);
    expect((await srv.request('GET', `/api/v1/namespaces/${n}/configmaps/bad`)).status).toBe(404);
    const list = await srv.request('GET', `/api/v1/namespaces/${n}/configmaps`);
    expect(list.status).toBe(200);
    expect(list.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['good']);
    // Gone already: the option is refused, as for any object that is not corrupt.
    expect((await srv.request('DELETE', `/api/v1/namespaces/${n}/configmaps/bad`, { body: unsafeDelete })).status).toBe(422);
    expect(restarts).toBe(0);
  });
});
