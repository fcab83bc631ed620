/**
 * Client-side-apply interplay for the `kubectl` apply manager (apimachinery managedfields/internal
 * lastappliedmanager.go, lastappliedupdater.go, lastapplied.go).
 */
import { isObject, cloneJson } from '../api';
import { TypeRef } from './apply-type';
import { compareObjects } from './compare-objects';
import { FieldSet } from './field-set';
import { fieldSetOfValue } from './field-set-of';
import { JsonValue, goJson, isJsonObject } from './json-value';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** kubectl apply --server-side's default manager, the only one this interplay concerns. */
export const KUBECTL_APPLY_MANAGER = 'kubectl';
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const annotationsOf = (obj: unknown): Record<string, unknown> | undefined => {
  const meta = isObject(obj) ? obj['metadata'] : undefined;
  const a = isObject(meta) ? meta['annotations'] : undefined;
  return isObject(a) ? a : undefined;
};

/** The last-applied annotation's value when present and non-empty. */
export function lastAppliedOf(obj: unknown): string | undefined {
  const v = annotationsOf(obj)?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Fields a client-side apply last set and that still hold that value in live: the `kubectl`
 * server-side applier may take them over without a conflict. Undefined when there is no usable
 * annotation (absent, not JSON, or of another apiVersion).
 */
export function allowedConflictsFromLastApplied(live: unknown, type: TypeRef, apiVersion: string): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(last) || last['apiVersion'] !== apiVersion) return undefined;
  const c = compareObjects(last, live, type);
  return fieldSetOfValue(last, type).difference(c.modified).difference(c.added).difference(c.removed);
}

/** The annotation value kube writes for an apply configuration: sorted compact JSON plus a newline. */
export function buildLastApplied(config: Record<string, unknown>): string {
  const copy = cloneJson(config) as Record<string, JsonValue>;
  const meta = copy['metadata'];
  if (isJsonObject(meta) && isJsonObject(meta['annotations'])) delete meta['annotations'][LAST_APPLIED_ANNOTATION];
  return goJson(copy) + '\n';
}

/** Sets the annotation on obj (mutates), dropping it instead when annotations would exceed 256 KiB. */
export function setLastApplied(obj: Record<string, unknown>, value: string): void {
  const meta = (isObject(obj['metadata']) ? obj['metadata'] : (obj['metadata'] = {})) as Record<string, unknown>;
  const annotations = { ...(isObject(meta['annotations']) ? meta['annotations'] : {}) } as Record<string, string>;
  annotations[LAST_APPLIED_ANNOTATION] = value;
  const size = Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)), 0);
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
  meta['annotations'] = annotations;
}
