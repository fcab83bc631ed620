/**
 * Maps objects in kube's JSON shape to kube's protobuf messages and back, the way kube's Go types
 * do it: value (non-pointer) fields are always written, pointers only when set, map entries in
 * sorted key order; on the way back, `omitempty` decides which zero values stay in the JSON.
 */
import * as protobuf from 'protobufjs';
import { Quantity, parseQuantity } from '../../api';
import { SpecialMessage } from './go-field-semantics';
import { FieldPlan, MessagePlan, ScalarType, ValueType } from './protobuf-schema';
import { formatRfc3339, isZeroTime, parseRfc3339, ProtoTimestamp } from './protobuf-time';

type Json = Record<string, unknown>;

/** A malformed protobuf message; `message` is worded as Go's generated unmarshallers word it. */
export class ProtoWireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtoWireError';
  }
}

const tag = (id: number, wireType: number): number => ((id << 3) | wireType) >>> 0;

// ---------------------------------------------------------------------------------------------
// JSON → protobuf

/**
 * Writes the fields of `json` as message `plan` into `w` (without an outer tag/length).
 * Throws Error (a programmer error: the server's own object has the wrong shape) naming the path.
 */
export function writeMessage(w: protobuf.Writer, plan: MessagePlan, json: Json, path: string): void {
  for (const fp of plan.wireOrder) {
    const v = json[fp.name];
    const at = `${path}.${fp.name}`;
    if (fp.shape === 'map') {
      if (v == null) continue;
      const obj = asObject(v, at);
      for (const key of Object.keys(obj).sort(compareGoStrings)) {
        w.uint32(tag(fp.id, 2)).fork();
        w.uint32(tag(1, 2)).string(key);
        writeMapValue(w, fp.value, obj[key], `${at}[${key}]`);
        w.ldelim();
      }
    } else if (fp.shape === 'repeated') {
      if (v == null) continue;
      if (!Array.isArray(v)) throw new Error(`${at}: expected an array`);
      v.forEach((el, i) => writeValue(w, fp.id, fp.value, el, `${at}[${i}]`));
    } else if (v != null || !fp.pointer) {
      writeValue(w, fp.id, fp.value, v, at);
    }
  }
}

/** Writes one occurrence of a field; a null/absent value is written as Go's zero value. */
function writeValue(w: protobuf.Writer, id: number, value: ValueType, v: unknown, at: string): void {
  if (value.kind === 'scalar') {
    writeScalar(w, id, value.scalar, v, at);
  } else if (value.kind === 'message') {
    w.uint32(tag(id, 2)).fork();
    writeMessage(w, value.plan, v == null ? {} : asObject(v, at), at);
    w.ldelim();
  } else {
    w.uint32(tag(id, 2)).fork();
    writeSpecial(w, value.special, v, at);
    w.ldelim();
  }
}

/** Map values: strings and messages always written, bytes only when non-nil (gogo's `v != nil`). */
function writeMapValue(w: protobuf.Writer, value: ValueType, v: unknown, at: string): void {
  if (value.kind === 'scalar' && value.scalar === 'bytes' && v == null) return;
  writeValue(w, 2, value, v, at);
}

function writeScalar(w: protobuf.Writer, id: number, scalar: ScalarType, v: unknown, at: string): void {
  switch (scalar) {
    case 'string':
      w.uint32(tag(id, 2)).string(v == null ? '' : asString(v, at));
      return;
    case 'bytes':
      w.uint32(tag(id, 2)).bytes(v == null ? Buffer.alloc(0) : Buffer.from(asString(v, at), 'base64'));
      return;
    case 'bool':
      if (v != null && typeof v !== 'boolean') throw new Error(`${at}: expected a boolean`);
      w.uint32(tag(id, 0)).bool(v === true);
      return;
    case 'int32':
      w.uint32(tag(id, 0)).int32(v == null ? 0 : asInteger(v, at));
      return;
    case 'int64':
      w.uint32(tag(id, 0)).int64(v == null ? 0 : asInteger(v, at));
      return;
  }
}

/** The body of a message with a custom Go marshaller. */
function writeSpecial(w: protobuf.Writer, special: SpecialMessage, v: unknown, at: string): void {
  switch (special) {
    case 'time':
    case 'microTime': {
      if (v == null) return;
      const t = parseRfc3339(asString(v, at));
      if (!t) throw new Error(`${at}: not an RFC3339 time: ${String(v)}`);
      if (isZeroTime(t)) return; // kube writes a zero Time as an empty message
      // Time drops sub-second precision (Time.ProtoTime); MicroTime truncates to microseconds.
      const nanos = special === 'time' ? 0 : t.nanos - (t.nanos % 1000);
      w.uint32(tag(1, 0)).int64(t.seconds).uint32(tag(2, 0)).int32(nanos);
      return;
    }
    case 'quantity':
      w.uint32(tag(1, 2)).string(quantityString(v, at));
      return;
    case 'fieldsV1':
    case 'rawExtension':
      // Both hold raw JSON text (FieldsV1.UnmarshalJSON / RawExtension.UnmarshalJSON keep it verbatim).
      if (v != null) w.uint32(tag(1, 2)).bytes(Buffer.from(JSON.stringify(v)));
      return;
  }
}

