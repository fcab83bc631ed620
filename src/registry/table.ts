/** Server-side printing: objects → meta.k8s.io Table (kube's TableConvertor and default table). */
import { KubeObject, ListMeta } from '../api';
import type { ResourceDefinition, TableColumn } from './resource';
import { timestamp } from '../api';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/**
 * The descriptions of the Name and age columns, shared by the default table and the printers'
 * Name/Age columns. kube takes them from ObjectMeta's API documentation; ours are our own words
 * (as in openapi/), since the project copies no prose.
 */
export const objectMetaNameDescription =
  'Name must be unique within a namespace; it is the identifier clients use to refer to the object, and cannot be changed once set.';
export const objectMetaCreationTimestampDescription =
  'When the server created the object (metadata.creationTimestamp, RFC 3339, UTC); set by the system, read-only.';

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
