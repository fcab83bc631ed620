/**
 * Values a kube-apiserver stored (protobuf: `k8s\0` + runtime.Unknown, its default
 * --storage-media-type) read back as kube reads them, on the watch cache and straight from etcd:
 * gets, lists and watches see the object; an update writes it back as JSON; a stored kind this
 * server has no protobuf form of stays unreadable (a corrupt object).
 */
import { namespace } from '../support/factories';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { Etcd3 } from 'etcd3';
import { openWatch } from '../support/watch-stream';
import { startTestServer } from '../support/api-server';
import { ProtobufCodec } from '../../src/storage/codec/protobuf-codec';
import { builtinResources, protobufKindsOf } from '../../src/registry';

const etcd = useTestEtcd();
let protobuf: ProtobufCodec;
beforeAll(async () => {
  protobuf = await ProtobufCodec.load(undefined, builtinResources.flatMap(protobufKindsOf));
});

/** A Secret as kube-apiserver stores it: no resourceVersion, everything else as served. */
const stored = (namespace: string, name: string) => ({
  kind: 'Secret',
  apiVersion: 'v1',
  metadata: {
    name,
    namespace,
    uid: '0b6c2f3e-2f4e-4a55-9c1d-3a4f5e6d7c8b',
    creationTimestamp: '2026-01-02T03:04:05Z',
    labels: { from: 'kube' },
    managedFields: [
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k': {} }, 'f:type': {} } },
    ],
  },
  data: { k: Buffer.from('v').toString('base64') },
  type: 'Opaque',
});

describe.each([
  ['watch cache', true],
  ['etcd', false],
])('values stored by kube-apiserver (protobuf), %s', (_label, watchCache) => {
  const { srv } = useTestServer({ etcd, watchCache });
  const n = watchCache ? 'kube-cache' : 'kube-etcd';
  beforeAll(async () => {
    expect((await srv.request('POST', '/api/v1/namespaces', { body: namespace(n) })).status).toBe(201);
  });

  test('read, listed and watched as the object; an update stores it as JSON', async () => {
    const from = (await srv.request('GET', `/api/v1/namespaces/${n}/secrets`)).json().metadata.resourceVersion as string;
    const w = await openWatch(srv, `/api/v1/namespaces/${n}/secrets?watch=1&resourceVersion=${from}`);
    try {
      const key = `${srv.prefix}/secrets/${n}/s1`;
      const put = await srv.etcdStore.etcd.put(key).value(protobuf.encode(stored(n, 's1'))).exec();
      const rv = put.header.revision;
      const expected = { ...stored(n, 's1'), metadata: { ...stored(n, 's1').metadata, resourceVersion: rv } };

      const [added] = await w.next(1, 10_000);
      expect(added).toEqual({ type: 'ADDED', object: expected });
      for (const q of ['', '?resourceVersion=0']) {
        const got = await srv.request('GET', `/api/v1/namespaces/${n}/secrets/s1${q}`);
        expect(got.status).toBe(200);
        expect(JSON.parse(got.text)).toEqual(expected);
        // Go's field order, as for any object this server stores.
        expect(Object.keys(got.json().metadata)).toEqual(['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'managedFields']);
      }
      const list = await srv.request('GET', `/api/v1/namespaces/${n}/secrets?labelSelector=from%3Dkube`);
      // Items of a typed list carry no kind or apiVersion (kube's SecretList).
      const { kind: _k, apiVersion: _a, ...item } = expected;
      expect(list.json().items).toEqual([item]);

      const patched = await srv.request('PATCH', `/api/v1/namespaces/${n}/secrets/s1`, {
        body: { metadata: { labels: { patched: 'yes' } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patched.status).toBe(200);
      expect(patched.json().metadata.labels).toEqual({ from: 'kube', patched: 'yes' });
      const [modified] = await w.next(1, 10_000);
      expect(modified?.type).toBe('MODIFIED');
      const raw = (await srv.etcdStore.etcd.get(key).buffer()) as Buffer;
      expect(JSON.parse(raw.toString('utf8'))).toMatchObject({ kind: 'Secret', metadata: { labels: { from: 'kube', patched: 'yes' } } });
    } finally {
      w.close();
    }
  });

  test('a stored kind without a protobuf form here is unreadable, as any corrupt value', async () => {
    // magic + runtime.Unknown{typeMeta: {apiVersion: v1, kind: Widget}, raw: <empty>}
    const field = (id: number, bytes: Buffer) => Buffer.concat([Buffer.from([(id << 3) | 2, bytes.length]), bytes]);
    const typeMeta = Buffer.concat([field(1, Buffer.from('v1')), field(2, Buffer.from('Widget'))]);
    const asWidget = Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), field(1, typeMeta), field(2, Buffer.alloc(0))]);
    await srv.etcdStore.etcd.put(`${srv.prefix}/secrets/${n}/odd`).value(asWidget).exec();
    const r = await srv.request('GET', `/api/v1/namespaces/${n}/secrets/odd`);
    expect(r.status).toBe(500);
    expect(r.json().message).toContain('no kind "Widget" is registered for version "v1"');
    await srv.etcdStore.etcd.delete().key(`${srv.prefix}/secrets/${n}/odd`).exec();
  });
});

test('an etcd a kube-apiserver wrote before this server started reads back from the first read (the watch cache loads it)', async () => {
  const prefix = `/registry-kube-${Date.now().toString(36)}`;
  const client = new Etcd3({ hosts: etcd.endpoints });
  try {
    await client.put(`${prefix}/namespaces/before`).value(protobuf.encode({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'before', uid: 'u1', creationTimestamp: '2026-01-02T03:04:05Z' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } })).exec();
    await client.put(`${prefix}/secrets/before/s1`).value(protobuf.encode(stored('before', 's1'))).exec();
  } finally {
    client.close();
  }
  const srv = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix, watchCache: true });
  try {
    for (const q of ['?resourceVersion=0', '']) {
      const got = await srv.request('GET', `/api/v1/namespaces/before/secrets/s1${q}`);
      expect(got.status).toBe(200);
      expect(got.json().metadata.labels).toEqual({ from: 'kube' });
    }
    const list = await srv.request('GET', '/api/v1/namespaces/before/secrets?resourceVersion=0');
    expect(list.json().items.map((s: { metadata: { name: string } }) => s.metadata.name)).toEqual(['s1']);
  } finally {
    await srv.stop();
  }
});
