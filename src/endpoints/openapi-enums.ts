/**
 * Gate OpenAPIEnums (kube 1.32: beta, on). Off, kube-apiserver serves its OpenAPI definitions as
 * apiserver pkg/util/openapi/enablement.go restores them (GetOpenAPIDefinitionsWithoutDisabledFeatures,
 * pruneEnums): every schema, nested ones included, loses its `enum` and the "Possible enum values:"
 * section of its description (the text before it kept, trimmed). `$ref`s are not followed: each
 * named schema is pruned on its own.
 */
import type { Schema } from '../registry/schema';

const enumHeader = 'Possible enum values:';

/** Keys whose value is one schema, and keys whose value is a list or map of schemas (kube-openapi's schemamutation.Walker). */
const schemaKeys = ['items', 'additionalProperties', 'additionalItems', 'not'];
const schemaListKeys = ['allOf', 'anyOf', 'oneOf'];
const schemaMapKeys = ['properties', 'patternProperties', 'definitions', 'dependencies'];

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `schema` without enums; the same object when it has none anywhere (nothing is copied then). */
export function withoutEnums(schema: Schema): Schema {
  return prune(schema as Json) as Schema;
}

function prune(s: Json): Json {
  let out = s;
  const set = (key: string, value: unknown): void => {
    if (out === s) out = { ...s };
    if (value === undefined) delete out[key];
    else out[key] = value;
  };
  if (typeof s.description === 'string') {
    const at = s.description.indexOf(enumHeader);
    if (at !== -1) {
      const kept = s.description.slice(0, at).trim();
      // Go's omitempty: an empty description is not written.
      set('description', kept === '' ? undefined : kept);
    }
  }
  if (Array.isArray(s.enum) && s.enum.length > 0) set('enum', undefined);
  for (const key of schemaKeys) {
    const v = s[key];
    if (isObject(v)) {
      const p = prune(v);
      if (p !== v) set(key, p);
    } else if (Array.isArray(v)) {
      const p = pruneList(v);
      if (p !== v) set(key, p);
    }
  }
  for (const key of schemaListKeys) {
    const v = s[key];
    if (Array.isArray(v)) {
      const p = pruneList(v);
      if (p !== v) set(key, p);
    }
  }
  for (const key of schemaMapKeys) {
    const v = s[key];
    if (!isObject(v)) continue;
    let copy: Json | undefined;
    for (const [name, sub] of Object.entries(v)) {
      if (!isObject(sub)) continue;
      const p = prune(sub);
      if (p !== sub) (copy ??= { ...v })[name] = p;
    }
    if (copy) set(key, copy);
  }
  return out;
}

function pruneList(list: unknown[]): unknown[] {
  let copy: unknown[] | undefined;
  list.forEach((item, i) => {
    if (!isObject(item)) return;
    const p = prune(item);
    if (p !== item) (copy ??= [...list])[i] = p;
  });
  return copy ?? list;
}
