/**
 * EventRateLimit on running servers, configured as kube-apiserver is (enabled by name, its
 * Configuration embedded in the --admission-control-config-file AdmissionConfiguration), with
 * kubectl creating core/v1 Events from YAML. One server per limit type: Namespace (kube's 429
 * body, updates, events.k8s.io/v1 Events and dry runs not limited, a bucket refilling at its qps),
 * Server (one bucket for all), User (two users by token), SourceAndObject (two involved objects),
 * and a cacheSize of 1 (an evicted bucket comes back full).
 *
 * Buckets refill at qps tokens a second (the smallest qps kube takes is 1), so a test never counts
 * on a refusal at an exact request: kubectl creates a batch of events in one run, a few
 * milliseconds apart, and the test checks that at least the burst passed and that the rest met
 * kube's refusal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bearerTokenAuthenticator, staticTokenAuthenticator } from '../../src/auth/authn/token-file';
import type { TestServer } from '../support/api-server';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-erl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An AdmissionConfiguration file embedding EventRateLimit's Configuration with `limits` (YAML lines). */
function admissionConfig(name: string, limits: string): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: EventRateLimit
  configuration:
    apiVersion: eventratelimit.admission.k8s.io/v1alpha1
    kind: Configuration
    limits:
${limits
  .trim()
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
`,
  );
  return file;
}

const etcd = useTestEtcd();
const withLimits = (name: string, limits: string, extra: Parameters<typeof useTestServer>[0] = {}) =>
  useTestServer({ etcd, admission: { enable: ['EventRateLimit'], configFile: admissionConfig(name, limits) }, ...extra });

interface EventSpec {
  name: string;
  namespace: string;
  /** The involved pod (default web-0). */
  pod?: string;
}

/** A core/v1 Event as YAML, reported by the kubelet on node-1 about a pod. */
const coreEventYaml = ({ name, namespace, pod = 'web-0' }: EventSpec) => `apiVersion: v1
kind: Event
metadata:
  name: ${name}
  namespace: ${namespace}
involvedObject:
  kind: Pod
  namespace: ${namespace}
  name: ${pod}
source:
  component: kubelet
  host: node-1
reason: Started
message: started
type: Normal
`;

/** The same kind of event in the events.k8s.io/v1 form. */
const v1EventYaml = ({ name, namespace, pod = 'web-0' }: EventSpec) => `apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: ${name}
  namespace: ${namespace}
eventTime: "2024-05-01T10:00:00.000000Z"
reportingController: example.com/c
reportingInstance: c-1
action: Act
reason: Acted
regarding:
  kind: Pod
  namespace: ${namespace}
  name: ${pod}
type: Normal
`;

interface Outcome {
  /** The names kubectl reported created, in order. */
  created: string[];
  /** kubectl's error lines, in order. */
  refused: string[];
}

/** `kubectl create -f -` of several documents in one run (extra args: a token, --dry-run…). */
async function kubectlCreate(srv: TestServer, docs: string[], args: string[] = []): Promise<Outcome> {
  const r = await srv.kubectl(['create', '-f', '-', ...args], { input: docs.join('---\n') });
  const created = [...r.stdout.matchAll(/^event(?:\.events\.k8s\.io)?\/(\S+) created/gm)].map((m) => m[1] as string);
  const refused = r.stderr.split('\n').filter((l) => l !== '');
  return { created, refused };
}

const events = (prefix: string, n: number, rest: Omit<EventSpec, 'name'>): EventSpec[] => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, ...rest }));

/** kubectl's line for an event create refused with kube's message. */
const refusal = (type: string, key: string) => `Error from server (TooManyRequests): error when creating "STDIN": Too many requests: limit reached on type ${type} for key ${key}`;

/** Creates `count` events in one kubectl run: at least `burst` pass, the rest are refused with `line`. */
async function expectBurstThenRefusals(srv: TestServer, specs: EventSpec[], burst: number, line: string, args: string[] = []): Promise<Outcome> {
  const out = await kubectlCreate(srv, specs.map(coreEventYaml), args);
  expect(out.created.length).toBeGreaterThanOrEqual(burst);
  // The first `burst` of the batch always pass: the bucket started full.
  expect(out.created.slice(0, burst)).toEqual(specs.slice(0, burst).map((s) => s.name));
  expect(out.refused.length).toBeGreaterThan(0);
  expect(out.created.length + out.refused.length).toBe(specs.length);
  expect(new Set(out.refused)).toEqual(new Set([line]));
  return out;
}

async function createNamespaces(srv: TestServer, ...names: string[]): Promise<void> {
  for (const ns of names) expect((await srv.kubectl(['create', 'namespace', ns])).stderr).toBe('');
}

describe('Namespace limit (burst 3, qps 1)', () => {
  const BURST = 3;
  const { srv } = withLimits('namespace', `- type: Namespace\n  qps: 1\n  burst: ${BURST}`);
  beforeAll(() => createNamespaces(srv, 'erl', 'erl-other'));

  test("past the burst kubectl gets kube's 429; other namespaces, events.k8s.io/v1 Events and dry runs pass; the bucket refills", async () => {
    await expectBurstThenRefusals(srv, events('e', BURST + 5, { namespace: 'erl' }), BURST, refusal('Namespace', 'erl'));

    // kube's Status: TooManyRequests, no details, so no Retry-After.
    const body = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'raw' }, involvedObject: { kind: 'Pod', namespace: 'erl', name: 'web-0' }, reason: 'R', type: 'Normal' };
    const r = await until('a refusal of a direct POST', async () => {
      const res = await srv.request('POST', '/api/v1/namespaces/erl/events', { body: { ...body, metadata: { generateName: 'raw-' } } });
      return res.status === 429 && res;
    });
    expect(r.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests: limit reached on type Namespace for key erl',
      reason: 'TooManyRequests',
      code: 429,
    });
    expect(r.headers['retry-after']).toBeUndefined();

    // Not limited: another namespace's bucket, events.k8s.io/v1 Events (kube judges the core Event
    // kind only), dry runs (nothing is written).
    expect((await kubectlCreate(srv, events('o', BURST, { namespace: 'erl-other' }).map(coreEventYaml))).created).toHaveLength(BURST);
    const v1 = await kubectlCreate(srv, events('n', BURST + 3, { namespace: 'erl' }).map(v1EventYaml));
    expect(v1).toEqual({ created: ['n0', 'n1', 'n2', 'n3', 'n4', 'n5'], refused: [] });
    const dry = await srv.kubectl(['create', '--dry-run=server', '-f', '-'], { input: events('dry', BURST + 3, { namespace: 'erl' }).map(coreEventYaml).join('---\n') });
    expect(dry.stderr).toBe('');
    expect(dry.stdout.split('\n').filter((l) => l !== '')).toEqual(Array.from({ length: BURST + 3 }, (_, i) => `event/dry${i} created (server dry run)`));

    // At one token a second the namespace's bucket gives one back: a create passes again.
    await until('the erl bucket to refill', async () => (await kubectlCreate(srv, [coreEventYaml({ name: 'later', namespace: 'erl' })])).created.length === 1);
  });

  test('updates take a token too; reads and deletes never do', async () => {
    // Drain the bucket, then patch: a refusal comes within a few.
    await kubectlCreate(srv, events('u', BURST + 2, { namespace: 'erl' }).map(coreEventYaml));
    const lines: string[] = [];
    await until('a refused patch', async () => {
      const r = await srv.kubectl(['-n', 'erl', 'patch', 'event', 'e0', '--type=merge', '-p', `{"message":"again ${lines.length}"}`]);
      lines.push(r.stderr.trim());
      return r.code !== 0;
    });
    expect(lines.at(-1)).toBe('Error from server (TooManyRequests): Too many requests: limit reached on type Namespace for key erl');
    expect((await srv.kubectl(['-n', 'erl', 'get', 'event', 'e0', '-o', 'name'])).stdout).toBe('event/e0\n');
    expect((await srv.kubectl(['-n', 'erl', 'delete', 'event', 'e1'])).stdout).toBe('event "e1" deleted\n');
  });
});

describe('Server limit (burst 3): one bucket for every namespace', () => {
  const { srv } = withLimits('server', '- type: Server\n  qps: 1\n  burst: 3');
  beforeAll(() => createNamespaces(srv, 'srv-a', 'srv-b'));

  test('events in two namespaces draw on the same bucket; the key is empty', async () => {
    const specs = [...events('a', 2, { namespace: 'srv-a' }), ...events('b', 5, { namespace: 'srv-b' })];
    const out = await kubectlCreate(srv, specs.map(coreEventYaml));
    expect(out.created.slice(0, 3)).toEqual(['a0', 'a1', 'b0']);
    expect(out.refused.length).toBeGreaterThan(0);
    // kube formats the empty key as nothing after "for key ".
    expect(new Set(out.refused)).toEqual(new Set([refusal('Server', '')]));
  });
});

describe('User limit (burst 3): one bucket per user', () => {
  const users = new Map([
    ['alice-token', { name: 'alice', uid: 'a', groups: ['system:authenticated'] }],
    ['bob-token', { name: 'bob', uid: 'b', groups: ['system:authenticated'] }],
  ]);
  const { srv } = withLimits('user', '- type: User\n  qps: 1\n  burst: 3', { authenticators: [bearerTokenAuthenticator([staticTokenAuthenticator(users)])] });
  beforeAll(() => createNamespaces(srv, 'users'));

  test("alice's events past her burst are refused by her name; bob's bucket is his own", async () => {
    await expectBurstThenRefusals(srv, events('alice', 8, { namespace: 'users' }), 3, refusal('User', 'alice'), ['--token=alice-token']);
    expect((await kubectlCreate(srv, events('bob', 3, { namespace: 'users' }).map(coreEventYaml), ['--token=bob-token'])).created).toEqual(['bob0', 'bob1', 'bob2']);
    // And the test's own admin has a third.
    expect((await kubectlCreate(srv, events('admin', 3, { namespace: 'users' }).map(coreEventYaml))).created).toHaveLength(3);
  });
});

describe('SourceAndObject limit (burst 3): one bucket per source and involved object', () => {
  const { srv } = withLimits('source-and-object', '- type: SourceAndObject\n  qps: 1\n  burst: 3');
  beforeAll(() => createNamespaces(srv, 'objs'));

  test("events about web-0 past the burst are refused with kube's key; events about web-1 are not", async () => {
    // kube's key: source component and host, then the involved object's kind, namespace, name, uid and apiVersion, joined with nothing.
    await expectBurstThenRefusals(srv, events('w0-', 8, { namespace: 'objs', pod: 'web-0' }), 3, refusal('SourceAndObject', 'kubeletnode-1Podobjsweb-0'));
    expect((await kubectlCreate(srv, events('w1-', 3, { namespace: 'objs', pod: 'web-1' }).map(coreEventYaml))).created).toEqual(['w1-0', 'w1-1', 'w1-2']);
  });
});

describe('cacheSize 1 (burst 5): an evicted bucket comes back full', () => {
  const BURST = 5;
  const { srv } = withLimits('eviction', `- type: Namespace\n  qps: 1\n  burst: ${BURST}\n  cacheSize: 1`);
  beforeAll(() => createNamespaces(srv, 'evict-a', 'evict-b'));

  test("another namespace's event evicts the drained bucket: the next batch has a whole burst again", async () => {
    await expectBurstThenRefusals(srv, events('first', BURST + 4, { namespace: 'evict-a' }), BURST, refusal('Namespace', 'evict-a'));
    // One event in evict-b takes the only place in the cache.
    expect((await kubectlCreate(srv, [coreEventYaml({ name: 'b0', namespace: 'evict-b' })])).created).toEqual(['b0']);
    // A bucket refilling at one token a second would give one or two back by now; evict-a's is new and full.
    await expectBurstThenRefusals(srv, events('second', BURST + 4, { namespace: 'evict-a' }), BURST, refusal('Namespace', 'evict-a'));
  });
});