function quantityString(v: unknown, at: string): string {
  try {
    return Quantity.fromJSON(v).toString();
  } catch (e) {
    throw new Error(`${at}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Go's sort.Strings order: byte-wise on UTF-8. */
function compareGoStrings(a: string, b: string): number {
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function asObject(v: unknown, at: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${at}: expected an object`);
  return v as Json;
}

function asString(v: unknown, at: string): string {
  if (typeof v !== 'string') throw new Error(`${at}: expected a string`);
  return v;
}

function asInteger(v: unknown, at: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(`${at}: expected an integer`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// protobuf → JSON

/**
 * Decodes `bytes` as message `plan` into kube's JSON shape. Unknown fields are skipped (as Go does).
 * Throws ProtoWireError for malformed input; reader overruns surface as RangeError (see codec).
 */
export function readMessage(bytes: Uint8Array, plan: MessagePlan): Json {
  const r = protobuf.Reader.create(bytes);
  const values = new Map<FieldPlan, unknown>();
  while (r.pos < r.len) {
    const [id, wireType] = readTag(r, plan.name);
    const fp = plan.byId.get(id);
    if (!fp) {
      skipField(r, wireType);
      continue;
    }
    if (wireType !== fp.wireType) throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${fp.goName}`);
    if (fp.shape === 'map') {
      const entries = (values.get(fp) as Json | undefined) ?? {};
      values.set(fp, entries);
      const [key, value] = readMapEntry(readView(r), fp.value);
      setKey(entries, key, value);
    } else if (fp.shape === 'repeated') {
      const list = (values.get(fp) as unknown[] | undefined) ?? [];
      values.set(fp, list);
      list.push(readValue(r, fp.value));
    } else {
      values.set(fp, readValue(r, fp.value));
    }
  }
  return toJson(plan, values);
}

/** Builds the JSON object in declaration (Go struct) order, applying pointer/omitempty rules. */
function toJson(plan: MessagePlan, values: Map<FieldPlan, unknown>): Json {
  const out: Json = {};
  for (const fp of plan.fields) {
    const has = values.has(fp);
    const v = values.get(fp);
    if (fp.shape === 'map') {
      if (has && Object.keys(v as Json).length > 0) out[fp.name] = v;
      else if (fp.jsonRequired) out[fp.name] = {};
    } else if (fp.shape === 'repeated') {
      if (has && (v as unknown[]).length > 0) out[fp.name] = v;
      else if (fp.jsonRequired) out[fp.name] = [];
    } else if (fp.value.kind === 'scalar') {
      const value = has ? v : zeroScalar(fp.value.scalar);
      if ((has && fp.pointer) || fp.jsonRequired || !isZeroScalar(value)) out[fp.name] = value;
    } else if (fp.value.kind === 'message') {
      // A Go struct value is always in kube's JSON (omitempty does not omit structs).
      if (has) out[fp.name] = v;
      else if (!fp.pointer) out[fp.name] = readMessage(new Uint8Array(0), fp.value.plan);
    } else {
      const value = has ? v : fp.pointer ? undefined : readSpecial(new Uint8Array(0), fp.value.special);
      // A zero Time is JSON null in kube; it is left out here.
      if (value !== undefined) out[fp.name] = value;
    }
  }
  return out;
}

function readValue(r: protobuf.Reader, value: ValueType): unknown {
  if (value.kind === 'scalar') return readScalar(r, value.scalar);
  const view = readView(r);
  return value.kind === 'message' ? readMessage(view, value.plan) : readSpecial(view, value.special);
}

function readScalar(r: protobuf.Reader, scalar: ScalarType): unknown {
  switch (scalar) {
    case 'string':
      return readView(r).toString('utf8');
    case 'bytes':
      return readView(r).toString('base64');
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return longToNumber(r.int64());
  }
}

/** The JSON of a custom-marshalled message; undefined means Go's zero value that kube shows as null. */
function readSpecial(bytes: Uint8Array, special: SpecialMessage): unknown {
  switch (special) {
    case 'time':
    case 'microTime': {
      // Time.Unmarshal: empty data is the zero time.
      if (bytes.length === 0) return undefined;
      const t = readTimestamp(bytes);
      if (isZeroTime(t)) return undefined;
      // Time.Unmarshal ignores nanos; MicroTime.Unmarshal truncates them to microseconds.
      const text = formatRfc3339(t.seconds, special === 'time' ? undefined : Math.floor(t.nanos / 1000));
      if (text === null) throw new ProtoWireError('Time.MarshalJSON: year outside of range [0,9999]');
      return text;
    }
    case 'quantity': {
      const s = readSingleBytesField(bytes, 'Quantity', 'String');
      // Quantity.Unmarshal parses the string (ParseQuantity), and kube's JSON is its canonical form.
      try {
        return parseQuantity(s ? s.toString('utf8') : '').toString();
      } catch (e) {
        throw new ProtoWireError(e instanceof Error ? e.message : String(e));
      }
    }
    case 'fieldsV1':
    case 'rawExtension': {
      const raw = readSingleBytesField(bytes, special === 'fieldsV1' ? 'FieldsV1' : 'RawExtension', 'Raw');
      if (raw === undefined) return undefined;
      try {
        return JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        throw new ProtoWireError(`proto: ${special === 'fieldsV1' ? 'FieldsV1' : 'RawExtension'}: Raw is not valid JSON`);
      }
    }
  }
}

/** Reads a metav1 Timestamp {seconds = 1, nanos = 2}. */
function readTimestamp(bytes: Uint8Array): ProtoTimestamp {
  const r = protobuf.Reader.create(bytes);
  const t: ProtoTimestamp = { seconds: 0, nanos: 0 };
  while (r.pos < r.len) {
    const [id, wireType] = readTag(r, 'Timestamp');
    if ((id === 1 || id === 2) && wireType !== 0) {
      throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${id === 1 ? 'Seconds' : 'Nanos'}`);
    }
    if (id === 1) t.seconds = longToNumber(r.int64());
    else if (id === 2) t.nanos = r.int32();
    else skipField(r, wireType);
  }
  return t;
}

/** Reads a message whose only field of interest is bytes/string field 1; undefined when absent. */
function readSingleBytesField(bytes: Uint8Array, message: string, goField: string): Buffer | undefined {
  const r = protobuf.Reader.create(bytes);
  let out: Buffer | undefined;
  while (r.pos < r.len) {
    const [id, wireType] = readTag(r, message);
    if (id !== 1) {
      skipField(r, wireType);
      continue;
    }
    if (wireType !== 2) throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${goField}`);
    out = readView(r);
  }
  return out;
}

/** Reads one map entry {key = 1, value = 2}; a missing value is Go's zero value. */
function readMapEntry(bytes: Uint8Array, value: ValueType): [string, unknown] {
  const r = protobuf.Reader.create(bytes);
  let key = '';
  let v: unknown;
  let has = false;
  while (r.pos < r.len) {
    const [id, wireType] = readTag(r, 'MapEntry');
    if (id === 1 && wireType === 2) key = readView(r).toString('utf8');
    else if (id === 2 && wireType === (value.kind === 'scalar' && value.scalar !== 'string' && value.scalar !== 'bytes' ? 0 : 2)) {
      v = readValue(r, value);
      has = true;
    } else if (id === 1 || id === 2) throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${id === 1 ? 'key' : 'value'}`);
    else skipField(r, wireType);
  }
  if (!has) {
    if (value.kind === 'scalar') v = zeroScalar(value.scalar);
    else if (value.kind === 'message') v = readMessage(new Uint8Array(0), value.plan);
    else v = readSpecial(new Uint8Array(0), value.special) ?? null;
  }
  return [key, v];
}

