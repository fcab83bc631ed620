/**
 * The decode-time walk: what kube's JSON decoder (sigs.k8s.io/json, case-sensitive, into typed Go
 * structs) accepts, reports and drops. Type mismatches give encoding/json's UnmarshalTypeError
 * text; fields unknown to the Go struct are listed as strict-decoding paths and pruned.
 */
import { QuantityParseError, parseQuantity, QUANTITY_FORMAT_WRONG } from '../../api/quantity';
import { unmarshalTypeMessage } from '../../api/go-json-error';
import { setKey } from '../../api/json-clone';
import { DecodeNode, StructNode } from './decode-node';
import { goBase64Decode } from './go-base64';
import { goTimeParseError } from './go-time';

/** What a walk found: the decoded copy, the unknown-field paths, or the error kube would return. */
export interface WalkResult {
  value: Record<string, unknown>;
  unknownFields: string[];
  /** kube's decode error text (without the `<Kind> in version ...` prefix), if decoding fails. */
  error?: string;
}

/** Thrown inside a walk for errors Go returns at once (UnmarshalJSON failures). */
class FatalDecodeError {
  constructor(readonly message: string) {}
}

/** JSON value kind as encoding/json names it in UnmarshalTypeError. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value Go leaves behind for a JSON null inside a map or slice, as it would re-encode it. */
function zeroValue(node: DecodeNode): unknown {
  switch (node.kind) {
    case 'string':
      return '';
    case 'bytes':
      // A nil []byte: kube's protobuf storage round trip (also on dry run) gives it back empty (kube-limits §9).
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'float':
      return 0;
    case 'quantity':
      return '0';
    case 'struct':
      return {};
    default:
      return null;
  }
}

/** One decode of one body. Holds Go's error context (field stack, innermost struct) and the strict path. */
class Walk {
  private savedError: string | undefined;
  readonly unknown: string[] = [];
  private readonly goFields: string[] = [];
  private structName = '';
  private readonly strictPath: string[] = [];

  run(root: StructNode, body: unknown): WalkResult {
    let value: unknown;
    try {
      value = this.value(root, body);
    } catch (e) {
      if (e instanceof FatalDecodeError) return { value: {}, unknownFields: [], error: e.message };
      throw e;
    }
    if (this.savedError !== undefined) return { value: {}, unknownFields: [], error: this.savedError };
    const out = isPlainObject(value) ? value : {};
    return { value: out, unknownFields: this.unknown };
  }

  /** encoding/json keeps only the first non-fatal error and goes on decoding. */
  private save(message: string): void {
    if (this.savedError === undefined) this.savedError = message;
  }

  private typeError(v: unknown, goType: string, valueText?: string): void {
    const what = valueText ?? jsonKind(v);
    this.save(unmarshalTypeMessage(what, goType, this.goFields.length ? { struct: this.structName, name: this.goFields.join('.') } : undefined));
  }

  private value(node: DecodeNode, v: unknown): unknown {
    switch (node.kind) {
      case 'struct':
        return this.struct(node, v);
      case 'map':
        return this.map(node, v);
      case 'array':
        return this.array(node, v);
      case 'string':
        if (typeof v === 'string') return v;
        this.typeError(v, node.goType);
        return undefined;
      case 'bool':
        if (typeof v === 'boolean') return v;
        this.typeError(v, node.goType);
        return undefined;
      case 'int':
        if (typeof v === 'number') {
          if (Number.isInteger(v) && v >= node.min && v <= node.max) return v;
          this.typeError(v, node.goType, `number ${String(v)}`);
          return undefined;
        }
        this.typeError(v, node.goType);
        return undefined;
      case 'float':
        if (typeof v === 'number') return v;
        this.typeError(v, node.goType);
        return undefined;
      case 'bytes':
        return this.bytes(node, v);
      case 'quantity':
        return quantity(v);
      case 'time':
        return time(v);
      case 'raw':
        return v;
    }
  }

