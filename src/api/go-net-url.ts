/**
 * Go's net/url as kube-apiserver 1.32 (Go 1.23) has it, as far as kube reads it: the CEL url
 * library and the `uri` format, and the webhook URL check of admission webhook configurations
 * (apiserver pkg/util/webhook ValidateWebhookURL): Parse and ParseRequestURI (with Go's
 * `parse "<url>": <reason>` errors, quoted as Go's %q quotes bytes), EscapedPath, Hostname, Port
 * and Query. Works on the UTF-8 bytes, as Go does, so escapes and errors match.
 */

/** A parse failure; `message` is the text of Go's *url.Error. */
export class GoUrlError extends Error {}

export interface GoURL {
  /** Lower-cased; '' when none. */
  scheme: string;
  /** Set for a rootless URL with a scheme (`mailto:x`). */
  opaque: string;
  /** Userinfo.String() (`user[:password]`, re-escaped); undefined without an `@`. */
  user?: string;
  /** host or host:port, unescaped. */
  host: string;
  /** The path, unescaped. */
  path: string;
  /** The path as written, when it is not the default escaping of `path`. */
  rawPath: string;
  /** The query as written, without `?`. */
  rawQuery: string;
  /** A `?` with nothing after it. */
  forceQuery: boolean;
  /** The fragment, unescaped, and as written when that is not its default escaping. */
  fragment: string;
  rawFragment: string;
  /** The fragment's bytes (Go's Fragment): %XX may unescape to bytes that are not UTF-8. */
  fragmentBytes: Buffer;
}

type Mode = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const isAlpha = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined): boolean => c !== undefined && (isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
const unhex = (c: number): number => (isDigit(c) ? c - 0x30 : (c | 0x20) - 0x61 + 10);
const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

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
      case 'pathSegment':
        return ch === '/' || ch === ';' || ch === ',' || ch === '?';
      case 'userPassword':
        return ch === '@' || ch === '/' || ch === '?' || ch === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
      default:
        break;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

/** Go's unescape: the unescaped bytes, or throws Go's error text. */
function unescapeBytes(s: Buffer, mode: Mode): Buffer {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s[i] as number;
    if (c === 0x25) {
      n++;
      // Go quotes the three bytes, which may cut a multi-byte character.
      const three = s.subarray(i, i + 3);
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) throw new GoUrlError(`invalid URL escape ${goQuoteBytes(three)}`);
      const escapeText = three.toString('latin1');
      // In a host, %-escapes are for non-ASCII bytes only, %25 aside (RFC 6874).
      if (mode === 'host' && unhex(s[i + 1] as number) < 8 && escapeText !== '%25') throw new GoUrlError(`invalid URL escape ${goQuoteBytes(three)}`);
      if (mode === 'zone') {
        const v = (unhex(s[i + 1] as number) << 4) | unhex(s[i + 2] as number);
        if (escapeText !== '%25' && v !== 0x20 && shouldEscape(v, 'host')) throw new GoUrlError(`invalid URL escape ${goQuoteBytes(three)}`);
      }
      i += 3;
    } else if (c === 0x2b) {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        throw new GoUrlError(`invalid character ${goQuoteBytes(s.subarray(i, i + 1))} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as number;
    if (c === 0x25) {
      out.push((unhex(s[i + 1] as number) << 4) | unhex(s[i + 2] as number));
      i += 2;
    } else if (c === 0x2b && mode === 'queryComponent') out.push(0x20);
    else out.push(c);
  }
  return Buffer.from(out);
}

/** Go's unescape, the bytes read as UTF-8 (a byte that is not becomes U+FFFD). */
function unescape(text: string, mode: Mode): string {
  const s = utf8(text);
  const out = unescapeBytes(s, mode);
  return out === s ? text : out.toString('utf8');
}

/** Go's escape: upper-case %XX for each byte that must be escaped (space as `+` in a query component). */
function escape(text: string, mode: Mode): string {
  let out = '';
  for (const c of utf8(text)) {
    if (c === 0x20 && mode === 'queryComponent') out += '+';
    else if (shouldEscape(c, mode)) out += `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  return out;
}

/** getScheme: `[a-zA-Z][a-zA-Z0-9+-.]*:`, or no scheme. */
function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (isAlpha(c)) continue;
    if (isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new GoUrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^[0-9]*$/.test(port.slice(1));
}

/** parseHost: `host[:port]`, or an IP literal `[...]` with an optional %25 zone. */
function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new GoUrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new GoUrlError(`invalid port ${goQuoteBytes(utf8(colonPort))} after host`);
    const zone = host.slice(0, close).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, close), 'zone') + unescape(host.slice(close), 'host');
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) throw new GoUrlError(`invalid port ${goQuoteBytes(utf8(host.slice(colon)))} after host`);
  }
  return unescape(host, 'host');
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

function parseAuthority(authority: string, url: GoURL): void {
  const at = authority.lastIndexOf('@');
  url.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return;
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new GoUrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  url.user = escape(unescape(colon < 0 ? userinfo : userinfo.slice(0, colon), 'userPassword'), 'userPassword');
  if (colon >= 0) url.user += `:${escape(unescape(userinfo.slice(colon + 1), 'userPassword'), 'userPassword')}`;
}

