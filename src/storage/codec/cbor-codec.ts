/**
 * kube's CBOR wire form (`application/cbor`, alpha behind CBORServingAndStorage), written without a
 * library so the encoding rules are exactly apimachinery's (pkg/runtime/serializer/cbor,
 * internal/modes): every item starts with the self-described tag 55799; strings and map keys are
 * CBOR byte strings; []byte fields are byte strings inside tag 22 ("expected later encoding:
 * base64"); integers and floats take their shortest form (float16 when lossless); maps are sorted
 * bytewise by encoded key; no indefinite lengths. Decoding accepts what kube's decode mode accepts
 * (text or byte strings, the expected-later-encoding tags, indefinite lengths) and rejects what it
 * rejects (duplicate keys, simple values other than false/true/null, NaN/Inf, bignums, more than
 * 1024 array elements or map pairs, nesting past 64). Objects keep kube's JSON shape both ways:
 * byte fields are base64 strings in memory, exactly as the JSON codec has them.
 *
 * "Storage" in the gate's name: kube may also write CBOR to etcd for custom resources; this server
 * stores JSON in etcd whatever the gate says, so turning the gate off never strands data.
 */

type Json = Record<string, unknown>;

/** The media type of a CBOR request or response body. */
export const CBOR_MEDIA_TYPE = 'application/cbor';
/** The media type of a CBOR watch response: one CBOR data item per event (RFC 8742). */
export const CBOR_SEQ_MEDIA_TYPE = 'application/cbor-seq';
/** The self-described CBOR tag (55799) kube writes before every item. */
export const CBOR_SELF_DESCRIBED: Buffer = Buffer.from([0xd9, 0xd9, 0xf7]);

/**
 * Paths of the []byte fields of a kind: a segment is a field name, `*` (every value of a map) or
 * `[]` (every element of an array). Secret → [['data', '*']].
 */
export type BytePath = readonly string[];

/** Looks up the []byte field paths of a kind; undefined or [] when it has none. */
export type ByteFieldLookup = (apiVersion: string, kind: string) => readonly BytePath[] | undefined;

/** A body that is not well-formed or not acceptable CBOR; the message is worded as fxamacker/cbor's. */
export class CborDecodeError extends Error {
  override readonly name = 'CborDecodeError';
}

/** Options for {@link CborCodec}. */
export interface CborCodecOptions {
  /** Which fields of a kind are []byte (encoded as tag 22 byte strings). Default: none. */
  byteFields?: ByteFieldLookup;
}

/** Translates between kube's JSON object shape and kube's CBOR encoding. Stateless once built. */
export class CborCodec {
  constructor(private readonly opts: CborCodecOptions = {}) {}

  /** Encodes one object (or list, or Status) as kube writes it: tag 55799, then the map. */
  encode(obj: Json): Buffer {
    const w = new CborWriter();
    w.raw(CBOR_SELF_DESCRIBED);
    w.value(obj, this.bytePaths(obj));
    return w.finish();
  }

  /**
   * One watch event as kube's CBOR stream writes it: a self-described map {type, object} whose
   * object is itself the self-described encoding of the object (RawExtension passes CBOR through):
   * `objectBytes` is {@link encode} of the object.
   */
  encodeWatchEvent(type: string, objectBytes: Buffer): Buffer {
    const w = new CborWriter();
    w.raw(CBOR_SELF_DESCRIBED);
    // Keys sorted bytewise by their encoding: "type" (4 bytes) before "object" (6).
    w.head(5, 2);
    w.bytes(Buffer.from('type'));
    w.bytes(Buffer.from(type));
    w.bytes(Buffer.from('object'));
    w.raw(objectBytes);
    return w.finish();
  }

  /**
   * Decodes one CBOR item into kube's JSON shape. Throws CborDecodeError for malformed input,
   * trailing bytes, or anything kube's decode mode rejects.
   */
  decode(body: Buffer): unknown {
    return decodeCbor(body);
  }

