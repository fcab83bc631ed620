/**
 * Go's net/url.Parse, as far as kube's webhook URL check reads it (apiserver pkg/util/webhook
 * ValidateWebhookURL): the scheme, host, user info, raw query and fragment, or Go's error text
 * (`parse "<url>": <reason>`). Works on UTF-8 bytes, as Go does, so escapes and errors match.
 */

export interface GoUrl {
  /** Lower-cased scheme; "" when none. */
  scheme: string;
  /** The host (and port), unescaped; "" for an opaque or relative URL. */
  host: string;
  /** Userinfo.String() (re-escaped `user[:password]`), or undefined without an `@`. */
  user?: Buffer;
  rawQuery: Buffer;
  /** The fragment, unescaped. */
  fragment: Buffer;
}

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'fragment';

/** url.Parse: the URL, or the text of Go's *url.Error. */
export function parseGoUrl(raw: string): GoUrl | { error: string } {
  const bytes = Buffer.from(raw, 'utf8');
  const hash = bytes.indexOf(0x23); // '#'
  const main = hash < 0 ? bytes : bytes.subarray(0, hash);
  const parsed = parse(main);
  if (typeof parsed === 'string') return { error: `parse ${goQuoteBytes(main)}: ${parsed}` };
  if (hash < 0) return parsed;
  const frag = unescape(bytes.subarray(hash + 1), 'fragment');
  if (typeof frag === 'string') return { error: `parse ${goQuoteBytes(bytes)}: ${frag}` };
  return { ...parsed, fragment: frag };
}

const EMPTY = Buffer.alloc(0);

/** net/url parse(rawURL, viaRequest=false); a string is the error. */
function parse(raw: Buffer): GoUrl | string {
  if (raw.some((b) => b < 0x20 || b === 0x7f)) return 'net/url: invalid control character in URL';
  const url: GoUrl = { scheme: '', host: '', rawQuery: EMPTY, fragment: EMPTY };
  if (raw.length === 1 && raw[0] === 0x2a) return url; // "*"
  const scheme = getScheme(raw);
  if (typeof scheme === 'string') return scheme;
  url.scheme = scheme.scheme.toString('latin1').toLowerCase();
  let rest = scheme.rest;
  const q = rest.indexOf(0x3f); // '?'
  if (q >= 0 && q === rest.length - 1) {
    rest = rest.subarray(0, q); // ForceQuery: an empty query
  } else if (q >= 0) {
    url.rawQuery = rest.subarray(q + 1);
    rest = rest.subarray(0, q);
  }
  const slash = rest[0] === 0x2f;
  if (!slash) {
    if (url.scheme !== '') return url; // a rootless path: opaque, no host
    const end = rest.indexOf(0x2f);
    if ((end < 0 ? rest : rest.subarray(0, end)).includes(0x3a)) return 'first path segment in URL cannot contain colon';
  }
  if (slash && rest[1] === 0x2f && (url.scheme !== '' || rest[2] !== 0x2f)) {
    let authority = rest.subarray(2);
    const i = authority.indexOf(0x2f);
    rest = i >= 0 ? authority.subarray(i) : EMPTY;
    if (i >= 0) authority = authority.subarray(0, i);
    const err = parseAuthority(authority, url);
    if (err) return err;
  }
  const path = unescape(rest, 'path');
  return typeof path === 'string' ? path : url;
}

/** getScheme: `[a-zA-Z][a-zA-Z0-9+-.]*:`, or no scheme. */
function getScheme(raw: Buffer): { scheme: Buffer; rest: Buffer } | string {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as number;
    if (isAlpha(c)) continue;
    if (isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) break;
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) return 'missing protocol scheme';
      return { scheme: raw.subarray(0, i), rest: raw.subarray(i + 1) };
    }
    break;
  }
  return { scheme: EMPTY, rest: raw };
}

function parseAuthority(authority: Buffer, url: GoUrl): string | undefined {
  const at = authority.lastIndexOf(0x40); // '@'
  const host = parseHost(at < 0 ? authority : authority.subarray(at + 1));
  if (typeof host === 'string') return host;
  url.host = host.toString('utf8');
  if (at < 0) return undefined;
  const userinfo = authority.subarray(0, at);
  if (!validUserinfo(userinfo.toString('utf8'))) return 'net/url: invalid userinfo';
  const colon = userinfo.indexOf(0x3a);
  const username = unescape(colon < 0 ? userinfo : userinfo.subarray(0, colon), 'userPassword');
  if (typeof username === 'string') return username;
  let text = escape(username, 'userPassword');
  if (colon >= 0) {
    const password = unescape(userinfo.subarray(colon + 1), 'userPassword');
    if (typeof password === 'string') return password;
    text = Buffer.concat([text, Buffer.from(':'), escape(password, 'userPassword')]);
  }
  url.user = text;
  return undefined;
}

