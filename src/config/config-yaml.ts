/**
 * YAML configuration files → JS values, as kube's config loaders read them (sigs.k8s.io/yaml over
 * go-yaml v2): the first document only, repeated keys listed in go-yaml's strict wording
 * (`line 4: key "a" already set in map`) while the value keeps the last one (the non-strict
 * YAMLToJSON that decoding uses).
 *
 * Not the request-body decoder (endpoints/yaml-decode.ts, which config/ may not import): a config
 * file is a small, operator-written document, so js-yaml 5 builds the value (CORE schema plus
 * merge keys) and one pass over its parser events finds the repeated keys. Its limits are simpler:
 * 500 levels of nesting, and aliases expanding to at most {@link maxYamlNodes} nodes.
 */
import { CORE_SCHEMA, constructFromEvents, getScalarValue, mergeTag, parseEvents, type Event, type ScalarEvent, EVENT_ALIAS, EVENT_DOCUMENT, EVENT_MAPPING, EVENT_POP, EVENT_SCALAR, EVENT_SEQUENCE, SCALAR_STYLE_PLAIN } from 'js-yaml-5';
import { goQuote } from '../api';

/** A YAML file go-yaml (or this decoder's limits) would not read; `message` is go-yaml-like (`yaml: line 3: …`). */
export class ConfigYamlError extends Error {
  override readonly name = 'ConfigYamlError';
}

export interface ConfigYaml {
  /** The first document's value; null for an empty document or one of only comments. */
  value: unknown;
  /** Repeated keys, go-yaml's strict wording, in the order go-yaml reports them. */
  duplicates: string[];
}

/** Nesting js-yaml may parse (it recurses per level). */
export const maxYamlDepth = 500;
/** Nodes an aliased document may expand to. */
export const maxYamlNodes = 1_000_000;

const schema = CORE_SCHEMA.withTags(mergeTag);


/** Zero-based line of an offset (binary search over line starts). */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
}

/** go-yaml's error position prefix (omitted on the first line, as its parser does). */
function where(line0: number): string {
  return line0 > 0 ? `line ${line0 + 1}: ` : '';
}

function yamlError(e: unknown): ConfigYamlError {
  const err = e as { reason?: unknown; message?: unknown; mark?: { line?: number } };
  const reason = typeof err.reason === 'string' && err.reason ? err.reason : (String(err.message ?? e).split('\n')[0] ?? '');
  return new ConfigYamlError(`yaml: ${where(err.mark?.line ?? 0)}${reason}`);
}

/**
 * A scalar key's identity (go-yaml keeps key types: `1` and `"1"` are different keys) and its
 * rendering by Go's `%#v`.
 */
function keyOf(text: string, e: ScalarEvent): { id: string; go: string } {
  const raw = e.valueStart < 0 ? '' : getScalarValue(text, e);
  const tag = e.tagStart < 0 ? '' : text.slice(e.tagStart, e.tagEnd);
  if (e.style !== SCALAR_STYLE_PLAIN || tag !== '') return { id: `s:${raw}`, go: goQuote(raw) };
  if (/^(~|null|Null|NULL|)$/.test(raw)) return { id: 'null', go: '<nil>' };
  if (/^(true|True|TRUE|false|False|FALSE)$/.test(raw)) {
    const b = raw.toLowerCase() === 'true';
    return { id: `b:${b}`, go: String(b) };
  }
  if (/^[-+]?[0-9]+$/.test(raw) || /^0x[0-9a-fA-F]+$/.test(raw) || /^0o[0-7]+$/.test(raw)) {
    const n = raw.startsWith('0o') ? parseInt(raw.slice(2), 8) : Number(raw);
    return { id: `i:${n}`, go: String(n) };
  }
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(raw)) {
    const n = Number(raw);
    return { id: `f:${n}`, go: String(n) };
  }
  return { id: `s:${raw}`, go: goQuote(raw) };
}

interface Frame {
  map: boolean;
  /** Mappings: a key was read, its value comes next. */
  wantValue: boolean;
  /** Mappings: identities of the scalar keys seen. */
  keys?: Set<string>;
  /** Mappings: the key just read repeats one; reported once its value is decoded, at the value's line. */
  repeat?: { go: string; line: number; placed: boolean };
  /** This collection is a mapping key (go-yaml refuses it; its contents are not checked). */
  isKey: boolean;
}

