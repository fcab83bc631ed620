/**
 * Compiles protobufjs reflection (parsed from proto/) into plain, precomputed plans that the
 * JSON ↔ protobuf mapper walks. Built once at startup; nothing is reflected per call.
 */
import * as path from 'node:path';
import * as protobuf from 'protobufjs';
import {
  GO_INLINE_FIELDS,
  GO_POINTER_FIELDS,
  JSON_FIELD_NAMES,
  JSON_REQUIRED_FIELDS,
  SPECIAL_MESSAGES,
  SpecialMessage,
} from './go-field-semantics';

/** Scalar protobuf types used by kube's messages. */
export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64';

/** What a field (or a map value) holds. */
export type ValueType =
  | { kind: 'scalar'; scalar: ScalarType }
  | { kind: 'message'; plan: MessagePlan }
  | { kind: 'special'; special: SpecialMessage };

/** One field of a message, with the Go semantics kube's marshallers apply to it. */
export interface FieldPlan {
  /** Proto field name; for every message we serve it equals the JSON name. */
  name: string;
  id: number;
  /** Position in MessagePlan.fields. */
  index: number;
  /** The field's name as Go's error messages spell it (best effort: capitalised). */
  goName: string;
  /** Cardinality: a singular value, a repeated list, or a map<string, value>. */
  shape: 'singular' | 'repeated' | 'map';
  value: ValueType;
  /** Protobuf wire type of one occurrence (0 varint, 2 length-delimited). */
  wireType: 0 | 2;
  /** A Go pointer: written only when set; kept in JSON when set even if zero. */
  pointer: boolean;
  /** JSON tag without omitempty: kept in JSON even when zero/empty. */
  jsonRequired: boolean;
  /** A Go embedded struct inlined in JSON: its message's fields are the parent object's own. */
  inline: boolean;
}

/** A message: fields in declaration (= Go struct = JSON) order and in wire (field number) order. */
export interface MessagePlan {
  fullName: string;
  /** Short name, as Go's unmarshal errors spell it (`proto: ObjectMeta: ...`). */
  name: string;
  fields: FieldPlan[];
  wireOrder: FieldPlan[];
  byId: Map<number, FieldPlan>;
}

const SCALARS: ReadonlySet<string> = new Set(['string', 'bytes', 'bool', 'int32', 'int64']);

/** Strips protobufjs's leading dot from a full name. */
function bare(fullName: string): string {
  return fullName.startsWith('.') ? fullName.slice(1) : fullName;
}

/** Builds and caches plans over one resolved protobufjs Root. */
export class ProtobufSchema {
  private readonly plans = new Map<string, MessagePlan>();

  constructor(private readonly root: protobuf.Root) {}

  /** The plan of a message by full name (no leading dot). Throws Error if the message is unknown. */
  plan(fullName: string): MessagePlan {
    const cached = this.plans.get(fullName);
    if (cached) return cached;
    const type = this.root.lookupType(fullName);
    const plan: MessagePlan = { fullName, name: type.name, fields: [], wireOrder: [], byId: new Map() };
    // Register before compiling fields so that (hypothetically) recursive types terminate.
    this.plans.set(fullName, plan);
    const pointers = GO_POINTER_FIELDS.get(fullName);
    const required = JSON_REQUIRED_FIELDS.get(fullName);
    const inlined = GO_INLINE_FIELDS.get(fullName);
    for (const field of type.fieldsArray) {
      const fp = this.compileField(fullName, field, pointers?.has(field.name) ?? false, required?.has(field.name) ?? false);
      fp.inline = inlined?.has(field.name) ?? false;
      if (fp.inline && (fp.shape !== 'singular' || fp.value.kind !== 'message')) throw new Error(`${fullName}.${field.name}: only a singular message can be inlined`);
      fp.index = plan.fields.length;
      plan.fields.push(fp);
      plan.byId.set(fp.id, fp);
    }
    plan.wireOrder = [...plan.fields].sort((a, b) => a.id - b.id);
    return plan;
  }

  private compileField(owner: string, field: protobuf.Field, pointer: boolean, jsonRequired: boolean): FieldPlan {
    field.resolve();
    const isMap = field instanceof protobuf.MapField;
    if (isMap && field.keyType !== 'string') {
      throw new Error(`${owner}.${field.name}: only string map keys are supported`);
    }
    const value = this.valueType(owner, field);
    const shape = isMap ? 'map' : field.repeated ? 'repeated' : 'singular';
    const varint = value.kind === 'scalar' && value.scalar !== 'string' && value.scalar !== 'bytes';
    return {
      name: JSON_FIELD_NAMES.get(owner)?.[field.name] ?? field.name,
      id: field.id,
      index: 0,
      goName: field.name.charAt(0).toUpperCase() + field.name.slice(1),
      shape,
      value,
      wireType: shape === 'singular' && varint ? 0 : 2,
      pointer,
      jsonRequired,
      inline: false,
    };
  }

  private valueType(owner: string, field: protobuf.Field): ValueType {
    if (SCALARS.has(field.type)) return { kind: 'scalar', scalar: field.type as ScalarType };
    const resolved = field.resolvedType;
    if (!(resolved instanceof protobuf.Type)) {
      throw new Error(`${owner}.${field.name}: unsupported type ${field.type}`);
    }
    const name = bare(resolved.fullName);
    const special = SPECIAL_MESSAGES.get(name);
    if (special) return { kind: 'special', special };
    return { kind: 'message', plan: this.plan(name) };
  }
}

/**
 * Loads every .proto file under `protoDir` (imports resolve relative to it) into one resolved
 * Root. Throws Error if a file fails to parse or a type does not resolve.
 */
export async function loadProtoRoot(protoDir: string, files: string[]): Promise<protobuf.Root> {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(protoDir, target));
  await root.load(files, { keepCase: true });
  root.resolveAll();
  return root;
}
