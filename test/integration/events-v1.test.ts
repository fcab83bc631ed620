/**
 * events.k8s.io/v1 Events are core/v1 Events in another shape (one etcd key each): an event written
 * through one API is read, listed, watched, patched and deleted through the other, with kube's
 * conversion, validation, field selectors, table and protobuf; kubectl and client-node agree.
 */
import { useTestServer } from '../support/server-fixture';
import { openWatch } from '../support/watch-stream';
import { namespace } from '../support/factories';
import { PROTOBUF, protobufWire, rawRequest } from '../support/protobuf-wire';
import { hasSharedItems } from '../../src/api';
import { eventsV1 } from '../../src/registry/resources/events/events';
import { storedVersionStorage } from '../../src/registry/stored-version';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

const { srv } = useTestServer();
const ns = 'evns';
const core = `/api/v1/namespaces/${ns}/events`;
const v1 = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
const mergePatch = { 'content-type': 'application/merge-patch+json' };

beforeAll(async () => {
  expect((await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) })).status).toBe(201);
});

/** A core/v1 event as kubectl's recorder writes one (old style: no eventTime). */
const coreEvent = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: ns, name: 'web-0', uid: 'u-1', apiVersion: 'v1' },
  reason: 'Started',
  message: 'Started container web',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:05:00Z',
  count: 3,
  type: 'Normal',
  ...extra,
});

/** An events.k8s.io/v1 event as client-go's new recorder writes one. */
const v1Event = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-05-01T10:00:00.123456Z',
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-7f9',
  action: 'Scale',
  reason: 'ScaledUp',
  regarding: { kind: 'Deployment', namespace: ns, name: 'web', apiVersion: 'apps/v1' },
  note: 'Scaled up to 3 replicas',
  type: 'Normal',
  ...extra,
});

test('a core event read through events.k8s.io/v1: renamed fields, kube zero values, one etcd key', async () => {
  expect((await srv.request('POST', core, { body: coreEvent('c1') })).status).toBe(201);
  const r = await srv.request('GET', `${v1}/c1`);
  expect(r.status).toBe(200);
  const { metadata, ...rest } = r.json();
  expect(metadata).toMatchObject({ name: 'c1', namespace: ns });
  expect(rest).toEqual({
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    eventTime: null,
    reason: 'Started',
    regarding: { kind: 'Pod', namespace: ns, name: 'web-0', uid: 'u-1', apiVersion: 'v1' },
    note: 'Started container web',
    type: 'Normal',
    deprecatedSource: { component: 'kubelet', host: 'node-1' },
    deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
    deprecatedLastTimestamp: '2024-05-01T10:05:00Z',
    deprecatedCount: 3,
  });
  // Field order is kube's Go struct order.
  expect(Object.keys(r.json())).toEqual([
    'kind', 'apiVersion', 'metadata', 'eventTime', 'reason', 'regarding', 'note', 'type',
    'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount',
  ]);
  const keys = await srv.etcdStore.etcd.getAll().prefix(`${srv.prefix}/`).keys();
  expect(keys.filter((k) => k.includes('/c1'))).toEqual([`${srv.prefix}/events/${ns}/c1`]);
  // The list holds it too, in the list's own kind.
  const list = (await srv.request('GET', v1)).json();
  expect(list).toMatchObject({ kind: 'EventList', apiVersion: 'events.k8s.io/v1' });
  expect(list.items.find((i: any) => i.metadata.name === 'c1')).toMatchObject({ note: 'Started container web' });
});

test('an events.k8s.io/v1 event read through core/v1: stored as a core event with its TTL lease', async () => {
  const created = await srv.request('POST', v1, { body: v1Event('n1') });
  expect(created.status).toBe(201);
  expect(created.json()).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'Scaled up to 3 replicas', deprecatedSource: {}, deprecatedFirstTimestamp: null });
  const r = await srv.request('GET', `${core}/n1`);
  expect(r.status).toBe(200);
  const { metadata, ...rest } = r.json();
  expect(metadata.resourceVersion).toBe(created.json().metadata.resourceVersion);
  expect(rest).toEqual({
    kind: 'Event',
    apiVersion: 'v1',
    involvedObject: { kind: 'Deployment', namespace: ns, name: 'web', apiVersion: 'apps/v1' },
    reason: 'ScaledUp',
    message: 'Scaled up to 3 replicas',
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    type: 'Normal',
    eventTime: '2024-05-01T10:00:00.123456Z',
    action: 'Scale',
    reportingComponent: 'example.com/controller',
    reportingInstance: 'controller-7f9',
  });
  const kv = await srv.etcdStore.etcd.kv.range({ key: Buffer.from(`${srv.prefix}/events/${ns}/n1`) });
  expect(JSON.parse(kv.kvs[0]!.value.toString()).apiVersion).toBe('v1');
  expect(kv.kvs[0]!.lease).not.toBe('0');
});

