/**
 * The error Go's `json.Unmarshal(b, &map[string]interface{}{})` returns for bytes, word for word
 * (encoding/json's scanner messages), or undefined when the bytes decode into a map (or are `null`).
 * kube's Secret validation reports it for `.dockercfg` and `.dockerconfigjson`.
 */

const goNamedEscapes: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };

/** Go's quoteChar: a byte rendered as a single-quoted Go literal (strconv.Quote inside '…'). */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named = goNamedEscapes[c];
  if (named) return `'${named}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // A byte ≥ 0x80 becomes the rune U+0080…U+00FF; Go escapes the unprintable ones.
  if ((c >= 0x80 && c < 0xa0) || c === 0xad) return `'\\u00${c.toString(16)}'`;
  return `'${String.fromCharCode(c)}'`;
}

class SyntaxFail extends Error {
  /** Go's SyntaxError.Offset: the bytes read up to and including the one refused. */
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** encoding/json's maxNestingDepth. */
const maxNestingDepth = 10000;

/** A rendition of encoding/json's scanner state machine (same messages). */
class Scanner {
  i = 0;
  constructor(private readonly b: Buffer) {}

  private peek(): number | undefined {
    return this.b[this.i];
  }
  /** `at`: where the refused byte is (default: the current position). */
  private fail(c: number | undefined, context: string, at = this.i): never {
    if (c === undefined) throw new SyntaxFail('unexpected end of JSON input', this.b.length);
    throw new SyntaxFail(`invalid character ${quoteChar(c)} ${context}`, at + 1);
  }
  private skipSpace(): void {
    while (isSpace(this.peek())) this.i++;
  }

  /**
   * Parses one value; returns its kind for the unmarshal type check. Iterative, with Go's nesting
   * limit (encoding/json's maxNestingDepth), so hostile input cannot exhaust the stack.
   */
  value(): string {
    const open: Array<'object' | 'array'> = [];
    let kind = '';
    for (;;) {
      // At the start of a value.
      this.skipSpace();
      const c = this.peek();
      let scalar = true;
      if (c === 0x7b || c === 0x5b) {
        if (open.length >= maxNestingDepth) this.fail(c, 'exceeded max depth');
        this.i++;
        this.skipSpace();
        if (c === 0x7b) {
          open.push('object');
          if (this.peek() === 0x7d) this.i++;
          else {
            this.objectKey();
            scalar = false;
          }
        } else {
          open.push('array');
          if (this.peek() === 0x5d) this.i++;
          else scalar = false;
        }
        kind ||= c === 0x7b ? 'object' : 'array';
        if (!scalar) continue;
        open.pop();
      } else {
        const k = this.scalar(c);
        kind ||= k;
      }
      // After a complete value: close what ends here, or go on to the next element.
      for (;;) {
        const top = open[open.length - 1];
        if (!top) return kind;
        this.skipSpace();
        const d = this.peek();
        this.i++;
        if (d === 0x2c) {
          if (top === 'object') {
            this.skipSpace();
            this.objectKey();
          }
          break;
        }
        if ((top === 'object' && d === 0x7d) || (top === 'array' && d === 0x5d)) {
          open.pop();
          continue;
        }
        this.i--;
        this.fail(d, top === 'object' ? 'after object key:value pair' : 'after array element');
      }
    }
  }

  /** A key and its colon; the value follows. */
  private objectKey(): void {
    if (this.peek() !== 0x22) this.fail(this.peek(), 'looking for beginning of object key string');
    this.string();
    this.skipSpace();
    if (this.peek() !== 0x3a) this.fail(this.peek(), 'after object key');
    this.i++;
  }

  private scalar(c: number | undefined): string {
    switch (c) {
      case 0x22:
        this.string();
        return 'string';
      case 0x74:
        this.literal('true');
        return 'bool';
      case 0x66:
        this.literal('false');
        return 'bool';
      case 0x6e:
        this.literal('null');
        return 'null';
      default:
        if (c === 0x2d || isDigit(c)) {
          this.number();
          return 'number';
        }
        return this.fail(c, 'looking for beginning of value');
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail(c, '');
      this.i++;
      if (c === 0x22) return;
      if (c < 0x20) this.fail(c, 'in string literal', this.i - 1);
      if (c !== 0x5c) continue;
      const e = this.peek();
      if (e === undefined) this.fail(e, '');
      this.i++;
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) {
          const h = this.peek();
          if (h === undefined) this.fail(h, '');
          if (!isHex(h)) this.fail(h, 'in \\u hexadecimal character escape');
          this.i++;
        }
      } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
        this.fail(e, 'in string escape code', this.i - 1);
      }
    }
  }

  private literal(word: string): void {
    for (let k = 0; k < word.length; k++) {
      const c = this.peek();
      if (c !== word.charCodeAt(k)) this.fail(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      this.i++;
    }
  }

  private number(): void {
    if (this.peek() === 0x2d) {
      this.i++;
      if (!isDigit(this.peek())) this.fail(this.peek(), 'in numeric literal');
    }
    if (this.peek() === 0x30) this.i++;
    else while (isDigit(this.peek())) this.i++;
    if (this.peek() === 0x2e) {
      this.i++;
      if (!isDigit(this.peek())) this.fail(this.peek(), 'after decimal point in numeric literal');
      while (isDigit(this.peek())) this.i++;
    }
    const e = this.peek();
    if (e === 0x65 || e === 0x45) {
      this.i++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.i++;
      if (!isDigit(this.peek())) this.fail(this.peek(), 'in exponent of numeric literal');
      while (isDigit(this.peek())) this.i++;
    }
  }

  /** After the top-level value only whitespace may follow. */
  end(): void {
    this.skipSpace();
    const c = this.peek();
    if (c !== undefined) this.fail(c, 'after top-level value');
  }
}

/**
 * The JSON kind of `bytes` ('object', 'array', 'string', 'number', 'bool', 'null'), or Go's syntax
 * error for them with its offset (Go's SyntaxError.Offset).
 */
export function goJsonScan(bytes: Buffer): { kind: string } | { error: string; offset: number } {
  const s = new Scanner(bytes);
  try {
    const kind = s.value();
    s.end();
    return { kind };
  } catch (e) {
    if (e instanceof SyntaxFail) return { error: e.message, offset: e.offset };
    throw e;
  }
}

/**
 * Go's encoding/json UnmarshalTypeError text for a value of the wrong kind (`value`: `string`,
 * `number 1.5`, …), inside a struct field (`struct`, the dotted Go field path) or at the top.
 */
export function unmarshalTypeMessage(value: string, goType: string, field?: { struct: string; name: string }): string {
  if (field) return `json: cannot unmarshal ${value} into Go struct field ${field.struct}.${field.name} of type ${goType}`;
  return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
}

/** Go's error text for unmarshalling `bytes` into a map[string]interface{}, or undefined on success. */
export function goJsonMapError(bytes: Buffer): string | undefined {
  const r = goJsonScan(bytes);
  if ('error' in r) return r.error;
  if (r.kind === 'object' || r.kind === 'null') return undefined;
  return unmarshalTypeMessage(r.kind, 'map[string]interface {}');
}
