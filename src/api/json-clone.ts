/**
 * A deep copy of a decoded JSON value (objects, arrays, primitives; `undefined` stays `undefined`).
 * Several times faster than structuredClone, which serialises through V8's value serializer; every
 * write copies the object it works on more than once, so this is on the hot path. A `__proto__`
 * key is copied as a plain own key, never as the prototype.
 */
export function cloneJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x: unknown) => cloneJson(x)) as T;
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const value = cloneJson((v as Record<string, unknown>)[k]);
      if (k === '__proto__') Object.defineProperty(out, k, { value, writable: true, enumerable: true, configurable: true });
      else out[k] = value;
    }
    return out as T;
  }
  return v;
}