test('kubectl get events.v1.events.k8s.io shows core events with the event columns', async () => {
  expect((await srv.request('POST', core, { body: coreEvent('k1', { message: 'pulled image' }) })).status).toBe(201);
  const r = await srv.kubectl(['-n', ns, 'get', 'events.v1.events.k8s.io', '--field-selector', 'regarding.name=web-0']);
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
  expect(lines.some((l) => /\sNormal\s+Started\s+pod\/web-0\s+pulled image$/.test(l))).toBe(true);
  const name = await srv.kubectl(['-n', ns, 'get', 'events.events.k8s.io', 'n1', '-o', 'jsonpath={.note}|{.regarding.name}|{.reportingController}']);
  expect(name).toMatchObject({ code: 0, stdout: 'Scaled up to 3 replicas|web|example.com/controller' });
});

test("field selectors use each version's labels; core's labels are refused by events.k8s.io", async () => {
  const names = async (path: string) => (await srv.request('GET', path)).json().items.map((i: any) => i.metadata.name).sort();
  expect(await names(`${v1}?fieldSelector=regarding.kind%3DDeployment`)).toEqual(['n1']);
  expect(await names(`${v1}?fieldSelector=reportingController%3Dexample.com%2Fcontroller`)).toEqual(['n1']);
  expect(await names(`${core}?fieldSelector=reportingComponent%3Dexample.com%2Fcontroller`)).toEqual(['n1']);
  const bad = await srv.request('GET', `${v1}?fieldSelector=involvedObject.name%3Dweb`);
  expect(bad.status).toBe(400);
  expect(bad.json()).toMatchObject({ reason: 'BadRequest', message: 'field label not supported: involvedObject.name' });
});

