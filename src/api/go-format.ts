/** Renders values the way Go's fmt does in kube's messages (%q and %v). */

/** Go's %q for a string: double-quoted with Go escapes (close to JSON, but non-ASCII kept when printable). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}

/** A Go-like rendering of a bad value in a field error (strings quoted, scalars bare, nil as null). */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    return `[]string{${v.map((x: string) => goQuote(x)).join(', ')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Go's `%v` of an unstructured value: `map[k:v ...]` with keys in byte order, `[a b]`, and each
 * leaf as `scalar` renders it (callers differ there: fmt's own %v, or smd's quoted strings).
 * Iterative: client values may nest 10,000 levels.
 */
export function goSprintWith(root: unknown, scalar: (v: unknown) => string): string {
  const parts: string[] = [];
  const stack: Array<{ text: string } | { value: unknown }> = [{ value: root }];
  while (stack.length) {
    const item = stack.pop() as { text: string } | { value: unknown };
    if ('text' in item) {
      parts.push(item.text);
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      parts.push('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push({ text: ' ' });
      }
    } else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort(compareGoStrings);
      parts.push('map[');
      stack.push({ text: ']' });
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        stack.push({ value: o[k] });
        stack.push({ text: `${i > 0 ? ' ' : ''}${k}:` });
      }
    } else parts.push(scalar(v));
  }
  return parts.join('');
}

/** kube's summarizeData for decode errors: a body starting with `{` quoted as text, any other as hex; past `maxLength` bytes cut with ` ...`. */
export function summarizeData(body: Buffer, maxLength = 30): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, maxLength);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > maxLength ? `${text} ...` : text;
}

/** Go's %q of a []string: `["a" "b"]` (nil or empty: `[]`). */
export function goQuoteList(list: readonly string[] | null | undefined): string {
  return `[${(list ?? []).map(goQuote).join(' ')}]`;
}

/** Compares strings by Unicode code point, i.e. Go's byte-wise order of UTF-8 strings. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Go's errno text for a failed file operation (`no such file or directory`, `permission denied`, …). */
export function goErrnoText(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'not a directory';
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Go's *PathError text of a failed os call (`open /x: no such file or directory`). Reading a
 * directory fails at read in Go, not at open.
 */
export function goPathError(op: 'open' | 'stat', path: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return `${op === 'open' && code === 'EISDIR' ? 'read' : op} ${path}: ${goErrnoText(e)}`;
}

/**
 * Go's encoding/json Marshal of a string (Go 1.22+, kube 1.32's): JSON's escapes, HTML-safe `<`,
 * `>`, `&`, U+2028/U+2029 as `\uXXXX`, and a lone surrogate as U+FFFD.
 */
export function goJsonString(s: string): string {
  return JSON.stringify(wellFormed(s)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `s` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, not in our ES2022 lib). */
function wellFormed(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else out += c >= 0xd800 && c <= 0xdfff ? '\ufffd' : s[i]!;
  }
  return out;
}
