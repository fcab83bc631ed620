/**
 * List continue tokens as k8s.io/apiserver/pkg/storage/continue.go writes and reads them:
 * base64url (no padding) of `{"v":"meta.k8s.io/v1","rv":<int64>,"start":"<key after prefix>"}`.
 * Decoding mirrors Go's base64 and encoding/json errors closely enough for kube's messages.
 */
import { ApiError, errors } from './errors';
import { MAX_JSON_DEPTH } from './json-depth';
import { unmarshalTypeMessage } from './go-json-error';
import { goJsonString } from './go-format';

const TOKEN_VERSION = 'meta.k8s.io/v1';
const INVALID_KEY = 'continue key is not valid';
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** The 410 message when a continue token's revision was compacted and a fresh token is offered. */
export const INCONSISTENT_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
/** The 410 message when no fresh token could be built. */
export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

/** A decoded token: the full etcd key to start from (prefix + start) and the snapshot revision (-1 = latest). */
export interface ContinuePosition {
  startKey: string;
  rv: bigint;
}

/**
 * EncodeContinue: `key` must start with `keyPrefix` (else a programming error is thrown);
 * callers pass the last returned key + "\0" to resume just after it.
 */
export function encodeContinueToken(key: string, keyPrefix: string, rv: bigint): string {
  const next = keyPrefix !== '' && key.startsWith(keyPrefix) ? key.slice(keyPrefix.length) : key;
  if (next === key) throw new Error('unable to encode next field: the key and key prefix do not match');
  const json = `{"v":"${TOKEN_VERSION}","rv":${rv},"start":${goJsonString(next)}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** The rv:-1 token kube puts in `metadata.continue` of the 410 for a compacted continue token. */
export function inconsistentContinueToken(continueKey: string, keyPrefix: string): string {
  return encodeContinueToken(continueKey, keyPrefix, -1n);
}

/** The 410 Expired ApiError for a continue token whose revision was compacted (etcd3 handleCompactedErrorForPaging). */
export function continueExpiredError(continueKey: string, keyPrefix: string): ApiError {
  let token: string;
  try {
    token = inconsistentContinueToken(continueKey, keyPrefix);
  } catch {
    return errors.expired(CONTINUE_EXPIRED_MESSAGE);
  }
  const err = errors.expired(INCONSISTENT_CONTINUE_MESSAGE);
  err.status.metadata.continue = token;
  return err;
}

/**
 * DecodeContinue. Throws errors.badRequest(`invalid continue token: <reason>`) with kube's reasons,
 * including the path.Clean check that keeps the start key below `keyPrefix`.
 */
export function decodeContinueToken(token: string, keyPrefix: string): ContinuePosition {
  try {
    return decode(token, keyPrefix);
  } catch (e) {
    if (e instanceof TokenError) throw errors.badRequest(`invalid continue token: ${e.message}`);
    throw e;
  }
}

class TokenError extends Error {}

function decode(token: string, keyPrefix: string): ContinuePosition {
  const data = decodeRawUrlBase64(token);
  const parsed = scanGoJson(new TextDecoder().decode(data));
  if ('error' in parsed) throw new TokenError(`${INVALID_KEY}: ${parsed.error}`);
  const c = toContinueToken(parsed.value);
  if (c.v !== TOKEN_VERSION) {
    throw new TokenError(`${INVALID_KEY}: server does not recognize this encoded version ${c.v}`);
  }
  if (c.rv === 0n) {
    throw new TokenError(`${INVALID_KEY}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  }
  if (c.start.length === 0) throw new TokenError(`${INVALID_KEY}: encoded start key empty (version meta.k8s.io/v1)`);
  // Defends against path traversal: the cleaned key must equal the key as sent.
  const key = c.start.startsWith('/') ? c.start : `/${c.start}`;
  const cleaned = cleanPath(key);
  if (cleaned !== key) throw new TokenError(`${INVALID_KEY}: ${c.start}`);
  return { startKey: keyPrefix + cleaned.slice(1), rv: c.rv };
}

const FIELDS: Record<string, 'v' | 'rv' | 'start'> = { v: 'v', rv: 'rv', start: 'start' };

