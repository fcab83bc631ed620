/** Applies a PATCH body to the current object by patch type, with the type's schema for strategic merge. */
import type { KubeObject } from '../api';
import {
  PatchType,
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  patchTypeFromContentType,
} from '../patch';
import type { FieldValidation } from '../patch';
import type { SchemaRegistry } from './schema';

export { patchTypeFromContentType };
export type { PatchType, FieldValidation };

export function applyPatch(
  type: Exclude<PatchType, 'application/apply-patch+yaml'>,
  current: KubeObject,
  patch: unknown,
  opts: { schemas: SchemaRegistry; schemaName: string; fieldValidation: FieldValidation },
): unknown {
  switch (type) {
    case 'application/json-patch+json':
      return applyJsonPatch(current, patch, { fieldValidation: opts.fieldValidation });
    case 'application/merge-patch+json':
      return applyMergePatch(current, patch, { fieldValidation: opts.fieldValidation });
    case 'application/strategic-merge-patch+json':
      return applyStrategicMergePatch(current, patch, opts.schemas.get(opts.schemaName), (ref) => opts.schemas.resolve(ref));
  }
}
