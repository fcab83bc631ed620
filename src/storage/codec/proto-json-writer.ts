/**
 * Writes objects in kube's JSON shape as kube's protobuf messages, the way kube's Go types marshal:
 * value (non-pointer) fields are always written (empty strings, zeros, empty structs included),
 * pointers only when set, map entries in sorted key order (gogo's sortkeys).
 */
import { Quantity, compareGoStrings } from '../../api';
import { SpecialMessage } from './go-field-semantics';
import { ProtoWriter } from './proto-writer';
import { FieldPlan, MessagePlan, ScalarType, ValueType } from './protobuf-schema';
import { isZeroTime, parseRfc3339 } from './protobuf-time';

type Json = Record<string, unknown>;


/**
 * Writes the fields of `json` as message `plan` into `w` (without an outer tag/length).
 * Throws Error (a programmer error: the server's own object has the wrong shape) naming the
 * offending path below `path`.
 */
export function writeMessage(w: ProtoWriter, plan: MessagePlan, json: Json, path: string): void {
  try {
    writeFields(w, plan, json);
  } catch (e) {
    if (e instanceof ShapeError) throw new Error(`${path}${e.at}: ${e.detail}`);
    throw e;
  }
}

/** A JSON value of the wrong shape; `at` is built on the way up (no path strings on the happy path). */
class ShapeError extends Error {
  constructor(
    readonly detail: string,
    readonly at = '',
  ) {
    super(detail);
  }
}

const within = (e: unknown, segment: string): unknown =>
  e instanceof ShapeError ? new ShapeError(e.detail, segment + e.at) : e;

function writeFields(w: ProtoWriter, plan: MessagePlan, json: Json): void {
  for (const fp of plan.wireOrder) {
    try {
      // An inlined struct's fields are the parent's own: its message reads them from the parent.
      writeField(w, fp, fp.inline ? json : json[fp.name]);
    } catch (e) {
      throw within(e, `.${fp.name}`);
    }
  }
}

function writeField(w: ProtoWriter, fp: FieldPlan, v: unknown): void {
  if (fp.shape === 'map') {
    if (v == null) return;
    const obj = asObject(v);
    for (const key of Object.keys(obj).sort(compareGoStrings)) {
      try {
        w.tag(fp.id, 2).fork();
        w.tag(1, 2).string(key);
        writeMapValue(w, fp.value, obj[key]);
        w.ldelim();
      } catch (e) {
        throw within(e, `[${key}]`);
      }
    }
  } else if (fp.shape === 'repeated') {
    if (v == null) return;
    if (!Array.isArray(v)) throw new ShapeError('expected an array');
    v.forEach((el, i) => {
      try {
        writeValue(w, fp.id, fp.value, el);
      } catch (e) {
        throw within(e, `[${i}]`);
      }
    });
  } else if (v != null || !(fp.pointer || isBytes(fp.value))) {
    // A nil Go pointer is not written, nor a nil []byte (gogo writes it only when non-nil).
    writeValue(w, fp.id, fp.value, v);
  }
}

const isBytes = (value: ValueType): boolean => value.kind === 'scalar' && value.scalar === 'bytes';

/** Writes one occurrence of a field; a null/absent value is written as Go's zero value. */
function writeValue(w: ProtoWriter, id: number, value: ValueType, v: unknown): void {
  if (value.kind === 'scalar') {
    writeScalar(w, id, value.scalar, v);
  } else if (value.kind === 'message') {
    w.tag(id, 2).fork();
    writeFields(w, value.plan, v == null ? {} : asObject(v));
    w.ldelim();
  } else {
    w.tag(id, 2).fork();
    writeSpecial(w, value.special, v);
    w.ldelim();
  }
}

/** Map values: strings and messages always written, bytes only when non-nil (gogo's `v != nil`). */
function writeMapValue(w: ProtoWriter, value: ValueType, v: unknown): void {
  if (value.kind === 'scalar' && value.scalar === 'bytes' && v == null) return;
  writeValue(w, 2, value, v);
}

function writeScalar(w: ProtoWriter, id: number, scalar: ScalarType, v: unknown): void {
  switch (scalar) {
    case 'string':
      w.tag(id, 2).string(v == null ? '' : asString(v));
      return;
    case 'bytes':
      w.tag(id, 2).bytes(v == null ? EMPTY : Buffer.from(asString(v), 'base64'));
      return;
    case 'bool':
      if (v != null && typeof v !== 'boolean') throw new ShapeError('expected a boolean');
      w.tag(id, 0).bool(v === true);
      return;
    case 'int32':
      w.tag(id, 0).int(v == null ? 0 : asInteger(v));
      return;
    case 'int64':
      w.tag(id, 0).int(v == null ? 0 : asInteger(v));
      return;
  }
}

const EMPTY = new Uint8Array(0);

/** The body of a message with a custom Go marshaller. */
function writeSpecial(w: ProtoWriter, special: SpecialMessage, v: unknown): void {
  switch (special) {
    case 'time':
    case 'microTime': {
      if (v == null) return;
      const t = parseRfc3339(asString(v));
      if (!t) throw new ShapeError(`not an RFC3339 time: ${String(v)}`);
      if (isZeroTime(t)) return; // kube writes a zero Time as an empty message
      // Time drops sub-second precision (Time.ProtoTime); MicroTime truncates to microseconds.
      const nanos = special === 'time' ? 0 : t.nanos - (t.nanos % 1000);
      w.tag(1, 0).int(t.seconds).tag(2, 0).int(nanos);
      return;
    }
    case 'quantity':
      w.tag(1, 2).string(quantityString(v));
      return;
    case 'fieldsV1':
    case 'rawExtension':
      // Both hold raw JSON text (FieldsV1.UnmarshalJSON / RawExtension.UnmarshalJSON keep it verbatim).
      if (v != null) w.tag(1, 2).bytes(Buffer.from(JSON.stringify(v)));
      return;
    case 'intOrString':
      // IntOrString.Marshal writes all three fields; a JSON string is type 1, a number type 0.
      if (typeof v === 'string') w.tag(1, 0).int(1).tag(2, 0).int(0).tag(3, 2).string(v);
      else w.tag(1, 0).int(0).tag(2, 0).int(v == null ? 0 : asInteger(v)).tag(3, 2).string('');
      return;
    case 'stringList':
      if (v == null) return;
      if (!Array.isArray(v)) throw new ShapeError('expected an array');
      for (const s of v) w.tag(1, 2).string(asString(s));
      return;
  }
}

function quantityString(v: unknown): string {
  try {
    return Quantity.fromJSON(v).toString();
  } catch (e) {
    throw new ShapeError(e instanceof Error ? e.message : String(e));
  }
}

function asObject(v: unknown): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ShapeError('expected an object');
  return v as Json;
}

function asString(v: unknown): string {
  if (typeof v !== 'string') throw new ShapeError('expected a string');
  return v;
}

function asInteger(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new ShapeError('expected an integer');
  return v;
}

