/**
 * Go's net/netip as kube-apiserver 1.32 (Go 1.23) has it, as far as kube's CEL ip and cidr
 * libraries read it: ParseAddr and ParsePrefix with Go's error texts, the canonical String()
 * (RFC 5952 for IPv6), the address predicates, Prefix.Masked and Prefix.Contains.
 */
import { goQuote } from './go-format';

/** A parse failure; `message` is Go's error text. */
export class GoNetipError extends Error {}

/** An IPv4 (4 bytes) or IPv6 (16 bytes) address, with its IPv6 zone if any. */
export class GoAddr {
  constructor(
    readonly bytes: Uint8Array,
    readonly zone = '',
  ) {}

  is4(): boolean {
    return this.bytes.length === 4;
  }

  is6(): boolean {
    return this.bytes.length === 16;
  }

  /** An IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
  is4In6(): boolean {
    const b = this.bytes;
    return this.is6() && b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  }

  bitLen(): number {
    return this.bytes.length * 8;
  }

  /** The address with an IPv4-mapped one as IPv4 (Go's Unmap). */
  unmap(): GoAddr {
    return this.is4In6() ? new GoAddr(this.bytes.slice(12), '') : this;
  }

  private word(i: number): number {
    return ((this.bytes[2 * i] as number) << 8) | (this.bytes[2 * i + 1] as number);
  }

  /** Go's Addr.String(). */
  toString(): string {
    if (this.is4()) return [...this.bytes].join('.');
    if (this.is4In6()) return `::ffff:${[...this.bytes.subarray(12)].join('.')}${this.zone ? `%${this.zone}` : ''}`;
    // The first longest run of two or more zero groups becomes "::".
    let zeroStart = -1;
    let zeroEnd = -1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && this.word(j) === 0) j++;
      if (j - i >= 2 && j - i > zeroEnd - zeroStart) [zeroStart, zeroEnd] = [i, j];
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += '::';
        i = zeroEnd;
        if (i >= 8) break;
      } else if (i > 0) out += ':';
      out += this.word(i).toString(16);
    }
    return this.zone ? `${out}%${this.zone}` : out;
  }

  equals(o: GoAddr): boolean {
    return this.zone === o.zone && this.bytes.length === o.bytes.length && this.bytes.every((b, i) => b === o.bytes[i]);
  }

  isUnspecified(): boolean {
    return this.zone === '' && this.bytes.every((b) => b === 0);
  }

  isLoopback(): boolean {
    const ip = this.unmap();
    if (ip.is4()) return ip.bytes[0] === 127;
    return ip.bytes.subarray(0, 15).every((b) => b === 0) && ip.bytes[15] === 1;
  }

  isMulticast(): boolean {
    const ip = this.unmap();
    if (ip.is4()) return ((ip.bytes[0] as number) & 0xf0) === 0xe0;
    return ip.bytes[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    const ip = this.unmap();
    if (ip.is4()) return ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0;
    return (ip.word(0) & 0xff0f) === 0xff02;
  }

  isLinkLocalUnicast(): boolean {
    const ip = this.unmap();
    if (ip.is4()) return ip.bytes[0] === 169 && ip.bytes[1] === 254;
    return (ip.word(0) & 0xffc0) === 0xfe80;
  }

  /** Go's IsGlobalUnicast: not unspecified, IPv4 broadcast, loopback, multicast or link-local unicast. */
  isGlobalUnicast(): boolean {
    const ip = this.unmap();
    if (ip.is4() && (ip.bytes.every((b) => b === 0) || ip.bytes.every((b) => b === 255))) return false;
    if (ip.is6() && ip.zone === '' && ip.bytes.every((b) => b === 0)) return false;
    return !ip.isLoopback() && !ip.isMulticast() && !ip.isLinkLocalUnicast();
  }
}

const addrError = (input: string, msg: string, at?: string): GoNetipError =>
  new GoNetipError(`ParseAddr(${goQuote(input)}): ${msg}${at ? ` (at ${goQuote(at)})` : ''}`);

/** Go's netip.ParseAddr. Throws GoNetipError. */
export function parseAddr(s: string): GoAddr {
  for (const ch of s) {
    if (ch === '.') return parseIPv4(s);
    if (ch === ':') return parseIPv6(s);
    if (ch === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

/** Go's parseIPv4Fields: the four octets of in[off:end] (errors name the whole input). */
function parseIPv4Fields(input: string, off: number, end: number): Uint8Array {
  const s = input.slice(off, end);
  const fields = new Uint8Array(4);
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digLen++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      fields[pos++] = val;
      val = 0;
      digLen = 0;
    } else {
      throw addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  fields[3] = val;
  return fields;
}

const parseIPv4 = (s: string): GoAddr => new GoAddr(parseIPv4Fields(s, 0, s.length));

function hexValue(c: string | undefined): number {
  if (c === undefined) return -1;
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 87;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 55;
  return -1;
}

function parseIPv6(input: string): GoAddr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    [s, zone] = [s.slice(0, pct), s.slice(pct + 1)];
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return new GoAddr(ip, zone);
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const v = hexValue(s[off]);
      if (v < 0) break;
      acc = acc * 16 + v;
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      ip.set(parseIPv4Fields(input, end - s.length, end), i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] as number;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros');
  }
  return new GoAddr(ip, zone);
}

/** An address and a prefix length (Go's netip.Prefix; the address is not masked). */
export class GoPrefix {
  constructor(
    readonly addr: GoAddr,
    readonly bits: number,
  ) {}

  /** The prefix with the bits after `bits` cleared (Go's Masked). */
  masked(): GoPrefix {
    const b = this.addr.bytes.slice();
    for (let i = 0; i < b.length; i++) {
      const keep = Math.max(0, Math.min(8, this.bits - 8 * i));
      b[i] = (b[i] as number) & ((0xff << (8 - keep)) & 0xff);
    }
    return new GoPrefix(new GoAddr(b), this.bits);
  }

  /** Go's Contains: an address of the same family whose first `bits` bits are the prefix's. */
  contains(ip: GoAddr): boolean {
    if (ip.zone !== '' || ip.bitLen() !== this.addr.bitLen()) return false;
    return new GoPrefix(ip, this.bits).masked().addr.equals(this.masked().addr);
  }

  equals(o: GoPrefix): boolean {
    return this.bits === o.bits && this.addr.equals(o.addr);
  }

  toString(): string {
    return `${this.addr.toString()}/${this.bits}`;
  }
}

/** Go's netip.ParsePrefix. Throws GoNetipError. */
export function parsePrefix(s: string): GoPrefix {
  const error = (msg: string): GoNetipError => new GoNetipError(`netip.ParsePrefix(${goQuote(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw error("no '/'");
  let ip: GoAddr;
  try {
    ip = parseAddr(s.slice(0, slash));
  } catch (e) {
    throw error((e as Error).message);
  }
  if (ip.is6() && ip.zone !== '') throw error('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  // strconv.Atoi, without the sign and leading zeros it would accept.
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText) || bitsText.length > 19 || BigInt(bitsText) > 2n ** 63n - 1n) {
    throw error(`bad bits after slash: ${goQuote(bitsText)}`);
  }
  const bits = Number(bitsText);
  if (bits > ip.bitLen()) throw error('prefix length out of range');
  return new GoPrefix(ip, bits);
}
