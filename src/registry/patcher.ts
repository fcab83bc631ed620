/** Applies a PATCH body to the current object by patch type, with the type's schema for strategic merge. */
import type { KubeObject } from '../api';
import { Steps, runSteps } from '../api/steps';
import { PatchType, applyJsonPatch, applyMergePatchSteps, applyStrategicMergePatchSteps, patchMediaType, patchTypeFromContentType } from '../patch';
import type { FieldValidation } from '../patch';
import type { SchemaRegistry } from './schema';

export { patchMediaType, patchTypeFromContentType };
export type { PatchType, FieldValidation };

type PatchOptions = { schemas: SchemaRegistry; schemaName: string; fieldValidation: FieldValidation };

export function applyPatch(type: Exclude<PatchType, 'application/apply-patch+yaml'>, current: KubeObject, patch: unknown, opts: PatchOptions): unknown {
  return runSteps(applyPatchSteps(type, current, patch, opts));
}

/** applyPatch in stages (api/steps.ts): merge and strategic patches of a huge object are applied in parts. */
export function* applyPatchSteps(
  type: Exclude<PatchType, 'application/apply-patch+yaml'>,
  current: KubeObject,
  patch: unknown,
  opts: PatchOptions,
): Steps<unknown> {
  switch (type) {
    case 'application/json-patch+json':
      return applyJsonPatch(current, patch, { fieldValidation: opts.fieldValidation });
    case 'application/merge-patch+json':
      return yield* applyMergePatchSteps(current, patch, { fieldValidation: opts.fieldValidation });
    case 'application/strategic-merge-patch+json':
      return yield* applyStrategicMergePatchSteps(current, patch, opts.schemas.get(opts.schemaName), (ref) => opts.schemas.resolve(ref));
  }
}