function readTag(r: protobuf.Reader, message: string): [number, number] {
  const t = r.uint32();
  const id = t >>> 3;
  const wireType = t & 7;
  if (wireType === 4) throw new ProtoWireError(`proto: ${message}: wiretype end group for non-group`);
  if (id <= 0) throw new ProtoWireError(`proto: ${message}: illegal tag ${id} (wire type ${wireType})`);
  return [id, wireType];
}

/** Skips an unknown field as Go's skipGenerated does. */
function skipField(r: protobuf.Reader, wireType: number): void {
  if (wireType > 5) throw new ProtoWireError(`proto: illegal wireType ${wireType}`);
  r.skipType(wireType);
}

/** Reads a length-delimited payload as a view into the input; throws RangeError when truncated. */
function readView(r: protobuf.Reader): Buffer {
  const len = r.uint32();
  const start = r.pos;
  const end = start + len;
  if (end > r.len) throw new RangeError('index out of range');
  r.pos = end;
  return Buffer.from(r.buf.buffer, r.buf.byteOffset + start, len);
}

function longToNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  return (v as { toNumber(): number }).toNumber();
}

function zeroScalar(scalar: ScalarType): unknown {
  return scalar === 'bool' ? false : scalar === 'int32' || scalar === 'int64' ? 0 : '';
}

function isZeroScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

/** Sets a key on a plain object, including `__proto__` as an own property. */
function setKey(obj: Json, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
