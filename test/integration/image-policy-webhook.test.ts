/**
 * ImagePolicyWebhook end to end: servers on one etcd started with the plugin enabled through an
 * AdmissionConfiguration file (`configuration` embedded, and `path` to a file of its own), an HTTPS
 * backend with its own CA requiring a client certificate (test/support/image-review-backend.ts),
 * and kubectl creating and changing pods: allowed and denied images with kube's message on
 * stderr, answers cached (counted in backend calls) until their TTL runs out, a backend answering
 * garbage, and a backend that is down with and without defaultAllow. The audit annotations the
 * plugin adds (the backend's, and failed-open) show in the request log line, at -v=2, until an
 * audit event records them. A configuration whose kubeconfig is missing stops the server from
 * starting.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import winston from 'winston';
import { startTestServer, type TestServer } from '../support/api-server';
import { startImageReviewBackend, type ImageReviewBackend, type ReceivedReview, type ReviewAnswer } from '../support/image-review-backend';
import { useTestEtcd } from '../support/server-fixture';
import { until } from '../support/until';

const etcd = useTestEtcd();

let dir: string;
let backend: ImageReviewBackend;
/** defaultAllow false, on the live backend; allowed answers cached 50 s, denied ones 1 s. */
let srv: TestServer;
/** On a backend that is down: defaultAllow true, and false. */
let openSrv: TestServer;
let closedSrv: TestServer;

/** The backend's policy: `evil/` images denied, `garbage/` answered with garbage, the rest allowed. */
function policy(review: ReceivedReview): ReviewAnswer {
  const images = (review.spec.containers ?? []).map((c) => c.image ?? '');
  if (images.some((i) => i.startsWith('garbage/'))) return { code: 200, body: 'this is not a review', contentType: 'text/plain' };
  if (images.some((i) => i.startsWith('evil/'))) return { status: { allowed: false, reason: 'evil images are not allowed' } };
  return { status: { allowed: true, auditAnnotations: { checked: 'yes' } } };
}