  private bytePaths(obj: Json): BytePath[] {
    const lookup = this.opts.byteFields;
    if (!lookup) return [];
    const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
    const kind = typeof obj.kind === 'string' ? obj.kind : '';
    const own = [...(lookup(apiVersion, kind) ?? [])];
    // Lists carry their items without kind: the item kind is the list kind without "List".
    if (kind.endsWith('List') && Array.isArray(obj.items)) {
      for (const p of lookup(apiVersion, kind.slice(0, -4)) ?? []) own.push(['items', '[]', ...p]);
    }
    return own;
  }
}

// ---------------------------------------------------------------- encoding

class CborWriter {
  private buf = Buffer.allocUnsafe(256);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** A major type with its argument in the shortest form. */
  head(major: number, n: number | bigint): void {
    const m = major << 5;
    this.ensure(9);
    const v = typeof n === 'bigint' ? n : BigInt(n);
    if (v < 24n) this.buf[this.len++] = m | Number(v);
    else if (v < 0x100n) {
      this.buf[this.len++] = m | 24;
      this.buf[this.len++] = Number(v);
    } else if (v < 0x10000n) {
      this.buf[this.len++] = m | 25;
      this.buf.writeUInt16BE(Number(v), this.len);
      this.len += 2;
    } else if (v < 0x100000000n) {
      this.buf[this.len++] = m | 26;
      this.buf.writeUInt32BE(Number(v), this.len);
      this.len += 4;
    } else {
      this.buf[this.len++] = m | 27;
      this.buf.writeBigUInt64BE(v, this.len);
      this.len += 8;
    }
  }

  bytes(b: Uint8Array): void {
    this.head(2, b.length);
    this.raw(b);
  }

  number(n: number): void {
    if (!Number.isFinite(n)) throw new Error(`cbor: unsupported value: ${n}`);
    if (Number.isInteger(n) && Number.isSafeInteger(n)) {
      if (n >= 0) this.head(0, n);
      else this.head(1, -1 - n);
      return;
    }
    this.float(n);
  }

  /** fxamacker's ShortestFloat16: float16 when exact, else float32 when exact, else float64. */
  private float(n: number): void {
    this.ensure(9);
    const half = toFloat16Bits(n);
    if (half !== undefined) {
      this.buf[this.len++] = 0xf9;
      this.buf.writeUInt16BE(half, this.len);
      this.len += 2;
    } else if (Math.fround(n) === n) {
      this.buf[this.len++] = 0xfa;
      this.buf.writeFloatBE(n, this.len);
      this.len += 4;
    } else {
      this.buf[this.len++] = 0xfb;
      this.buf.writeDoubleBE(n, this.len);
      this.len += 8;
    }
  }

  value(v: unknown, bytePaths: readonly BytePath[]): void {
    if (v === null || v === undefined) {
      this.raw(NULL);
    } else if (typeof v === 'boolean') {
      this.raw(v ? TRUE : FALSE);
    } else if (typeof v === 'number') {
      this.number(v);
    } else if (typeof v === 'string') {
      if (bytePaths.some((p) => p.length === 0)) {
        // []byte: tag 22 (expected later encoding base64) around the raw bytes.
        this.head(6, 22);
        this.bytes(Buffer.from(v, 'base64'));
      } else {
        this.bytes(Buffer.from(v, 'utf8'));
      }
    } else if (Array.isArray(v)) {
      const inner = descend(bytePaths, '[]');
      this.head(4, v.length);
      for (const item of v) this.value(item, inner);
    } else if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
      this.head(6, 22);
      this.bytes(v);
    } else if (typeof v === 'object') {
      const entries = Object.entries(v as Json).filter(([, x]) => x !== undefined);
      const keyed = entries.map(([k, x]) => ({ key: encodeKey(k), name: k, value: x }));
      keyed.sort((a, b) => Buffer.compare(a.key, b.key));
      this.head(5, keyed.length);
      for (const e of keyed) {
        this.raw(e.key);
        this.value(e.value, descend(bytePaths, e.name));
      }
    } else {
      throw new Error(`cbor: unsupported type: ${typeof v}`);
    }
  }

  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

const NULL = Buffer.from([0xf6]);
const TRUE = Buffer.from([0xf5]);
const FALSE = Buffer.from([0xf4]);

