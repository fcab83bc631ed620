/**
 * What the admissionregistration.k8s.io/v1 webhook configuration code shares: the two kinds and
 * the JSON shapes of their webhooks (k8s.io/api admissionregistration/v1 types.go). An absent or
 * null field is Go's nil pointer or nil slice; a null list entry is Go's zero struct.
 */
import type { KubeObject, LabelSelectorJson } from '../../../api';

export const ADMISSIONREGISTRATION_GROUP = 'admissionregistration.k8s.io';

/** MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
export type WebhookKind = 'mutating' | 'validating';

export interface ServiceReferenceJson {
  namespace?: string;
  name?: string;
  path?: string | null;
  port?: number | null;
}

export interface WebhookClientConfigJson {
  url?: string | null;
  service?: ServiceReferenceJson | null;
  caBundle?: string | null;
}

/** RuleWithOperations: the operations and the inlined Rule. */
export interface RuleWithOperationsJson {
  operations?: string[] | null;
  apiGroups?: string[] | null;
  apiVersions?: string[] | null;
  resources?: string[] | null;
  scope?: string | null;
}

export interface MatchConditionJson {
  name?: string;
  expression?: string;
}

/** A MutatingWebhook or ValidatingWebhook (the latter has no reinvocationPolicy). */
export interface WebhookJson {
  name?: string;
  clientConfig?: WebhookClientConfigJson | null;
  rules?: (RuleWithOperationsJson | null)[] | null;
  failurePolicy?: string | null;
  matchPolicy?: string | null;
  namespaceSelector?: LabelSelectorJson | null;
  objectSelector?: LabelSelectorJson | null;
  sideEffects?: string | null;
  timeoutSeconds?: number | null;
  admissionReviewVersions?: string[] | null;
  reinvocationPolicy?: string | null;
  matchConditions?: (MatchConditionJson | null)[] | null;
}

/** The webhooks of a configuration (a null entry is Go's zero struct). */
export function webhooksOf(obj: KubeObject): WebhookJson[] {
  return ((obj.webhooks as (WebhookJson | null)[] | null | undefined) ?? []).map((w) => w ?? {});
}
