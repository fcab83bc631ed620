/**
 * patch/: pure functions applying the three non-apply PATCH kinds to a decoded object.
 * The PATCH handler decodes the current object to JSON, picks the function by Content-Type
 * (patchTypeFromContentType), and validates/stores the returned object.
 */
export { applyJsonPatch, jsonPatchStrictErrors, MAX_JSON_PATCH_OPERATIONS, JSON_PATCH_MAX_COPY_BYTES } from './json-patch';
export type { FieldValidation, JsonPatchOptions } from './json-patch';
export { applyMergePatch, applyMergePatchSteps } from './merge-patch';
export type { MergePatchOptions } from './merge-patch';
export { applyStrategicMergePatch, applyStrategicMergePatchSteps } from './strategic-merge-patch';
export { resolveSchema, componentsResolver } from './schema';
export type { Schema, SchemaResolver } from './schema';

/** The PATCH kinds kube serves, as their Content-Type media types (k8s.io/apimachinery pkg/types). */
export type PatchType =
  | 'application/json-patch+json'
  | 'application/merge-patch+json'
  | 'application/strategic-merge-patch+json'
  | 'application/apply-patch+yaml';

const PATCH_TYPES: readonly PatchType[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * The PatchType named by a Content-Type header, or undefined. Parameters after `;` (e.g.
 * `; charset=utf-8`) are ignored, as kube's PATCH handler strips them; matching is exact otherwise.
 */
export function patchTypeFromContentType(ct: string): PatchType | undefined {
  const media = patchMediaType(ct);
  return PATCH_TYPES.find((t) => t === media);
}

/** A PATCH Content-Type without its parameters, as kube's handler cuts it. */
export function patchMediaType(ct: string): string {
  // patch.go: `if idx := strings.Index(contentType, ";"); idx > 0 { contentType = contentType[:idx] }`
  const idx = ct.indexOf(';');
  return idx > 0 ? ct.slice(0, idx) : ct;
}
