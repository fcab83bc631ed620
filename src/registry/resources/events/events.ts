/**
 * events.k8s.io/v1 Event: the same objects as core/v1 Events (one etcd key each, under `events/`),
 * served in the newer shape (kube: the events.k8s.io group's REST is the core event storage). An
 * event written through either API is read, listed, watched, patched and deleted through both.
 */
import type { KubeObject } from '../../../api';
import { ResourceDefinition, baseStrategy } from '../../resource';
import { eventDeclaration, events as coreEvents } from '../core/events';
import { eventFromCore, eventToCore } from './conversion';
import { validateEventCreate, validateEventUpdate } from './validation';

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

const regarding = (o: KubeObject): Record<string, unknown> => (o.regarding as Record<string, unknown> | undefined) ?? {};

/** The core form of a served event, made once per object (table cells read it column by column). */
const coreForms = new WeakMap<KubeObject, KubeObject>();
function coreOf(o: KubeObject): KubeObject {
  let core = coreForms.get(o);
  if (!core) coreForms.set(o, (core = eventToCore(o)));
  return core;
}

export const eventsV1: ResourceDefinition = {
  ...eventDeclaration,
  group: 'events.k8s.io',
  version: 'v1',
  schemaName: 'io.k8s.api.events.v1.Event',
  protobufMessage: 'k8s.io.api.events.v1.Event',
  // kube's strict validation of newer versions checks the name as a DNS subdomain (ValidateObjectMeta).
  nameValidation: 'subdomain',
  storedAs: { group: '', version: 'v1', resource: 'events', toStored: eventToCore, fromStored: eventFromCore },
  strategy: {
    ...baseStrategy,
    allowCreateOnUpdate: true,
    validate: (_ctx, o) => validateEventCreate(eventToCore(o), 'events.k8s.io/v1'),
    validateUpdate: (_ctx, o, old) => validateEventUpdate(eventToCore(o), eventToCore(old), 'events.k8s.io/v1'),
  },
  // kube's field label conversion for events.k8s.io/v1 (each label maps onto a core event field).
  selectableFields: {
    reason: (o) => str(o.reason),
    'regarding.kind': (o) => str(regarding(o).kind),
    'regarding.namespace': (o) => str(regarding(o).namespace),
    'regarding.name': (o) => str(regarding(o).name),
    'regarding.uid': (o) => str(regarding(o).uid),
    'regarding.apiVersion': (o) => str(regarding(o).apiVersion),
    'regarding.resourceVersion': (o) => str(regarding(o).resourceVersion),
    'regarding.fieldPath': (o) => str(regarding(o).fieldPath),
    reportingController: (o) => str(o.reportingController),
    type: (o) => str(o.type),
  },
  // kube prints both versions with the one Event printer: core's columns over the core form.
  tableColumns: coreEvents.tableColumns?.map((c) => ({ ...c, cell: (o: KubeObject, now: Date) => c.cell(coreOf(o), now) })),
};
