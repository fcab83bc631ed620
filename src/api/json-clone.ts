/**
 * Deep copy, equality and serialisation of decoded JSON values that hold at any nesting depth.
 * Client values may nest 10000 levels (Go's decoder limit, see json-depth.ts) or more (a protobuf
 * body's raw FieldsV1); Node's stack holds only ~5000 simple recursive frames and V8's
 * JSON.stringify gives up at ~4000 levels. Each function recurses for shallow values (the hot
 * path) and switches to an explicit stack below RECURSION_LIMIT levels.
 */

/** Levels handled by plain recursion before the iterative fallback takes over. */
const RECURSION_LIMIT = 256;

/** `out[k] = value` as an own property, `__proto__` included (assignment would set the prototype). */
export function setKey(out: Record<string, unknown>, k: string, value: unknown): void {
  if (k === '__proto__') Object.defineProperty(out, k, { value, writable: true, enumerable: true, configurable: true });
  else out[k] = value;
}

/**
 * A deep copy of a decoded JSON value (objects, arrays, primitives; `undefined` stays `undefined`).
 * Several times faster than structuredClone, which serialises through V8's value serializer; every
 * write copies the object it works on more than once, so this is on the hot path. A `__proto__`
 * key is copied as a plain own key, never as the prototype. Any depth.
 */
export function cloneJson<T>(v: T): T {
  return cloneAt(v, 0) as T;
}

function cloneAt(v: unknown, depth: number): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (depth >= RECURSION_LIMIT) return cloneIterative(v);
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneAt(v[i], depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setKey(out, k, cloneAt((v as Record<string, unknown>)[k], depth + 1));
  return out;
}

/** The same copy with an explicit stack: every container is created, then filled from the stack. */
function cloneIterative(root: object): unknown {
  const shell = (v: object): object => (Array.isArray(v) ? new Array<unknown>(v.length) : {});
  const top = shell(root);
  const stack: Array<[object, object]> = [[root, top]];
  while (stack.length) {
    const [src, dst] = stack.pop() as [object, object];
    if (Array.isArray(src)) {
      const d = dst as unknown[];
      for (let i = 0; i < src.length; i++) {
        const x: unknown = src[i];
        if (typeof x === 'object' && x !== null) {
          const c = shell(x);
          d[i] = c;
          stack.push([x, c]);
        } else d[i] = x;
      }
    } else {
      const s = src as Record<string, unknown>;
      const d = dst as Record<string, unknown>;
      for (const k of Object.keys(s)) {
        const x = s[k];
        if (typeof x === 'object' && x !== null) {
          const c = shell(x);
          setKey(d, k, c);
          stack.push([x, c]);
        } else setKey(d, k, x);
      }
    }
  }
  return top;
}

/**
 * JSON.stringify (no indent) for a decoded JSON value of any depth: V8's own serializer, and past
 * the depth it can take (RangeError) an iterative one producing the same text.
 */
export function stringifyJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return stringifyIterative(v);
  }
}

/** JSON.stringify's text for plain JSON values, with an explicit stack (no toJSON, no replacer). */
function stringifyIterative(root: unknown): string {
  const parts: string[] = [];
  // A stack of work items: a value to write, or a literal piece of text.
  type Item = { text: string } | { value: unknown; inArray: boolean };
  const stack: Item[] = [{ value: root, inArray: true }];
  while (stack.length) {
    const item = stack.pop() as Item;
    if ('text' in item) {
      parts.push(item.text);
      continue;
    }
    const v = item.value;
    if (typeof v !== 'object' || v === null) {
      const s = JSON.stringify(v) as string | undefined;
      parts.push(s === undefined ? 'null' : s);
      continue;
    }
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      parts.push(JSON.stringify(v));
      continue;
    }
    if (Array.isArray(v)) {
      parts.push('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i], inArray: true });
        if (i > 0) stack.push({ text: ',' });
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined && typeof o[k] !== 'function' && typeof o[k] !== 'symbol');
    parts.push('{');
    stack.push({ text: '}' });
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i] as string;
      stack.push({ value: o[k], inArray: false });
      stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` });
    }
  }
  return parts.join('');
}

/**
 * Deep equality of decoded JSON values (same keys, same values, arrays in order; key order is
 * ignored). Any depth.
 */
export function equalJson(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const kx = Object.keys(xo);
    if (kx.length !== Object.keys(yo).length) return false;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(yo, k)) return false;
      stack.push([xo[k], yo[k]]);
    }
  }
  return true;
}

/** Nesting depth of a decoded JSON value (a scalar is 0, `[]` is 1). Iterative. */
export function jsonValueDepth(v: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop() as [unknown, number];
    if (typeof x !== 'object' || x === null) continue;
    if (d + 1 > max) max = d + 1;
    for (const c of Array.isArray(x) ? x : Object.values(x as Record<string, unknown>)) {
      if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
    }
  }
  return max;
}
