/** Server-side printing: objects → meta.k8s.io Table (kube's TableConvertor and default table). */
import { KubeObject, ListMeta } from '../api';
import type { ResourceDefinition, TableColumn } from './resource';
import { timestamp } from '../api';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/**
 * The descriptions kube gives its Name and age columns: the API documentation of ObjectMeta's
 * `name` and `creationTimestamp` (metav1.ObjectMeta{}.SwaggerDoc() in 1.32), word for word, since
 * clients see them in every Table. The default table and the printers' Name/Age columns share them.
 */
export const objectMetaNameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const objectMetaCreationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** kube's default TableConvertor: Name and Created At. */
const defaultColumns: TableColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: objectMetaNameDescription, cell: (o) => o.metadata.name ?? '' },
  {
    name: 'Created At',
    type: 'date',
    description: objectMetaCreationTimestampDescription,
    cell: (o) => (o.metadata.creationTimestamp ? timestamp(new Date(o.metadata.creationTimestamp)) : null),
  },
];

export interface TableOptions {
  /** meta.k8s.io/v1 or meta.k8s.io/v1beta1, as negotiated. */
  apiVersion: string;
  includeObject: IncludeObject;
  noHeaders?: boolean;
  listMeta: ListMeta;
  now: Date;
}

export function toTable(def: ResourceDefinition, objects: KubeObject[], opts: TableOptions): Record<string, unknown> {
  const columns = def.tableColumns ?? defaultColumns;
  const table: Record<string, unknown> = {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata: opts.listMeta,
    columnDefinitions: opts.noHeaders
      ? null
      : columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 })),
    rows: objects.map((o) => {
      // meta/v1 TableRow's field order: cells, conditions (omitted when empty), object.
      const row: Record<string, unknown> = { cells: columns.map((c) => c.cell(o, opts.now)) };
      const conditions = def.tableRowConditions?.(o);
      if (conditions?.length) row.conditions = conditions;
      if (opts.includeObject === 'Object') row.object = o;
      else if (opts.includeObject === 'Metadata') {
        row.object = { kind: 'PartialObjectMetadata', apiVersion: opts.apiVersion, metadata: o.metadata };
      }
      return row;
    }),
  };
  return table;
}
