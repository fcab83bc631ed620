/**
 * EventRateLimit on a running server, configured as kube-apiserver is: enabled by name, its
 * Configuration embedded in the --admission-control-config-file AdmissionConfiguration. Core/v1
 * Events past the burst get kube's 429; events.k8s.io Events, dry runs and other namespaces do not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useTestServer } from '../support/server-fixture';
import { namespace } from '../support/factories';

const BURST = 3;
const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-erl-'));
const configFile = path.join(dir, 'admission.yaml');
writeFileSync(
  configFile,
  `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: EventRateLimit
  configuration:
    apiVersion: eventratelimit.admission.k8s.io/v1alpha1
    kind: Configuration
    limits:
    - type: Namespace
      qps: 1
      burst: ${BURST}
`,
);

const { srv } = useTestServer({ admission: { enable: ['EventRateLimit'], configFile } });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const coreEvent = (name: string, ns: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: ns, name: 'web-0' },
  reason: 'Started',
  message: 'started',
  type: 'Normal',
});

const v1Event = (name: string, ns: string) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-05-01T10:00:00.000000Z',
  reportingController: 'example.com/c',
  reportingInstance: 'c-1',
  action: 'Act',
  reason: 'Acted',
  regarding: { kind: 'Pod', namespace: ns, name: 'web-0' },
  type: 'Normal',
});

beforeAll(async () => {
  for (const ns of ['erl', 'erl-other']) expect((await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) })).status).toBe(201);
});

test("core Events past the namespace's burst get kube's 429; events.k8s.io Events, dry runs and other namespaces pass", async () => {
  // The bucket starts full: the burst passes.
  for (let i = 0; i < BURST; i++) {
    expect((await srv.request('POST', '/api/v1/namespaces/erl/events', { body: coreEvent(`e${i}`, 'erl') })).status).toBe(201);
  }
  // One token a second comes back: a refusal follows within a few quick requests.
  let refused: Awaited<ReturnType<typeof srv.request>> | undefined;
  for (let i = BURST; i < BURST + 10 && !refused; i++) {
    const r = await srv.request('POST', '/api/v1/namespaces/erl/events', { body: coreEvent(`e${i}`, 'erl') });
    if (r.status === 429) refused = r;
    else expect(r.status).toBe(201);
  }
  expect(refused?.json()).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Too many requests: limit reached on type Namespace for key erl',
    reason: 'TooManyRequests',
    code: 429,
  });
  expect(refused?.headers['retry-after']).toBeUndefined();

  // Updates are judged too: the bucket is about empty, so a refusal comes within a few.
  const statuses: number[] = [];
  for (let i = 0; i < 10 && !statuses.includes(429); i++) {
    const body = { message: `again ${i}` };
    statuses.push((await srv.request('PATCH', '/api/v1/namespaces/erl/events/e0', { body, headers: { 'content-type': 'application/merge-patch+json' } })).status);
  }
  expect(statuses).toContain(429);
  expect(statuses.filter((s) => s !== 429 && s !== 200)).toEqual([]);

  // Not limited: events.k8s.io Events (the same objects, another group), dry runs, another namespace.
  for (let i = 0; i < BURST + 2; i++) {
    expect((await srv.request('POST', '/apis/events.k8s.io/v1/namespaces/erl/events', { body: v1Event(`n${i}`, 'erl') })).status).toBe(201);
  }
  expect((await srv.request('POST', '/api/v1/namespaces/erl/events?dryRun=All', { body: coreEvent('dry', 'erl') })).status).toBe(201);
  expect((await srv.request('POST', '/api/v1/namespaces/erl-other/events', { body: coreEvent('o1', 'erl-other') })).status).toBe(201);
  // Reads and deletes are never limited.
  expect((await srv.request('GET', '/api/v1/namespaces/erl/events/e0')).status).toBe(200);
  expect((await srv.request('DELETE', '/api/v1/namespaces/erl/events/e0')).status).toBe(200);
});