/** Repeated keys of the first document, as go-yaml's strict decode reports them. */
function repeatedKeys(text: string, events: readonly Event[]): string[] {
  const lineOf = lineIndex(text);
  const out: string[] = [];
  const stack: Frame[] = [];
  let i = events.findIndex((e) => e.type === EVENT_DOCUMENT);
  if (i < 0) return out;

  /** A node of the current mapping finished: a key (its value comes next) or a value. */
  const finished = (): void => {
    const parent = stack[stack.length - 1];
    if (!parent || !parent.map) return;
    if (!parent.wantValue) {
      parent.wantValue = true;
      return;
    }
    if (parent.repeat) out.push(`line ${parent.repeat.line + 1}: key ${parent.repeat.go} already set in map`);
    parent.repeat = undefined;
    parent.wantValue = false;
  };
  /** A node starts at `offset`: a repeated key's value reports this line. */
  const starts = (offset: number): void => {
    const parent = stack[stack.length - 1];
    if (parent?.repeat && !parent.repeat.placed && parent.wantValue) {
      parent.repeat.placed = true;
      if (offset >= 0) parent.repeat.line = lineOf(offset);
    }
  };
  const isKeyPosition = (): boolean => {
    const parent = stack[stack.length - 1];
    return !!parent && (parent.isKey || (parent.map && !parent.wantValue));
  };

  for (i++; i < events.length; i++) {
    const e = events[i] as Event;
    if (e.type === EVENT_DOCUMENT) break;
    if (e.type === EVENT_POP) {
      if (!stack.pop()) break; // the document's end
      finished();
      continue;
    }
    if (e.type === EVENT_MAPPING || e.type === EVENT_SEQUENCE) {
      const first = [e.start, e.anchorStart - 1, e.tagStart].filter((x) => x >= 0);
      starts(first.length ? Math.min(...first) : -1);
      stack.push({ map: e.type === EVENT_MAPPING, wantValue: false, isKey: isKeyPosition() });
      continue;
    }
    if (e.type === EVENT_SCALAR) {
      const first = [e.valueStart, e.anchorStart - 1, e.tagStart].filter((x) => x >= 0);
      const start = first.length ? Math.min(...first) : -1;
      const parent = stack[stack.length - 1];
      if (parent && parent.map && !parent.wantValue && !parent.isKey) {
        const key = keyOf(text, e);
        const keys = (parent.keys ??= new Set());
        if (keys.has(key.id)) parent.repeat = { go: key.go, line: start >= 0 ? lineOf(start) : 0, placed: false };
        else keys.add(key.id);
      } else starts(start);
      finished();
      continue;
    }
    if (e.type === EVENT_ALIAS) {
      starts(e.anchorStart - 1);
      finished();
    }
  }
  return out;
}

/** Where the first document ends: the first `---` or `...` line after some content, if any. */
function firstDocumentEnd(text: string): number | undefined {
  const marker = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    const before = text.slice(0, m.index).replace(/^---.*$/m, '');
    if (/^[ \t]*[^#\s%]/m.test(before)) return m.index;
  }
  return undefined;
}

/**
 * Decodes the first document of a YAML config file. Throws ConfigYamlError for what go-yaml
 * (or the limits above) refuse.
 */
export function decodeConfigYaml(text: string): ConfigYaml {
  let events: Event[];
  let docs: unknown[];
  try {
    try {
      events = parseEvents(text, { maxDepth: maxYamlDepth });
    } catch (e) {
      // go-yaml reads the first document only: what follows it cannot fail the file.
      const end = firstDocumentEnd(text);
      if (end === undefined) throw e;
      try {
        events = parseEvents(text.slice(0, end), { maxDepth: maxYamlDepth });
      } catch {
        throw e;
      }
    }
    docs = constructFromEvents(events, { source: text, schema, json: true });
  } catch (e) {
    if (/^nesting exceeded maxDepth/.test(String((e as { reason?: unknown }).reason ?? ''))) {
      const line = (e as { mark?: { line?: number } }).mark?.line ?? 0;
      throw new ConfigYamlError(`yaml: ${where(line)}exceeded max depth of ${maxYamlDepth}`);
    }
    throw yamlError(e);
  }
  const value = docs.length ? (docs[0] ?? null) : null;
  return { value, duplicates: repeatedKeys(text, events) };
}
