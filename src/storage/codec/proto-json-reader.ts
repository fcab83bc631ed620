/**
 * Reads kube's protobuf messages into kube's JSON shape, as the Go types would marshal to JSON after
 * unmarshalling: `omitempty` drops zero values of value fields, pointers that were set stay (even
 * when zero), struct values always appear.
 */
import * as protobuf from 'protobufjs';
import { parseQuantity } from '../../api';
import { SpecialMessage } from './go-field-semantics';
import { MessagePlan, ScalarType, ValueType } from './protobuf-schema';
import { formatRfc3339, isZeroTime, ProtoTimestamp } from './protobuf-time';

type Json = Record<string, unknown>;

/** A malformed protobuf message; `message` is worded as Go's generated unmarshallers word it. */
export class ProtoWireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtoWireError';
  }
}

const EMPTY = new Uint8Array(0);

/**
 * Decodes `bytes` as message `plan` into kube's JSON shape. Unknown fields are skipped (as Go does).
 * Throws ProtoWireError for malformed input and RangeError when the input is truncated.
 */
export function readMessage(bytes: Uint8Array, plan: MessagePlan): Json {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const r = protobuf.Reader.create(buf);
  return readFields(r, r.len, plan);
}

/** Sentinel for "field not on the wire". */
const ABSENT = Symbol('absent');

/** Reads the fields of one message from `r.pos` up to `end` (one reader for the whole tree). */
function readFields(r: protobuf.Reader, end: number, plan: MessagePlan): Json {
  const values: unknown[] = new Array<unknown>(plan.fields.length).fill(ABSENT);
  while (r.pos < end) {
    const [id, wireType] = readTag(r, plan.name);
    const fp = plan.byId.get(id);
    if (!fp) {
      skipField(r, wireType);
    } else {
      if (wireType !== fp.wireType) throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${fp.goName}`);
      if (fp.shape === 'map') {
        let entries = values[fp.index] as Json | typeof ABSENT;
        if (entries === ABSENT) values[fp.index] = entries = {};
        readMapEntry(r, subEnd(r, end), fp.value, entries);
      } else if (fp.shape === 'repeated') {
        let list = values[fp.index] as unknown[] | typeof ABSENT;
        if (list === ABSENT) values[fp.index] = list = [];
        list.push(readValue(r, end, fp.value));
      } else {
        values[fp.index] = readValue(r, end, fp.value);
      }
    }
    if (r.pos > end) throw new RangeError('index out of range');
  }
  return toJson(plan, values);
}

/** Builds the JSON object in declaration (Go struct) order, applying pointer/omitempty rules. */
function toJson(plan: MessagePlan, values: unknown[]): Json {
  const out: Json = {};
  for (const fp of plan.fields) {
    const v = values[fp.index];
    const has = v !== ABSENT;
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
      // An inlined struct's fields join the parent's, at the field's place.
      if (fp.inline) Object.assign(out, has ? v : readMessage(EMPTY, fp.value.plan));
      // A Go struct value is always in kube's JSON (omitempty does not omit structs).
      else if (has) out[fp.name] = v;
      else if (!fp.pointer) out[fp.name] = readMessage(EMPTY, fp.value.plan);
    } else {
      const value = has ? v : fp.pointer ? undefined : readSpecial(EMPTY_READER(), 0, fp.value.special);
      // A zero Time is JSON null in kube; it is left out here.
      if (value !== undefined) out[fp.name] = value;
    }
  }
  return out;
}

const EMPTY_READER = (): protobuf.Reader => protobuf.Reader.create(Buffer.alloc(0));

/** Reads a length prefix and returns where the payload ends; RangeError if past `limit`. */
function subEnd(r: protobuf.Reader, limit: number): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > limit || end > r.len) throw new RangeError('index out of range');
  return end;
}

function readValue(r: protobuf.Reader, limit: number, value: ValueType): unknown {
  if (value.kind === 'scalar') return readScalar(r, limit, value.scalar);
  const end = subEnd(r, limit);
  const out = value.kind === 'message' ? readFields(r, end, value.plan) : readSpecial(r, end, value.special);
  r.pos = end;
  return out;
}

function readScalar(r: protobuf.Reader, limit: number, scalar: ScalarType): unknown {
  switch (scalar) {
    case 'string':
    case 'bytes': {
      const end = subEnd(r, limit);
      const text = (r.buf as Buffer).toString(scalar === 'string' ? 'utf8' : 'base64', r.pos, end);
      r.pos = end;
      return text;
    }
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return longToNumber(r.int64());
  }
}

/**
 * The JSON of a custom-marshalled message whose payload spans `r.pos` to `end`; undefined means
 * Go's zero value, which kube shows as null.
 */
function readSpecial(r: protobuf.Reader, end: number, special: SpecialMessage): unknown {
  switch (special) {
    case 'time':
    case 'microTime': {
      // Time.Unmarshal: empty data is the zero time.
      if (r.pos === end) return undefined;
      const t = readTimestamp(r, end);
      if (isZeroTime(t)) return undefined;
      // Time.Unmarshal ignores nanos; MicroTime.Unmarshal truncates them to microseconds.
      const text = formatRfc3339(t.seconds, special === 'time' ? undefined : Math.floor(t.nanos / 1000));
      if (text === null) throw new ProtoWireError('Time.MarshalJSON: year outside of range [0,9999]');
      return text;
    }
    case 'quantity': {
      const s = readSingleBytesField(r, end, 'Quantity', 'String');
      // Quantity.Unmarshal parses the string (ParseQuantity) and kube's JSON is its canonical form;
      // no string at all leaves Go's zero Quantity, "0".
      try {
        return s === undefined ? '0' : parseQuantity(s.toString('utf8')).toString();
      } catch (e) {
        throw new ProtoWireError(e instanceof Error ? e.message : String(e));
      }
    }
    case 'fieldsV1':
    case 'rawExtension': {
      const message = special === 'fieldsV1' ? 'FieldsV1' : 'RawExtension';
      const raw = readSingleBytesField(r, end, message, 'Raw');
      if (raw === undefined) return undefined;
      try {
        return JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        throw new ProtoWireError(`proto: ${message}: Raw is not valid JSON`);
      }
    }
    case 'intOrString': {
      // IntOrString.Unmarshal: type 1 is the string, anything else the int (absent: 0).
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < end) {
        const [id, wireType] = readTag(r, 'IntOrString');
        if (id >= 1 && id <= 3 && wireType !== (id === 3 ? 2 : 0)) {
          throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${['Type', 'IntVal', 'StrVal'][id - 1]}`);
        }
        if (id === 1) type = longToNumber(r.int64());
        else if (id === 2) intVal = r.int32();
        else if (id === 3) strVal = readScalar(r, end, 'string') as string;
        else skipField(r, wireType);
        if (r.pos > end) throw new RangeError('index out of range');
      }
      return type === 1 ? strVal : intVal;
    }
    case 'stringList': {
      const items: string[] = [];
      while (r.pos < end) {
        const [id, wireType] = readTag(r, 'ExtraValue');
        if (id !== 1) skipField(r, wireType);
        else if (wireType !== 2) throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field Items`);
        else items.push(readScalar(r, end, 'string') as string);
        if (r.pos > end) throw new RangeError('index out of range');
      }
      // Go's nil slice: kube's JSON null.
      return items.length > 0 ? items : undefined;
    }
  }
}

/** Reads a metav1 Timestamp {seconds = 1, nanos = 2}. */
function readTimestamp(r: protobuf.Reader, end: number): ProtoTimestamp {
  const t: ProtoTimestamp = { seconds: 0, nanos: 0 };
  while (r.pos < end) {
    const [id, wireType] = readTag(r, 'Timestamp');
    if ((id === 1 || id === 2) && wireType !== 0) {
      throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${id === 1 ? 'Seconds' : 'Nanos'}`);
    }
    if (id === 1) t.seconds = longToNumber(r.int64());
    else if (id === 2) t.nanos = r.int32();
    else skipField(r, wireType);
    if (r.pos > end) throw new RangeError('index out of range');
  }
  return t;
}

