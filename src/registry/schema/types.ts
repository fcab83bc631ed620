/**
 * The OpenAPI v3 schema shapes read from openapi/. Structurally compatible with src/patch/schema.ts
 * (a SchemaRegistry's resolver is usable as the patch module's SchemaResolver; a unit test checks it).
 */

/** One OpenAPI v3 schema object, with the Kubernetes vendor extensions this server reads. */
export interface Schema {
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  'x-kubernetes-group-version-kind'?: SchemaGVK[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  [extension: `x-${string}`]: unknown;
}

/** An entry of `x-kubernetes-group-version-kind` (group "" for core). */
export interface SchemaGVK {
  group: string;
  version: string;
  kind: string;
}

/**
 * Resolves a `#/components/schemas/<name>` reference (the bare name is accepted too) to its
 * schema; undefined when the name is unknown. Never throws.
 */
export type SchemaResolver = (ref: string) => Schema | undefined;

/** The prefix of every reference inside openapi/ documents. */
export const SCHEMA_REF_PREFIX = '#/components/schemas/';

/** The schema name a reference points at ("#/components/schemas/X" → "X"; a bare name is returned as is). */
export function refName(ref: string): string {
  return ref.startsWith(SCHEMA_REF_PREFIX) ? ref.slice(SCHEMA_REF_PREFIX.length) : ref;
}

/**
 * The schema a property points at through kube's `allOf: [{$ref}]` wrapping or a plain `$ref`;
 * undefined when the schema is inline.
 */
export function schemaRef(s: Schema): string | undefined {
  if (s.$ref) return s.$ref;
  const only = s.allOf?.length === 1 ? s.allOf[0] : undefined;
  return only?.$ref;
}
