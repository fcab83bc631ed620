/** PATCH by Content-Type: JSON patch, merge patch, strategic merge patch, and server-side apply. */
import * as yaml from 'js-yaml';
import { KubeObject, errors, fieldErrors, isObject } from '../../api';
import { applyPatch, patchTypeFromContentType } from '../../registry';
import { readBody } from '../body';
import { negotiate, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { yamlUnmarshalErrors, yamlWithDuplicates } from '../duplicate-fields';
import { serverSideApply, trackUpdate, validateManagerParam } from './field-manager';
import { admitObject, parseDryRun, parseFieldValidation } from './write-options';

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

export async function patchHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  s.ctx.dryRun = parseDryRun(s, 'PatchOptions');
  // kube has no CBOR form of the non-apply patch kinds; apply-patch+cbor is not served yet either.
  const type = patchTypeFromContentType(String(s.req.headers['content-type'] ?? ''));
  if (!type) throw errors.unsupportedMediaType(supportedPatchTypes);
  validateManagerParam(s, 'PatchOptions');
  const validation = parseFieldValidation(s);
  const raw = (await readBody(s.req)).toString('utf8');
  const subresource = s.info.subresource || undefined;

  if (type === 'application/apply-patch+yaml') {
    let config: unknown;
    let duplicates: string[];
    try {
      // A repeated key is no decode error (the last wins); strict decoding reports it below.
      ({ value: config, duplicates } = yamlWithDuplicates(raw, (text, json) => yaml.load(text, { schema: yaml.JSON_SCHEMA, json })));
    } catch (e) {
      throw errors.badRequest(`error decoding YAML: ${(e as Error).message.split('\n')[0]}`);
    }
    if (!isObject(config)) throw errors.badRequest('error decoding YAML: the apply configuration must be an object');
    // An apply creates the object when it does not exist (never through a subresource).
    const r = await s.store.update(
      s.ctx,
      s.info.name,
      (current) => {
        const applied = serverSideApply(s, current, config as Record<string, unknown>);
        // kube's applyPatcher: after the apply, Strict rejects and Warn reports what strict YAML decoding finds.
        if (duplicates.length && validation === 'Strict') {
          throw errors.badRequest(`error strict decoding YAML: error converting YAML to JSON: ${yamlUnmarshalErrors(duplicates)}`);
        }
        if (validation === 'Warn') s.ctx.warnings.push(...duplicates);
        const obj = admitObject(s, applied, validation);
        checkName(s, obj);
        return obj;
      },
      { subresource, create: 'always' },
    );
    writeObject(s, r.created ? 201 : 200, r.object, target);
    return;
  }

  if (s.query.force !== undefined) {
    throw errors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      fieldErrors.forbidden('force', 'may not be specified for non-apply patch'),
    ]);
  }
  let patch: unknown;
  try {
    patch = JSON.parse(raw);
  } catch (e) {
    throw errors.badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  const r = await s.store.update(
    s.ctx,
    s.info.name,
    (current) => {
      if (!current) throw errors.notFound(s.store.gr, s.info.name);
      const patched = applyPatch(type, current, patch, { schemas: s.schemas, schemaName: s.store.def.schemaName, fieldValidation: validation });
      const obj = admitObject(s, patched, validation);
      checkName(s, obj);
      return trackUpdate(s, current, obj);
    },
    { subresource, create: 'never' },
  );
  writeObject(s, 200, r.object, target);
}
