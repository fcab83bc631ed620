/** PATCH by Content-Type: JSON patch, merge patch, strategic merge patch, and server-side apply. */
import { JsonDepthError, KubeObject, errors, fieldErrors, isObject, parseJsonBounded, loopHeld, nextTurn, yieldIfBusy } from '../../api';
import { runStepsAsync } from '../../api/steps';
import { applyPatchSteps, patchMediaType, patchTypeFromContentType } from '../../registry';
import { readBody } from '../body';
import { checkResponseOptions, negotiate, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { yamlUnmarshalErrors } from '../duplicate-fields';
import { appendWarnings } from '../warnings';
import { bodyWorkerThreshold, decodeLargeJson, decodeYamlAsync, withCloseSignal } from '../body-worker';
import { YamlError } from '../yaml-decode';
import { serverSideApply, trackUpdate, validateManagerParam } from './field-manager';
import { admitObject, markIfHeavy, parseDryRun, parseFieldValidation, queryWriteOptions } from './write-options';

const applyCborPatchType = 'application/apply-patch+cbor';

/** The CBOR major type of a decoded value as fxamacker/cbor names it in an UnmarshalTypeError. */
function cborKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'UTF-8 text string';
  if (typeof v === 'number' && Number.isInteger(v)) return v < 0 ? 'negative integer' : 'positive integer';
  return 'primitives';
}

const supportedPatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