/** An AdmissionConfiguration embedding the plugin's configuration. */
const embedded = (fields: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ImagePolicyWebhook
  configuration:
    imagePolicy:
${fields
  .trim()
  .split('\n')
  .map((l) => `      ${l.trim()}`)
  .join('\n')}
`;

/** The request lines (-v=2) the servers logged, each with the server it came from. */
const requestLines: Array<{ server: string; path: string; code: number; auditAnnotations?: Record<string, string> }> = [];

/** A logger at -v=2 that keeps the request lines, tagged with `server`. */
function requestLog(server: string): winston.Logger {
  const stream = new Writable({
    objectMode: true,
    write(info: Record<string, unknown>, _enc, done) {
      if (info.message === 'request') requestLines.push({ server, ...(info as { path: string; code: number; auditAnnotations?: Record<string, string> }) });
      done();
    },
  });
  return winston.createLogger({ level: 'http', transports: [new winston.transports.Stream({ stream })] });
}

async function startWith(configFile: string, logger?: winston.Logger): Promise<TestServer> {
  return startTestServer({ etcdEndpoints: etcd.endpoints, admission: { enable: ['ImagePolicyWebhook'], configFile }, ...(logger ? { logger } : {}) });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-image-policy-it-'));
  backend = await startImageReviewBackend(path.join(dir, 'backend'), policy);

  const live = path.join(dir, 'admission-live.yaml');
  await writeFile(live, embedded(`kubeConfigFile: ${backend.kubeconfig}\nallowTTL: 50\ndenyTTL: 1\nretryBackoff: 500\ndefaultAllow: false`));
  // The other form: the AdmissionConfiguration points at the plugin's own file.
  await writeFile(path.join(dir, 'image-policy-open.yaml'), `imagePolicy:\n  kubeConfigFile: ${backend.deadKubeconfig}\n  retryBackoff: -1\n  defaultAllow: true\n`);
  const open = path.join(dir, 'admission-open.yaml');
  await writeFile(open, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: image-policy-open.yaml\n');
  const closed = path.join(dir, 'admission-closed.yaml');
  await writeFile(closed, embedded(`kubeConfigFile: ${backend.deadKubeconfig}\nretryBackoff: -1`));

  [srv, openSrv, closedSrv] = await Promise.all([startWith(live, requestLog('live')), startWith(open, requestLog('open')), startWith(closed)]);
});

afterAll(async () => {
  await Promise.all([srv, openSrv, closedSrv].map((s) => s?.stop()));
  await backend?.close();
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function namespace(s: TestServer): Promise<string> {
  const ns = `image-policy-${process.pid}-${++n}`;
  expect((await s.kubectl(['create', 'namespace', ns])).stderr).toBe('');
  return ns;
}

const reviewsIn = (ns: string) => backend.calls.filter((c) => c.review.spec.namespace === ns);

describe('a live backend, defaultAllow false', () => {
  test('an allowed image: the pod is created; the backend saw an ImageReview of its images and namespace', async () => {
    const ns = await namespace(srv);
    const r = await srv.kubectl(['-n', ns, 'run', 'web', '--image=registry.example/web:1']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('pod/web created\n');
    const calls = reviewsIn(ns);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.review).toEqual({
      kind: 'ImageReview',
      apiVersion: 'imagepolicy.k8s.io/v1alpha1',
      metadata: { creationTimestamp: null },
      spec: { containers: [{ image: 'registry.example/web:1' }], namespace: ns },
      status: { allowed: false },
    });
    expect(calls[0]!.url).toBe('/review?timeout=30s');
    expect(calls[0]!.clientCN).toBe('admin');
    expect(calls[0]!.headers['user-agent']).toMatch(/^kube-apiserver\/v1\.32\.\d+ \(linux\/amd64\) kubernetes\/[0-9a-f]{7}$/);
  });

  test("a denied image: kube's Forbidden on kubectl's stderr, no pod", async () => {
    const ns = await namespace(srv);
    const r = await srv.kubectl(['-n', ns, 'run', 'miner', '--image=evil/miner']);
    expect(r.stderr).toBe('Error from server (Forbidden): pods "miner" is forbidden: image policy webhook backend denied one or more images: evil images are not allowed\n');
    expect(r.code).not.toBe(0);
    expect((await srv.kubectl(['-n', ns, 'get', 'pod', 'miner'])).stderr).toBe('Error from server (NotFound): pods "miner" not found\n');
  });

  test('an init container is reviewed too', async () => {
    const ns = await namespace(srv);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sneaky', namespace: ns },
      spec: { containers: [{ name: 'app', image: 'good/app' }], initContainers: [{ name: 'init', image: 'evil/init' }] },
    };
    const r = await srv.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod) });
    expect(r.stderr).toBe('Error from server (Forbidden): error when creating "STDIN": pods "sneaky" is forbidden: image policy webhook backend denied one or more images: evil images are not allowed\n');
    expect(reviewsIn(ns).map((c) => c.review.spec.containers)).toEqual([[{ image: 'good/app' }, { image: 'evil/init' }]]);
  });

  test('answers are cached: allowed for allowTTL (creates and updates of the same spec), denied until denyTTL runs out', async () => {
    const ns = await namespace(srv);
    expect((await srv.kubectl(['-n', ns, 'run', 'a', '--image=good/cached'])).stderr).toBe('');
    expect((await srv.kubectl(['-n', ns, 'run', 'b', '--image=good/cached'])).stderr).toBe('');
    // An update whose spec is the same (labels are not part of it).
    expect((await srv.kubectl(['-n', ns, 'label', 'pod', 'a', 'tier=front'])).stderr).toBe('');
    expect(reviewsIn(ns)).toHaveLength(1);

    // An image-policy annotation is part of the spec: a new review, carrying it.
    expect((await srv.kubectl(['-n', ns, 'annotate', 'pod', 'a', 'mycluster.image-policy.k8s.io/ticket=1234', 'other=ignored'])).stderr).toBe('');
    expect(reviewsIn(ns)).toHaveLength(2);
    expect(reviewsIn(ns)[1]!.review.spec).toEqual({ containers: [{ image: 'good/cached' }], annotations: { 'mycluster.image-policy.k8s.io/ticket': '1234' }, namespace: ns });

    // Denials: cached for denyTTL (1 s), asked again once it has run out.
    const deny = await srv.kubectl(['-n', ns, 'run', 'x', '--image=evil/cached']);
    expect(deny.stderr).toMatch(/pods "x" is forbidden: image policy webhook backend denied/);
    const again = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'y' }, spec: { containers: [{ name: 'c', image: 'evil/cached' }] } },
    });
    expect(again.status).toBe(403);
    expect(again.json()).toMatchObject({ reason: 'Forbidden', message: 'pods "y" is forbidden: image policy webhook backend denied one or more images: evil images are not allowed', details: { name: 'y', kind: 'pods' } });
    expect(reviewsIn(ns)).toHaveLength(3);
    await until(
      'the cached denial to expire',
      async () => {
        const r = await srv.kubectl(['-n', ns, 'run', 'x', '--image=evil/cached']);
        expect(r.stderr).toMatch(/is forbidden/);
        return reviewsIn(ns).length === 4;
      },
      { timeoutMs: 15_000 },
    );
  });

  test('a backend answering garbage: a failed call, denied with the decoder\'s error', async () => {
    const ns = await namespace(srv);
    const r = await srv.kubectl(['-n', ns, 'run', 'g', '--image=garbage/x']);
    expect(r.stderr).toBe(
      'Error from server (Forbidden): pods "g" is forbidden: couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }\n',
    );
  });

  test("the backend's audit annotations, under the plugin's prefix, in the request's log line", async () => {
    const ns = await namespace(srv);
    expect((await srv.kubectl(['-n', ns, 'run', 'audited', '--image=good/audited'])).stderr).toBe('');
    const line = await until('the create in the request log', () => requestLines.find((l) => l.server === 'live' && l.path.startsWith(`/api/v1/namespaces/${ns}/pods`)));
    expect(line).toMatchObject({ code: 201, auditAnnotations: { 'imagepolicywebhook.image-policy.k8s.io/checked': 'yes' } });
    // Requests the plugin did not judge have none.
    const list = await until('the namespace create in the request log', () => requestLines.find((l) => l.server === 'live' && l.path.split('?')[0] === '/api/v1/namespaces' && l.code === 201));
    expect(list.auditAnnotations).toBeUndefined();
  });

  test('other resources are not reviewed', async () => {
    const ns = await namespace(srv);
    const before = backend.calls.length;
    expect((await srv.kubectl(['-n', ns, 'create', 'configmap', 'evil', '--from-literal=image=evil/x'])).stderr).toBe('');
    expect(backend.calls.length).toBe(before);
  });
});

describe('a backend that is down', () => {
  test('defaultAllow true: the pod is created', async () => {
    const ns = await namespace(openSrv);
    const r = await openSrv.kubectl(['-n', ns, 'run', 'web', '--image=evil/anything']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('pod/web created\n');
    const pod = JSON.parse((await openSrv.kubectl(['-n', ns, 'get', 'pod', 'web', '-o', 'json'])).stdout) as { metadata: { annotations?: Record<string, string> } };
    // kube's old failed-open pod annotation is written on a copy it never stores.
    expect(pod.metadata.annotations).toBeUndefined();
    // The request's audit annotation says so.
    const line = await until('the create in the request log', () => requestLines.find((l) => l.server === 'open' && l.path.startsWith(`/api/v1/namespaces/${ns}/pods`) && l.code === 201));
    expect(line.auditAnnotations).toEqual({ 'imagepolicywebhook.image-policy.k8s.io/failed-open': 'true' });
  });

  test("defaultAllow false: denied with client-go's dial error", async () => {
    const ns = await namespace(closedSrv);
    const r = await closedSrv.kubectl(['-n', ns, 'run', 'web', '--image=good/app']);
    expect(r.stderr).toMatch(
      /^Error from server \(Forbidden\): pods "web" is forbidden: Post "https:\/\/127\.0\.0\.1:(\d+)\/review\?timeout=30s": dial tcp 127\.0\.0\.1:\1: connect: connection refused\n$/,
    );
  });
});

test('a configuration whose kubeconfig is missing: the server does not start', async () => {
  const file = path.join(dir, 'admission-broken.yaml');
  const missing = path.join(dir, 'nowhere.kubeconfig');
  await writeFile(file, embedded(`kubeConfigFile: ${missing}`));
  await expect(startWith(file)).rejects.toThrow(`couldn't init admission plugin "ImagePolicyWebhook": open ${missing}: no such file or directory`);
  const none = path.join(dir, 'admission-none.yaml');
  await writeFile(none, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n');
  await expect(startWith(none)).rejects.toThrow('couldn\'t init admission plugin "ImagePolicyWebhook": no config specified');
});