test('patches through either API; events.k8s.io keeps the strict update rules (kube\'s messages, core field names)', async () => {
  expect((await srv.request('POST', core, { body: coreEvent('p1') })).status).toBe(201);
  // core/v1 may change the message (legacy rules) ...
  const viaCore = await srv.request('PATCH', `${core}/p1`, { body: { message: 'changed', count: 4 }, headers: mergePatch });
  expect(viaCore.status).toBe(200);
  expect((await srv.request('GET', `${v1}/p1`)).json()).toMatchObject({ note: 'changed', deprecatedCount: 4 });
  // ... events.k8s.io/v1 may not: kube validates the internal (core) type, so the path is `message`.
  const viaV1 = await srv.request('PATCH', `${v1}/p1`, { body: { note: 'again', deprecatedCount: 5 }, headers: mergePatch });
  expect(viaV1.status).toBe(422);
  expect(viaV1.json()).toMatchObject({
    reason: 'Invalid',
    message: 'Event "p1" is invalid: [message: Invalid value: "again": field is immutable, count: Invalid value: 5: field is immutable]',
    details: { name: 'p1', kind: 'Event' },
  });
  expect(viaV1.json().details.group).toBeUndefined();
  // Labels may change through events.k8s.io, and the core view sees them.
  const labelled = await srv.request('PATCH', `${v1}/p1`, { body: { metadata: { labels: { seen: 'yes' } } }, headers: mergePatch });
  expect(labelled.status).toBe(200);
  expect((await srv.request('GET', `${core}/p1`)).json()).toMatchObject({ metadata: { labels: { seen: 'yes' } }, message: 'changed' });
  // A series update of an events.k8s.io event, as the new recorder sends one.
  const series = await srv.request('PATCH', `${v1}/n1`, { body: { series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.000000Z' } }, headers: mergePatch });
  expect(series.status).toBe(200);
  expect((await srv.request('GET', `${core}/n1`)).json().series).toEqual({ count: 2, lastObservedTime: '2024-05-01T10:01:00.000000Z' });
  const badSeries = await srv.request('PATCH', `${v1}/n1`, { body: { series: { count: 1, lastObservedTime: null } }, headers: mergePatch });
  expect(badSeries.json().message).toBe('Event "n1" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value]');
});

test('a PUT through events.k8s.io of what it read writes nothing (same resourceVersion)', async () => {
  expect((await srv.request('POST', core, { body: coreEvent('same') })).status).toBe(201);
  const read = (await srv.request('GET', `${v1}/same`)).json();
  const put = await srv.request('PUT', `${v1}/same`, { body: read });
  expect(put.status).toBe(200);
  expect(put.json().metadata.resourceVersion).toBe(read.metadata.resourceVersion);
});

test('create validation for events.k8s.io/v1: kube\'s strict rules and messages', async () => {
  const missing = await srv.request('POST', v1, { body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bad' }, type: 'Odd' } });
  expect(missing.status).toBe(422);
  expect(missing.json().message).toBe(
    'Event "bad" is invalid: [involvedObject.namespace: Invalid value: "": does not match event.namespace, eventTime: Required value, type: Invalid value: "": has invalid value: Odd]',
  );
  const fields = await srv.request('POST', v1, {
    body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bad' }, eventTime: '2024-05-01T10:00:00.000000Z', regarding: { namespace: ns }, type: 'Normal' },
  });
  expect(fields.status).toBe(422);
  expect(fields.json().message).toBe(
    'Event "bad" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, ' +
      'reportingController: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character ' +
      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), " +
      'reportingInstance: Required value, action: Required value, reason: Required value]',
  );
  const deprecated = await srv.request('POST', v1, { body: v1Event('bad', { deprecatedCount: 2, deprecatedSource: { component: 'x' }, deprecatedLastTimestamp: '2024-05-01T10:00:00Z' }) });
  expect(deprecated.json().message).toBe(
    'Event "bad" is invalid: [lastTimestamp: Invalid value: "": needs to be unset, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]',
  );
  expect((await srv.request('GET', `${core}/bad`)).status).toBe(404);
});

test('watches: each API sees the other\'s writes in its own shape, deletes included', async () => {
  const rv = (await srv.request('GET', v1)).json().metadata.resourceVersion;
  const v1Watch = await openWatch(srv, `${v1}?watch=1&resourceVersion=${rv}`);
  const coreWatch = await openWatch(srv, `${core}?watch=1&resourceVersion=${rv}`);
  try {
    expect((await srv.request('POST', core, { body: coreEvent('w1') })).status).toBe(201);
    expect((await srv.request('POST', v1, { body: v1Event('w2') })).status).toBe(201);
    expect((await srv.request('PATCH', `${core}/w1`, { body: { count: 9 }, headers: mergePatch })).status).toBe(200);
    const deleted = await srv.request('DELETE', `${v1}/w1`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'w1', group: 'events.k8s.io', kind: 'events' } });
    expect((await srv.request('DELETE', `${core}/w2`)).status).toBe(200);

    const seen = await v1Watch.next(5);
    expect(seen.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion])).toEqual([
      ['ADDED', 'w1', 'events.k8s.io/v1'],
      ['ADDED', 'w2', 'events.k8s.io/v1'],
      ['MODIFIED', 'w1', 'events.k8s.io/v1'],
      ['DELETED', 'w1', 'events.k8s.io/v1'],
      ['DELETED', 'w2', 'events.k8s.io/v1'],
    ]);
    expect(seen[2]!.object.deprecatedCount).toBe(9);
    const coreSeen = await coreWatch.next(5);
    expect(coreSeen.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion])).toEqual([
      ['ADDED', 'w1', 'v1'],
      ['ADDED', 'w2', 'v1'],
      ['MODIFIED', 'w1', 'v1'],
      ['DELETED', 'w1', 'v1'],
      ['DELETED', 'w2', 'v1'],
    ]);
    expect(coreSeen[1]!.object).toMatchObject({ message: 'Scaled up to 3 replicas', reportingComponent: 'example.com/controller' });
  } finally {
    v1Watch.close();
    coreWatch.close();
  }
  expect((await srv.request('GET', `${core}/w1`)).status).toBe(404);
  // kube's NotFound names the resource the request used.
  expect((await srv.request('GET', `${v1}/w1`)).json().message).toBe('events.events.k8s.io "w1" not found');
});

test('a PUT through events.k8s.io creates (kube: events allow create on update)', async () => {
  const r = await srv.request('PUT', `${v1}/u1`, { body: v1Event('u1') });
  expect(r.status).toBe(201);
  expect((await srv.request('GET', `${core}/u1`)).json().message).toBe('Scaled up to 3 replicas');
});

