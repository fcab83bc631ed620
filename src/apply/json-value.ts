/**
 * JSON values as structured-merge-diff sees them: its total order (numbers < strings < booleans <
 * lists < maps < null), its equality (ints and floats compared numerically), its `ToString` for paths,
 * and Go's JSON string encoding (encoding/json and json-iterator escape `<`, `>`, `&`).
 */
import { cloneJson, goQuote } from '../api';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a non-null, non-array object. */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's strings.Compare (UTF-8 byte order, which is code point order) on JS strings. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) < codeUnitRank(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

// Surrogates (astral code points) sort after U+E000..U+FFFF in code point order.
const codeUnitRank = (c: number): number => (c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);

function rank(v: JsonValue): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v === null) return 5;
  return 4;
}

/** smd value.Compare: a total order over JSON values. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as JsonValue[];
      const lb = b as JsonValue[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i] as JsonValue, lb[i] as JsonValue);
        if (c !== 0) return c;
      }
    }
    case 4:
      return compareMaps(a as JsonObject, b as JsonObject);
    default:
      return 0;
  }
}

// smd MapCompare: zip both maps in lexical key order; the first difference decides.
function compareMaps(a: JsonObject, b: JsonObject): number {
  const la = Object.keys(a).length;
  const lb = Object.keys(b).length;
  if (la === 0 && lb === 0) return 0;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareStrings);
  let i = 0;
  for (const k of keys) {
    let c: number;
    if (i === la) c = -1;
    else if (i === lb) c = 1;
    else if (!(k in a)) c = 1;
    else if (!(k in b)) c = -1;
    else c = compareValues(a[k] as JsonValue, b[k] as JsonValue);
    i++;
    if (c !== 0) return c;
  }
  return 0;
}

/** smd value.Equals: deep equality; list order matters, map key order does not. */
export function equalValues(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => equalValues(x, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && equalValues(a[k], b[k]));
  }
  return false;
}

/** smd value.ToString, used in path strings (`[name="app"]`, `[=80]`). */
export function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  return Object.keys(v)
    .sort(compareStrings)
    .map((k) => `${k}=${valueToString(v[k] as JsonValue)}`)
    .join('');
}

/** A string as Go's JSON encoders write it (HTML-escaping `<`, `>`, `&`, U+2028, U+2029). */
export function goJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) {
      out += '\\u' + c.toString(16).padStart(4, '0');
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) {
      out += ch + (s[i + 1] as string);
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * Compact JSON as Go writes it: strings escaped by goJsonString; object keys in the given order
 * (`sortKeys`: Go's map encoding, sorted) — never throws for JSON values.
 */
export function goJson(v: JsonValue, sortKeys = true): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goJson(x, sortKeys)).join(',')}]`;
  const keys = sortKeys ? Object.keys(v).sort(compareStrings) : Object.keys(v);
  return `{${keys.map((k) => `${goJsonString(k)}:${goJson(v[k] as JsonValue, sortKeys)}`).join(',')}}`;
}

/** A deep copy of a JSON value (undefined stays undefined). */
export function cloneValue<T extends JsonValue | undefined>(v: T): T {
  return cloneJson(v);
}
