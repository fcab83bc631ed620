/**
 * Duplicate keys in request bodies, which JSON.parse silently collapses: kube's strict decoding
 * reports each as `duplicate field "<path>"` (400 with fieldValidation=Strict, a warning with Warn).
 */
import { keyCountOf, scanJson } from '../api/json-depth';

/**
 * Paths of repeated object keys in a JSON document, in document order, rendered as kube's strict
 * decoder prints them (`a.b[0].c`). `parsed` (the document's JSON.parse value, unmodified) lets a
 * document without repeats, the usual case, skip the full scan: JSON.parse keeps one property per
 * repeated key, so the document repeats a key exactly when it holds more keys (colons outside
 * strings) than its parse has properties. Linear and iterative (any depth); the paths reported
 * stop once they total MAX_DUPLICATE_PATH_CHARS characters.
 */
export function jsonDuplicateFields(text: string, parsed?: unknown): string[] {
  if (parsed !== undefined && (keyCountOf(parsed) ?? scanJson(text, Infinity).keys) === propertyCount(parsed)) return [];
  return scanDuplicates(text);
}

/** Past this many characters of reported paths, further repeats are not reported. */
export const MAX_DUPLICATE_PATH_CHARS = 1 << 20;

interface Frame {
  /** Keys seen in this object (undefined for an array). */
  keys?: Set<string>;
  /** The key whose value is being read (objects) or the element index (arrays). */
  seg: string | number;
  /** This container's rendered path, computed when first needed. */
  path?: string;
}

function append(path: string, seg: string | number): string {
  return typeof seg === 'number' ? `${path}[${seg}]` : path === '' ? seg : `${path}.${seg}`;
}

/** The rendered path of frames[i] (the path of the container it is), cached per frame. */
function framePath(frames: Frame[], i: number): string {
  let j = i;
  while (j > 0 && (frames[j] as Frame).path === undefined) j--;
  let path = j === 0 ? '' : ((frames[j] as Frame).path as string);
  (frames[0] as Frame).path = '';
  for (let k = j + 1; k <= i; k++) {
    path = append(path, (frames[k - 1] as Frame).seg);
    (frames[k] as Frame).path = path;
  }
  return path;
}

/** One pass over a JSON text (valid: it was parsed already) collecting repeated keys. */
function scanDuplicates(text: string): string[] {
  const found: string[] = [];
  let chars = 0;
  const frames: Frame[] = [];
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) {
          escaped = true;
          i++;
        } else if (s === 0x22) break;
      }
      const top = frames[frames.length - 1];
      if (!expectKey || !top?.keys) continue;
      expectKey = false;
      const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      top.seg = key;
      if (!top.keys.has(key)) {
        top.keys.add(key);
      } else if (chars < MAX_DUPLICATE_PATH_CHARS) {
        const path = append(framePath(frames, frames.length - 1), key);
        chars += path.length;
        found.push(path);
      }
    } else if (c === 0x7b) {
      frames.push({ keys: new Set(), seg: '' });
      expectKey = true;
    } else if (c === 0x5b) {
      frames.push({ seg: 0 });
      expectKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      const top = frames[frames.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.seg = (top.seg as number) + 1;
    }
  }
  return found;
}

/** Own properties of every object in a decoded JSON value (iterative: any depth). */
function propertyCount(root: unknown): number {
  let n = 0;
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) if (typeof x === 'object' && x !== null) stack.push(x);
      continue;
    }
    const keys = Object.keys(v);
    n += keys.length;
    for (const k of keys) {
      const x = (v as Record<string, unknown>)[k];
      if (typeof x === 'object' && x !== null) stack.push(x);
    }
  }
  return n;
}

/** go-yaml's error text for repeated keys, as kube's strict YAML decoding reports them. */
export function yamlUnmarshalErrors(duplicates: string[]): string {
  return `yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`;
}