/** Go's parse(rawURL, viaRequest); the fragment has been cut off by the caller (or is kept, via a request). */
function parse(raw: string, viaRequest: boolean): GoURL {
  // eslint-disable-next-line no-control-regex -- Go refuses ASCII control characters
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new GoUrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new GoUrlError('empty url');
  const url: GoURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', forceQuery: false, fragment: '', rawFragment: '', fragmentBytes: EMPTY };
  if (raw === '*') return { ...url, path: '*' };
  const [scheme, afterScheme] = getScheme(raw);
  url.scheme = scheme.toLowerCase();
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) [rest, url.rawQuery] = [rest.slice(0, q), rest.slice(q + 1)];
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') return { ...url, opaque: rest };
    if (viaRequest) throw new GoUrlError('invalid URI for request');
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':')) throw new GoUrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    parseAuthority(authority, url);
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}

const EMPTY = Buffer.alloc(0);

const urlError = (raw: string, e: unknown): Error => (e instanceof GoUrlError ? new GoUrlError(`parse ${goQuoteBytes(utf8(raw))}: ${e.message}`) : (e as Error));

/** Go's url.Parse. Throws GoUrlError (`parse "<url>": <reason>`). */
export function parseURL(raw: string): GoURL {
  const hash = raw.indexOf('#');
  const main = hash < 0 ? raw : raw.slice(0, hash);
  let url: GoURL;
  try {
    url = parse(main, false);
  } catch (e) {
    throw urlError(main, e);
  }
  if (hash >= 0 && hash < raw.length - 1) {
    const f = raw.slice(hash + 1);
    try {
      url.fragmentBytes = unescapeBytes(utf8(f), 'fragment');
    } catch (e) {
      throw urlError(raw, e);
    }
    url.fragment = url.fragmentBytes.toString('utf8');
    url.rawFragment = escape(url.fragment, 'fragment') === f ? '' : f;
  }
  return url;
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path, no fragment cut. Throws GoUrlError. */
export function parseRequestURI(raw: string): GoURL {
  try {
    return parse(raw, true);
  } catch (e) {
    throw urlError(raw, e);
  }
}

/** validEncoded: `s` holds no byte that would need escaping (sub-delims, `[`, `]` and `%` allowed). */
function validEncoded(s: string, mode: Mode): boolean {
  for (const c of utf8(s)) {
    if ("!$&'()*+,;=:@[]%".includes(String.fromCharCode(c)) && c < 0x80) continue;
    if (shouldEscape(c, mode)) return false;
  }
  return true;
}

/** The text as written when that is a valid escaping of the value, else the value escaped. */
function escaped(raw: string, value: string, mode: Mode): string | undefined {
  if (raw !== '' && validEncoded(raw, mode)) {
    try {
      if (unescape(raw, mode) === value) return raw;
    } catch {
      // fall through to escaping the value
    }
  }
  return undefined;
}

/** Go's URL.EscapedPath. */
export function escapedPath(u: GoURL): string {
  return escaped(u.rawPath, u.path, 'path') ?? (u.path === '*' ? '*' : escape(u.path, 'path'));
}

/** Go's splitHostPort: a valid numeric port split off, brackets of an IP literal removed. */
function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** Go's URL.Hostname. */
export const hostname = (u: GoURL): string => splitHostPort(u.host)[0];

/** Go's URL.Port. */
export const port = (u: GoURL): string => splitHostPort(u.host)[1];

/**
 * Go's URL.Query (ParseQuery, errors ignored): each `&`-separated key=value unescaped, values of
 * a repeated key in order; a pair with a `;` or a bad escape is skipped.
 */
export function query(u: GoURL): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const pair of u.rawQuery === '' ? [] : u.rawQuery.split('&')) {
    if (pair.includes(';') || pair === '') continue;
    const eq = pair.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent');
      value = unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent');
    } catch {
      continue;
    }
    const list = m.get(key);
    if (list) list.push(value);
    else m.set(key, [value]);
  }
  return m;
}

/** Go's URL.String() (kube compares URLs by it). */
export function urlString(u: GoURL): string {
  let out = u.scheme ? `${u.scheme}:` : '';
  if (u.opaque !== '') out += u.opaque;
  else {
    if (u.scheme !== '' || u.host !== '' || u.user !== undefined) {
      if (u.host !== '' || u.path !== '' || u.user !== undefined) out += '//';
      if (u.user !== undefined) out += `${u.user}@`;
      if (u.host !== '') out += escape(u.host, 'host');
    }
    const path = escapedPath(u);
    if (path !== '' && path[0] !== '/' && u.host !== '') out += '/';
    if (out === '') {
      const slash = path.indexOf('/');
      if ((slash < 0 ? path : path.slice(0, slash)).includes(':')) out += './';
    }
    out += path;
  }
  if (u.forceQuery || u.rawQuery !== '') out += `?${u.rawQuery}`;
  if (u.fragment !== '') out += `#${escaped(u.rawFragment, u.fragment, 'fragment') ?? escape(u.fragment, 'fragment')}`;
  return out;
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