test("core/v1 events: kube's legacy validation, path-segment names, create on PUT, the source selector's fallback", async () => {
  // An old-style event about an object of no namespace belongs in default (or none), not here.
  const node = await srv.request('POST', core, { body: coreEvent('node-ev', { involvedObject: { kind: 'Node', name: 'node-1' } }) });
  expect(node.status).toBe(422);
  expect(node.json().message).toBe('Event "node-ev" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace');
  // A new-style event (eventTime set) through core/v1 needs the reporting fields, named as core names them.
  const fresh = await srv.request('POST', core, {
    body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'fresh' }, involvedObject: { kind: 'Pod', namespace: ns, name: 'web-0' }, eventTime: '2024-05-01T10:00:00.000000Z' },
  });
  expect(fresh.status).toBe(422);
  expect(fresh.json().message).toMatch(/^Event "fresh" is invalid: \[reportingComponent: Required value, reportingComponent: Invalid value: "": name part must be non-empty, .*, reportingInstance: Required value, action: Required value, reason: Required value\]$/);
  // core/v1 names pass kube's path-segment rule only (events about RBAC objects carry colons); events.k8s.io/v1 wants a subdomain.
  expect((await srv.request('POST', core, { body: coreEvent('system:node:n1.17a8b') })).status).toBe(201);
  const strict = await srv.request('POST', v1, { body: v1Event('system:x.1') });
  expect(strict.status).toBe(422);
  expect(strict.json().message).toMatch(/^Event "system:x.1" is invalid: metadata.name: Invalid value: "system:x.1": a lowercase RFC 1123 subdomain/);
  // A PUT of a missing core event creates it.
  expect((await srv.request('PUT', `${core}/put-created`, { body: coreEvent('put-created') })).status).toBe(201);
  // `source` is the source component, or the reporting controller when there is none.
  expect((await srv.request('POST', v1, { body: v1Event('fallback', { reportingController: 'example.com/fallback' }) })).status).toBe(201);
  const names = async (selector: string) => (await srv.request('GET', `${core}?fieldSelector=${encodeURIComponent(selector)}`)).json().items.map((i: any) => i.metadata.name);
  expect(await names('source=example.com/fallback')).toEqual(['fallback']);
  expect(await names('source=kubelet')).toContain('put-created');
});

test('the stored-version storage: one served form per stored object, shared list items, an update made in place written', async () => {
  const created = (await srv.request('POST', core, { body: coreEvent('once') })).json();
  const key = `${srv.prefix}/events/${ns}/once`;
  const cached = storedVersionStorage(srv.storage, eventsV1.storedAs!);
  const at = { consistency: { kind: 'notOlderThan', revision: BigInt(created.metadata.resourceVersion) } } as const;
  const served = await cached.get(key, at);
  expect(await cached.get(key, at)).toBe(served);
  const list = await cached.list(`${srv.prefix}/events/${ns}/`, { ...at, limit: 0, hasSelector: false });
  expect(hasSharedItems(list.items)).toBe(true);
  expect(list.items.find((o) => o.metadata.name === 'once')).toBe(served);

  const direct = storedVersionStorage(srv.etcdStore, eventsV1.storedAs!);
  const r = await direct.guaranteedUpdate(key, {
    tryUpdate: (ev) => {
      ev!.note = 'noted in place';
      return ev!;
    },
  });
  expect(r.object.note).toBe('noted in place');
  expect((await srv.request('GET', `${core}/once`)).json().message).toBe('noted in place');
});

test('a delete through events.k8s.io of an event with finalizers marks it, and removing them through core deletes it', async () => {
  expect((await srv.request('POST', v1, { body: v1Event('held', { metadata: { name: 'held', finalizers: ['example.com/hold'] } }) })).status).toBe(201);
  const marked = await srv.request('DELETE', `${v1}/held`);
  expect(marked.status).toBe(200);
  expect(marked.json()).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'Scaled up to 3 replicas', metadata: { deletionGracePeriodSeconds: 0 } });
  expect((await srv.request('GET', `${core}/held`)).json().metadata.deletionTimestamp).toBe(marked.json().metadata.deletionTimestamp);
  expect((await srv.request('PATCH', `${core}/held`, { body: { metadata: { finalizers: null } }, headers: mergePatch })).status).toBe(200);
  expect((await srv.request('GET', `${v1}/held`)).status).toBe(404);
});

