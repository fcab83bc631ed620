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

/** kube's summarizeData for decode errors: a body starting with `{` quoted as text, any other as hex; past `maxLength` bytes cut with ` ...`. */
export function summarizeData(body: Buffer, maxLength = 30): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, maxLength);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > maxLength ? `${text} ...` : text;
}
