/**
 * A schema compiled for decoding: what Go type each JSON position decodes into. Built once per
 * schema at load time (see compileDecodeNode); the request path only walks these nodes.
 */
import { GoFieldType, goFieldTypes, goStructName, goTypeOfSchemaName } from './go-types';
import { Schema, SchemaResolver, refName, schemaRef } from './types';

/** One position of a decoded document. `goType` is reflect's Type.String() of the Go target. */
export type DecodeNode =
  | StructNode
  | { kind: 'map'; goType: string; elem: DecodeNode }
  | { kind: 'array'; goType: string; elem: DecodeNode }
  | { kind: 'string'; goType: string }
  | { kind: 'bool'; goType: string }
  | { kind: 'int'; goType: string; min: number; max: number }
  | { kind: 'float'; goType: string }
  | { kind: 'bytes'; goType: string }
  | { kind: 'quantity'; goType: string }
  | { kind: 'time'; goType: string }
  | { kind: 'raw'; goType: string };

/** A Go struct: known JSON field names → nodes. Unknown names are reported and dropped. */
export interface StructNode {
  kind: 'struct';
  /** Schema name it was compiled from ("" for an inline object). */
  schemaName: string;
  /** Bare struct name used in decode error context ("ObjectMeta"). */
  structName: string;
  goType: string;
  fields: Map<string, DecodeNode>;
}

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
/** Named types with their own UnmarshalJSON (or no Go shape at all). */
const special: ReadonlyMap<string, DecodeNode> = new Map<string, DecodeNode>([
  [QUANTITY, { kind: 'quantity', goType: 'resource.Quantity' }],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.Time', { kind: 'time', goType: 'v1.Time' }],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', { kind: 'time', goType: 'v1.MicroTime' }],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1', { kind: 'raw', goType: 'v1.FieldsV1' }],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.Patch', { kind: 'raw', goType: 'v1.Patch' }],
  ['io.k8s.apimachinery.pkg.runtime.RawExtension', { kind: 'raw', goType: 'runtime.RawExtension' }],
  ['io.k8s.apimachinery.pkg.util.intstr.IntOrString', { kind: 'raw', goType: 'intstr.IntOrString' }],
]);

/**
 * Compiles named schemas into DecodeNodes, sharing one node per name (recursive schemas are
 * closed through the cache). Throws Error for a reference that does not resolve (a broken
 * openapi/ document is a programmer error).
 */
export class DecodeNodeCompiler {
  private readonly cache = new Map<string, DecodeNode>();

  constructor(private readonly resolve: SchemaResolver) {}

  /** The node for a named schema. */
  named(name: string): DecodeNode {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const sp = special.get(name);
    if (sp) return sp;
    const schema = this.resolve(name);
    if (!schema) throw new Error(`openapi: unresolved schema reference ${JSON.stringify(name)}`);
    if (schema.type === 'object' && schema.properties) {
      // Register before compiling fields so self-references terminate.
      const node: StructNode = {
        kind: 'struct',
        schemaName: name,
        structName: goStructName(name),
        goType: goTypeOfSchemaName(name),
        fields: new Map(),
      };
      this.cache.set(name, node);
      this.fillStruct(node, schema);
      return node;
    }
    const node = this.inline(schema, goTypeOfSchemaName(name), undefined);
    this.cache.set(name, node);
    return node;
  }

  private fillStruct(node: StructNode, schema: Schema): void {
    for (const [field, fs] of Object.entries(schema.properties ?? {})) {
      const override = goFieldTypes.get(`${node.schemaName}.${field}`);
      node.fields.set(field, this.property(fs, override));
    }
  }

  private property(s: Schema, override: GoFieldType | undefined): DecodeNode {
    const ref = schemaRef(s);
    if (ref) return this.named(refName(ref));
    return this.inline(s, override?.type, override?.elem);
  }

  private inline(s: Schema, goType: string | undefined, elemGoType: string | undefined): DecodeNode {
    if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string']) {
      return { kind: 'raw', goType: goType ?? 'interface {}' };
    }
    if (s.oneOf) return { kind: 'raw', goType: goType ?? 'interface {}' };
    switch (s.type) {
      case 'object': {
        if (s.properties) {
          const node: StructNode = { kind: 'struct', schemaName: '', structName: '', goType: goType ?? 'struct', fields: new Map() };
          for (const [field, fs] of Object.entries(s.properties)) node.fields.set(field, this.property(fs, undefined));
          return node;
        }
        const ap = s.additionalProperties;
        if (ap && typeof ap === 'object') {
          const elem = this.property(ap, elemGoType ? { type: elemGoType } : undefined);
          return { kind: 'map', goType: goType ?? `map[string]${elem.goType}`, elem };
        }
        return { kind: 'raw', goType: goType ?? 'map[string]interface {}' };
      }
      case 'array': {
        const elem = s.items ? this.property(s.items, elemGoType ? { type: elemGoType } : undefined) : ({ kind: 'raw', goType: 'interface {}' } as const);
        return { kind: 'array', goType: goType ?? `[]${elem.goType}`, elem };
      }
      case 'string':
        if (s.format === 'byte') return { kind: 'bytes', goType: '[]uint8' };
        if (s.format === 'date-time') return { kind: 'time', goType: goType ?? 'v1.Time' };
        return { kind: 'string', goType: goType ?? 'string' };
      case 'integer':
        return s.format === 'int32'
          ? { kind: 'int', goType: goType ?? 'int32', min: -2147483648, max: 2147483647 }
          : { kind: 'int', goType: goType ?? 'int64', min: -9223372036854775808, max: 9223372036854775807 };
      case 'number':
        return { kind: 'float', goType: goType ?? 'float64' };
      case 'boolean':
        return { kind: 'bool', goType: goType ?? 'bool' };
      default:
        return { kind: 'raw', goType: goType ?? 'interface {}' };
    }
  }
}
