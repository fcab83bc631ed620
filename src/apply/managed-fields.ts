/**
 * metadata.managedFields ⇄ field ownership (apimachinery managedfields/internal/managedfields.go,
 * capmanagers.go, fieldmanager.go isResetManagedFields; metav1 validation ValidateManagedFields).
 */
import { FieldError, FieldPath as ErrorPath, ManagedFieldsEntry, fieldErrors, stringifyJson } from '../api';
import { FieldSet } from './field-set';
import { FieldsV1Error, fieldSetToFieldsV1Steps, fieldsV1ToFieldSet } from './fields-v1';
import { Steps, runSteps } from '../api/steps';
import { goJsonString } from './json-value';
import { ManagerSets, VersionedSet } from './updater';

/** Ownership plus each manager's last-change time (RFC 3339), both keyed by manager identity. */
export interface Managed {
  fields: ManagerSets;
  times: Map<string, string | undefined>;
}

/** An empty Managed. */
export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** A copy whose maps can be changed without touching the original (sets are immutable). */
export function cloneManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

/** The identity part of an entry. */
export interface ManagerInfo {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  subresource?: string;
}

/**
 * kube's BuildManagerIdentifier: the entry's JSON without time and fields, and without apiVersion
 * for Apply (one Apply entry per manager and subresource, whatever the version).
 */
export function managerIdentity(info: ManagerInfo): string {
  const last = lastBuilt;
  if (last && last.manager === info.manager && last.operation === info.operation && last.apiVersion === info.apiVersion && last.subresource === info.subresource) {
    return last.id;
  }
  const id = buildManagerIdentity(info);
  lastBuilt = { manager: info.manager, operation: info.operation, apiVersion: info.apiVersion, subresource: info.subresource, id };
  return id;
}

/**
 * The last identity managerIdentity built, and from what: an update decodes the live entries and
 * names its own manager, usually the same identity, so most writes build none.
 */
let lastBuilt: (ManagerInfo & { id: string }) | undefined;

function buildManagerIdentity(info: ManagerInfo): string {
  const parts = [`"manager":${goJsonString(info.manager)}`, `"operation":${goJsonString(info.operation)}`];
  if (info.operation !== 'Apply' && info.apiVersion) parts.push(`"apiVersion":${goJsonString(info.apiVersion)}`);
  if (info.subresource) parts.push(`"subresource":${goJsonString(info.subresource)}`);
  return `{${parts.join(',')}}`;
}

/** The last identity parseManagerIdentity read, and what it read (every write encodes its manager's). */
let lastIdentity: string | undefined;
let lastInfo: Readonly<ManagerInfo> | undefined;

/** Parses an identity built by managerIdentity (callers only read the answer). */
export function parseManagerIdentity(id: string): Readonly<ManagerInfo> {
  if (id === lastIdentity && lastInfo) return lastInfo;
  const v = JSON.parse(id) as ManagerInfo;
  const info = { manager: v.manager ?? '', operation: v.operation, apiVersion: v.apiVersion, subresource: v.subresource };
  lastIdentity = id;
  lastInfo = info;
  return info;
}

/** Thrown by decodeManagedFields with kube's message. */
export class ManagedFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManagedFieldsError';
  }
}

