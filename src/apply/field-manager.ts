/**
 * kube's FieldManager for one resource version, as an ordered list of small steps
 * (apimachinery managedfields/internal: fieldmanager.go → versioncheck → lastappliedupdater →
 * lastappliedmanager → skipnonapplied → capmanagers → buildmanagerinfo → managedfieldsupdater →
 * stripmeta → structuredmerge). `update` serves create, update and non-apply patch; `apply`
 * serves server-side apply. Neither mutates its inputs; `update`'s object shares unchanged subtrees
 * with `updated` (callers hand over an object they do not use again), `apply`'s shares nothing.
 */
import { ApiError, KubeObject, ManagedFieldsEntry, errors, failureStatus, isObject, parseApiVersion, cloneJson, copyWithout } from '../api';
import { ApplySchema, ApplySchemaResolver, ApplyTypes, TypeRef } from './apply-type';
import { applyConflictError } from './conflict-error';
import { FieldSet } from './field-set';
import {
  Managed,
  ManagedFieldsError,
  capUpdateManagers,
  cloneManaged,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFieldsSteps,
  isResetRequest,
  managerIdentity,
} from './managed-fields';
import { KUBECTL_APPLY_MANAGER, allowedConflictsFromLastApplied, buildLastApplied, lastAppliedOf, setLastApplied } from './last-applied';
import { pathOf } from './path-element';
import { Conflict, ConflictList, applyOwnershipSteps, updateOwnershipSteps } from './updater';
import { Steps, runSteps, runStepsAsync } from '../api/steps';
import { typeErrorsMessage, validateValue } from './validate-config';
import { sharedZeroValue, zeroValue } from './zero-value';

/** The type and request facts both operations need. */
export interface FieldManagerContext {
  /** The top-level schema of the kind (e.g. io.k8s.api.core.v1.Secret). */
  schema: ApplySchema;
  resolve: ApplySchemaResolver;
  /** A compiled-type cache to reuse across requests (built from `resolve` when absent). */
  types?: ApplyTypes;
  /** The request's group-version string (`v1`, `apps/v1`). */
  apiVersion: string;
  /** `status` etc. when written through a subresource. */
  subresource?: string;
  /** Server time of the write, RFC 3339 in seconds (`2024-05-01T10:20:30Z`). */
  time: string;
  /** The strategy's reset fields for this request (e.g. `status` on the main resource): never owned, never conflicting. */
  resetFields?: FieldSet;
}

export interface UpdateOptions extends FieldManagerContext {
  /** The stored object; null/undefined for a create. */
  live?: KubeObject | null;
  /** The object about to be stored (decoded, defaulted), with whatever managedFields the client sent. */
  updated: KubeObject;
  /** The field manager ('' → `unknown`). */
  manager: string;
}

export interface ApplyOptions extends FieldManagerContext {
  /** The stored object; null/undefined when the apply creates it. */
  live?: KubeObject | null;
  /** The apply configuration (the request body as a JSON object). */
  config: Record<string, unknown>;
  /** The fieldManager query parameter (required for apply; the handler checks presence). */
  manager: string;
  force: boolean;
  /** When set, the configuration's apiVersion and kind must match (kube's versionCheckManager). */
  kind?: string;
}

/** The object to store, with its new metadata.managedFields (absent when no manager remains). */
export interface FieldManagerResult {
  object: KubeObject;
  managedFields?: ManagedFieldsEntry[];
  /** For apply: whether the merge changed the object (apart from managedFields). */
  changed: boolean;
}

const CURRENT_OPERATION = 'current-operation';
const BEFORE_FIRST_APPLY = 'before-first-apply';

// kube's stripMetaManager: fields no manager owns.
const STRIPPED = FieldSet.of(
  pathOf('apiVersion'),
  pathOf('kind'),
  pathOf('metadata'),
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) =>
    pathOf('metadata', f),
  ),
);

const typeOf = (ctx: FieldManagerContext): TypeRef => (ctx.types ?? new ApplyTypes(ctx.resolve)).root(ctx.schema);

// A shallow copy without metadata.managedFields: the rest is shared with obj (never mutated here).
// The metadata copy is built key by key, not spread: the write goes on to add uid,
// creationTimestamp and managedFields to it, and V8 gives an object made by spread, then
// extended, a hidden class of its own (every later access to it would miss its inline cache).
function withoutManagedFields(obj: KubeObject | Record<string, unknown>): KubeObject {
  const copy = { ...obj } as KubeObject;
  if (isObject(copy.metadata)) copy.metadata = copyWithout(copy.metadata, 'managedFields');
  return copy;
}