test('protobuf: an events.k8s.io Event and EventList read as kube encodes them, and one created', async () => {
  const wire = await protobufWire(['k8s.io/api/events/v1/generated.proto']);
  const got = await rawRequest(srv, 'GET', `${v1}/c1`, { accept: PROTOBUF });
  expect(got.status).toBe(200);
  const { typeMeta, obj } = wire.unwrap(got.body, 'k8s.io.api.events.v1.Event');
  expect(typeMeta).toEqual({ apiVersion: 'events.k8s.io/v1', kind: 'Event' });
  expect(obj).toMatchObject({ note: 'Started container web', reason: 'Started', regarding: { kind: 'Pod', name: 'web-0' }, deprecatedCount: 3 });
  // Go pointers: no series, no related on the wire.
  expect(obj.series).toBeUndefined();
  expect(obj.related).toBeUndefined();
  const list = await rawRequest(srv, 'GET', v1, { accept: PROTOBUF });
  expect(wire.unwrap(list.body, 'k8s.io.api.events.v1.EventList').obj.items.length).toBeGreaterThan(1);

  const body = wire.wrap('events.k8s.io/v1', 'Event', 'k8s.io.api.events.v1.Event', {
    metadata: { name: 'pb1' },
    eventTime: { seconds: 1714557600, nanos: 5000 },
    reportingController: 'example.com/pb',
    reportingInstance: 'pb-1',
    action: 'Sync',
    reason: 'Synced',
    regarding: { kind: 'ConfigMap', namespace: ns, name: 'cfg' },
    note: 'from protobuf',
    type: 'Warning',
  });
  const created = await rawRequest(srv, 'POST', v1, { 'content-type': PROTOBUF, accept: 'application/json' }, body);
  expect(created.status).toBe(201);
  expect((await srv.request('GET', `${core}/pb1`)).json()).toMatchObject({ message: 'from protobuf', type: 'Warning', eventTime: '2024-05-01T10:00:00.000005Z' });
});

test('discovery and OpenAPI serve the group', async () => {
  const d = (await srv.request('GET', '/apis/events.k8s.io/v1')).json();
  const resource = { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', shortNames: ['ev'], verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] };
  // The storage version's hash (core/v1 Event), as kube reports it for both.
  expect(d.resources).toEqual([{ ...resource, storageVersionHash: 'r2yiGXH7wu8=' }]);
  const coreEvents = (await srv.request('GET', '/api/v1')).json().resources.find((r: any) => r.name === 'events');
  expect(coreEvents.storageVersionHash).toBe('r2yiGXH7wu8=');
  const doc = (await srv.request('GET', '/openapi/v3/apis/events.k8s.io/v1')).json();
  expect(doc.components.schemas['io.k8s.api.events.v1.Event'].required).toEqual(['eventTime']);
  expect(Object.keys(doc.paths)).toContain('/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}');
});

describe('@kubernetes/client-node EventsV1Api', () => {
  let k8s: typeof K8sModule;
  beforeAll(async () => {
    k8s = await import('@kubernetes/client-node');
  });

  test('create, read through core, list, delete', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(srv.kubeconfig);
    const events = kc.makeApiClient(k8s.EventsV1Api);
    const coreApi = kc.makeApiClient(k8s.CoreV1Api);
    const created = await events.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'cn1' },
        eventTime: new Date('2024-05-01T10:00:00.250Z') as unknown as K8sModule.V1MicroTime,
        reportingController: 'example.com/client',
        reportingInstance: 'client-1',
        action: 'Check',
        reason: 'Checked',
        regarding: { kind: 'Namespace', name: ns, namespace: ns },
        note: 'via client-node',
        type: 'Normal',
      },
    });
    expect(created.note).toBe('via client-node');
    const viaCore = await coreApi.readNamespacedEvent({ namespace: ns, name: 'cn1' });
    expect(viaCore.message).toBe('via client-node');
    expect(viaCore.involvedObject.name).toBe(ns);
    const list = await events.listNamespacedEvent({ namespace: ns, fieldSelector: 'reason=Checked' });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['cn1']);
    await events.deleteNamespacedEvent({ namespace: ns, name: 'cn1' });
    await expect(coreApi.readNamespacedEvent({ namespace: ns, name: 'cn1' })).rejects.toMatchObject({ code: 404 });
  });
});