/** parseHost: `host[:port]` or an IP literal `[...]` with an optional %25 zone. */
function parseHost(host: Buffer): Buffer | string {
  if (host[0] === 0x5b) {
    const close = host.lastIndexOf(0x5d);
    if (close < 0) return "missing ']' in host";
    const colonPort = host.subarray(close + 1);
    if (!validOptionalPort(colonPort)) return `invalid port ${goQuoteBytes(colonPort)} after host`;
    const zone = host.subarray(0, close).indexOf('%25');
    if (zone >= 0) {
      const parts = [unescape(host.subarray(0, zone), 'host'), unescape(host.subarray(zone, close), 'zone'), unescape(host.subarray(close), 'host')];
      for (const p of parts) if (typeof p === 'string') return p;
      return Buffer.concat(parts as Buffer[]);
    }
  } else {
    const colon = host.lastIndexOf(0x3a);
    if (colon >= 0 && !validOptionalPort(host.subarray(colon))) return `invalid port ${goQuoteBytes(host.subarray(colon))} after host`;
  }
  return unescape(host, 'host');
}

function validOptionalPort(port: Buffer): boolean {
  if (port.length === 0) return true;
  if (port[0] !== 0x3a) return false;
  return port.subarray(1).every(isDigit);
}

function validUserinfo(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x80 && (isAlpha(c) || isDigit(c))) continue;
    if ("-._:~!$&'()*+,;=%@".includes(ch)) continue;
    return false;
  }
  return true;
}

const isAlpha = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined): boolean => c !== undefined && (isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
const unhex = (c: number): number => (isDigit(c) ? c - 0x30 : (c | 0x20) - 0x61 + 10);

/** Go's shouldEscape: whether byte `c` must be %-escaped in the part `mode`. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlpha(c) || isDigit(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) {
    switch (mode) {
      case 'path':
        return ch === '?';
      case 'userPassword':
        return ch === '@' || ch === '/' || ch === '?' || ch === ':';
      case 'fragment':
        return false;
      default:
        break;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

/** Go's unescape: the bytes, or the error text (an invalid escape or host character). */
function unescape(s: Buffer, mode: Mode): Buffer | string {
  let n = 0;
  for (let i = 0; i < s.length; ) {
    const c = s[i] as number;
    if (c === 0x25) {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        return `invalid URL escape ${goQuoteBytes(s.subarray(i, i + 3))}`;
      }
      const three = s.subarray(i, i + 3);
      // In a host, %-escapes are for non-ASCII bytes only, %25 aside (RFC 6874).
      if (mode === 'host' && unhex(s[i + 1] as number) < 8 && three.toString('latin1') !== '%25') {
        return `invalid URL escape ${goQuoteBytes(three)}`;
      }
      if (mode === 'zone') {
        const v = (unhex(s[i + 1] as number) << 4) | unhex(s[i + 2] as number);
        if (three.toString('latin1') !== '%25' && v !== 0x20 && shouldEscape(v, 'host')) return `invalid URL escape ${goQuoteBytes(three)}`;
      }
      i += 3;
    } else {
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        return `invalid character ${goQuoteBytes(s.subarray(i, i + 1))} in host name`;
      }
      i++;
    }
  }
  if (n === 0) return s;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as number;
    if (c === 0x25) {
      out.push((unhex(s[i + 1] as number) << 4) | unhex(s[i + 2] as number));
      i += 2;
    } else out.push(c);
  }
  return Buffer.from(out);
}

/** Go's escape (user info only here): upper-case %XX for each byte that must be escaped. */
function escape(s: Buffer, mode: Mode): Buffer {
  const out: number[] = [];
  const hex = '0123456789ABCDEF';
  for (const c of s) {
    if (shouldEscape(c, mode)) out.push(0x25, hex.charCodeAt(c >> 4), hex.charCodeAt(c & 15));
    else out.push(c);
  }
  return Buffer.from(out);
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Go's strconv.Quote of bytes (%q of a string holding them): invalid UTF-8 bytes as \xNN,
 * unprintable runes escaped, printable ones kept.
 */
export function goQuoteBytes(b: Buffer): string {
  let out = '"';
  let i = 0;
  while (i < b.length) {
    const [rune, size] = decodeRune(b, i);
    if (rune < 0) {
      out += `\\x${(b[i] as number).toString(16).padStart(2, '0')}`;
      i++;
      continue;
    }
    i += size;
    const ch = String.fromCodePoint(rune);
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (printable.test(ch)) out += ch;
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\v') out += '\\v';
    else if (rune < 0x20 || rune === 0x7f) out += `\\x${rune.toString(16).padStart(2, '0')}`;
    else if (rune < 0x10000) out += `\\u${rune.toString(16).padStart(4, '0')}`;
    else out += `\\U${rune.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}

/** One UTF-8 rune at `i`: [code point, size], or [-1, 1] for an invalid byte (Go's RuneError). */
function decodeRune(b: Buffer, i: number): [number, number] {
  const c0 = b[i] as number;
  if (c0 < 0x80) return [c0, 1];
  const need = c0 >= 0xf0 && c0 <= 0xf4 ? 4 : c0 >= 0xe0 ? (c0 <= 0xef ? 3 : 0) : c0 >= 0xc2 ? 2 : 0;
  if (need === 0 || i + need > b.length) return [-1, 1];
  let rune = c0 & (need === 2 ? 0x1f : need === 3 ? 0x0f : 0x07);
  for (let k = 1; k < need; k++) {
    const c = b[i + k] as number;
    if ((c & 0xc0) !== 0x80) return [-1, 1];
    rune = (rune << 6) | (c & 0x3f);
  }
  const min = need === 2 ? 0x80 : need === 3 ? 0x800 : 0x10000;
  if (rune < min || rune > 0x10ffff || (rune >= 0xd800 && rune <= 0xdfff)) return [-1, 1];
  return [rune, need];
}
