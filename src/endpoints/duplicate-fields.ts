/**
 * Duplicate keys in request bodies, which JSON.parse silently collapses: kube's strict decoding
 * reports each as `duplicate field "<path>"` (400 with fieldValidation=Strict, a warning with Warn).
 */
import { JSONPath, visit } from 'jsonc-parser';

function render(path: JSONPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/**
 * Paths of repeated object keys in a JSON document, in document order. `parsed` (the document's
 * JSON.parse value, unmodified) lets a document without repeats, the usual case, skip the full
 * scan: JSON.parse keeps one property per repeated key, so the document repeats a key exactly when
 * it holds more keys (colons outside strings) than its parse has properties.
 */
export function jsonDuplicateFields(text: string, parsed?: unknown): string[] {
  if (parsed !== undefined && keyTokens(text) === propertyCount(parsed)) return [];
  const found: string[] = [];
  const scopes: Array<Set<string>> = [];
  visit(text, {
    onObjectBegin: () => {
      scopes.push(new Set());
    },
    onObjectEnd: () => {
      scopes.pop();
    },
    onObjectProperty: (property, _offset, _length, _line, _col, pathSupplier) => {
      const keys = scopes[scopes.length - 1];
      if (!keys) return;
      if (keys.has(property)) found.push(render([...pathSupplier(), property]));
      else keys.add(property);
    },
  });
  return found;
}

/** Object keys written in a JSON document: its colons outside strings. */
function keyTokens(text: string): number {
  let n = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) n++;
  }
  return n;
}

/** Own properties of every object in a decoded JSON value. */
function propertyCount(v: unknown): number {
  if (Array.isArray(v)) {
    let n = 0;
    for (const x of v) n += propertyCount(x);
    return n;
  }
  if (typeof v !== 'object' || v === null) return 0;
  const keys = Object.keys(v);
  let n = keys.length;
  for (const k of keys) n += propertyCount((v as Record<string, unknown>)[k]);
  return n;
}

/**
 * Parses YAML that may repeat a key: kube's YAML decoding reports `line N: key "k" already set in
 * map` for each repeat, in document order, and keeps the last value. js-yaml stops at the first
 * repeat, so each one found is renamed in a scratch copy (a marker inserted where the key starts,
 * which keeps every line and column) and the copy parsed again, until none is left; the document
 * itself is then read leniently, last value winning.
 */
export function yamlWithDuplicates(text: string, load: (text: string, json: boolean) => unknown): { value: unknown; duplicates: string[] } {
  const duplicates: string[] = [];
  let scratch = text;
  while (duplicates.length < maxYamlDuplicates) {
    try {
      const value = load(scratch, false);
      return { value: duplicates.length ? load(text, true) : value, duplicates };
    } catch (e) {
      const err = e as { reason?: string; mark?: { line: number; position: number } };
      if (err.reason !== 'duplicated mapping key' || !err.mark) throw e;
      const key = (text.split('\n')[err.mark.line] ?? '').split(':')[0]?.trim().replace(/^["']|["']$/g, '') ?? '';
      duplicates.push(`line ${err.mark.line + 1}: key ${JSON.stringify(key)} already set in map`);
      scratch = `${scratch.slice(0, err.mark.position)}dup${duplicates.length}x${scratch.slice(err.mark.position)}`;
    }
  }
  return { value: load(text, true), duplicates };
}

/** Repeated keys reported at most (each costs a parse of the body). */
const maxYamlDuplicates = 100;

/** go-yaml's error text for repeated keys, as kube's strict YAML decoding reports them. */
export function yamlUnmarshalErrors(duplicates: string[]): string {
  return `yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`;
}
