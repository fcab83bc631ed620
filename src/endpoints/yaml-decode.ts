/**
 * YAML request bodies → JS values, with kube's (go-yaml v2, via sigs.k8s.io/yaml) limits.
 *
 * Why a hand-written walk over parser events rather than a library's `load`: no library applies
 * go-yaml's alias rule (a ratio of alias-expanded nodes to decoded nodes, judged by counting, see
 * `excessiveAliasing`) — js-yaml's `maxAliases` counts `*x` tokens, not what they expand to, so a
 * 670-byte billion-laughs body passes it and `load` expands it; loaders stop at the first repeated
 * key, where kube reports every one; and every YAML parser for Node recurses once (or more) per
 * nesting level, overflowing the stack below kube's depth of 10000. So js-yaml 5 only tokenizes
 * (`parseEvents`, a flat event array) and the loop below, with its own stack, checks depth,
 * anchors, aliases and repeated keys and builds the value in one linear pass. The server decodes
 * large or deep bodies in body-worker.ts's persistent worker (`decodeYamlAsync`), which runs this
 * whole decode on a thread with a large stack; `decodeYaml` here is the synchronous form for
 * documents up to 500 levels.
 * Scalars resolve as js-yaml 4's JSON_SCHEMA always did here (null/bool/int/float/str).
 */
import * as yaml4 from 'js-yaml';
import { parseEvents, getScalarValue, type Event, type ScalarEvent, EVENT_ALIAS, EVENT_DOCUMENT, EVENT_MAPPING, EVENT_POP, EVENT_SCALAR, EVENT_SEQUENCE, SCALAR_STYLE_PLAIN, COLLECTION_STYLE_FLOW } from 'js-yaml-5';
import { goQuote } from '../api/go-format';
// Aliases expand to copies, as go-yaml's do (any depth).
import { cloneJson, setKey } from '../api/json-clone';

/** A body go-yaml would not decode; `message` is go-yaml's text (`yaml: …`), bounded in length. */
export class YamlError extends Error {
  override name = 'YamlError';
}

export interface YamlDecoded {
  /** The first document's value (undefined for an empty body). */
  value: unknown;
  /** Repeated keys as go-yaml's strict decoding words them (`line N: key "k" already set in map`); the last value won. */
  duplicates: string[];
}

/** go-yaml's scanner limits: flow levels (`max_flow_level`) and block indents (`max_indents`). */
export const yamlMaxDepth = 10000;
/** Nesting js-yaml's recursive parser is given on this thread (it overflows near 1600). */
const mainThreadDepth = 500;
/** Repeated keys reported at most (go-yaml lists all: 600,000 of them fit in 3 MiB, a 20 MB message). */
export const maxReportedDuplicates = 1000;
/** Alias-expanded scalar bytes allowed (not kube's: go-yaml would build the whole JSON and run out of memory). */
const maxAliasedBytes = 64 * 1024 * 1024;


/**
 * go-yaml v2's `allowedAliasRatio`/`(*decoder).unmarshal` rule: too many of the decoded nodes came
 * from alias expansion.
 */
export function excessiveAliasing(decodeCount: number, aliasCount: number): boolean {
  if (aliasCount <= 100 || decodeCount <= 1000) return false;
  let allowed: number;
  if (decodeCount <= 400000) allowed = 0.99;
  else if (decodeCount >= 4000000) allowed = 0.1;
  else allowed = 0.99 - 0.89 * ((decodeCount - 400000) / 3600000);
  return aliasCount / decodeCount > allowed;
}

/** An anchored node: its value, and what decoding it once costs (go-yaml decode calls, scalar bytes). */
interface Anchored {
  name: string;
  value: unknown;
  /** Nodes decoded for it, aliases inside expanded: go-yaml's decodeCount for this node. */
  size: number;
  /** Scalar bytes it expands to. */
  bytes: number;
  open: boolean;
}

interface Frame {
  map: boolean;
  flow: boolean;
  /** The mapping or sequence being built (a throw-away one for a key that is a collection). */
  value: Record<string, unknown> | unknown[];
  /** Nodes decoded in this subtree so far (itself included), and scalar bytes. */
  size: number;
  bytes: number;
  anchor?: Anchored;
  /** Mappings: the key read, waiting for its value. */
  key?: { name: string; dup?: { text: string; line: number } };
  /** Mappings: the kinds of the keys seen under one text, when a key was not a string (`1` and `"1"` differ). */
  kinds?: Map<string, string>;
  /** Mappings: after a key, a value comes. */
  wantValue?: boolean;
  /** Block nesting this frame adds (0 for an indentless sequence, 1 otherwise), and its column. */
  blockStep: number;
  column: number;
  /** Frame is a mapping key (its value is never stored). */
  isKey: boolean;
  /** Offset the node starts at (its anchor or tag, when it has one). */
  start: number;
}