function* withManagedFields(obj: KubeObject, managed: Managed): Steps<FieldManagerResult['object']> {
  const entries = yield* encodeManagedFieldsSteps(managed);
  if (!isObject(obj.metadata)) obj.metadata = {};
  if (entries) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
  return obj;
}

const hasEntries = (mf: unknown): boolean => Array.isArray(mf) && mf.length > 0;

// kube's decodeLiveOrNew: a subresource write keeps live's entries; `[{}]` resets; otherwise the
// request's entries when readable and non-empty, else live's; unreadable entries count as none.
function decodeLiveOrNew(live: KubeObject | null | undefined, updated: KubeObject, isSubresource: boolean): Managed {
  const decode = (mf: unknown): Managed | undefined => {
    try {
      return decodeManagedFields(mf as ManagedFieldsEntry[] | undefined);
    } catch {
      return undefined;
    }
  };
  const fromLive = (): Managed => decode(live?.metadata?.managedFields) ?? emptyManaged();
  if (isSubresource) return fromLive();
  const requested = updated.metadata?.managedFields;
  if (isResetRequest(requested)) return emptyManaged();
  const managed = hasEntries(requested) ? decode(requested) : undefined;
  return managed && managed.fields.size > 0 ? managed : fromLive();
}

// managedFieldsUpdater + stripMeta + structured update: the write's changes go to `id`.
function* trackUpdate(managed: Managed, live: unknown, next: unknown, id: string, ctx: FieldManagerContext, type: TypeRef): Steps<Managed> {
  const out = cloneManaged(managed);
  out.fields = yield* updateOwnershipSteps(live, next, {
    type,
    apiVersion: ctx.apiVersion,
    managers: managed.fields,
    manager: CURRENT_OPERATION,
    ignore: ctx.resetFields,
  });
  stripMeta(out, CURRENT_OPERATION);
  const vs = out.fields.get(CURRENT_OPERATION);
  if (vs) {
    out.fields.delete(CURRENT_OPERATION);
    const previous = out.fields.get(id);
    out.fields.set(id, { ...vs, set: previous ? vs.set.union(previous.set) : vs.set });
    out.times.set(id, ctx.time);
  }
  return out;
}

function stripMeta(managed: Managed, id: string): void {
  const vs = managed.fields.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.isEmpty()) managed.fields.delete(id);
  else managed.fields.set(id, { ...vs, set });
}

/**
 * Ownership for create, update (PUT) and non-apply patch: the manager (Update entry per manager,
 * apiVersion and subresource) takes the fields this write added or changed; they leave other
 * managers. Never conflicts, never throws for client input. An object that exists but has no
 * managedFields stays untracked (kube tracks from create or first apply).
 */
export function update(opts: UpdateOptions): FieldManagerResult {
  return runSteps(updateSteps(opts));
}

/** update, awaiting `pause` between its stages (a request handler's yieldIfBusy). */
export function updateAsync(opts: UpdateOptions, pause: () => Promise<void> | undefined): FieldManagerResult | Promise<FieldManagerResult> {
  return runStepsAsync(updateSteps(opts), pause);
}

function* updateSteps(opts: UpdateOptions): Steps<FieldManagerResult> {
  const type = typeOf(opts);
  const managed = decodeLiveOrNew(opts.live, opts.updated, !!opts.subresource);
  const next = withoutManagedFields(opts.updated);
  // skipNonAppliedManager: an existing object without managedFields is not tracked by updates.
  if (managed.fields.size === 0 && opts.live?.metadata?.uid) return { object: next, changed: true };
  const id = managerIdentity({ manager: opts.manager || 'unknown', operation: 'Update', apiVersion: opts.apiVersion, subresource: opts.subresource });
  // A create compares with the kind's empty object, made once (the comparison only reads it).
  const live = opts.live ? withoutManagedFields(opts.live) : sharedZeroValue(type);
  const result = capUpdateManagers(yield* trackUpdate(managed, live, next, id, opts, type));
  yield;
  const object = yield* withManagedFields(next, result);
  return { object, managedFields: object.metadata.managedFields, changed: true };
}

// kube's GroupVersionKind.String(): `group/version, Kind=Kind` (`/v1, Kind=Secret` for core).
function gvkString(config: Record<string, unknown>): string {
  const gv = parseApiVersion(typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '');
  return `${gv.group}/${gv.version}, Kind=${typeof config['kind'] === 'string' ? config['kind'] : ''}`;
}

// A plain Go error reaching the handler: 500 with no reason.
const unknownError = (message: string): ApiError => new ApiError(failureStatus(500, '', message));