/** Reads a message whose only field of interest is bytes/string field 1; undefined when absent. */
function readSingleBytesField(r: protobuf.Reader, end: number, message: string, goField: string): Buffer | undefined {
  let out: Buffer | undefined;
  while (r.pos < end) {
    const [id, wireType] = readTag(r, message);
    if (id !== 1) {
      skipField(r, wireType);
    } else {
      if (wireType !== 2) throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${goField}`);
      const stop = subEnd(r, end);
      out = (r.buf as Buffer).subarray(r.pos, stop);
      r.pos = stop;
    }
    if (r.pos > end) throw new RangeError('index out of range');
  }
  return out;
}

/** Reads one map entry {key = 1, value = 2} into `into`; a missing value is Go's zero value. */
function readMapEntry(r: protobuf.Reader, end: number, value: ValueType, into: Json): void {
  const valueWireType = value.kind === 'scalar' && value.scalar !== 'string' && value.scalar !== 'bytes' ? 0 : 2;
  let key = '';
  let v: unknown = ABSENT;
  while (r.pos < end) {
    const [id, wireType] = readTag(r, 'MapEntry');
    if (id === 1 && wireType === 2) key = readScalar(r, end, 'string') as string;
    else if (id === 2 && wireType === valueWireType) v = readValue(r, end, value);
    else if (id === 1 || id === 2) {
      throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${id === 1 ? 'key' : 'value'}`);
    }
    else skipField(r, wireType);
    if (r.pos > end) throw new RangeError('index out of range');
  }
  if (v === ABSENT) {
    if (value.kind === 'scalar') v = zeroScalar(value.scalar);
    else if (value.kind === 'message') v = readMessage(EMPTY, value.plan);
    else v = readSpecial(EMPTY_READER(), 0, value.special) ?? null;
  }
  setKey(into, key, v);
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