function encodeKey(k: string): Buffer {
  const w = new CborWriter();
  w.bytes(Buffer.from(k, 'utf8'));
  return w.finish();
}

/** The byte paths below one step (a field name, or `[]` into an array). */
function descend(paths: readonly BytePath[], step: string): BytePath[] {
  const out: BytePath[] = [];
  for (const p of paths) {
    if (p.length === 0) continue;
    const head = p[0];
    if (head === step || (head === '*' && step !== '[]')) out.push(p.slice(1));
  }
  return out;
}

/** The IEEE 754 half-precision bits of n when n is exactly representable, else undefined. */
export function toFloat16Bits(n: number): number | undefined {
  if (Object.is(n, 0)) return 0;
  if (Object.is(n, -0)) return 0x8000;
  if (Math.fround(n) !== n) return undefined;
  const sign = n < 0 ? 0x8000 : 0;
  const a = Math.abs(n);
  const exp = Math.floor(Math.log2(a));
  if (exp > 15) return undefined;
  if (exp >= -14) {
    const mant = a / 2 ** exp - 1; // in [0, 1)
    const bits = mant * 1024;
    if (!Number.isInteger(bits)) return undefined;
    return sign | ((exp + 15) << 10) | bits;
  }
  // Subnormal: a = m × 2^-24 with m in [1, 1023].
  const m = a * 2 ** 24;
  if (!Number.isInteger(m) || m < 1 || m > 1023) return undefined;
  return sign | m;
}

function fromFloat16Bits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

// ---------------------------------------------------------------- decoding

/** kube's decode mode limits (internal/modes/decode.go). */
const MAX_NESTED_LEVELS = 64;
const MAX_ARRAY_ELEMENTS = 1024;
const MAX_MAP_PAIRS = 1024;

const BREAK = Symbol('break');

/**
 * Decodes exactly one CBOR data item from `data` into a JSON-shaped value (see the file comment).
 * Throws CborDecodeError.
 */
export function decodeCbor(data: Buffer): unknown {
  if (data.length === 0) throw new CborDecodeError('EOF');
  const r = new CborReader(data);
  const v = r.item(0);
  if (v === BREAK) throw new CborDecodeError('cbor: unexpected "break" code');
  if (r.pos < data.length) {
    throw new CborDecodeError(`cbor: ${data.length - r.pos} bytes of extraneous data starting at index ${r.pos}`);
  }
  return v;
}

class CborReader {
  pos = 0;
  constructor(private readonly data: Buffer) {}

  private need(n: number): void {
    if (this.pos + n > this.data.length) throw new CborDecodeError('unexpected EOF');
  }

  private byte(): number {
    this.need(1);
    return this.data[this.pos++] as number;
  }

  /** The argument of a head; undefined for indefinite length (info 31). */
  private argument(info: number): bigint | undefined {
    if (info < 24) return BigInt(info);
    if (info === 24) return BigInt(this.byte());
    if (info === 25) {
      this.need(2);
      const v = this.data.readUInt16BE(this.pos);
      this.pos += 2;
      return BigInt(v);
    }
    if (info === 26) {
      this.need(4);
      const v = this.data.readUInt32BE(this.pos);
      this.pos += 4;
      return BigInt(v);
    }
    if (info === 27) {
      this.need(8);
      const v = this.data.readBigUInt64BE(this.pos);
      this.pos += 8;
      return v;
    }
    if (info === 31) return undefined;
    throw new CborDecodeError(`cbor: invalid additional information ${info} for type ${majorName((this.data[this.pos - 1] ?? 0) >> 5)}`);
  }

  /** A definite length (bounded by the input, so a huge claim fails as EOF) or undefined. */
  private length(info: number): number | undefined {
    const n = this.argument(info);
    if (n === undefined) return undefined;
    if (n > BigInt(this.data.length)) throw new CborDecodeError('unexpected EOF');
    return Number(n);
  }

