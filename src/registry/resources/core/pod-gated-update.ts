/**
 * What kube's ValidatePodUpdate lets a pod with scheduling gates change besides the usual fields:
 * additions to spec.nodeSelector (validateNodeSelectorMutation) and a narrower required node
 * affinity (validateNodeAffinityMutation: the same terms, each only with requirements appended);
 * the preferred terms may change freely. Bad values print as Go's %#v prints them.
 */
import { FieldError, FieldPath, fieldErrors, goQuote } from '../../../api';
import { semanticEqual } from '../../../api/semantic-equal';

interface Requirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

export interface NodeSelectorTerm {
  matchExpressions?: Requirement[] | null;
  matchFields?: Requirement[] | null;
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] | null } | null;
  preferredDuringSchedulingIgnoredDuringExecution?: unknown;
}

/** Go's %#v of a slice: `T(nil)` when absent, `T{a, b}` otherwise. */
const goSlice = <T>(type: string, list: T[] | null | undefined, item: (x: T) => string) =>
  list === undefined || list === null ? `${type}(nil)` : `${type}{${list.map(item).join(', ')}}`;

const goRequirement = (r: Requirement) =>
  `core.NodeSelectorRequirement{Key:${goQuote(r.key ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${goSlice('[]string', r.values, goQuote)}}`;

const goRequirements = (list: Requirement[] | null | undefined) => goSlice('[]core.NodeSelectorRequirement', list, goRequirement);

/** Go's %#v of a core.NodeSelectorTerm. */
export const goNodeSelectorTerm = (t: NodeSelectorTerm) =>
  `core.NodeSelectorTerm{MatchExpressions:${goRequirements(t.matchExpressions)}, MatchFields:${goRequirements(t.matchFields)}}`;

/** Go's %#v of a map[string]string (keys sorted, as fmt prints maps). */
function goStringMap(m: Record<string, string> | undefined): string {
  if (!m) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(m[k] ?? '')}`).join(', ')}}`;
}

/** validateNodeSelectorMutation: every old entry is kept as it was. */
export function nodeSelectorMutationErrors(now: Record<string, string> | undefined, old: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  for (const [k, v] of Object.entries(old ?? {})) {
    if (!now || !Object.hasOwn(now, k) || now[k] !== v) {
      return [{ type: 'FieldValueInvalid', field: String(path), badValueText: goStringMap(now), detail: 'only additions to spec.nodeSelector are allowed (no mutations or deletions)' }];
    }
  }
  return [];
}

/** validateNodeSelectorTermHasOnlyAdditions. */
function onlyAdditions(now: NodeSelectorTerm, old: NodeSelectorTerm): boolean {
  const oldExpr = old.matchExpressions ?? [];
  const oldFields = old.matchFields ?? [];
  const newExpr = now.matchExpressions ?? [];
  const newFields = now.matchFields ?? [];
  if (!oldExpr.length && !oldFields.length && (newExpr.length || newFields.length)) return false;
  for (const [n, o] of [
    [newExpr, oldExpr],
    [newFields, oldFields],
  ] as const) {
    if (o.length && (n.length < o.length || !semanticEqual(n.slice(0, o.length), o))) return false;
  }
  return true;
}

/** validateNodeAffinityMutation: with old required terms, the same number of terms, each only extended. */
export function nodeAffinityMutationErrors(now: NodeAffinity | undefined, old: NodeAffinity | undefined, path: FieldPath): FieldError[] {
  const oldRequired = old?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!oldRequired) return [];
  const oldTerms = oldRequired.nodeSelectorTerms ?? [];
  const newTerms = now?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const termsPath = path.child('requiredDuringSchedulingIgnoredDuringExecution').child('nodeSelectorTerms');
  if (oldTerms.length > 0 && oldTerms.length !== (newTerms?.length ?? 0)) {
    // kube's newTerms is nil when the new affinity has no required part.
    const value = now?.requiredDuringSchedulingIgnoredDuringExecution ? newTerms : undefined;
    return [{ type: 'FieldValueInvalid', field: String(termsPath), badValueText: goSlice('[]core.NodeSelectorTerm', value, goNodeSelectorTerm), detail: 'no additions/deletions to non-empty NodeSelectorTerms list are allowed' }];
  }
  const errs: FieldError[] = [];
  oldTerms.forEach((o, i) => {
    const n = (newTerms ?? [])[i] ?? {};
    if (!onlyAdditions(n, o)) errs.push({ ...fieldErrors.invalid(termsPath.index(i), null, 'only additions are allowed (no mutations or deletions)'), badValueText: goNodeSelectorTerm(n) });
  });
  return errs;
}
