/**
 * The field-manager step of every write (kube's FieldManager in the handlers): records who owns
 * which fields in metadata.managedFields, and performs server-side apply.
 */
import { queryBool } from '../query-bool';
import { KubeObject, errors, fieldErrors, timestamp, yieldIfBusy } from '../../api';
import { ApplySchema, FieldSet, applyAsync, pathOf, updateAsync, validateFieldManager } from '../../apply';
import type { HandlerScope } from '../scope';

/** kube's FieldManagerMaxLength. */
const maxManagerLength = 128;

/**
 * kube's managerOrUserAgent: the fieldManager parameter, else the User-Agent's text before the first
 * "/" with unprintable characters dropped, cut to 128 bytes.
 */
export function managerFor(s: HandlerScope): string {
  const given = s.query.fieldManager;
  if (given) return given;
  let out = '';
  for (const ch of String(s.req.headers['user-agent'] ?? '').split('/')[0] ?? '') {
    if (/\p{C}/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > maxManagerLength) break;
    out += ch;
  }
  return out;
}

/** The fieldManager parameter's own validation (422 on <Op>Options, as kube's Validate*Options). */
export function validateManagerParam(s: HandlerScope, optionsKind: string): void {
  const m = s.query.fieldManager;
  if (m === undefined) return;
  const errs = validateFieldManager(m, 'fieldManager');
  if (errs.length) throw errors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
}

/** Reset fields by their declaration's path list: built once, not per write (the field manager only reads them). */
const resetFieldSets = new WeakMap<object, FieldSet>();

function resetFieldsOf(s: HandlerScope): FieldSet | undefined {
  const def = s.store.def;
  const paths = s.info.subresource ? def.subresources.find((x) => x.name === s.info.subresource)?.resetFields : def.resetFields;
  if (!paths?.length) return undefined;
  let set = resetFieldSets.get(paths);
  if (!set) {
    set = FieldSet.of(...paths.map((p) => pathOf(...p)));
    resetFieldSets.set(paths, set);
  }
  return set;
}

/**
 * The field manager's options: the request's facts plus the operation's own (`extra`), as one
 * object literal (an object spread, then extended, would get a hidden class of its own per request).
 */
function context<T extends object>(s: HandlerScope, extra: T) {
  const schema = s.schemas.get(s.store.def.schemaName) as ApplySchema | undefined;
  if (!schema) throw errors.internal(new Error(`no schema for ${s.store.def.kind}`));
  return Object.assign(
    {
      schema,
      resolve: (ref: string) => s.schemas.resolve(ref) as ApplySchema | undefined,
      types: s.applyTypes,
      apiVersion: s.store.apiVersion,
      subresource: s.info.subresource || undefined,
      time: timestamp(s.ctx.now()),
      resetFields: resetFieldsOf(s),
    },
    extra,
  );
}

/** A create, update or non-apply patch: the manager takes the fields it changed; never a conflict. */
export function trackUpdate(s: HandlerScope, live: KubeObject | null, updated: KubeObject): KubeObject | Promise<KubeObject> {
  // Synchronous unless the field manager had to pause (a large object): a small write pays no promise.
  const r = updateAsync(context(s, { live, updated, manager: managerFor(s) }), yieldIfBusy);
  return r instanceof Promise ? r.then((x) => x.object) : r.object;
}

/** Server-side apply of a configuration to the live object (null: the apply creates it). */
export async function serverSideApply(s: HandlerScope, live: KubeObject | null, config: Record<string, unknown>): Promise<KubeObject> {
  const manager = s.query.fieldManager ?? '';
  if (!manager) {
    throw errors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [fieldErrors.required('fieldManager', 'is required for apply patch')]);
  }
  const force = queryBool(s.query.force) ?? false;
  return (await applyAsync(context(s, { live, config, manager, force, kind: s.store.def.kind }), yieldIfBusy)).object;
}
