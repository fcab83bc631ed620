/**
 * A second served version of a stored kind (ResourceDefinition.storedAs), with events.k8s.io/v1
 * Events as the case: the registry's prefix rules, the conversions both ways, and kube's Event
 * validation over the core form (the store's behaviour on etcd is test/integration/events-v1.test.ts).
 */
import { AdmissionChain } from '../../../src/admission';
import { fieldErrorString, type KubeObject } from '../../../src/api';
import { Registry } from '../../../src/registry/registry';
import { builtinResources } from '../../../src/registry/resources';
import { eventFromCore, eventToCore } from '../../../src/registry/resources/events/conversion';
import { validateEventCreate, validateEventUpdate } from '../../../src/registry/resources/events/validation';
import type { Storage } from '../../../src/storage';

const registry = () => new Registry({ storage: {} as Storage, prefix: '/r', admission: new AdmissionChain([]) });
const def = (group: string, resource: string) => builtinResources.find((d) => d.group === group && d.resource === resource)!;
const coreEvents = def('', 'events');
const eventsV1 = def('events.k8s.io', 'events');

describe('storedAs and storage prefixes', () => {
  test('a declaration stored as another shares its keys, whichever is added first', () => {
    for (const order of [[coreEvents, eventsV1], [eventsV1, coreEvents]]) {
      const r = registry();
      const [a, b] = order.map((d) => r.add(d!));
      expect(a!.keyFor('ns', 'e')).toBe('/r/events/ns/e');
      expect(b!.keyFor('ns', 'e')).toBe('/r/events/ns/e');
    }
  });

  test('the same plural in another group without storedAs is refused; storedAs with another prefix too', () => {
    const r = registry();
    r.add(coreEvents);
    const { storedAs: _, ...plain } = eventsV1;
    expect(() => r.add(plain)).toThrow('events.events.k8s.io: storage prefix events overlaps events of Event (events.core)');
    expect(() => r.add({ ...eventsV1, storagePrefix: 'events.k8s.io/events' })).toThrow(
      'events.events.k8s.io: storage prefix events.k8s.io/events is not events of events.core, whose objects it shares',
    );
  });

  test("an invalid object is named by the stored kind's group, as kube names its internal type", () => {
    const r = registry();
    expect(r.add(eventsV1).gk).toEqual({ group: '', kind: 'Event' });
    expect(r.get('events.k8s.io', 'v1', 'events')?.gr).toEqual({ group: 'events.k8s.io', resource: 'events' });
  });
});