  private struct(node: StructNode, v: unknown): unknown {
    if (!isPlainObject(v)) {
      this.typeError(v, node.goType);
      return undefined;
    }
    const out: Record<string, unknown> = {};
    const outerStruct = this.structName;
    for (const key of Object.keys(v)) {
      const field = node.fields.get(key);
      if (!field) {
        this.unknown.push(this.strictPath.length ? `${this.strictPath.join('')}.${key}` : key);
        continue;
      }
      const fv = v[key];
      if (fv === null) continue; // null leaves a Go field at its zero value
      this.goFields.push(key);
      this.structName = node.structName;
      this.strictPath.push(this.strictPath.length ? `.${key}` : key);
      const decoded = this.value(field, fv);
      this.strictPath.pop();
      this.goFields.pop();
      this.structName = outerStruct;
      if (decoded !== undefined) setKey(out, key, decoded);
    }
    return out;
  }

  private map(node: Extract<DecodeNode, { kind: 'map' }>, v: unknown): unknown {
    if (!isPlainObject(v)) {
      this.typeError(v, node.goType);
      return undefined;
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      const ev = v[key];
      this.strictPath.push(this.strictPath.length ? `.${key}` : key);
      const decoded = ev === null ? zeroValue(node.elem) : this.value(node.elem, ev);
      this.strictPath.pop();
      if (decoded !== undefined) setKey(out, key, decoded);
    }
    return out;
  }

  private array(node: Extract<DecodeNode, { kind: 'array' }>, v: unknown): unknown {
    if (!Array.isArray(v)) {
      this.typeError(v, node.goType);
      return undefined;
    }
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const ev: unknown = v[i];
      this.strictPath.push(`[${i}]`);
      const decoded = ev === null ? zeroValue(node.elem) : this.value(node.elem, ev);
      this.strictPath.pop();
      out[i] = decoded === undefined ? zeroValue(node.elem) : decoded;
    }
    return out;
  }

  private bytes(node: DecodeNode, v: unknown): unknown {
    if (typeof v === 'string') {
      const r = goBase64Decode(v);
      if (r.ok) return r.canonical;
      this.save(r.error); // base64.CorruptInputError carries no field context
      return undefined;
    }
    if (Array.isArray(v)) {
      // encoding/json also fills a []byte from a JSON array of numbers.
      const bytes: number[] = [];
      for (const b of v) {
        if (typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255) bytes.push(b);
        else if (typeof b === 'number') this.typeError(b, 'uint8', `number ${String(b)}`);
        else if (b !== null) this.typeError(b, 'uint8');
        else bytes.push(0);
      }
      return Buffer.from(bytes).toString('base64');
    }
    this.typeError(v, node.goType);
    return undefined;
  }
}

/** resource.Quantity.UnmarshalJSON: a JSON string (trimmed) or the raw text of any other value. */
function quantity(v: unknown): unknown {
  if (typeof v === 'string' || typeof v === 'number') {
    const text = typeof v === 'string' ? v.trim() : v;
    try {
      parseQuantity(text);
    } catch (e) {
      if (e instanceof QuantityParseError) throw new FatalDecodeError(e.message);
      throw e;
    }
    return text;
  }
  // true/false/objects/arrays never match the quantity grammar.
  throw new FatalDecodeError(QUANTITY_FORMAT_WRONG);
}

/** metav1.Time.UnmarshalJSON: a JSON string in RFC 3339 form. */
function time(v: unknown): unknown {
  if (typeof v !== 'string') {
    throw new FatalDecodeError(unmarshalTypeMessage(jsonKind(v), 'string'));
  }
  const err = goTimeParseError(v);
  if (err !== undefined) throw new FatalDecodeError(err);
  return v;
}

/**
 * Decodes `body` against a compiled struct node. Pure: the input is not mutated; the returned
 * value is a fresh object (raw subtrees such as managedFields[].fieldsV1 are shared).
 */
export function walkDecode(root: StructNode, body: unknown): WalkResult {
  return new Walk().run(root, body);
}
