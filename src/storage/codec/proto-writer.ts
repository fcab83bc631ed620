/**
 * A protobuf wire writer over one growable Buffer. Nested messages reserve a one-byte length and
 * shift their payload only when it turns out longer than 127 bytes, so encoding allocates little
 * (protobufjs's Writer allocates an operation object per value).
 */

const MIN_CAPACITY = 256;

/** Writes protobuf wire primitives; `finish()` returns the bytes written. Single use. */
export class ProtoWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly forks: number[] = [];

  constructor(capacity = MIN_CAPACITY) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 16));
  }

  /** A field key: (field number << 3) | wire type. */
  tag(id: number, wireType: number): this {
    return this.uint(id * 8 + wireType);
  }

  /** An unsigned varint (0 ≤ n < 2^53). */
  uint(n: number): this {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (n >= 0x80) {
      buf[pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[pos++] = n;
    this.pos = pos;
    return this;
  }

  /** A signed int32/int64 varint: negatives take ten bytes (two's complement), as Go writes them. */
  int(n: number): this {
    if (n >= 0) return this.uint(n);
    this.ensure(10);
    let v = BigInt.asUintN(64, BigInt(n));
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
    return this;
  }

  bool(b: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = b ? 1 : 0;
    return this;
  }

  /** A length-prefixed UTF-8 string. */
  string(s: string): this {
    const len = Buffer.byteLength(s, 'utf8');
    this.uint(len);
    this.ensure(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
    return this;
  }

  /** Length-prefixed bytes. */
  bytes(b: Uint8Array): this {
    this.uint(b.length);
    return this.raw(b);
  }

  /** Bytes as they are, no prefix. */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** Starts a length-delimited payload; close it with {@link ldelim}. */
  fork(): this {
    this.ensure(1);
    this.forks.push(this.pos);
    this.pos += 1;
    return this;
  }

  /** Ends the innermost {@link fork}, writing its length in front of it. */
  ldelim(): this {
    const start = this.forks.pop();
    if (start === undefined) throw new Error('ProtoWriter: ldelim without fork');
    const len = this.pos - start - 1;
    if (len < 0x80) {
      this.buf[start] = len;
      return this;
    }
    let size = 1;
    for (let v = len; v >= 0x80; v = Math.floor(v / 0x80)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    const end = this.pos + size - 1;
    this.pos = start;
    this.uint(len);
    this.pos = end;
    return this;
  }

  /** The bytes written so far (a view when little capacity is wasted, else a compact copy). */
  finish(): Buffer {
    if (this.forks.length) throw new Error('ProtoWriter: unclosed fork');
    const out = this.buf.subarray(0, this.pos);
    return this.buf.length - this.pos > 4096 && this.buf.length > 2 * this.pos ? Buffer.from(out) : out;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}