const core: KubeObject = {
  kind: 'Event',
  apiVersion: 'v1',
  metadata: { name: 'e', namespace: 'ns' },
  involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' },
  reason: 'Started',
  message: 'hello',
  source: { component: 'kubelet' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:00:00Z',
  count: 1,
  type: 'Normal',
  eventTime: null,
  reportingComponent: '',
  reportingInstance: '',
};

describe('conversion (kube: pkg/apis/events/v1/conversion.go)', () => {
  test('core → events.k8s.io renames six fields and writes Go zero values where kube does', () => {
    expect(eventFromCore(core)).toEqual({
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      metadata: core.metadata,
      eventTime: null,
      reason: 'Started',
      regarding: { kind: 'Pod', namespace: 'ns', name: 'p' },
      note: 'hello',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet' },
      deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
      deprecatedLastTimestamp: '2024-05-01T10:00:00Z',
      deprecatedCount: 1,
    });
    const bare = eventFromCore({ kind: 'Event', apiVersion: 'v1', metadata: { name: 'x' } });
    expect(bare).toEqual({
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      metadata: { name: 'x' },
      eventTime: null,
      regarding: {},
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
  });

  test('a round trip changes nothing, and neither side is modified', () => {
    const before = JSON.stringify(core);
    expect(eventToCore(eventFromCore(core))).toEqual(core);
    expect(JSON.stringify(core)).toBe(before);
    const v1 = eventFromCore(core);
    const series = { ...v1, series: { count: 2, lastObservedTime: '2024-05-01T10:00:00.000000Z' }, related: { kind: 'Node', name: 'n' }, action: 'A', reportingController: 'c', reportingInstance: 'i' };
    expect(eventFromCore(eventToCore(series))).toEqual(series);
    // Go's order of the core struct.
    expect(Object.keys(eventToCore(series))).toEqual([
      'kind', 'apiVersion', 'metadata', 'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp',
      'count', 'type', 'eventTime', 'series', 'action', 'related', 'reportingComponent', 'reportingInstance',
    ]);
  });
});

describe("kube's Event validation", () => {
  const strings = (errs: ReturnType<typeof validateEventCreate>) => errs.map(fieldErrorString);
  const fresh: KubeObject = {
    ...eventToCore({
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      metadata: { name: 'e', namespace: 'ns' },
      eventTime: '2024-05-01T10:00:00.123456Z',
      reportingController: 'example.com/c',
      reportingInstance: 'c-1',
      action: 'Act',
      reason: 'Acted',
      regarding: { kind: 'Pod', namespace: 'ns', name: 'p' },
      note: 'n',
      type: 'Normal',
    }),
  };

  test('core/v1 keeps the legacy rules; events.k8s.io/v1 adds the strict ones', () => {
    expect(validateEventCreate(fresh, 'events.k8s.io/v1')).toEqual([]);
    const legacy = { ...core, count: 5, involvedObject: { namespace: 'elsewhere' } };
    expect(strings(validateEventCreate(legacy, 'v1'))).toEqual(['involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace']);
    expect(strings(validateEventCreate(core, 'events.k8s.io/v1'))).toEqual([
      'eventTime: Required value',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'lastTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
    // A new-style event through core/v1 names the reporting controller as core does.
    expect(strings(validateEventCreate({ ...fresh, reportingComponent: 'not valid!' }, 'v1'))[0]).toMatch(/^reportingComponent: Invalid value: "not valid!": name part must consist of/);
    const long = { ...fresh, action: 'a'.repeat(129), reason: 'r'.repeat(129), message: 'm'.repeat(1025), reportingInstance: 'i'.repeat(129) };
    expect(strings(validateEventCreate(long, 'events.k8s.io/v1'))).toEqual([
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'action: Invalid value: "": can have at most 128 characters',
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
    // An object of no namespace is accepted in default and kube-system only.
    expect(strings(validateEventCreate({ ...fresh, involvedObject: { kind: 'Node', name: 'n' } }, 'events.k8s.io/v1'))).toEqual([
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ]);
    expect(validateEventCreate({ ...fresh, metadata: { ...fresh.metadata, namespace: 'kube-system' }, involvedObject: { kind: 'Node', name: 'n' } }, 'events.k8s.io/v1')).toEqual([]);
  });

  test('updates: what may not change is printed as Go prints the internal value', () => {
    const changed: KubeObject = {
      ...fresh,
      involvedObject: { kind: 'Pod', namespace: 'ns', name: 'q', uid: 'u' },
      source: { component: 'x' },
      firstTimestamp: '2024-05-02T11:00:00Z',
      count: 2,
      eventTime: '2024-05-01T10:00:00.5Z',
      related: { kind: 'Node', name: 'n' },
      reportingComponent: 'example.com/d',
    };
    expect(strings(validateEventUpdate(changed, fresh, 'events.k8s.io/v1'))).toEqual([
      'involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"q", UID:"u", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable',
      'source: Invalid value: core.EventSource{Component:"x", Host:""}: field is immutable',
      'firstTimestamp: Invalid value: 2024-05-02 11:00:00 +0000 UTC: field is immutable',
      'count: Invalid value: 2: field is immutable',
      'eventTime: Invalid value: 2024-05-01 10:00:00.5 +0000 UTC: field is immutable',
      'related: Invalid value: core.ObjectReference{Kind:"Node", Namespace:"", Name:"n", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable',
      'reportingController: Invalid value: "example.com/d": field is immutable',
    ]);
    // kube checks reason twice; sub-microsecond eventTime changes pass; core/v1 checks none of it.
    expect(strings(validateEventUpdate({ ...fresh, reason: 'Other', eventTime: '2024-05-01T10:00:00.1234569Z' }, fresh, 'events.k8s.io/v1'))).toEqual([
      'reason: Invalid value: "Other": field is immutable',
      'reason: Invalid value: "Other": field is immutable',
    ]);
    expect(validateEventUpdate(changed, fresh, 'v1')).toEqual([]);
  });
});
