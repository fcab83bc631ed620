/** Test schemas: the project's openapi/ documents plus a made-up Widget type with list maps and sets. */
import * as fs from 'fs';
import * as path from 'path';
import { ApplySchema, ApplySchemaResolver, ApplyTypes, TypeRef } from '../../../src/apply';

const load = (file: string): Record<string, ApplySchema> =>
  (JSON.parse(fs.readFileSync(path.join(__dirname, '../../../openapi', file), 'utf8')) as { components: { schemas: Record<string, ApplySchema> } })
    .components.schemas;

const ref = (name: string): ApplySchema => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });

/** A made-up kind: containers keyed by name through the patch-strategy fallback (no list type). */
const widgetSchemas: Record<string, ApplySchema> = {
  'example.v1.Widget': {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'),
      spec: ref('example.v1.WidgetSpec'),
      status: { type: 'object', properties: { phase: { type: 'string' } } },
    },
  },
  'example.v1.WidgetSpec': {
    type: 'object',
    properties: {
      replicas: { type: 'integer' },
      containers: {
        type: 'array',
        items: ref('example.v1.Container'),
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
      tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      args: { type: 'array', items: { type: 'string' } },
      selector: {
        type: 'object',
        additionalProperties: { type: 'string' },
        'x-kubernetes-map-type': 'atomic',
      },
      config: { type: 'object' },
    },
  },
  'example.v1.Container': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      image: { type: 'string' },
      ports: {
        type: 'array',
        items: ref('example.v1.Port'),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      },
    },
  },
  'example.v1.Port': {
    type: 'object',
    properties: { containerPort: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string' } },
  },
};

export const allSchemas: Record<string, ApplySchema> = { ...load('meta__v1.json'), ...load('api__v1.json'), ...widgetSchemas };

export const resolve: ApplySchemaResolver = (r) => allSchemas[r.slice(r.lastIndexOf('/') + 1)];

export function schemaOf(name: string): ApplySchema {
  const s = allSchemas[name];
  if (!s) throw new Error(`no schema ${name}`);
  return s;
}

export const kinds = {
  Secret: 'io.k8s.api.core.v1.Secret',
  ConfigMap: 'io.k8s.api.core.v1.ConfigMap',
  ResourceQuota: 'io.k8s.api.core.v1.ResourceQuota',
  Widget: 'example.v1.Widget',
} as const;

export const types = new ApplyTypes(resolve);
export const typeOf = (kind: keyof typeof kinds): TypeRef => types.root(schemaOf(kinds[kind]));
