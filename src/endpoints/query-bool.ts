/**
 * A boolean query parameter as kube decodes one (apimachinery runtime Convert_Slice_string_To_bool
 * and _To_Pointer_bool): absent is unset; the first value "0" or "false" in any case is false; any
 * other value, the empty one and "True" (the Python client's spelling) included, is true.
 */
export function queryBool(v: unknown): boolean | undefined {
  const first: unknown = Array.isArray(v) ? v[0] : v;
  if (first === undefined) return undefined;
  const s = String(first);
  return !(s === '0' || s.toLowerCase() === 'false');
}
