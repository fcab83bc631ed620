/** core/v1 Event: served because every kube client expects it (kubectl describe lists an object's events). */
import { KubeObject, validatePathSegmentName } from '../../../api';
import { ageString } from '../../../api/duration';
import { ResourceDefinition, ResourceSettings, allVerbs, baseStrategy } from '../../resource';
import { validateEventCreate, validateEventUpdate, type ObjectReference } from '../events/validation';

const ref = (o: KubeObject): ObjectReference => (o.involvedObject as ObjectReference | undefined) ?? {};
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** kube's printer: the source as "component, host" (or the reporting controller). */
function sourceCell(o: KubeObject): string {
  const src = (o.source as { component?: string; host?: string } | undefined) ?? {};
  const component = src.component || str(o.reportingComponent);
  const host = src.host || str(o.reportingInstance);
  return host ? `${component}, ${host}` : component;
}

function lastSeen(o: KubeObject, now: Date): string {
  const last = (o.lastTimestamp as string | null | undefined) ?? (o.eventTime as string | null | undefined);
  return ageString(last, now);
}

/** What both served versions of Event declare alike: events.k8s.io/v1 serves the same objects. */
export const eventDeclaration = {
  resource: 'events',
  singularName: 'event',
  kind: 'Event',
  listKind: 'EventList',
  namespaced: true,
  shortNames: ['ev'],
  categories: [],
  verbs: allVerbs,
  subresources: [],
  returnDeletedObject: false,
  // --event-ttl: each write gives the event this long (an etcd lease).
  ttlSeconds: (settings: ResourceSettings) => settings.eventTtlSeconds,
  fieldSelectorError: (label: string) => `field label not supported: ${label}`,
} satisfies Partial<ResourceDefinition>;

export const events: ResourceDefinition = {
  ...eventDeclaration,
  group: '',
  version: 'v1',
  schemaName: 'io.k8s.api.core.v1.Event',
  protobufMessage: 'k8s.io.api.core.v1.Event',
  // kube's legacy events are only checked by the generic path-segment rule (no ValidateObjectMeta).
  nameValidation: validatePathSegmentName,
  strategy: {
    ...baseStrategy,
    allowCreateOnUpdate: true,
    validate: (_ctx, o) => validateEventCreate(o, 'v1'),
    validateUpdate: (_ctx, o, old) => validateEventUpdate(o, old, 'v1'),
  },
  // kube's event field label conversion.
  selectableFields: {
    'involvedObject.kind': (o) => str(ref(o).kind),
    'involvedObject.namespace': (o) => str(ref(o).namespace),
    'involvedObject.name': (o) => str(ref(o).name),
    'involvedObject.uid': (o) => str(ref(o).uid),
    'involvedObject.apiVersion': (o) => str(ref(o).apiVersion),
    'involvedObject.resourceVersion': (o) => str(ref(o).resourceVersion),
    'involvedObject.fieldPath': (o) => str(ref(o).fieldPath),
    reason: (o) => str(o.reason),
    reportingComponent: (o) => str(o.reportingComponent),
    // kube: the source component, or the reporting controller when there is none.
    source: (o) => str((o.source as { component?: string } | null | undefined)?.component) || str(o.reportingComponent),
    type: (o) => str(o.type),
  },
  tableColumns: [
    { name: 'Last Seen', type: 'string', description: 'Time since the most recent occurrence.', cell: lastSeen },
    { name: 'Type', type: 'string', description: 'The type of the event (Normal, Warning).', cell: (o) => str(o.type) },
    { name: 'Reason', type: 'string', description: 'Why the event happened.', cell: (o) => str(o.reason) },
    {
      name: 'Object',
      type: 'string',
      description: 'The object the event is about.',
      cell: (o) => `${str(ref(o).kind).toLowerCase()}/${str(ref(o).name)}`,
    },
    { name: 'Subobject', type: 'string', priority: 1, description: 'The part of the object concerned.', cell: (o) => str(ref(o).fieldPath) },
    { name: 'Source', type: 'string', priority: 1, description: 'The component that reported the event.', cell: sourceCell },
    { name: 'Message', type: 'string', description: 'A description of the event.', cell: (o) => str(o.message).trim() },
    {
      name: 'First Seen',
      type: 'string',
      priority: 1,
      description: 'Time since the first occurrence.',
      cell: (o, now) => ageString(o.firstTimestamp as string | null | undefined, now),
    },
    { name: 'Count', type: 'string', priority: 1, description: 'How many times the event occurred.', cell: (o) => Number(o.count ?? 0) },
    { name: 'Name', type: 'string', priority: 1, format: 'name', description: 'The name of the event.', cell: (o) => o.metadata.name ?? '' },
  ],
};
