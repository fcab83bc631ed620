/**
 * A list served from the watch cache (assembled from memoised per-item encodings) is byte for byte
 * the list the same server would encode from etcd: compared against a --watch-cache=false server on
 * the same etcd prefix, cold and warm, after updates and deletes, with selectors, for JSON (and the
 * formats that keep the whole-list encoding: pretty JSON, YAML, protobuf, Table).
 */
import { namespace } from '../support/factories';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

/** Two servers on one etcd prefix: one serving from the watch cache, one from etcd. */
const etcd = useTestEtcd();
const prefix = '/registry-list-bytes';
const { srv: cached } = useTestServer({ etcd, prefix });
const { srv: uncached } = useTestServer({ etcd, prefix, watchCache: false });
const ns = 'list-bytes';
const cms = `/api/v1/namespaces/${ns}/configmaps`;

/** The list's own resourceVersion may differ between cache and etcd (writes elsewhere); items never. */
const normalizeListRv = (text: string) => text.replace(/^\{"kind":"(\w+)","apiVersion":"v1","metadata":\{"resourceVersion":"\d+"/, '{"kind":"$1","apiVersion":"v1","metadata":{"resourceVersion":"N"');

/** Awaits the watch cache listing `expected` items (it follows etcd asynchronously). */
async function waitForCache(path: string, expected: number): Promise<void> {
  await until(`the cache to list ${expected} items of ${path}`, async () => (await cached.request('GET', `${path}?resourceVersion=0`)).json().items.length === expected, { timeoutMs: 5_000 });
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
  expect((await cached.request('POST', '/api/v1/namespaces', { body: namespace(ns) })).status).toBe(201);
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
    await until('the cache to serve the updated cm-03', async () => (await cached.request('GET', `${cms}/cm-03?resourceVersion=0`)).json().data.i === 'changed', { timeoutMs: 5_000 });
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