/**
 * Server-side apply: merges `config` into live (or into an empty object) per the schema and
 * records the manager's Apply entry (one per manager and subresource). Throws ApiError:
 * 400 `invalid object type: …` (kind mismatch), 400 `metadata.managedFields must be nil`,
 * 500 `failed to create typed patch object (…): …` (config does not fit the schema),
 * 500 `failed to decode managed fields: …`, 409 apply conflict unless `force`.
 */
export function apply(opts: ApplyOptions): FieldManagerResult {
  return runSteps(applySteps(opts));
}

/** apply, awaiting `pause` between its stages (a request handler's yieldIfBusy). */
export function applyAsync(opts: ApplyOptions, pause: () => Promise<void> | undefined): FieldManagerResult | Promise<FieldManagerResult> {
  return runStepsAsync(applySteps(opts), pause);
}

function* applySteps(opts: ApplyOptions): Steps<FieldManagerResult> {
  const type = typeOf(opts);
  const { config } = opts;
  if (opts.kind !== undefined && (config['apiVersion'] !== opts.apiVersion || config['kind'] !== opts.kind)) {
    throw errors.badRequest(`invalid object type: ${gvkString(config)}`);
  }
  let managed: Managed;
  try {
    managed = decodeManagedFields(opts.live?.metadata?.managedFields);
  } catch (e) {
    throw unknownError(`failed to decode managed fields: ${e instanceof ManagedFieldsError ? e.message : String(e)}`);
  }
  const live = opts.live ? withoutManagedFields(opts.live) : (zeroValue(type) as KubeObject);
  const id = managerIdentity({ manager: opts.manager || 'unknown', operation: 'Apply', subresource: opts.subresource });

  function* attempt(force: boolean): Steps<{ object: KubeObject; managed: Managed; changed: boolean }> {
    let m = managed;
    // skipNonAppliedManager: the first apply attributes existing fields to before-first-apply.
    if (m.fields.size === 0) {
      const before = managerIdentity({ manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion: opts.apiVersion, subresource: opts.subresource });
      m = capUpdateManagers(yield* trackUpdate(m, zeroValue(type), live, before, opts, type));
    }
    const meta = config['metadata'];
    if (isObject(meta) && meta['managedFields'] !== undefined && meta['managedFields'] !== null) {
      throw errors.badRequest('metadata.managedFields must be nil');
    }
    const errs = validateValue(config, type);
    if (errs.length) {
      const name = isObject(meta) ? `${String(meta['namespace'] ?? '')}/${String(meta['name'] ?? '')}` : '/';
      throw unknownError(`failed to create typed patch object (${name}; ${gvkString(config)}): ${typeErrorsMessage(errs)}`);
    }
    yield;
    const result = yield* applyOwnershipSteps(live, config, force, {
      type,
      apiVersion: opts.apiVersion,
      managers: m.fields,
      manager: id,
      ignore: opts.resetFields,
    });
    const out: Managed = { fields: result.managers, times: new Map(m.times) };
    stripMeta(out, id);
    if (result.changed) out.times.set(id, opts.time);
    // The merge shares nothing with live or config (see mergeValues); live shares with opts.live.
    const object = result.changed ? (result.object as KubeObject) : cloneJson(live);
    return { object, managed: out, changed: result.changed };
  }

  let outcome;
  try {
    outcome = yield* attempt(opts.force);
  } catch (e) {
    if (!(e instanceof ConflictList)) throw e;
    outcome = yield* retryForLastApplied(e.conflicts, opts, live, type, attempt);
  }
  // lastAppliedUpdater: keep a client-side-apply annotation in step with what `kubectl` applied.
  if (opts.manager === KUBECTL_APPLY_MANAGER && lastAppliedOf(outcome.object)) {
    setLastApplied(outcome.object, buildLastApplied(config));
  }
  yield;
  const object = yield* withManagedFields(outcome.object, outcome.managed);
  return { object, managedFields: object.metadata.managedFields, changed: outcome.changed };
}

// lastAppliedManager: `kubectl` may take over fields its client-side apply set, without conflict.
function* retryForLastApplied<T>(
  conflicts: readonly Conflict[],
  opts: ApplyOptions,
  live: KubeObject,
  type: TypeRef,
  attempt: (force: boolean) => Steps<T>,
): Steps<T> {
  if (opts.manager !== KUBECTL_APPLY_MANAGER) throw applyConflictError(conflicts);
  const allowed = allowedConflictsFromLastApplied(opts.live ?? live, type, opts.apiVersion);
  if (!allowed) throw applyConflictError(conflicts);
  const remaining = conflicts.filter((c) => !allowed.has(c.path));
  if (remaining.length) throw applyConflictError(remaining);
  return yield* attempt(true);
}
