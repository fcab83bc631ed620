/**
 * The JSON shape of admissionregistration.k8s.io/v1 webhooks (k8s.io/api admissionregistration/v1
 * types.go), as stored: the registry defaults and validates it
 * (registry/resources/admissionregistration), the admission webhook plugins read it
 * (admission/plugins/webhook). An absent or null field is Go's nil pointer or nil slice; a null
 * list entry is Go's zero struct.
 */
import type { LabelSelectorJson } from './labels';
import type { KubeObject } from './types';

/** MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
export type WebhookType = 'mutating' | 'validating';

export interface ServiceReferenceJson {
  namespace?: string;
  name?: string;
  path?: string | null;
  port?: number | null;
}

export interface WebhookClientConfigJson {
  url?: string | null;
  service?: ServiceReferenceJson | null;
  /** Base64 of a PEM bundle, as the API carries `[]byte`. */
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
