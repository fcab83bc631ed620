/**
 * structured-merge-diff's Updater (merge/update.go): ownership bookkeeping for an update (never
 * conflicts; takes what changed) and for an apply (merge, prune what the applier dropped, detect
 * conflicts with other managers unless forced). Managers are keyed by their identity string.
 * One schema serves every apiVersion here (no conversion between versions).
 */
import { TypeRef } from './apply-type';
import { Comparison, compareObjects, excludeFields } from './compare-objects';
import { FieldSet } from './field-set';
import { ensureNamedFieldsAreMembers, fieldSetOfValue } from './field-set-of';
import { JsonValue, equalValues } from './json-value';
import { mergeValues } from './merge-objects';
import { FieldPath } from './path-element';
import { removeItems } from './remove-items';
import { Steps, runSteps } from '../api/steps';

/** The fields one manager owns, at the apiVersion it used; `applied` for an Apply entry. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Field ownership by manager identity (see managerIdentity). */
export type ManagerSets = Map<string, VersionedSet>;

/** One conflicting field and the manager (identity) that owns it. */
export interface Conflict {
  readonly manager: string;
  readonly path: FieldPath;
}

/** Thrown by applyOwnership when other managers own fields the apply would change. */
export class ConflictList extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
    this.name = 'ConflictList';
  }
}

/** Inputs shared by update and apply. `ignore`: reset fields, never owned nor conflicting. */
export interface UpdaterInput {
  type: TypeRef;
  apiVersion: string;
  managers: ManagerSets;
  manager: string;
  ignore?: FieldSet;
}

const filter = (set: FieldSet, ignore?: FieldSet): FieldSet => (ignore ? set.recursiveDifference(ignore) : set);

// smd Updater.update: strip what changed from other managers; conflicts unless forced.
// A stage (steps.ts) after the comparison, the walk over both whole objects.
function* reconcile(live: unknown, next: unknown, input: UpdaterInput, managers: ManagerSets, force: boolean): Steps<Comparison> {
  const compare = excludeFields(compareObjects(live, next, input.type), input.ignore);
  yield;
  // What other managers may lose; a create (no manager yet) has no one to ask.
  let changed: FieldSet | undefined;
  const conflicts: Conflict[] = [];
  const conflictSets = new Map<string, FieldSet>();
  for (const id of [...managers.keys()].sort()) {
    if (id === input.manager) continue;
    changed ??= compare.modified.union(compare.added);
    const owned = (managers.get(id) as VersionedSet).set.intersection(changed);
    if (owned.isEmpty()) continue;
    conflictSets.set(id, owned);
    owned.iterate((path) => conflicts.push({ manager: id, path }));
  }
  if (!force && conflicts.length) throw new ConflictList(conflicts);
  for (const [id, vs] of managers) {
    if (id === input.manager) continue;
    let set = vs.set;
    const lost = conflictSets.get(id);
    if (lost) set = set.difference(lost);
    if (!compare.removed.isEmpty()) set = set.difference(compare.removed);
    managers.set(id, { ...vs, set });
  }
  for (const [id, vs] of managers) if (vs.set.isEmpty()) managers.delete(id);
  return compare;
}

/**
 * Ownership after a non-apply write of `next` over `live` (undefined live for a create): the
 * manager gains what was added or modified, others lose it; removed fields leave every set.
 * Returns new ManagerSets; the input map is not mutated.
 */
export function updateOwnership(live: unknown, next: unknown, input: UpdaterInput): ManagerSets {
  return runSteps(updateOwnershipSteps(live, next, input));
}

/** updateOwnership, stage by stage (see steps.ts). */
export function* updateOwnershipSteps(live: unknown, next: unknown, input: UpdaterInput): Steps<ManagerSets> {
  const managers = new Map(input.managers);
  const compare = yield* reconcile(live, next, input, managers, true);
  yield;
  const own = managers.get(input.manager)?.set ?? FieldSet.empty();
  const set = filter(own.difference(compare.removed).union(compare.modified).union(compare.added), input.ignore);
  if (set.isEmpty()) managers.delete(input.manager);
  else managers.set(input.manager, { set, apiVersion: input.apiVersion, applied: false });
  return managers;
}

/** The result of an apply: the merged object (undefined when nothing changed) and the new ownership. */
export interface ApplyOwnership {
  object: unknown;
  changed: boolean;
  managers: ManagerSets;
}

/**
 * smd Updater.Apply: merges config into live, sets the applier's fields to the config's, prunes
 * fields it applied before and dropped now unless someone else owns them, then reconciles.
 * Throws ConflictList (unless force). Does not mutate its inputs.
 */
export function applyOwnership(live: unknown, config: unknown, force: boolean, input: UpdaterInput): ApplyOwnership {
  return runSteps(applyOwnershipSteps(live, config, force, input));
}

/** applyOwnership, stage by stage (see steps.ts). */
export function* applyOwnershipSteps(live: unknown, config: unknown, force: boolean, input: UpdaterInput): Steps<ApplyOwnership> {
  const managers = new Map(input.managers);
  let merged: unknown = mergeValues(live, config, input.type) ?? {};
  yield;
  const last = managers.get(input.manager);
  managers.set(input.manager, { set: filter(fieldSetOfValue(config, input.type), input.ignore), apiVersion: input.apiVersion, applied: true });
  yield;
  if (last && !last.set.isEmpty()) {
    merged = prune(merged, managers, last, input.type);
    yield;
  }
  yield* reconcile(live, merged, input, managers, force);
  yield;
  const changed = !equalValues(live as JsonValue, merged as JsonValue);
  return { object: merged, changed, managers };
}

// smd prune: remove what the applier owned last time and no longer applies, unless owned by anyone.
function prune(merged: unknown, managers: ManagerSets, last: VersionedSet | undefined, type: TypeRef): unknown {
  if (!last || last.set.isEmpty()) return merged;
  const named = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, type);
  const without = (v: unknown, s: FieldSet): unknown => removeItems(v, s, type) ?? {};
  let pruned = without(merged, named(last.set));
  // Add back what any manager (the applier's new set included) owns.
  let managed = FieldSet.empty();
  for (const vs of managers.values()) managed = managed.union(vs.set);
  const mergedSet = named(fieldSetOfValue(merged, type));
  pruned = without(merged, mergedSet.difference(named(fieldSetOfValue(pruned, type)).union(named(managed))));
  // Add back what was removed but never owned by the applier (dangling items).
  const prunedSet = named(fieldSetOfValue(pruned, type));
  return without(merged, mergedSet.difference(prunedSet).intersection(named(last.set)));
}
