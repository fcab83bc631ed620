/** Watch over HTTP against the real server and a real etcd, plus kubectl's watch-based commands. */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { namespace } from '../support/factories';
import { useTestServer } from '../support/server-fixture';
import { emitted, until } from '../support/until';
import { openWatch, StreamEvent, WatchStream } from '../support/watch-stream';

const { srv } = useTestServer();
const open: WatchStream[] = [];

beforeAll(async () => {
  for (const ns of ['w1', 'w2', 'sel', 'order', 'tbl', 'kc']) await createNamespace(ns);
});
afterEach(() => {
  for (const w of open.splice(0)) w.close();
});

async function createNamespace(name: string): Promise<void> {
  const r = await srv.request('POST', '/api/v1/namespaces', { body: namespace(name) });
  expect(r.status).toBe(201);
}

interface Obj {
  metadata: { name: string; namespace?: string; uid: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  type?: string;
}

async function createSecret(ns: string, name: string, extra: Record<string, unknown> = {}): Promise<Obj> {
  const r = await srv.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', ...extra, metadata: { ...((extra.metadata as object | undefined) ?? {}), name } },
  });
  expect(r.status).toBe(201);
  return r.json<Obj>();
}

async function mergePatch(path: string, patch: unknown): Promise<Obj> {
  const r = await srv.request('PATCH', path, { body: patch, headers: { 'content-type': 'application/merge-patch+json' } });
  expect(r.status).toBe(200);
  return r.json<Obj>();
}

async function del(path: string): Promise<void> {
  const r = await srv.request('DELETE', path);
  expect(r.status).toBe(200);
}