/** json.Unmarshal into continueToken: case-insensitive keys, null leaves zero, first type error wins. */
function toContinueToken(value: GoJsonValue): { v: string; rv: bigint; start: string } {
  const out = { v: '', rv: 0n, start: '' };
  if (value.kind === 'null') return out;
  if (value.kind !== 'object') {
    throw new TokenError(`${INVALID_KEY}: ${unmarshalTypeMessage(value.kind, 'storage.continueToken')}`);
  }
  let firstError: string | undefined;
  const typeError = (what: string, field: string, type: string): void => {
    firstError ??= unmarshalTypeMessage(what, type, { struct: 'continueToken', name: field });
  };
  for (const [rawKey, v] of value.entries) {
    const field = FIELDS[rawKey] ?? FIELDS[rawKey.toLowerCase()];
    if (!field || v.kind === 'null') continue;
    if (field === 'rv') {
      if (v.kind !== 'number') {
        typeError(v.kind, 'rv', 'int64');
        continue;
      }
      const n = /^-?[0-9]+$/.test(v.text) ? BigInt(v.text) : undefined;
      if (n === undefined || n < INT64_MIN || n > INT64_MAX) typeError(`number ${v.text}`, 'rv', 'int64');
      else out.rv = n;
    } else if (v.kind !== 'string') {
      typeError(v.kind, field, 'string');
    } else {
      out[field] = v.text;
    }
  }
  if (firstError) throw new TokenError(`${INVALID_KEY}: ${firstError}`);
  return out;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_DECODE: Readonly<Int16Array> = (() => {
  const t = new Int16Array(256).fill(-1);
  for (let i = 0; i < B64URL.length; i++) t[B64URL.charCodeAt(i)] = i;
  return t;
})();

/** base64.RawURLEncoding.DecodeString, with Go's `illegal base64 data at input byte N` errors. */
function decodeRawUrlBase64(s: string): Uint8Array {
  const src = Buffer.from(s, 'utf8');
  const sextets: number[] = [];
  let groupStart = 0;
  for (let i = 0; i < src.length; i++) {
    const b = src[i] as number;
    if (b === 0x0a || b === 0x0d) continue; // Go skips newlines
    const v = B64_DECODE[b] as number;
    if (v < 0) throw new TokenError(`${INVALID_KEY}: illegal base64 data at input byte ${i}`);
    if (sextets.length % 4 === 0) groupStart = i;
    sextets.push(v);
  }
  if (sextets.length % 4 === 1) {
    throw new TokenError(`${INVALID_KEY}: illegal base64 data at input byte ${Math.max(groupStart, src.length - 1)}`);
  }
  const out: number[] = [];
  for (let i = 0; i < sextets.length; i += 4) {
    const a = sextets[i] as number;
    const b = sextets[i + 1] as number;
    const c = sextets[i + 2];
    const d = sextets[i + 3];
    out.push(((a << 2) | (b >> 4)) & 0xff);
    if (c !== undefined) out.push(((b << 4) | (c >> 2)) & 0xff);
    if (d !== undefined && c !== undefined) out.push(((c << 6) | d) & 0xff);
  }
  return Uint8Array.from(out);
}

/** Go's path.Clean for rooted paths (the only kind passed here). */
function cleanPath(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
}

// ---------------------------------------------------------------------------------------------
// A small JSON reader with Go encoding/json's syntax-error texts; numbers keep their source text.

type GoJsonValue =
  | { kind: 'object'; entries: [string, GoJsonValue][] }
  | { kind: 'array' }
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'bool' }
  | { kind: 'null' };

/** Go's quoteChar for syntax errors: 'x', '\'', '"', '\x00'. */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  const code = c.codePointAt(0) as number;
  const inner = code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : q.slice(1, -1);
  return `'${inner}'`;
}

class JsonSyntaxError extends Error {}

