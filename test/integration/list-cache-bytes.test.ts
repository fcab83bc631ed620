/**
 * A list served from the watch cache (assembled from memoised per-item encodings) is byte for byte
 * the list the same server would encode from etcd: compared against a --watch-cache=false server on
 * the same etcd prefix, cold and warm, after updates and deletes, with selectors, for JSON (and the
 * formats that keep the whole-list encoding: pretty JSON, YAML, protobuf, Table).
 */
import { startTestEtcd, TestEtcd } from '../support/etcd';
import { startTestServer, TestServer } from '../support/api-server';

let etcd: TestEtcd;
let cached: TestServer;
let uncached: TestServer;
const ns = 'list-bytes';
const cms = `/api/v1/namespaces/${ns}/configmaps`;

/** The list's own resourceVersion may differ between cache and etcd (writes elsewhere); items never. */
const normalizeListRv = (text: string) => text.replace(/^\{"kind":"(\w+)","apiVersion":"v1","metadata":\{"resourceVersion":"\d+"/, '{"kind":"$1","apiVersion":"v1","metadata":{"resourceVersion":"N"');

async function waitForCache(path: string, expected: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = await cached.request('GET', `${path}?resourceVersion=0`);
    if (r.json().items.length === expected) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the cache did not catch up');
}

async function expectSameList(path: string, headers: Record<string, string> = {}): Promise<string> {
  const fromEtcd = await uncached.request('GET', path, { headers });
  expect(fromEtcd.status).toBe(200);
  const sep = path.includes('?') ? '&' : '?';
  for (const p of [`${path}${sep}resourceVersion=0`, path, `${path}${sep}resourceVersion=0`]) {
    const fromCache = await cached.request('GET', p, { headers });
    expect(fromCache.status).toBe(200);
    expect(fromCache.headers['content-type']).toBe(fromEtcd.headers['content-type']);
    expect(normalizeListRv(fromCache.text)).toBe(normalizeListRv(fromEtcd.text));
  }
  return fromEtcd.text;
}

beforeAll(async () => {
  etcd = await startTestEtcd();
  cached = await startTestServer({ etcdEndpoints: etcd.endpoints });
  uncached = await startTestServer({ etcdEndpoints: etcd.endpoints, prefix: cached.prefix, watchCache: false });
  expect((await cached.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status).toBe(201);
  for (let i = 0; i < 25; i++) {
    const body = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 ? 'odd' : 'even' }, annotations: { note: `é 日本 😀 "${i}" \\ <&>` } },
      data: { i: String(i), text: 'line1\nline2\u2028' },
    };
    expect((await cached.request('POST', cms, { body })).status).toBe(201);
  }
  await waitForCache(cms, 25);
});
afterAll(async () => {
  await uncached?.stop();
  await cached?.stop();
  await etcd?.stop();
});

describe('lists from the watch cache are the bytes of lists from etcd', () => {
  test('JSON, cold then warm', async () => {
    const text = await expectSameList(cms);
    expect(text.endsWith(']}\n')).toBe(true);
    expect(text).toContain('"items":[{"metadata":{"name":"cm-00"');
  });

  test('JSON with a label selector, and all namespaces', async () => {
    await expectSameList(`${cms}?labelSelector=parity%3Dodd`);
    const all = await cached.request('GET', '/api/v1/configmaps?resourceVersion=0');
    const etcdAll = await uncached.request('GET', '/api/v1/configmaps');
    expect(normalizeListRv(all.text)).toBe(normalizeListRv(etcdAll.text));
  });

  test('after an update and a delete the cache serves the new bytes', async () => {
    await expectSameList(cms); // warm every item
    const r = await cached.request('PATCH', `${cms}/cm-03`, {
      body: { data: { i: 'changed' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(200);
    expect((await cached.request('DELETE', `${cms}/cm-04`)).status).toBe(200);
    await waitForCache(cms, 24);
    for (let i = 0; i < 100; i++) {
      if ((await cached.request('GET', `${cms}/cm-03?resourceVersion=0`)).json().data.i === 'changed') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const text = await expectSameList(cms);
    expect(text).toContain('"i":"changed"');
    expect(text).not.toContain('"name":"cm-04"');
  });

  test.each([
    ['pretty JSON', `${cms}?pretty=true`, {}],
    ['YAML', cms, { accept: 'application/yaml' }],
    ['PartialObjectMetadataList', cms, { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' }],
  ])('%s keeps the whole-list encoding, unchanged', async (_name, path, headers) => {
    const fromEtcd = await uncached.request('GET', path, { headers });
    const sep = path.includes('?') ? '&' : '?';
    const fromCache = await cached.request('GET', `${path}${sep}resourceVersion=0`, { headers });
    expect(fromCache.status).toBe(200);
    // The list's own resourceVersion is its first one (kind, apiVersion, metadata come first).
    const rv = (t: string) => t.replace(/resourceVersion("?):\s*"\d+"/, 'resourceVersion$1: N');
    expect(rv(fromCache.text)).toBe(rv(fromEtcd.text));
  });

  test('Table rows hold the same objects', async () => {
    const headers = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io;includeObject=Object' };
    const fromEtcd = (await uncached.request('GET', `${cms}?includeObject=Object`, { headers })).json();
    const fromCache = (await cached.request('GET', `${cms}?includeObject=Object&resourceVersion=0`, { headers })).json();
    expect(fromCache.kind).toBe('Table');
    expect(fromCache.columnDefinitions).toEqual(fromEtcd.columnDefinitions);
    expect(fromCache.rows.map((r: { object: unknown }) => r.object)).toEqual(fromEtcd.rows.map((r: { object: unknown }) => r.object));
  });
});
