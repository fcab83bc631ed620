/**
 * Turns list/watch query parameters into a storage plan: selectors → predicate, resourceVersion ×
 * resourceVersionMatch × limit × continue → which revision to read (seed 000's tables).
 */
import { ApiError, FieldError, KubeObject, errors, fieldErrors, parseResourceVersion } from '../api';
import { continueExpiredError, decodeContinueToken, encodeContinueToken } from '../api/continue-token';
import { parseFieldSelector } from '../api/field-selector';
import { parseLabelSelector } from '../api/labels';
import type { ListOptions, ReadConsistency } from '../storage';
import type { ResourceDefinition } from './resource';

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  watch?: boolean;
}

export interface ListPlan {
  options: ListOptions;
  /** The name a `metadata.name=` field selector pins the request to (kube's MatchesSingle). */
  singleName?: string;
  /**
   * The one key a pinned name reads when the caller can resolve it (kube: Recursive=false). Such a
   * list holds at most that object, has no continue token, and reads RV=N with a limit as
   * not-older-than rather than the legacy exact match.
   */
  singleKey?: string;
  continueToken(lastKey: string, revision: bigint): string;
  /** The 410 for a compacted revision (with the inconsistent-continue token when continuing). */
  expired(): ApiError;
}

const listOptionsGK = { group: 'meta.k8s.io', kind: 'ListOptions' };

/** `keyFor` resolves a pinned name to its key, or undefined when it cannot (a namespaced resource listed across namespaces). */
export function resolveList(def: ResourceDefinition, prefix: string, q: ListQuery, keyFor?: (name: string) => string | undefined): ListPlan {
  const { predicate, singleName } = buildPredicate(def, q);
  const singleKey = singleName !== undefined && !q.continue ? keyFor?.(singleName) : undefined;
  const hasSelector = !!(q.labelSelector?.trim() || q.fieldSelector?.trim());
  const limit = q.limit && q.limit > 0 ? q.limit : 0;
  const rv = q.resourceVersion ?? '';
  const match = q.resourceVersionMatch ?? '';
  validateListOptions(q, rv, match);

  const options: ListOptions = { limit, hasSelector, predicate };
  let startKeyForExpiry: string | undefined;
  if (q.continue) {
    if (rv !== '' && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinueToken(q.continue, prefix);
    options.startKey = token.startKey;
    // rv -1 is the "inconsistent continue" token of a 410: continue at the latest revision.
    if (token.rv > 0n) options.exactRevision = token.rv;
    startKeyForExpiry = token.startKey;
  } else if (rv === '0') {
    options.consistency = { kind: 'any' };
  } else if (rv !== '') {
    const n = parseResourceVersion(rv);
    // kube's resolveGetListRev: the legacy exact match (limit + RV=N) holds for recursive lists only.
    if (match === 'Exact' || (match === '' && limit > 0 && singleKey === undefined)) options.exactRevision = n;
    else options.consistency = { kind: 'notOlderThan', revision: n };
  }
  return {
    options,
    singleName,
    singleKey,
    // The next chunk starts just after the last key returned (kube appends a NUL byte).
    continueToken: (lastKey, revision) => encodeContinueToken(`${lastKey}\x00`, prefix, revision),
    expired: () =>
      startKeyForExpiry === undefined
        ? errors.expired('The resourceVersion for the provided list is too old.')
        : continueExpiredError(startKeyForExpiry, prefix),
  };
}

/**
 * What kube's list, watch and deletecollection handlers do to the query before the store sees it
 * (apiserver endpoints/handlers get.go and delete.go: SetListOptionsDefaults, then
 * ValidateListOptions, both given gate WatchList). With WatchList on, a watch whose resourceVersion
 * is unset or "0" and that names neither sendInitialEvents nor resourceVersionMatch becomes a
 * streaming list (sendInitialEvents=true, resourceVersionMatch=NotOlderThan): its state ends with
 * the initial-events-end bookmark when bookmarks are allowed. With it off, a watch naming
 * sendInitialEvents is refused (422). The server's own watchers call the store directly and keep
 * their streaming options whatever the gate.
 */
export function requestListQuery(q: ListQuery, watchList: boolean): ListQuery {
  if (!watchList) {
    // Only the gate's error is new here; every other one the store's validation reports as before.
    if (q.watch && q.sendInitialEvents !== undefined) validateListOptions(q, q.resourceVersion ?? '', q.resourceVersionMatch ?? '', false);
    return q;
  }
  const legacy = !q.resourceVersion || q.resourceVersion === '0';
  if (!q.watch || !legacy || q.sendInitialEvents !== undefined || q.resourceVersionMatch) return q;
  return { ...q, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' };
}

/** kube's ValidateListOptions: lists and watches are validated differently; `watchList` is the gate. */
function validateListOptions(q: ListQuery, rv: string, match: string, watchList = true): void {
  const errs = q.watch ? watchOptionErrors(q, match, watchList) : listOptionErrors(q, rv, match);
  if (errs.length) throw errors.invalid(listOptionsGK, '', errs);
}

function listOptionErrors(q: ListQuery, rv: string, match: string): FieldError[] {
  const errs: FieldError[] = [];
  if (match !== '') {
    if (rv === '') errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (q.continue) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match === 'Exact' && rv === '0') {
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
  }
  if (q.sendInitialEvents !== undefined) errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/** A watch may use resourceVersionMatch only with sendInitialEvents (and only NotOlderThan); sendInitialEvents needs WatchList. */
function watchOptionErrors(q: ListQuery, match: string, watchList: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (q.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') {
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (!watchList) errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match !== '') {
    if (q.sendInitialEvents === undefined) {
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (q.continue) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/** Field values an object exposes to field selectors (kube: GetAttrs). */
export function selectableFieldsOf(def: ResourceDefinition, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  if (def.namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
  for (const [label, get] of Object.entries(def.selectableFields)) fields[label] = get(obj);
  return fields;
}

function buildPredicate(def: ResourceDefinition, q: ListQuery): { predicate?: (obj: KubeObject) => boolean; singleName?: string } {
  const labels = q.labelSelector ? parseLabelSelector(q.labelSelector) : undefined;
  const fields = q.fieldSelector ? parseFieldSelector(q.fieldSelector) : undefined;
  if (fields) {
    for (const r of fields.requirements) {
      const known = r.field === 'metadata.name' || (def.namespaced && r.field === 'metadata.namespace') || r.field in def.selectableFields;
      if (!known) throw errors.badRequest(def.fieldSelectorError(r.field));
    }
  }
  const checkLabels = labels && !labels.empty ? labels : undefined;
  const checkFields = fields && !fields.empty ? fields : undefined;
  const singleName = fields?.requiresExactMatch('metadata.name');
  if (!checkLabels && !checkFields) return { singleName };
  const predicate = (obj: KubeObject): boolean =>
    (!checkLabels || checkLabels.matches(obj.metadata.labels ?? {})) &&
    (!checkFields || checkFields.matches(selectableFieldsOf(def, obj)));
  return { predicate, singleName };
}

/** The freshness a get, or a watch's initial state, asks for with resourceVersion (unset / "0" / N). */
export function readConsistency(rv: string | undefined): ReadConsistency {
  if (!rv) return { kind: 'latest' };
  if (rv === '0') return { kind: 'any' };
  return { kind: 'notOlderThan', revision: parseResourceVersion(rv) };
}
