/**
 * base64.StdEncoding.DecodeString as Go runs it when encoding/json fills a []byte: padded
 * standard alphabet, CR and LF ignored, trailing bits not checked. Failures carry Go's
 * CorruptInputError text, `illegal base64 data at input byte N` (N a byte offset into the UTF-8 string).
 */

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const PAD = 0x3d; // '='
const CR = 0x0d;
const LF = 0x0a;

const decodeMap: Uint8Array = (() => {
  const m = new Uint8Array(256).fill(0xff);
  for (let i = 0; i < alphabet.length; i++) m[alphabet.charCodeAt(i)] = i;
  return m;
})();

/**
 * Canonical padded base64 (what Go's encoder writes back), tested before the byte-wise decoder:
 * whole quanta of the alphabet, the last one ending in at most two `=`. A loop over the decode map
 * (the regular expression it replaces cost ~10 ns a character, on every Secret write).
 */
function isCanonical(s: string): boolean {
  const n = s.length;
  if (n % 4 !== 0) return false;
  const pad = n > 0 && s.charCodeAt(n - 1) === PAD ? (s.charCodeAt(n - 2) === PAD ? 2 : 1) : 0;
  for (let i = 0; i < n - pad; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff || decodeMap[c] === 0xff) return false;
  }
  return true;
}

/** Result of decoding: the canonical re-encoding of the bytes, or Go's error message. */
export type Base64Result = { ok: true; canonical: string } | { ok: false; error: string };

/** Go's CorruptInputError message. */
export function base64ErrorMessage(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}

/**
 * Decodes `s` as Go's StdEncoding would. On success returns the canonical encoding of the decoded
 * bytes (equal to `s` unless it held CR/LF or non-zero trailing bits, which Go tolerates and its
 * encoder drops). Pure; never throws.
 */
export function goBase64Decode(s: string): Base64Result {
  if (isCanonical(s) && trailingBitsZero(s)) return { ok: true, canonical: s };
  const src = Buffer.from(s, 'utf8');
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const q = decodeQuantum(src, si, out);
    if (q.error !== undefined) return { ok: false, error: base64ErrorMessage(q.error) };
    si = q.next;
    if (q.done) break;
  }
  return { ok: true, canonical: Buffer.from(out).toString('base64') };
}

function trailingBitsZero(s: string): boolean {
  if (s.endsWith('==')) return ((decodeMap[s.charCodeAt(s.length - 3)] ?? 0) & 0x0f) === 0;
  if (s.endsWith('=')) return ((decodeMap[s.charCodeAt(s.length - 2)] ?? 0) & 0x03) === 0;
  return true;
}

interface Quantum {
  next: number;
  done: boolean;
  error?: number;
}

/** Go's Encoding.decodeQuantum for a padded, non-strict encoding. */
function decodeQuantum(src: Buffer, start: number, out: number[]): Quantum {
  const dbuf = [0, 0, 0, 0];
  let si = start;
  let dlen = 4;
  let j = 0;
  let done = false;
  while (j < 4) {
    if (si === src.length) {
      if (j === 0) return { next: si, done: true };
      return { next: si, done: true, error: si - j }; // padding required
    }
    const inByte = src[si] as number;
    si++;
    const v = decodeMap[inByte] as number;
    if (v !== 0xff) {
      dbuf[j] = v;
      j++;
      continue;
    }
    if (inByte === LF || inByte === CR) continue;
    if (inByte !== PAD) return { next: si, done: true, error: si - 1 };
    // Padding: only valid after two or three symbols.
    if (j === 0 || j === 1) return { next: si, done: true, error: si - 1 };
    if (j === 2) {
      while (si < src.length && (src[si] === LF || src[si] === CR)) si++;
      if (si === src.length) return { next: si, done: true, error: src.length };
      if (src[si] !== PAD) return { next: si, done: true, error: si - 1 };
      si++;
    }
    while (si < src.length && (src[si] === LF || src[si] === CR)) si++;
    if (si < src.length) return { next: si, done: true, error: si }; // trailing garbage
    dlen = j;
    done = true;
    break;
  }
  const val = ((dbuf[0] as number) << 18) | ((dbuf[1] as number) << 12) | ((dbuf[2] as number) << 6) | (dbuf[3] as number);
  const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
  for (let k = 0; k < dlen - 1; k++) out.push(bytes[k] as number);
  return { next: si, done };
}