  item(depth: number): unknown {
    if (depth > MAX_NESTED_LEVELS) throw new CborDecodeError(`cbor: exceeded max nested level ${MAX_NESTED_LEVELS}`);
    const ib = this.byte();
    const major = ib >> 5;
    const info = ib & 0x1f;
    switch (major) {
      case 0: {
        const n = this.argument(info);
        if (n === undefined) throw new CborDecodeError('cbor: invalid additional information 31 for type positive integer');
        if (n > 0x7fffffffffffffffn) throw new CborDecodeError(`cbor: cannot unmarshal positive integer into Go value of type int64 (${n} overflows Go's int64)`);
        return Number(n);
      }
      case 1: {
        const n = this.argument(info);
        if (n === undefined) throw new CborDecodeError('cbor: invalid additional information 31 for type negative integer');
        if (n > 0x7fffffffffffffffn) throw new CborDecodeError(`cbor: cannot unmarshal negative integer into Go value of type int64 (-1-${n} overflows Go's int64)`);
        return Number(-1n - n);
      }
      case 2:
        return this.byteString(info).toString('utf8');
      case 3: {
        const b = this.byteString(info, true);
        if (!isValidUtf8(b)) throw new CborDecodeError('cbor: invalid UTF-8 string');
        return b.toString('utf8');
      }
      case 4:
        return this.array(info, depth);
      case 5:
        return this.map(info, depth);
      case 6:
        return this.tag(info, depth);
      default:
        return this.simple(info);
    }
  }

  /** A byte (or text) string's bytes, joining indefinite-length chunks. */
  private byteString(info: number, text = false): Buffer {
    const n = this.length(info);
    if (n !== undefined) {
      this.need(n);
      const b = this.data.subarray(this.pos, this.pos + n);
      this.pos += n;
      return b;
    }
    const chunks: Buffer[] = [];
    for (;;) {
      const ib = this.byte();
      if (ib === 0xff) break;
      if (ib >> 5 !== (text ? 3 : 2) || (ib & 0x1f) === 31) {
        throw new CborDecodeError(`cbor: wrong element type ${majorName(ib >> 5)} for indefinite-length ${text ? 'UTF-8 text string' : 'byte string'}`);
      }
      chunks.push(this.byteString(ib & 0x1f, text));
    }
    return Buffer.concat(chunks);
  }

  private array(info: number, depth: number): unknown[] {
    const n = this.length(info);
    const out: unknown[] = [];
    for (let i = 0; n === undefined || i < n; i++) {
      const v = this.item(depth + 1);
      if (v === BREAK) {
        if (n === undefined) break;
        throw new CborDecodeError('cbor: unexpected "break" code');
      }
      if (out.length >= MAX_ARRAY_ELEMENTS) throw new CborDecodeError(`cbor: exceeded max number of elements ${MAX_ARRAY_ELEMENTS} for CBOR array`);
      out.push(v);
    }
    return out;
  }

