/**
 * The OpenAPI v3 schema subset the patch and apply code read, and how `$ref`/`allOf` are resolved
 * (mirrors k8s.io/apimachinery strategicpatch PatchMetaFromOpenAPIV3).
 */

/** An OpenAPI v3 schema object (the JSON-Schema subset kube publishes), with kube's merge markers. */
export interface Schema {
  type?: string;
  description?: string;
  properties?: { [name: string]: Schema };
  additionalProperties?: Schema | boolean;
  items?: Schema;
  $ref?: string;
  allOf?: Schema[];
  default?: unknown;
  /** Comma-separated SMP strategies: `merge`, `replace`, `retainKeys` (at most two). */
  'x-kubernetes-patch-strategy'?: string;
  /** Field of list items that identifies them for strategy `merge`. */
  'x-kubernetes-patch-merge-key'?: string;
  /** Server-side apply list semantics: `atomic`, `set` or `map`. */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  /** Server-side apply keys of a `map` list. */
  'x-kubernetes-list-map-keys'?: string[];
  /** Server-side apply map semantics: `atomic` or `granular`. */
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** Resolves a `$ref` such as `#/components/schemas/io.k8s.api.core.v1.Secret`; undefined if unknown. */
export type SchemaResolver = (ref: string) => Schema | undefined;

/**
 * The schema a property schema stands for: the first `allOf` member if any (kube's OpenAPI v3
 * wraps refs as `allOf: [{$ref}]`), then its `$ref` resolved. An unresolvable ref yields undefined.
 */
export function resolveSchema(schema: Schema | undefined, resolve: SchemaResolver): Schema | undefined {
  if (!schema) return undefined;
  let s = schema;
  if (s.allOf && s.allOf.length > 0 && s.allOf[0]) s = s.allOf[0];
  if (s.$ref) return resolve(s.$ref);
  return s;
}

/** A resolver over a map of component schemas keyed by name (`#/components/schemas/<name>`). */
export function componentsResolver(schemas: { [name: string]: Schema }): SchemaResolver {
  const prefix = '#/components/schemas/';
  return (ref) => {
    const name = ref.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
    return name !== undefined && Object.prototype.hasOwnProperty.call(schemas, name) ? schemas[name] : undefined;
  };
}
