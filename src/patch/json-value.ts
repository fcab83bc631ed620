/**
 * Small helpers over decoded JSON values shared by the patch modules: cloning, own-property
 * access that is safe for keys like `__proto__`, and Go-flavoured type names and `%v` renderings
 * that kube's patch error messages embed.
 */
import { cloneJson, setKey } from '../api/json-clone';
import { goSprintWith } from '../api/go-format';

/** A decoded JSON object. */
export type JsonObject = { [key: string]: unknown };

/** True for a plain decoded JSON object (not null, not an array). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `key` is an own property of `obj`. */
export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own property `key` of `obj`, or undefined (never an inherited member). */
export function getOwn(obj: JsonObject, key: string): unknown {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets an own, enumerable property; `__proto__` becomes a plain key rather than the prototype (api/json-clone). */
export { setKey };

/** A deep copy of a decoded JSON value; `undefined` stays `undefined`. */
export const deepClone = cloneJson;

/** The name Go's encoding/json uses for a JSON value's kind in an UnmarshalTypeError. */
export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/**
 * The Go type of a value as kube's unstructured decoding produces it (integers are int64, other
 * numbers float64), spelled as reflect prints it; `<nil>` for null.
 */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'bigint') return 'int64';
  return 'map[string]interface {}';
}

/** Go's `%v` of a float64 (strconv 'g', shortest). */
function goFloat(f: number): string {
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : f < 0 ? '-Inf' : 'NaN';
  const [mant = '0', expStr = '0'] = f.toExponential().split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mant}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(f);
}

/** Go's `%v` of a scalar. */
function goSprintScalar(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  return String(v);
}

/** Go's `%v` of an unstructured value: `map[k:v ...]` with sorted keys, `[a b]`, `<nil>`. */
export function goSprint(v: unknown): string {
  return goSprintWith(v, goSprintScalar);
}

/** Go's `%s` of an unstructured value: strings bare, anything else as `%!s(type=value)`. */
export function goSprintS(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goSprint(v)})`;
}