  private map(info: number, depth: number): Json {
    const n = this.length(info);
    const out: Json = {};
    let count = 0;
    for (let i = 0; n === undefined || i < n; i++) {
      const k = this.item(depth + 1);
      if (k === BREAK) {
        if (n === undefined) break;
        throw new CborDecodeError('cbor: unexpected "break" code');
      }
      if (typeof k !== 'string') throw new CborDecodeError(`cbor: cannot unmarshal ${typeof k === 'number' ? 'integer' : 'non-string'} map key into Go value of type string`);
      const v = this.item(depth + 1);
      if (v === BREAK) throw new CborDecodeError('cbor: unexpected "break" code');
      if (++count > MAX_MAP_PAIRS) throw new CborDecodeError(`cbor: exceeded max number of key-value pairs ${MAX_MAP_PAIRS} for CBOR map`);
      // Duplicate keys are invalid CBOR; kube rejects them outright (DupMapKeyEnforcedAPF).
      if (Object.prototype.hasOwnProperty.call(out, k)) throw new CborDecodeError(`cbor: found duplicate map key "${k}" at map element index ${count - 1}`);
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private tag(info: number, depth: number): unknown {
    const num = this.argument(info);
    if (num === undefined) throw new CborDecodeError('cbor: invalid additional information 31 for type tag');
    if (num === 2n || num === 3n) throw new CborDecodeError('cbor: bignum tags are forbidden');
    // Expected-later-encoding tags apply to the byte string they enclose.
    if (num === 21n || num === 22n || num === 23n) {
      const start = this.pos;
      const ib = this.byte();
      if (ib >> 5 === 2) {
        const b = this.byteString(ib & 0x1f);
        if (num === 21n) return b.toString('base64url');
        if (num === 22n) return b.toString('base64');
        return b.toString('hex');
      }
      this.pos = start;
      return this.item(depth + 1);
    }
    const content = this.item(depth + 1);
    if (content === BREAK) throw new CborDecodeError('cbor: unexpected "break" code');
    // Epoch-based time (tag 1) reads as an RFC 3339 string, as kube's TimeTagToRFC3339Nano.
    if (num === 1n && typeof content === 'number') return rfc3339Nano(content);
    return content;
  }

  private simple(info: number): unknown {
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 25: {
        this.need(2);
        const v = fromFloat16Bits(this.data.readUInt16BE(this.pos));
        this.pos += 2;
        return finite(v);
      }
      case 26: {
        this.need(4);
        const v = this.data.readFloatBE(this.pos);
        this.pos += 4;
        return finite(v);
      }
      case 27: {
        this.need(8);
        const v = this.data.readDoubleBE(this.pos);
        this.pos += 8;
        return finite(v);
      }
      case 31:
        return BREAK;
      case 24: {
        const sv = this.byte();
        if (sv < 32) throw new CborDecodeError(`cbor: invalid simple value ${sv} for type primitives`);
        throw new CborDecodeError(`cbor: simple value ${sv} is not recognized`);
      }
      default:
        if (info >= 28) throw new CborDecodeError(`cbor: invalid additional information ${info} for type primitives`);
        throw new CborDecodeError(`cbor: simple value ${info} is not recognized`);
    }
  }
}

function finite(v: number): number {
  if (Number.isNaN(v)) throw new CborDecodeError('cbor: floating-point NaN values are not accepted');
  if (!Number.isFinite(v)) throw new CborDecodeError('cbor: floating-point infinity values are not accepted');
  return v;
}

function majorName(m: number): string {
  return ['positive integer', 'negative integer', 'byte string', 'UTF-8 text string', 'array', 'map', 'tag', 'primitives'][m] ?? 'unknown';
}

function isValidUtf8(b: Buffer): boolean {
  return Buffer.from(b.toString('utf8'), 'utf8').equals(b);
}

function rfc3339Nano(epochSeconds: number): string {
  const ms = Math.floor(epochSeconds * 1000);
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.000Z$/, 'Z');
}

// ---------------------------------------------------------------- byte field discovery

/** The parts of an OpenAPI schema that locate `format: byte` fields. */
export interface ByteFieldSchema {
  type?: string | string[];
  format?: string;
  properties?: Record<string, ByteFieldSchema>;
  additionalProperties?: ByteFieldSchema | boolean;
  items?: ByteFieldSchema;
  allOf?: ByteFieldSchema[];
  $ref?: string;
}

/**
 * Walks a schema (resolving `$ref` / single `allOf` through `resolve`) and returns the paths of its
 * `type: string, format: byte` fields. Recursive schemas stop at the first repeat.
 */
export function byteFieldPaths(root: ByteFieldSchema, resolve: (ref: string) => ByteFieldSchema | undefined): BytePath[] {
  const out: BytePath[] = [];
  const walk = (s: ByteFieldSchema | undefined, at: string[], seen: Set<string>): void => {
    if (!s) return;
    const refs = [s.$ref, ...(s.allOf ?? []).map((x) => x.$ref)].filter((r): r is string => !!r);
    for (const ref of refs) {
      if (seen.has(ref)) continue;
      walk(resolve(ref), at, new Set([...seen, ref]));
    }
    if (s.format === 'byte') out.push(at);
    for (const [k, p] of Object.entries(s.properties ?? {})) walk(p, [...at, k], seen);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, [...at, '*'], seen);
    if (s.items) walk(s.items, [...at, '[]'], seen);
  };
  walk(root, [], new Set());
  return out;
}
