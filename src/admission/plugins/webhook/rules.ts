/**
 * Which requests a webhook's rules cover (kube's predicates/rules): operation, API group, version,
 * resource with subresource (`pods`, `pods/status`, either part a `*`), and scope. And the configuration
 * kinds no webhook ever sees, so a broken webhook cannot lock its own configuration.
 */
import type { RuleWithOperationsJson } from '../../../api/admissionregistration';

/** What a rule is matched against: the request, or the request seen as an equivalent resource. */
export interface RuleTarget {
  operation: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** The namespace as kube's attributes hold it ("" for a cluster-scoped object). */
  namespace: string;
}

const exactOrWildcard = (items: readonly string[] | null | undefined, requested: string): boolean =>
  (items ?? []).some((item) => item === '*' || item === requested);

const isNamespacesResource = (t: RuleTarget): boolean => t.group === '' && t.version === 'v1' && t.resource === 'namespaces';

/** kube's scope check: a Namespace itself is cluster-scoped whatever namespace the request names. */
function scopeMatches(scope: string | null | undefined, t: RuleTarget): boolean {
  if (scope === undefined || scope === null || scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespacesResource(t) && t.namespace !== '';
  if (scope === 'Cluster') return isNamespacesResource(t) || t.namespace === '';
  return false;
}

/** `resources` entries: `res` or `res/sub`, either part a `*`. */
function resourceMatches(resources: readonly string[] | null | undefined, t: RuleTarget): boolean {
  for (const entry of resources ?? []) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === t.resource) && (sub === '*' || sub === t.subresource)) return true;
  }
  return false;
}

/** kube's rules.Matcher.Matches. */
export function ruleMatches(rule: RuleWithOperationsJson, t: RuleTarget): boolean {
  return (
    scopeMatches(rule.scope, t) &&
    exactOrWildcard(rule.operations, t.operation) &&
    exactOrWildcard(rule.apiGroups, t.group) &&
    exactOrWildcard(rule.apiVersions, t.version) &&
    resourceMatches(rule.resources, t)
  );
}

const exemptKinds = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

/** kube's IsExemptAdmissionConfigurationResource: writes of admission configuration kinds skip every webhook. */
export function isExemptAdmissionConfigurationResource(kindGroup: string, kind: string): boolean {
  return kindGroup === 'admissionregistration.k8s.io' && exemptKinds.has(kind);
}