/** Parses `text` as one JSON value, or returns Go's error text. */
function scanGoJson(text: string): { value: GoJsonValue } | { error: string } {
  let i = 0;
  const fail = (context: string): never => {
    if (i >= text.length) throw new JsonSyntaxError('unexpected end of JSON input');
    throw new JsonSyntaxError(`invalid character ${quoteChar(String.fromCodePoint(text.codePointAt(i) as number))} ${context}`);
  };
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const literal = (word: string, v: GoJsonValue): GoJsonValue => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (text[i] !== word[k]) fail(`in literal ${word} (expecting '${word[k]}')`);
    }
    i++;
    return v;
  };
  const str = (): string => {
    i++; // opening quote
    let out = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) fail('');
      if (c === '"') {
        i++;
        return out;
      }
      if ((c as string).charCodeAt(0) < 0x20) fail('in string literal');
      if (c === '\\') {
        i++;
        const e = text[i];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i++;
        } else if (e === 'u') {
          let hex = '';
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/^[0-9a-fA-F]$/.test(text[i] ?? '')) fail('in \\u hexadecimal character escape');
            hex += text[i];
          }
          out += String.fromCharCode(parseInt(hex, 16));
          i++;
        } else {
          fail('in string escape code');
        }
        continue;
      }
      out += c;
      i++;
    }
  };
  const num = (): string => {
    const start = i;
    if (text[i] === '-') {
      i++;
      if (!/[0-9]/.test(text[i] ?? '')) fail('in numeric literal');
    }
    if (text[i] === '0') i++;
    else while (/[0-9]/.test(text[i] ?? '')) i++;
    if (text[i] === '.') {
      i++;
      if (!/[0-9]/.test(text[i] ?? '')) fail('after decimal point in numeric literal');
      while (/[0-9]/.test(text[i] ?? '')) i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!/[0-9]/.test(text[i] ?? '')) fail('in exponent of numeric literal');
      while (/[0-9]/.test(text[i] ?? '')) i++;
    }
    return text.slice(start, i);
  };
  // One value, iteratively (a token may nest thousands of levels): an explicit stack of the open
  // objects and arrays; Go's scanner refuses the 10001st level (`exceeded max depth`).
  type Open = { kind: 'object'; entries: [string, GoJsonValue][]; key: string } | { kind: 'array' };
  const key = (open: Open & { kind: 'object' }): void => {
    ws();
    if (text[i] !== '"') fail('looking for beginning of object key string');
    open.key = str();
    ws();
    if (text[i] !== ':') fail('after object key');
    i++;
  };
  const value = (): GoJsonValue => {
    const stack: Open[] = [];
    for (;;) {
      ws();
      const c = text[i];
      let done: GoJsonValue | undefined;
      if (c === '{' || c === '[') {
        if (stack.length + 1 > MAX_JSON_DEPTH) fail('exceeded max depth');
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++;
          done = c === '{' ? { kind: 'object', entries: [] } : { kind: 'array' };
        } else if (c === '{') {
          const open: Open = { kind: 'object', entries: [], key: '' };
          stack.push(open);
          key(open);
          continue;
        } else {
          stack.push({ kind: 'array' });
          continue;
        }
      } else if (c === '"') done = { kind: 'string', text: str() };
      else if (c === 't') done = literal('true', { kind: 'bool' });
      else if (c === 'f') done = literal('false', { kind: 'bool' });
      else if (c === 'n') done = literal('null', { kind: 'null' });
      else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) done = { kind: 'number', text: num() };
      else fail('looking for beginning of value');
      // Hand the finished value to the containers it closes.
      let v = done as GoJsonValue;
      for (;;) {
        const top = stack[stack.length - 1];
        if (!top) return v;
        if (top.kind === 'object') top.entries.push([top.key, v]);
        ws();
        if (text[i] === ',') {
          i++;
          if (top.kind === 'object') key(top);
          break;
        }
        if (text[i] === (top.kind === 'object' ? '}' : ']')) {
          i++;
          stack.pop();
          v = top.kind === 'object' ? { kind: 'object', entries: top.entries } : { kind: 'array' };
          continue;
        }
        fail(top.kind === 'object' ? 'after object key:value pair' : 'after array element');
      }
    }
  };
  try {
    const v = value();
    ws();
    if (i < text.length) fail('after top-level value');
    return { value: v };
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { error: e.message };
    throw e;
  }
}