interface Scalar {
  kind: 'null' | 'bool' | 'int' | 'float' | 'str';
  value: unknown;
}

type ImplicitType = { resolve(s: string): boolean; construct(s: string): unknown };
const types = (yaml4 as unknown as { types: Record<'null' | 'bool' | 'int' | 'float', ImplicitType> }).types;
const implicit: Array<[Scalar['kind'], ImplicitType]> = [
  ['null', types.null],
  ['bool', types.bool],
  ['int', types.int],
  ['float', types.float],
];
/** First characters a plain scalar needs to be anything but a string under JSON_SCHEMA. */
const maybeTyped = new Set(['~', 'n', 'N', 't', 'T', 'f', 'F', '+', '-', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

function resolvePlain(s: string): Scalar {
  if (s === '') return { kind: 'null', value: null };
  if (!maybeTyped.has(s[0] as string)) return { kind: 'str', value: s };
  for (const [kind, t] of implicit) if (t.resolve(s)) return { kind, value: t.construct(s) };
  return { kind: 'str', value: s };
}

/** Line and column of offsets, by a cursor that moves from the last offset asked (they mostly increase). */
class Lines {
  private pos = 0;
  private line = 0;
  private lineStart = 0;
  constructor(private readonly text: string) {}
  /** 0-based line and column of `offset`. */
  at(offset: number): { line: number; column: number } {
    const text = this.text;
    offset = Math.max(0, Math.min(offset, text.length));
    while (offset < this.lineStart) {
      // Back one line: lineStart - 1 is the newline ending the previous line.
      this.line--;
      this.lineStart = text.lastIndexOf('\n', this.lineStart - 2) + 1;
    }
    for (;;) {
      const nl = text.indexOf('\n', Math.max(this.pos, this.lineStart));
      if (nl < 0 || nl >= offset) break;
      this.line++;
      this.lineStart = nl + 1;
      this.pos = nl + 1;
    }
    this.pos = Math.max(offset, this.lineStart);
    return { line: this.line, column: offset - this.lineStart };
  }
}

/** The least of the offsets that are set (>= 0), or -1. */
function firstOffset(a: number, b: number, c: number): number {
  let m = -1;
  for (const x of [a, b, c]) if (x >= 0 && (m < 0 || x < m)) m = x;
  return m;
}

/** go-yaml's `(*parser).fail` position prefix: omitted on the first line. */
function where(line0: number): string {
  return line0 > 0 ? `line ${line0 + 1}: ` : '';
}

/** A key as go-yaml's `%#v` prints it in `key %#v already set in map`. */
function goKey(s: Scalar): string {
  if (s.kind === 'str') return goQuote(bounded(s.value as string));
  if (s.kind === 'null') return '<nil>';
  return String(s.value);
}

function bounded(s: string, max = 256): string {
  return s.length > max ? `${s.slice(0, max)}...` : s;
}


const yamlTag = 'tag:yaml.org,2002:';

/** The tag a node carries: null (none), '!' (non-specific) or a full tag name. */
function tagOf(text: string, e: { tagStart: number; tagEnd: number }): string | null {
  if (e.tagStart < 0) return null;
  const t = text.slice(e.tagStart, e.tagEnd);
  if (t === '!') return '!';
  if (t.startsWith('!!')) return yamlTag + t.slice(2);
  if (t.startsWith('!<') && t.endsWith('>')) return t.slice(2, -1);
  return t;
}

function scalarOf(text: string, e: ScalarEvent, lineOf: () => number): Scalar {
  const raw = e.valueStart < 0 ? '' : getScalarValue(text, e);
  const tag = tagOf(text, e);
  if (tag === null) return e.style === SCALAR_STYLE_PLAIN ? resolvePlain(raw) : { kind: 'str', value: raw };
  if (tag === '!' || tag === `${yamlTag}str`) return { kind: 'str', value: raw };
  const named = tag.startsWith(yamlTag) ? (tag.slice(yamlTag.length) as Scalar['kind']) : undefined;
  const t = named && named !== 'str' ? (types as Record<string, ImplicitType | undefined>)[named] : undefined;
  if (!t || !implicit.some(([k]) => k === named)) throw new YamlError(`yaml: ${where(lineOf())}unknown tag !<${bounded(tag, 64)}>`);
  if (!t.resolve(raw)) throw new YamlError(`yaml: ${where(lineOf())}cannot decode ${bounded(raw, 64)} as a !!${named}`);
  return { kind: named as Scalar['kind'], value: t.construct(raw) };
}

/**
 * Where a decode runs: `shallow` (the main thread: a document deeper than 500 levels throws
 * TooDeep), or `deep` (body-worker.ts's threads, started with a large stack: js-yaml recurses to
 * 20,002 levels there).
 */
export type DecodeMode = 'shallow' | 'deep';

/** A `shallow` decode met nesting js-yaml cannot parse on the main thread's stack. */
export class TooDeep extends Error {
  override name = 'TooDeep';
}

/** Parses YAML into js-yaml 5 events: here when shallow, on a large stack when deep. */
function events(text: string, mode: DecodeMode): Event[] {
  if (mode === 'deep') return deepEventsHere(text);
  try {
    return parseEvents(text, { maxDepth: mainThreadDepth });
  } catch (e) {
    if (!isDepthError(e)) throw syntaxError(e);
  }
  throw new TooDeep('YAML nesting past 500 levels');
}

/** The deep tokenisation on this thread, which must have a large stack (a decoder thread). */
function deepEventsHere(text: string): Event[] {
  type ParseError = { reason?: unknown; mark?: { line?: number; position?: number } };
  const depthError = (line: number | undefined): YamlError => new YamlError(`yaml: ${where(line ?? 0)}exceeded max depth of ${yamlMaxDepth}`);
  try {
    return parseEvents(text, { maxDepth: 2 * yamlMaxDepth + 2 });
  } catch (e) {
    let first = e as ParseError;
    if (isDepthError(e)) {
      // Deeper than both of go-yaml's limits together: find where the 10001st level opens.
      try {
        parseEvents(text, { maxDepth: yamlMaxDepth + 1 });
      } catch (e2) {
        first = e2 as ParseError;
      }
      throw depthError(first.mark?.line);
    }
    // go-yaml scans in order: nesting past the limit before this error is what it reports.
    try {
      parseEvents(text, { maxDepth: yamlMaxDepth + 1 });
    } catch (e2) {
      const d = e2 as ParseError;
      if (isDepthError(d) && d.mark && first.mark && (d.mark.position ?? 0) <= (first.mark.position ?? 0)) throw depthError(d.mark.line);
    }
    throw syntaxError(e);
  }
}

function isDepthError(e: unknown): boolean {
  return /^nesting exceeded maxDepth/.test(String((e as { reason?: unknown }).reason ?? ''));
}

function syntaxError(e: unknown): YamlError {
  const err = e as { reason?: unknown; message?: unknown; mark?: { line?: number } };
  const reason = typeof err.reason === 'string' && err.reason ? err.reason : String(err.message ?? e).split('\n')[0] ?? '';
  return new YamlError(`yaml: ${where(err.mark?.line ?? 0)}${bounded(reason)}`);
}

/**
 * Decodes the first YAML document of `text` as kube's YAMLToJSON does (go-yaml v2): throws
 * YamlError with go-yaml's message for what it rejects — syntax, depth over 10000, unknown or
 * self-containing anchors, excessive aliasing — and reports repeated keys (the last value wins).
 * On the calling thread, so only to 500 levels (TooDeep past them): decodeYamlAsync
 * (body-worker.ts) takes any depth and large bodies off the event loop.
 */
export function decodeYaml(text: string): YamlDecoded {
  const { value, duplicates } = decodeYamlIn(text, 'shallow');
  return { value, duplicates };
}

/**
 * decodeYaml in the given mode; `special` tells whether the value holds a number JSON cannot
 * carry (NaN, ±Infinity, -0: `.nan`, `.inf`, `-0.0`).
 */
export function decodeYamlIn(text: string, mode: DecodeMode): YamlDecoded & { special: boolean } {
  const lines = new Lines(text);
  const ev = events(text, mode);
  let special = false;
  const duplicates: string[] = [];
  const anchors = new Map<string, Anchored>();
  const stack: Frame[] = [];
  // go-yaml's counters (the document node counts one).
  let decodeCount = 1;
  let aliasCount = 0;
  let aliasedBytes = 0;
  let flowDepth = 0;
  let blockDepth = 0;
  /** First error go-yaml's parser would raise (it parses the whole document before decoding). */
  let parseError: YamlError | undefined;
  /** First error its decoder would raise. */
  let decodeError: YamlError | undefined;
  let result: unknown;
  let sawDocument = false;
  let i = 0;
  // Skip to the first document; later documents are never read (YAMLToJSON reads one).
  while (i < ev.length && (ev[i] as Event).type !== EVENT_DOCUMENT) i++;
  if (i < ev.length) {
    sawDocument = true;
    i++;
  }
  /** A repeated key whose value has yet to start: go-yaml reports the value's line. */
  let pendingDup = false;
  /** Repeats found whose value is still being decoded. */
  let pendingReports = 0;

  /** Hands a finished node (value, cost) to its parent. */
  const deliver = (value: unknown, size: number, bytes: number, keyScalar: Scalar | undefined, start: number): void => {
    const parent = stack[stack.length - 1];
    if (!parent) {
      result = value;
      return;
    }
    parent.size += size;
    parent.bytes += bytes;
    if (parent.isKey) return;
    if (!parent.map) {
      (parent.value as unknown[]).push(value);
      return;
    }
    if (!parent.wantValue) {
      // A key.
      let name = '';
      let dup = false;
      if (keyScalar) {
        name = keyScalar.value === null ? 'null' : String(keyScalar.value);
        // go-yaml keys keep their type (1 and "1" differ); the object holds them by their text.
        const had = Object.prototype.hasOwnProperty.call(parent.value, name);
        if (keyScalar.kind === 'str' && !parent.kinds) dup = had;
        else if (had) {
          const kinds = (parent.kinds ??= new Map());
          const seen = kinds.get(name) ?? 'str';
          dup = seen.split(',').includes(keyScalar.kind);
          if (!dup) kinds.set(name, `${seen},${keyScalar.kind}`);
        } else if (keyScalar.kind !== 'str') (parent.kinds ??= new Map()).set(name, keyScalar.kind);
      } else {
        decodeError ??= new YamlError(`yaml: invalid map key: ${Array.isArray(value) ? '[]interface {}{...}' : 'map[interface {}]interface {}{...}'}`);
      }
      parent.key = { name };
      if (dup && keyScalar && duplicates.length + pendingReports < maxReportedDuplicates) {
        pendingReports++;
        // Reported once the value is decoded, at the value's line (go-yaml's setMapIndex order).
        parent.key.dup = { text: goKey(keyScalar), line: lines.at(start).line };
        pendingDup = true;
      }
      parent.wantValue = true;
      return;
    }
    const key = parent.key as NonNullable<Frame['key']>;
    setKey(parent.value as Record<string, unknown>, key.name, value);
    if (key.dup) {
      pendingReports--;
      duplicates.push(`line ${key.dup.line + 1}: key ${key.dup.text} already set in map`);
    }
    parent.key = undefined;
    parent.wantValue = false;
  };

  /** Start of a node: the line a pending repeated key reports. */
  const nodeStart = (offset: number): void => {
    if (!pendingDup) return;
    pendingDup = false;
    const dup = stack[stack.length - 1]?.key?.dup;
    if (dup && offset >= 0) dup.line = lines.at(offset).line;
  };

  const countCheck = (): void => {
    if (!decodeError && excessiveAliasing(decodeCount, aliasCount)) decodeError = new YamlError('yaml: document contains excessive aliasing');
  };

  const anchorOf = (e: { anchorStart: number; anchorEnd: number }, value: unknown): Anchored | undefined => {
    if (e.anchorStart < 0) return undefined;
    const a: Anchored = { name: text.slice(e.anchorStart, e.anchorEnd), value, size: 0, bytes: 0, open: true };
    anchors.set(a.name, a);
    return a;
  };

  for (; i < ev.length; i++) {
    const e = ev[i] as Event;
    if (e.type === EVENT_DOCUMENT) break; // the next document
    const parent = stack[stack.length - 1];
    const isKey = !!parent && (parent.isKey || (parent.map && !parent.wantValue));
    switch (e.type) {
      case EVENT_SEQUENCE:
      case EVENT_MAPPING: {
        const start = firstOffset(e.start, e.anchorStart, e.tagStart);
        nodeStart(start);
        const flow = e.style === COLLECTION_STYLE_FLOW;
        const map = e.type === EVENT_MAPPING;
        let blockStep = 0;
        let column = -1;
        if (flow) {
          flowDepth++;
          if (flowDepth > yamlMaxDepth) parseError ??= new YamlError(`yaml: ${where(lines.at(e.start).line)}exceeded max depth of ${yamlMaxDepth}`);
        } else {
          column = lines.at(e.start).column;
          // An indentless sequence (`key:\n- a`) adds no indent level in go-yaml's scanner.
          blockStep = !map && parent && parent.map && !parent.flow && parent.column === column ? 0 : 1;
          blockDepth += blockStep;
          if (blockDepth > yamlMaxDepth) parseError ??= new YamlError(`yaml: ${where(lines.at(e.start).line)}exceeded max depth of ${yamlMaxDepth}`);
        }
        const tag = tagOf(text, e);
        const want = map ? `${yamlTag}map` : `${yamlTag}seq`;
        if (tag !== null && tag !== '!' && tag !== want) {
          parseError ??= new YamlError(`yaml: ${where(lines.at(start).line)}unknown tag !<${bounded(tag, 64)}> for a ${map ? 'mapping' : 'sequence'}`);
        }
        const value: Record<string, unknown> | unknown[] = map ? {} : [];
        decodeCount++;
        if (!decodeError) countCheck();
        stack.push({ map, flow, value, size: 1, bytes: 0, anchor: anchorOf(e, value), blockStep, column, isKey, start });
        break;
      }
      case EVENT_POP: {
        const f = stack.pop();
        if (!f) {
          i = ev.length; // end of the document
          break;
        }
        if (f.flow) flowDepth--;
        else blockDepth -= f.blockStep;
        if (f.anchor) {
          f.anchor.size = f.size;
          f.anchor.bytes = f.bytes;
          f.anchor.open = false;
        }
        deliver(f.value, f.size, f.bytes, undefined, f.start);
        break;
      }
      case EVENT_SCALAR: {
        const start = firstOffset(e.valueStart, e.anchorStart, e.tagStart);
        nodeStart(start);
        let s: Scalar;
        try {
          s = scalarOf(text, e, () => lines.at(start).line);
        } catch (err) {
          parseError ??= err as YamlError;
          s = { kind: 'null', value: null };
        }
        decodeCount++;
        if (!decodeError) countCheck();
        if (typeof s.value === 'number' && (!Number.isFinite(s.value) || Object.is(s.value, -0))) special = true;
        const bytes = typeof s.value === 'string' ? s.value.length : 8;
        const a = anchorOf(e, s.value);
        if (a) {
          a.size = 1;
          a.bytes = bytes;
          a.open = false;
        }
        deliver(s.value, 1, bytes, isKey ? s : undefined, start);
        break;
      }
      case EVENT_ALIAS: {
        const name = text.slice(e.anchorStart, e.anchorEnd);
        nodeStart(e.anchorStart - 1);
        const a = anchors.get(name);
        if (!a) {
          parseError ??= new YamlError(`yaml: unknown anchor '${bounded(name, 64)}' referenced`);
          deliver(null, 1, 0, isKey ? { kind: 'null', value: null } : undefined, e.anchorStart - 1);
          break;
        }
        if (a.open) {
          decodeError ??= new YamlError(`yaml: anchor '${bounded(name, 64)}' value contains itself`);
          deliver(null, 1, 0, isKey ? { kind: 'null', value: null } : undefined, e.anchorStart - 1);
          break;
        }
        // The alias node, then its target once more: every node of that expansion is an alias decode.
        decodeCount += 1 + a.size;
        aliasCount += a.size;
        aliasedBytes += a.bytes;
        if (!decodeError) {
          countCheck();
          if (!decodeError && aliasedBytes > maxAliasedBytes) decodeError = new YamlError('yaml: document contains excessive aliasing');
        }
        const value = decodeError || parseError ? null : cloneJson(a.value);
        let keyScalar: Scalar | undefined;
        if (isKey) {
          const v = a.value;
          keyScalar =
            v === null ? { kind: 'null', value: null } : typeof v === 'object' ? undefined : { kind: typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'float' : 'str', value: v };
        }
        deliver(value, 1 + a.size, a.bytes, keyScalar, e.anchorStart - 1);
        break;
      }
      default:
        break;
    }
  }
  if (parseError) throw parseError;
  if (decodeError) throw decodeError;
  // As js-yaml 4's load: undefined for an empty body, null for one of only comments or blanks.
  return { value: sawDocument ? (result ?? null) : text === '' ? undefined : null, duplicates, special };
}