/**
 * Decodes metadata.managedFields (kube's DecodeManagedFields). Entries with the same identity:
 * the last wins. Throws ManagedFieldsError for a bad operation, empty apiVersion, missing or
 * unknown fieldsType, or unreadable fieldsV1.
 */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined | null): Managed {
  const managed = emptyManaged();
  (entries ?? []).forEach((e, i) => {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (!e.fieldsType) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${goJsonString(e.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentity({ manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource });
    let set: FieldSet;
    try {
      set = fieldsV1ToFieldSet(e.fieldsV1 ?? {});
    } catch (err) {
      const reason = err instanceof FieldsV1Error ? err.message : String(err);
      throw new ManagedFieldsError(`error decoding versioned set from ${entryText(e)}: error decoding set: ${reason}`);
    }
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, e.time);
  });
  return managed;
}

// Go's %v of a ManagedFieldsEntry (approximate for fieldsV1).
function entryText(e: ManagedFieldsEntry): string {
  const t = e.time ? e.time : '<nil>';
  return `{${e.manager ?? ''} ${e.operation ?? ''} ${e.apiVersion ?? ''} ${t} ${e.fieldsType ?? ''} ${e.fieldsV1 ? stringifyJson(e.fieldsV1) : '<nil>'} ${e.subresource ?? ''}}`;
}

const seconds = (t: string | undefined): number => {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/**
 * Encodes ownership as metadata.managedFields (kube's encodeManagedFields): undefined when no
 * manager remains; entries in kube's order (Apply before Update, then time in seconds, manager,
 * apiVersion, subresource); keys in the wire order.
 */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  return runSteps(encodeManagedFieldsSteps(managed));
}

/** encodeManagedFields in stages (steps.ts): a large set is written in parts. */
export function* encodeManagedFieldsSteps(managed: Managed): Steps<ManagedFieldsEntry[] | undefined> {
  if (managed.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const info = parseManagerIdentity(id);
    const e: ManagedFieldsEntry = {};
    if (info.manager) e.manager = info.manager;
    e.operation = vs.applied ? 'Apply' : info.operation;
    if (vs.apiVersion) e.apiVersion = vs.apiVersion;
    const time = managed.times.get(id);
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = yield* fieldSetToFieldsV1Steps(vs.set);
    if (info.subresource) e.subresource = info.subresource;
    out.push(e);
  }
  return out.sort(compareEntries);
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** kube's sortEncodedManagedFields order. */
export function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    cmp(p.operation ?? '', q.operation ?? '') ||
    seconds(p.time) - seconds(q.time) ||
    cmp(p.manager ?? '', q.manager ?? '') ||
    cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
    cmp(p.subresource ?? '', q.subresource ?? '')
  );
}

/** kube's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
/** The manager that absorbs the oldest Update entries beyond the cap. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * kube's capManagersManager: with more than `max` Update entries, the oldest (by time in seconds,
 * then identity) are merged, per apiVersion, into an `ancient-changes` entry. Returns a new Managed,
 * or `input` itself when it has no more than `max` (nothing to merge: every write's usual case).
 */
export function capUpdateManagers(input: Managed, max = MAX_UPDATE_MANAGERS): Managed {
  let count = 0;
  for (const vs of input.fields.values()) if (!vs.applied) count++;
  if (count <= max) return input;
  const managed = cloneManaged(input);
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  updaters.sort((a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || cmp(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i] as string;
    const vs = managed.fields.get(id) as VersionedSet;
    const time = managed.times.get(id);
    const bucket = managerIdentity({ manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const s = managed.fields.get(first) as VersionedSet;
      managed.fields.delete(first);
      managed.fields.set(bucket, s);
    }
    const b = managed.fields.get(bucket) as VersionedSet;
    managed.fields.set(bucket, { set: vs.set.union(b.set), apiVersion: vs.apiVersion, applied: vs.applied });
    managed.fields.delete(id);
    managed.times.set(bucket, time);
    length--;
  }
  return managed;
}

/**
 * True when a write asks to reset managedFields: a list holding one empty entry (`[{}]`). An
 * empty list is not a reset (kube's documented behaviour: its decoding drops an empty list).
 */
export function isResetRequest(managedFields: unknown): boolean {
  if (!Array.isArray(managedFields) || managedFields.length !== 1) return false;
  const only: unknown = managedFields[0];
  return typeof only === 'object' && only !== null && !Array.isArray(only) && Object.keys(only).length === 0;
}

/** kube's FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;

/** kube's ValidateFieldManager: at most 128 bytes, printable characters only. */
export function validateFieldManager(manager: string, path: ErrorPath | string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldErrors.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let pos = 0;
  for (const ch of manager) {
    const cp = ch.codePointAt(0) ?? 0;
    if (!isPrint(ch)) {
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid(path, manager, `invalid character U+${hex} (at position ${pos})`));
    }
    pos += Buffer.byteLength(ch);
  }
  return errs;
}

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const isPrint = (ch: string): boolean => ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);

/** kube's ValidateManagedFields, for the registry's metadata validation (path `metadata.managedFields`). */
export function validateManagedFields(entries: readonly ManagedFieldsEntry[], path: ErrorPath): FieldError[] {
  const errs: FieldError[] = [];
  entries.forEach((e, i) => {
    const p = path.index(i);
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(fieldErrors.invalid(p.child('operation'), e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') errs.push(fieldErrors.invalid(p.child('fieldsType'), e.fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(e.manager ?? '', p.child('manager')));
    if ((e.subresource ?? '').length > MAX_SUBRESOURCE_NAME_LENGTH) errs.push(fieldErrors.tooLong(p.child('subresource'), MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errs;
}
