/**
 * JSON nesting depth, as Go's encoding/json scanner bounds it (scanner.go maxNestingDepth, the same
 * constant in sigs.k8s.io/json's fork and json-iterator): 10000 nested arrays/objects are fine, the
 * 10001st `[` or `{` is the SyntaxError `invalid character '[' exceeded max depth`. V8's JSON.parse
 * has no such bound (it parses millions of levels), so every parse of client JSON scans first.
 *
 * The scan is one linear pass without recursion; it also counts the object keys (colons outside
 * strings), which the duplicate-key check needs (endpoints/duplicate-fields.ts).
 */

/** kube's (Go's) maximum nesting of JSON arrays and objects. */
export const MAX_JSON_DEPTH = 10000;

/** What one pass over a JSON text found. */
export interface JsonScan {
  /** Go's SyntaxError text when the text nests deeper than MAX_JSON_DEPTH, else undefined. */
  depthError?: string;
  /** Deepest nesting seen (up to the first one past the limit). */
  depth: number;
  /** Object keys written in the text: its colons outside strings. */
  keys: number;
}

/**
 * Scans a JSON text (valid or not) for its nesting depth and key count, outside strings. Stops at
 * the first opening bracket past `max`. Linear, no recursion, no allocation.
 */
export function scanJson(text: string, max = MAX_JSON_DEPTH): JsonScan {
  let depth = 0;
  let deepest = 0;
  let keys = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote (a backslash escapes the next character)
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return { depthError: exceededMaxDepth(c === 0x5b ? '[' : '{'), depth, keys };
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x3a) keys++;
  }
  return { depth: deepest, keys };
}

/** Go's SyntaxError text for the opening bracket that goes past the limit. */
export function exceededMaxDepth(bracket: '[' | '{'): string {
  return `invalid character '${bracket}' exceeded max depth`;
}

/** Go's depth error for a JSON text nested deeper than `max`, or undefined. */
export function jsonDepthError(text: string, max = MAX_JSON_DEPTH): string | undefined {
  return scanJson(text, max).depthError;
}

/** Thrown by parseJsonBounded: `message` is Go's error text. */
export class JsonDepthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonDepthError';
  }
}

/** Key counts of values parsed by parseJsonBounded (so the duplicate-key check need not rescan). */
const keyCounts = new WeakMap<object, number>();

/**
 * The last small text's parse and key count, kept in a slot instead of the WeakMap: a WeakMap entry
 * per request body costs every young-generation collection an ephemeron. A value the slot no longer
 * holds (another body was parsed since) is rescanned by the caller, as one never recorded.
 */
const slotMaxChars = 64 * 1024;
let lastParsed: object | undefined;
let lastKeys = 0;

/**
 * JSON.parse behind Go's depth bound: throws JsonDepthError (Go's text) when the text nests past
 * MAX_JSON_DEPTH, else whatever JSON.parse throws for invalid JSON. Remembers the key count of an
 * object or array result (see keyCountOf).
 */
export function parseJsonBounded(text: string): unknown {
  const scan = scanJson(text);
  if (scan.depthError) throw new JsonDepthError(scan.depthError);
  const v = JSON.parse(text) as unknown;
  if (typeof v === 'object' && v !== null) {
    if (text.length <= slotMaxChars) {
      lastParsed = v;
      lastKeys = scan.keys;
    } else keyCounts.set(v, scan.keys);
  }
  return v;
}

/** The key count parseJsonBounded found for this value (an unmodified parse result), if known. */
export function keyCountOf(parsed: unknown): number | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  if (parsed === lastParsed) return lastKeys;
  return keyCounts.get(parsed);
}