async function watch(path: string, headers?: Record<string, string>): Promise<WatchStream> {
  const w = await openWatch(srv, path, { headers });
  open.push(w);
  expect(w.status).toBe(200);
  return w;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const summary = (e: StreamEvent): [string, string] => [e.type, e.object.metadata.name];

describe('watch over HTTP', () => {
  test('from a list resourceVersion: only later events, DELETED carries the last state at a newer RV', async () => {
    await createSecret('w1', 'before');
    const list = (await srv.request('GET', '/api/v1/namespaces/w1/secrets')).json();
    const w = await watch(`/api/v1/namespaces/w1/secrets?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    expect(w.headers['content-type']).toBe('application/json');
    expect(w.headers['transfer-encoding']).toBe('chunked');

    const created = await createSecret('w1', 's1', { data: { a: b64('1') } });
    const updated = await mergePatch('/api/v1/namespaces/w1/secrets/s1', { data: { a: b64('2') } });
    await del('/api/v1/namespaces/w1/secrets/s1');
    const [added, modified, deleted] = (await w.next(3)) as [StreamEvent, StreamEvent, StreamEvent];

    expect(added).toMatchObject({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'w1', resourceVersion: created.metadata.resourceVersion } } });
    expect(modified).toMatchObject({ type: 'MODIFIED', object: { kind: 'Secret', data: { a: b64('2') }, metadata: { resourceVersion: updated.metadata.resourceVersion } } });
    expect(deleted).toMatchObject({ type: 'DELETED', object: { kind: 'Secret', data: { a: b64('2') }, metadata: { name: 's1', uid: created.metadata.uid } } });
    expect(BigInt(deleted.object.metadata.resourceVersion)).toBeGreaterThan(BigInt(updated.metadata.resourceVersion));
    await w.expectQuiet(200);
  });

  test('without resourceVersion: synthetic ADDED for existing objects first, then changes', async () => {
    await createSecret('w2', 'e1');
    await createSecret('w2', 'e2');
    const w = await watch('/api/v1/namespaces/w2/secrets?watch=1');
    const initial = await w.next(2);
    expect(initial.map(summary).sort()).toEqual([['ADDED', 'e1'], ['ADDED', 'e2']]);
    await w.expectQuiet(200);
    await createSecret('w2', 'e3');
    expect((await w.next(1)).map(summary)).toEqual([['ADDED', 'e3']]);
  });

  test('resourceVersion=0 also starts with the current state', async () => {
    const w = await watch('/api/v1/namespaces/w2/secrets?watch=1&resourceVersion=0');
    const initial = await w.next(3);
    expect(initial.map(summary).sort()).toEqual([['ADDED', 'e1'], ['ADDED', 'e2'], ['ADDED', 'e3']]);
  });

  test("watch=True (the Python client's spelling) and allowWatchBookmarks=True are booleans as kube reads them; watch=False lists", async () => {
    const w = await watch('/api/v1/namespaces/w2/secrets?watch=True&resourceVersion=0&allowWatchBookmarks=True');
    expect((await w.next(3)).map(summary).sort()).toEqual([['ADDED', 'e1'], ['ADDED', 'e2'], ['ADDED', 'e3']]);
    const list = await srv.request('GET', '/api/v1/namespaces/w2/secrets?watch=False');
    expect(list.json().kind).toBe('SecretList');
  });

  test('timeoutSeconds=1 ends the stream', async () => {
    const w = await watch('/api/v1/namespaces/w2/secrets?watch=1&timeoutSeconds=1&resourceVersion=1');
    const t0 = Date.now();
    await w.ended;
    // Without timeoutSeconds the stream would stay open; 30 s is far from the 1 s asked for, so a
    // loaded machine cannot flip it.
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  test('fieldSelector=metadata.name narrows a watch to one object', async () => {
    const list = (await srv.request('GET', '/api/v1/namespaces/w2/secrets')).json();
    const w = await watch(`/api/v1/namespaces/w2/secrets?watch=true&fieldSelector=metadata.name%3De2&resourceVersion=${list.metadata.resourceVersion}`);
    await mergePatch('/api/v1/namespaces/w2/secrets/e1', { metadata: { labels: { x: '1' } } });
    await mergePatch('/api/v1/namespaces/w2/secrets/e2', { metadata: { labels: { x: '2' } } });
    expect((await w.next(1)).map(summary)).toEqual([['MODIFIED', 'e2']]);
    await w.expectQuiet(200);
  });

  test('the deprecated /watch/ paths kube 1.32 still serves: a collection and a single object', async () => {
    const list = (await srv.request('GET', '/api/v1/namespaces/w2/secrets')).json();
    const rv = list.metadata.resourceVersion;
    const all = await watch(`/api/v1/watch/namespaces/w2/secrets?resourceVersion=${rv}`);
    const one = await watch(`/api/v1/watch/namespaces/w2/secrets/e1?resourceVersion=${rv}`);
    await mergePatch('/api/v1/namespaces/w2/secrets/e2', { metadata: { labels: { y: '1' } } });
    await mergePatch('/api/v1/namespaces/w2/secrets/e1', { metadata: { labels: { y: '2' } } });
    expect((await all.next(2)).map(summary)).toEqual([
      ['MODIFIED', 'e2'],
      ['MODIFIED', 'e1'],
    ]);
    expect((await one.next(1)).map(summary)).toEqual([['MODIFIED', 'e1']]);
    await one.expectQuiet(200);
  });

  test('label selector filters events; leaving the selection is DELETED (old state, new RV), entering is ADDED', async () => {
    const list = (await srv.request('GET', '/api/v1/namespaces/sel/secrets')).json();
    const w = await watch(`/api/v1/namespaces/sel/secrets?watch=1&labelSelector=app%3Dweb&resourceVersion=${list.metadata.resourceVersion}`);
    await createSecret('sel', 'other', { metadata: { labels: { app: 'db' } } });
    await createSecret('sel', 'web', { metadata: { labels: { app: 'web' } } });
    expect((await w.next(1)).map(summary)).toEqual([['ADDED', 'web']]);

    const left = await mergePatch('/api/v1/namespaces/sel/secrets/web', { metadata: { labels: { app: 'api' } } });
    const [gone] = (await w.next(1)) as [StreamEvent];
    expect(gone.type).toBe('DELETED');
    expect(gone.object.metadata.labels).toEqual({ app: 'web' });
    expect(gone.object.metadata.resourceVersion).toBe(left.metadata.resourceVersion);

    await mergePatch('/api/v1/namespaces/sel/secrets/other', { metadata: { labels: { app: 'web' } } });
    const [came] = (await w.next(1)) as [StreamEvent];
    expect(summary(came)).toEqual(['ADDED', 'other']);
    expect(came.object.metadata.labels).toEqual({ app: 'web' });
    await del('/api/v1/namespaces/sel/secrets/web'); // not matching: no event
    await del('/api/v1/namespaces/sel/secrets/other');
    expect((await w.next(1)).map(summary)).toEqual([['DELETED', 'other']]);
    await w.expectQuiet(200);
  });

  test('field selector on secret type filters events', async () => {
    const list = (await srv.request('GET', '/api/v1/namespaces/sel/secrets')).json();
    const w = await watch(`/api/v1/namespaces/sel/secrets?watch=1&fieldSelector=type%3Dkubernetes.io%2Fbasic-auth&resourceVersion=${list.metadata.resourceVersion}`);
    await createSecret('sel', 'plain', { type: 'Opaque' });
    await createSecret('sel', 'basic', { type: 'kubernetes.io/basic-auth', data: { username: b64('u') } });
    const [ev] = (await w.next(1)) as [StreamEvent];
    expect(summary(ev)).toEqual(['ADDED', 'basic']);
    expect(ev.object.type).toBe('kubernetes.io/basic-auth');
    await w.expectQuiet(200);
  });

  test('an unknown field selector on a watch is a 400 before the stream starts', async () => {
    const w = await openWatch(srv, '/api/v1/namespaces/sel/secrets?watch=1&fieldSelector=data.x%3D1');
    expect(w.status).toBe(400);
    expect(JSON.parse(w.errorBody ?? '')).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });

  test('all-namespaces watch sees every namespace; a namespaced watch sees only its own', async () => {
    const rv = (await srv.request('GET', '/api/v1/secrets')).json().metadata.resourceVersion;
    const all = await watch(`/api/v1/secrets?watch=1&resourceVersion=${rv}`);
    const onlyW1 = await watch(`/api/v1/namespaces/w1/secrets?watch=1&resourceVersion=${rv}`);
    await createSecret('w2', 'x-in-w2');
    await createSecret('w1', 'x-in-w1');
    const evs = await all.next(2);
    expect(evs.map((e) => [e.type, e.object.metadata.namespace, e.object.metadata.name])).toEqual([
      ['ADDED', 'w2', 'x-in-w2'],
      ['ADDED', 'w1', 'x-in-w1'],
    ]);
    expect((await onlyW1.next(1)).map(summary)).toEqual([['ADDED', 'x-in-w1']]);
    await onlyW1.expectQuiet(200);
  });

  test('cluster-scoped watch on namespaces', async () => {
    const rv = (await srv.request('GET', '/api/v1/namespaces')).json().metadata.resourceVersion;
    const w = await watch(`/api/v1/namespaces?watch=1&resourceVersion=${rv}`);
    await createNamespace('w-new');
    const [ev] = (await w.next(1)) as [StreamEvent];
    expect(ev).toMatchObject({ type: 'ADDED', object: { kind: 'Namespace', metadata: { name: 'w-new' }, status: { phase: 'Active' } } });
  });

  test('Table Accept: every event is a Table; columnDefinitions only on the first', async () => {
    await createSecret('tbl', 't0');
    const w = await watch('/api/v1/namespaces/tbl/secrets?watch=1', {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
    });
    // kube's serveWatch writes the serializer's bare media type: the as=Table parameters are not echoed.
    expect(w.headers['content-type']).toBe('application/json');
    const [first] = (await w.next(1)) as [StreamEvent];
    expect(first.type).toBe('ADDED');
    expect(first.object).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(first.object.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Type', 'Data', 'Age']);
    expect(first.object.rows).toHaveLength(1);
    expect(first.object.rows[0].cells.slice(0, 3)).toEqual(['t0', 'Opaque', 0]);
    expect(first.object.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 't0' } });

    await createSecret('tbl', 't1', { data: { k: b64('v') } });
    const [second] = (await w.next(1)) as [StreamEvent];
    expect(second.type).toBe('ADDED');
    expect(second.object.kind).toBe('Table');
    expect(second.object.columnDefinitions ?? null).toBeNull();
    expect(second.object.rows[0].cells.slice(0, 3)).toEqual(['t1', 'Opaque', 1]);
  });

  test('events arrive in exact write order with strictly increasing resourceVersions', async () => {
    const rv = (await srv.request('GET', '/api/v1/namespaces/order/secrets')).json().metadata.resourceVersion;
    const w = await watch(`/api/v1/namespaces/order/secrets?watch=1&resourceVersion=${rv}`);
    const expected: Array<[string, string, string]> = [];
    for (let i = 0; i < 8; i++) {
      const name = `o${i % 3}`;
      if (i < 3) expected.push(['ADDED', name, (await createSecret('order', name)).metadata.resourceVersion]);
      else expected.push(['MODIFIED', name, (await mergePatch(`/api/v1/namespaces/order/secrets/${name}`, { data: { i: b64(String(i)) } })).metadata.resourceVersion]);
    }
    await del('/api/v1/namespaces/order/secrets/o1');
    const evs = await w.next(expected.length + 1);
    expect(evs.slice(0, -1).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual(expected);
    expect(summary(evs[evs.length - 1] as StreamEvent)).toEqual(['DELETED', 'o1']);
    const rvs = evs.map((e) => BigInt(e.object.metadata.resourceVersion));
    for (let i = 1; i < rvs.length; i++) expect(rvs[i]).toBeGreaterThan(rvs[i - 1] as bigint);
  });

  test('a watch from a compacted resourceVersion is HTTP 200 with one ERROR event (410 Expired), then the end', async () => {
    await createNamespace('compact');
    const old = (await srv.request('GET', '/api/v1/namespaces/compact/secrets')).json().metadata.resourceVersion;
    await createSecret('compact', 'a');
    const latest = await createSecret('compact', 'b');
    await srv.etcdStore.etcd.kv.compact({ revision: latest.metadata.resourceVersion, physical: true });
    const w = await watch(`/api/v1/namespaces/compact/secrets?watch=1&resourceVersion=${old}`);
    expect(await w.next(1)).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'The resourceVersion for the provided watch is too old.',
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
    await w.ended;
    expect(w.all).toHaveLength(1);
    // The etcd watch stream shared by all watchers survives the canceled watch.
    const after = await watch(`/api/v1/namespaces/compact/secrets?watch=1&resourceVersion=${latest.metadata.resourceVersion}`);
    await new Promise((r) => setTimeout(r, 200));
    await createSecret('compact', 'c');
    expect((await after.next(1)).map(summary)).toEqual([['ADDED', 'c']]);
  });
});

describe('kubectl commands built on watch and paging', () => {
  /** Starts kubectl on the test server's kubeconfig, its output gathered in `io` as it comes. */
  function startKubectl(args: string[]): { child: ChildProcessByStdio<null, Readable, Readable>; io: { out: string; err: string }; exited: Promise<number | null> } {
    const child = spawn('kubectl', ['--kubeconfig', srv.kubeconfig, '--cache-dir', `${srv.dir}/kube-cache`, ...args], {
      env: { ...process.env, HOME: srv.dir, KUBECONFIG: srv.kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const io = { out: '', err: '' };
    child.stdout.on('data', (d: Buffer) => (io.out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (io.err += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    return { child, io, exited };
  }

  test('kubectl get secrets -w prints rows as objects are created and updated', async () => {
    await createSecret('kc', 'first');
    const { child, io, exited } = startKubectl(['-n', 'kc', 'get', 'secrets', '-w']);
    const waitFor = (re: RegExp) => until(() => `kubectl -w output to match ${re}:\n${io.out}\nstderr:\n${io.err}`, () => re.test(io.out), { wakeOn: emitted(child.stdout, 'data') });
    try {
      await waitFor(/^NAME\s+TYPE\s+DATA\s+AGE\nfirst\s+Opaque\s+0\s+\d+s\n/);
      await createSecret('kc', 'second', { data: { a: b64('1') } });
      await waitFor(/\nsecond\s+Opaque\s+1\s+\d+s\n/);
      await mergePatch('/api/v1/namespaces/kc/secrets/second', { data: { b: b64('2') } });
      await waitFor(/\nsecond\s+Opaque\s+2\s+\d+s\n/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(io.err).toBe('');
  });

  test('kubectl delete waits for the deletion (via a watch) and reports it', async () => {
    await createSecret('kc', 'doomed');
    const r = await srv.kubectl(['-n', 'kc', 'delete', 'secret', 'doomed', '--wait=true']);
    expect(r).toMatchObject({ code: 0, stdout: 'secret "doomed" deleted\n', stderr: '' });
    expect((await srv.request('GET', '/api/v1/namespaces/kc/secrets/doomed')).status).toBe(404);
  });

  /**
   * Starts `kubectl -v=6 <args>` and resolves once its log shows its watch answered (so the change
   * the test makes next is one the watch has to deliver); `ended` then says how kubectl ended, its
   * stderr without the -v=6 info lines.
   */
  async function kubectlWatching(args: string[]): Promise<{ ended: Promise<{ code: number | null; stdout: string; stderr: string }> }> {
    const { child, io, exited } = startKubectl(['-v=6', ...args]);
    try {
      await until(() => `kubectl ${args.join(' ')} to open its watch:\n${io.err}`, () => /[?&]watch=true\S* 200 OK/.test(io.err), {
        wakeOn: emitted(child.stderr, 'data'),
        timeoutMs: 30_000,
      });
    } catch (e) {
      child.kill('SIGTERM');
      await exited;
      throw e;
    }
    return { ended: exited.then((code) => ({ code, stdout: io.out, stderr: io.err.split('\n').filter((l) => l && !/^I\d{4} /.test(l)).join('\n') })) };
  }

  test('kubectl wait --for=delete and --for=jsonpath return once the watched change happens', async () => {
    await createSecret('kc', 'gone-soon');
    const waitDelete = await kubectlWatching(['-n', 'kc', 'wait', '--for=delete', 'secret/gone-soon', '--timeout=30s']);
    await del('/api/v1/namespaces/kc/secrets/gone-soon');
    expect(await waitDelete.ended).toEqual({ code: 0, stdout: 'secret/gone-soon condition met\n', stderr: '' });

    await createSecret('kc', 'flag');
    const waitValue = await kubectlWatching(['-n', 'kc', 'wait', '--for=jsonpath={.metadata.labels.ready}=yes', 'secret/flag', '--timeout=30s']);
    await mergePatch('/api/v1/namespaces/kc/secrets/flag', { metadata: { labels: { ready: 'yes' } } });
    expect(await waitValue.ended).toEqual({ code: 0, stdout: 'secret/flag condition met\n', stderr: '' });
  });

  test('kubectl get --chunk-size=2 over 5 objects lists them all', async () => {
    await createNamespace('chunks');
    for (let i = 1; i <= 5; i++) await createSecret('chunks', `c${i}`);
    const r = await srv.kubectl(['-n', 'chunks', 'get', 'secrets', '--chunk-size=2', '-o', 'name']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(['c1', 'c2', 'c3', 'c4', 'c5'].map((n) => `secret/${n}\n`).join(''));
    const t = await srv.kubectl(['-n', 'chunks', 'get', 'secrets', '--chunk-size=2']);
    expect(t.stdout.split('\n').filter(Boolean).map((l) => l.split(/\s+/)[0])).toEqual(['NAME', 'c1', 'c2', 'c3', 'c4', 'c5']);
  });
});
