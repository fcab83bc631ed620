/**
 * --request-timeout on the real server (server/filters/timeout.ts): with etcd paused (SIGSTOP), a
 * quorum read cannot finish, so the deadline is what answers — kube's 504 exactly as its timeout
 * writer sends it, over HTTP/1.1 and HTTP/2; a watch open across the deadline keeps streaming;
 * `?timeout=bogus` is kube's 400 before authentication; the server serves on afterwards (kubectl,
 * whose --request-timeout travels as `?timeout=`, included).
 */
import https from 'node:https';
import { useTestServer } from '../support/server-fixture';
import { withEtcdPaused as pauseEtcd } from '../support/etcd-pause';
import { connectH2 } from '../support/h2-client';
import { expectStatus, failure } from '../support/kube-status';
import { configMap } from '../support/factories';

// Long enough that no request in this file meets the deadline by being slow on a loaded machine
// (every non-long-running request here is bounded by it, kubectl's included): only a request held
// up by the paused etcd does. (The etcd call is bounded by this same deadline, as in kube: see
// etcd-call-context.test.ts for deadlines past 5 s.)
const REQUEST_TIMEOUT_MS = 2500;
const kubeTimeout = '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n';
const cms = '/api/v1/namespaces/default/configmaps';

const { srv, etcd } = useTestServer({ requestTimeoutMs: REQUEST_TIMEOUT_MS });

/** Runs `fn` with this file's etcd stopped (SIGSTOP), always continuing it afterwards. */
const withEtcdPaused = <T>(fn: () => Promise<T>): Promise<T> => pauseEtcd(etcd, fn);

test("a request still waiting on etcd at the deadline gets kube's 504 (HTTP/1.1 and HTTP/2), and the server serves on", async () => {
  const h2 = await connectH2(srv.url, srv.caCert, srv.token);
  try {
    const [r1, r2] = await withEtcdPaused(async () => {
      const started = Date.now();
      // No resourceVersion: a quorum read, which goes to etcd.
      const answers = await Promise.all([srv.request('GET', `${cms}/missing`), h2.request('GET', `${cms}/missing`)]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 5);
      return answers;
    });
    for (const r of [r1, r2]) {
      expect(r.status).toBe(504);
      expect(r.text).toBe(kubeTimeout);
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.headers['audit-id']).toEqual(expect.any(String));
    }
    // Once etcd answers, the timed-out handlers finish into no-ops; the same connections serve on.
    expect((await h2.request('GET', `${cms}/missing`)).status).toBe(404);
    expect((await srv.request('GET', cms)).status).toBe(200);
  } finally {
    await h2.close();
  }
  const k = await srv.kubectl(['get', 'configmaps', '-n', 'default', '--request-timeout=20s']);
  expect(k.code).toBe(0);
});

test("?timeout= shorter than --request-timeout ends the request sooner; kubectl's --request-timeout is such a ?timeout=", async () => {
  // Order, not elapsed time: sent together, the request with ?timeout=200ms is answered while the one
  // bound by --request-timeout (2.5 s) still waits (2.3 s apart, more than load can shift them).
  const done: string[] = [];
  const [r, plain] = await withEtcdPaused(() =>
    Promise.all([
      srv.request('GET', `${cms}/missing?timeout=200ms`).then((x) => (done.push('?timeout=200ms'), x)),
      srv.request('GET', `${cms}/missing`).then((x) => (done.push('--request-timeout'), x)),
    ]),
  );
  expect(done).toEqual(['?timeout=200ms', '--request-timeout']);
  for (const x of [r, plain]) {
    expect(x.status).toBe(504);
    expect(x.text).toBe(kubeTimeout);
  }
  const k = await withEtcdPaused(() => srv.kubectl(['get', 'configmap', 'missing', '-n', 'default', '--request-timeout=30s']));
  // kubectl's own deadline is longer than the server's: the server's 504 is what it reports.
  expect(k.code).not.toBe(0);
  expect(k.stderr).toBe('Error from server (Timeout): the server was unable to return a response in the time allotted, but may still be processing the request (get configmaps missing)\n');
});

test("?timeout=bogus is kube's 400, answered before authentication", async () => {
  const message = 'invalid timeout specified in the request URL - time: invalid duration "bogus"';
  expectStatus(await srv.request('GET', `${cms}?timeout=bogus`), failure(400, 'BadRequest', message));
  expectStatus(await srv.request('GET', `${cms}?timeout=bogus`, { token: null }), failure(400, 'BadRequest', message));
  expectStatus(await srv.request('GET', `${cms}?timeout=10`, { token: 'wrong' }), failure(400, 'BadRequest', 'invalid timeout specified in the request URL - time: missing unit in duration "10"'));
});

test('a watch open across the deadline is not cut, and its ?timeout= is its own', async () => {
  const rv = (await srv.request('GET', cms)).json().metadata.resourceVersion as string;
  const events: Array<{ type: string; object: { metadata: { name: string } } }> = [];
  let onEvent: () => void = () => undefined;
  const req = https.request(`${srv.url}${cms}?watch=true&resourceVersion=${rv}&timeout=bogus`, {
    headers: { authorization: `Bearer ${srv.token}` },
    ca: srv.caCert,
  });
  try {
    const status = await new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buf.slice(0, nl)));
            buf = buf.slice(nl + 1);
            onEvent();
          }
        });
        res.on('error', () => undefined);
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    // A request that times out after the watch started: the watch has now lived past the deadline.
    const timedOut = await withEtcdPaused(() => srv.request('GET', `${cms}/missing`));
    expect(timedOut.status).toBe(504);
    const added = new Promise<void>((resolve) => {
      onEvent = () => {
        if (events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'after-deadline')) resolve();
      };
    });
    const created = await srv.request('POST', cms, { body: configMap('after-deadline') });
    expect(created.status).toBe(201);
    await added;
  } finally {
    req.destroy();
  }
});