function checkName(s: HandlerScope, obj: KubeObject): void {
  if ((obj.metadata.name ?? '') !== s.info.name) {
    throw errors.badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${s.info.name})`);
  }
}

/**
 * A patch body nested past Go's 10000 levels, as kube words it (handlers/patch.go): JSON and merge
 * patch bodies are strictly decoded first under Warn/Strict (`error decoding patch: <err>`);
 * under Ignore a JSON patch fails in jsonpatch.DecodePatch (the bare error) and a merge patch in
 * evanphx MergePatch (ErrBadJSONPatch); a strategic merge patch body fails its map decode (bare).
 */
function patchDepthError(type: string, validation: string, message: string) {
  if (type === 'application/strategic-merge-patch+json') return errors.badRequest(message);
  if (validation !== 'Ignore') return errors.badRequest(`error decoding patch: ${message}`);
  return errors.badRequest(type === 'application/merge-patch+json' ? 'Invalid JSON Patch' : message);
}

export async function patchHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  s.ctx.dryRun = parseDryRun(s, 'PatchOptions');
  // kube has no CBOR form of the non-apply patch kinds; apply-patch+cbor is served while the CBOR gate is on.
  const contentType = String(s.req.headers['content-type'] ?? '');
  const applyCbor = !!s.cbor && patchMediaType(contentType) === applyCborPatchType;
  const type = applyCbor ? 'application/apply-patch+yaml' : patchTypeFromContentType(contentType);
  if (!type) throw errors.unsupportedMediaType(s.cbor ? [...supportedPatchTypes, applyCborPatchType] : supportedPatchTypes);
  validateManagerParam(s, 'PatchOptions');
  // kube hands admission the patch's options as UpdateOptions (or CreateOptions): force is not among them.
  s.ctx.writeOptions = queryWriteOptions(s);
  const validation = parseFieldValidation(s);
  const bodyBytes = await readBody(s.req);
  markIfHeavy(s, bodyBytes.length);
  const raw = bodyBytes.toString('utf8');
  // The body's work starts this turn's clock (api/turns.ts), so the decode and patch below are counted.
  if (loopHeld()) await nextTurn();

  if (applyCbor) {
    let config: unknown;
    // kube's one applyPatcher words every decode failure of an apply `error decoding YAML: …`, CBOR too.
    try {
      // kube's CBOR decoder refuses repeated keys itself: there is nothing for strict decoding to add.
      config = (s.cbor as NonNullable<typeof s.cbor>).decode(bodyBytes);
    } catch (e) {
      throw errors.badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
    if (config === null || config === undefined) throw errors.badRequest('error decoding YAML: the apply configuration must be an object');
    if (!isObject(config)) throw errors.badRequest(`error decoding YAML: cbor: cannot unmarshal ${cborKind(config)} into Go value of type map[string]interface {}`);
    await applyConfiguration(s, target, config, [], validation);
    return;
  }

  if (type === 'application/apply-patch+yaml') {
    let config: unknown;
    let duplicates: string[];
    try {
      // A repeated key is no decode error (the last wins); strict decoding reports it below.
      // A client that goes away takes its body out of the decoder's queue.
      // A large one is decoded off the loop, what the apply would not read of an undeclared field cut.
      const prune = { registry: s.schemas, schemaName: s.store.def.schemaName, mode: 'apply' } as const;
      ({ value: config, duplicates } = await withCloseSignal(s.res, (signal) => decodeYamlAsync(raw, signal, prune)));
    } catch (e) {
      // kube's applyPatcher: sigs.k8s.io/yaml Unmarshal's error, wrapped.
      if (e instanceof YamlError) throw errors.badRequest(`error decoding YAML: error converting YAML to JSON: ${e.message}`);
      throw e;
    }
    if (!isObject(config)) throw errors.badRequest('error decoding YAML: the apply configuration must be an object');
    await applyConfiguration(s, target, config, duplicates, validation);
    return;
  }

  if (s.query.force !== undefined) {
    throw errors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      fieldErrors.forbidden('force', 'may not be specified for non-apply patch'),
    ]);
  }
  // A large patch is parsed off the loop, the values it gives unknown fields cut (body-worker.ts).
  const mode = type === 'application/merge-patch+json' ? 'merge-patch' : type === 'application/strategic-merge-patch+json' ? 'strategic-patch' : 'json-patch';
  const large =
    raw.length >= bodyWorkerThreshold
      ? await withCloseSignal(s.res, (signal) =>
          decodeLargeJson(raw, { duplicates: false, prune: { registry: s.schemas, schemaName: s.store.def.schemaName, mode } }, signal),
        )
      : undefined;
  let patch: unknown = large?.value;
  if (!large) {
    try {
      patch = parseJsonBounded(raw);
    } catch (e) {
      if (e instanceof JsonDepthError) throw patchDepthError(type, validation, e.message);
      throw errors.badRequest(`error decoding patch: ${(e as Error).message}`);
    }
  }
  await writePatched(
    s,
    target,
    validation,
    'never',
    // (never null here: a patch does not create)
    async (current) => runStepsAsync(applyPatchSteps(type, current as KubeObject, patch, { schemas: s.schemas, schemaName: s.store.def.schemaName, fieldValidation: validation }), yieldIfBusy),
    (current, obj) => trackUpdate(s, current, obj),
  );
}

/**
 * The write of every PATCH: `produce` makes the new object from the stored one (absent only when
 * `create` is 'always': an apply creates), which is admitted (decoded into the kind per
 * fieldValidation), checked against the URL's name, given to `track` (the field manager) and
 * stored; the answer is 201 for a creation, else 200. Checkpoints between the stages
 * (api/turns.ts).
 */
async function writePatched(
  s: HandlerScope,
  target: ReturnType<typeof negotiate>,
  validation: ReturnType<typeof parseFieldValidation>,
  create: 'always' | 'never',
  produce: (current: KubeObject | null) => Promise<unknown>,
  track: (current: KubeObject | null, obj: KubeObject) => KubeObject | Promise<KubeObject>,
): Promise<void> {
  checkResponseOptions(s, target);
  if (loopHeld()) await nextTurn();
  const r = await s.store.update(
    s.ctx,
    s.info.name,
    async (current) => {
      if (!current && create === 'never') throw errors.notFound(s.store.gr, s.info.name);
      // The object was just read: this turn's clock starts here.
      if (loopHeld()) await nextTurn();
      const produced = await produce(current);
      if (loopHeld()) await nextTurn();
      const obj = admitObject(s, produced, validation);
      checkName(s, obj);
      if (loopHeld()) await nextTurn();
      return track(current, obj);
    },
    { subresource: s.info.subresource || undefined, create },
  );
  if (loopHeld()) await nextTurn();
  writeObject(s, r.created ? 201 : 200, r.object, target);
}

/**
 * A server-side apply of a decoded configuration (YAML, JSON or CBOR). `duplicates`: the repeated
 * keys strict YAML decoding reports (kube's applyPatcher: Strict rejects them after the apply, Warn
 * warns).
 */
async function applyConfiguration(
  s: HandlerScope,
  target: ReturnType<typeof negotiate>,
  config: Record<string, unknown>,
  duplicates: string[],
  validation: ReturnType<typeof parseFieldValidation>,
): Promise<void> {
  // An apply creates the object when it does not exist (never through a subresource).
  await writePatched(
    s,
    target,
    validation,
    'always',
    async (current) => {
      const applied = await serverSideApply(s, current, config);
      // kube's applyPatcher: after the apply, Strict rejects and Warn reports what strict YAML decoding finds.
      if (duplicates.length && validation === 'Strict') {
        throw errors.badRequest(`error strict decoding YAML: error converting YAML to JSON: ${yamlUnmarshalErrors(duplicates)}`);
      }
      if (validation === 'Warn') appendWarnings(s.ctx.warnings, duplicates.length, (i) => duplicates[i] as string);
      return applied;
    },
    (_current, obj) => obj,
  );
}
