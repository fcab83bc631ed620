/**
 * The fast path of decoding: one ajv validator per kind, compiled on first use, that accepts exactly
 * the bodies the decode walk would return unchanged (no unknown fields, no nulls, no type errors,
 * canonical base64, valid quantities and times, metadata present). Anything else goes to the walk,
 * which produces kube's messages; ajv's own errors are never shown to clients.
 */
import type { default as Ajv, ValidateFunction } from 'ajv';
import { parseQuantity } from '../../api/quantity';
import { goBase64Decode } from './go-base64';
import { goTimeParseError } from './go-time';
import { Schema, SchemaResolver, refName, schemaRef } from './types';

type JsonSchema = Record<string, unknown>;

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const TIMES = new Set(['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);
const RAW = new Set([
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
]);
const NOT_NULL = { type: ['object', 'array', 'string', 'number', 'boolean'] };
const SCHEMA_ID = 'kube';

/** Strict JSON Schema for one OpenAPI schema; refs point into the shared `kube` definitions. */
function strict(s: Schema): JsonSchema {
  const ref = schemaRef(s);
  if (ref) return { $ref: `${SCHEMA_ID}#/definitions/${encodeURIComponent(refName(ref))}` };
  if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string'] || s.oneOf) return NOT_NULL;
  switch (s.type) {
    case 'object': {
      if (s.properties) {
        const properties: Record<string, JsonSchema> = {};
        for (const [k, v] of Object.entries(s.properties)) properties[k] = strict(v);
        return { type: 'object', properties, additionalProperties: false };
      }
      const ap = s.additionalProperties;
      if (ap && typeof ap === 'object') return { type: 'object', additionalProperties: strict(ap) };
      return NOT_NULL;
    }
    case 'array':
      return s.items ? { type: 'array', items: strict(s.items) } : { type: 'array', items: NOT_NULL };
    case 'string':
      if (s.format === 'byte') return { type: 'string', format: 'kube-byte' };
      if (s.format === 'date-time') return { type: 'string', format: 'kube-time' };
      return { type: 'string' };
    case 'integer':
      return s.format === 'int32'
        ? { type: 'integer', minimum: -2147483648, maximum: 2147483647 }
        : { type: 'integer', minimum: -9223372036854775808, maximum: 9223372036854775807 };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return NOT_NULL;
  }
}

function definition(name: string, s: Schema): JsonSchema {
  if (name === QUANTITY) return { type: ['string', 'number'], format: 'kube-quantity' };
  if (TIMES.has(name)) return { type: 'string', format: 'kube-time' };
  if (RAW.has(name)) return NOT_NULL;
  return strict(s);
}

function validQuantity(text: string): boolean {
  if (text.trim() !== text) return false; // the walk trims; leave such bodies to it
  try {
    parseQuantity(text);
    return true;
  } catch {
    return false;
  }
}

/** The fast-path validator of each kind, compiled on first use. */
export interface FastChecks {
  /**
   * The validator of `kind` (compiled on the first call for it), or undefined when `kind` has none.
   * Throws Error when ajv cannot compile it (a broken openapi/ document).
   */
  get(kind: string): ValidateFunction | undefined;
}

/**
 * The fast-path validators for `kinds` over all `names` (resolved through `resolve`). Each is
 * compiled when first asked for: compiling every kind up front took a third of the server's start.
 */
export function compileFastChecks(names: string[], resolve: SchemaResolver, kinds: string[]): FastChecks {
  const wanted = new Set(kinds);
  const compiled = new Map<string, ValidateFunction | undefined>();
  let shared: Ajv | undefined;
  const ajv = (): Ajv => {
    if (shared) return shared;
    // Loaded on first use too: ajv is not needed to start serving.
    const AjvClass = (require('ajv') as typeof import('ajv')).default;
    const a = new AjvClass({ allErrors: false, strict: false, validateSchema: false });
    a.addFormat('kube-byte', { type: 'string', validate: (s: string) => {
        const r = goBase64Decode(s);
        return r.ok && r.canonical === s;
      }, });
    a.addFormat('kube-time', { type: 'string', validate: (s: string) => goTimeParseError(s) === undefined });
    a.addFormat('kube-quantity', { type: 'string', validate: validQuantity });
    const definitions: Record<string, JsonSchema> = {};
    for (const name of names) {
      const s = resolve(name);
      if (s) definitions[name] = definition(name, s);
    }
    a.addSchema({ $id: SCHEMA_ID, definitions });
    shared = a;
    return a;
  };
  return {
    get(kind) {
      if (compiled.has(kind)) return compiled.get(kind);
      const s = wanted.has(kind) ? resolve(kind) : undefined;
      let fn: ValidateFunction | undefined;
      if (s?.properties) {
        const root: JsonSchema = { $ref: `${SCHEMA_ID}#/definitions/${encodeURIComponent(kind)}` };
        fn = ajv().compile(s.properties.metadata ? { allOf: [root, { required: ['metadata'] }] } : root);
      }
      compiled.set(kind, fn);
      return fn;
    },
  };
}
