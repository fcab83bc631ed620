/**
 * Path elements and field paths as structured-merge-diff defines them (fieldpath/element.go,
 * path.go, serialize-pe.go): a struct field or map key, an associative-list key, a set value, or a
 * list index; with smd's order, its human-readable form and the FieldsV1 key encoding.
 */
import { scanJson } from '../api/json-depth';
import { JsonValue, compareStrings, compareValues, equalValues, goJson, goJsonString, isJsonObject, valueToString } from './json-value';

/** One key field of an associative-list item (`name="app"`). */
export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

/** Selects a child: exactly one kind. Key fields are sorted by name. */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly KeyField[] }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

/** A path from the object root; the empty path is the object itself (never owned). */
export type FieldPath = readonly PathElement[];

export const fieldElement = (name: string): PathElement => ({ kind: 'field', name });
export const valueElement = (value: JsonValue): PathElement => ({ kind: 'value', value });
export const indexElement = (index: number): PathElement => ({ kind: 'index', index });
/** A key element; the fields are sorted by name (stable), as smd's FieldList.Sort. */
export function keyElement(fields: Record<string, JsonValue> | readonly KeyField[]): PathElement {
  const list = Array.isArray(fields)
    ? [...(fields as readonly KeyField[])]
    : Object.entries(fields as Record<string, JsonValue>).map(([name, value]) => ({ name, value }));
  return { kind: 'key', fields: list.sort((a, b) => compareStrings(a.name, b.name)) };
}

/** Builds a path from shorthand parts: a string is a field, a number an index. */
export function pathOf(...parts: Array<string | number | PathElement>): FieldPath {
  return parts.map((p) => (typeof p === 'string' ? fieldElement(p) : typeof p === 'number' ? indexElement(p) : p));
}

const kindRank = { field: 0, key: 1, value: 2, index: 3 } as const;

/** smd PathElement.Compare: fields < keys < values < indexes, then by content. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return kindRank[a.kind] < kindRank[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const j = (b as typeof a).index;
      return a.index < j ? -1 : a.index > j ? 1 : 0;
    }
  }
}

function compareKeyFields(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const x = a[i] as KeyField;
    const y = b[i] as KeyField;
    const c = compareStrings(x.name, y.name) || compareValues(x.value, y.value);
    if (c !== 0) return c;
  }
}

/** True when both elements select the same child. */
export function equalPathElements(a: PathElement, b: PathElement): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'value') return equalValues(a.value, (b as typeof a).value);
  return comparePathElements(a, b) === 0;
}

/**
 * A string that is the same for two elements exactly when comparePathElements finds them equal, to
 * index elements in a Map (lists of n items are then matched in O(n), not O(n²)).
 */
export function pathElementKey(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f${pe.name}`;
    case 'key':
      return `k${pe.fields.map((f) => `${JSON.stringify(f.name)}:${canonicalValue(f.value)}`).join(',')}`;
    case 'value':
      return `v${canonicalValue(pe.value)}`;
    case 'index':
      return `i${pe.index}`;
  }
}

// Numbers by value (String(-0) is "0", as compareValues finds them equal), maps with sorted keys.
function canonicalValue(v: JsonValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (Array.isArray(v)) return `[${v.map(canonicalValue).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalValue(v[k] as JsonValue)}`).join(',')}}`;
}

/** smd PathElement.String: `.name`, `[k1="a",k2=1]`, `[="x"]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map((f) => `${f.name}=${valueToString(f.value)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** smd Path.String, as conflict messages print it: `.spec.containers[name="app"].image`. */
export function pathString(path: FieldPath): string {
  return path.map(pathElementString).join('');
}

/** The FieldsV1 key of an element: `f:<name>`, `k:<compact JSON>`, `v:<JSON>`, `i:<n>`. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map((f) => `${goJsonString(f.name)}:${goJson(f.value)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Nesting of the JSON in a `v:` or `k:` key past which the key is not read. */
const MAX_KEY_VALUE_DEPTH = 1000;

/** Thrown for a FieldsV1 key that is not a path element; `unknownType` keys are skipped by readers. */
export class PathElementSyntaxError extends Error {
  constructor(message: string, readonly unknownType = false) {
    super(message);
    this.name = 'PathElementSyntaxError';
  }
}

/** Parses a FieldsV1 key; throws PathElementSyntaxError with smd's messages. */
export function deserializePathElement(s: string): PathElement {
  if (s.length < 2) throw new PathElementSyntaxError('key must be 2 characters long:');
  if (s[1] !== ':') throw new PathElementSyntaxError(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return valueElement(parseJson(body));
    case 'k': {
      const obj = parseJson(body);
      if (!isJsonObject(obj)) throw new PathElementSyntaxError(`expected an object key, got ${body}`);
      return keyElement(obj);
    }
    case 'i':
      if (!/^[+-]?\d+$/.test(body)) throw new PathElementSyntaxError(`strconv.Atoi: parsing ${goJsonString(body)}: invalid syntax`);
      return indexElement(Number(body));
    default:
      throw new PathElementSyntaxError('unknown path element type', true);
  }
}

function parseJson(text: string): JsonValue {
  // Values are compared and printed recursively; keys nested deeper than any field path are refused.
  if (text.length > MAX_KEY_VALUE_DEPTH && scanJson(text, MAX_KEY_VALUE_DEPTH).depthError) throw new PathElementSyntaxError(`exceeded max depth of ${MAX_KEY_VALUE_DEPTH}`);
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new PathElementSyntaxError(e instanceof Error ? e.message : String(e));
  }
}
