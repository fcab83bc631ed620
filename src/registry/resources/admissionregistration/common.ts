/**
 * What the admissionregistration.k8s.io/v1 webhook configuration code shares: the group, and the
 * webhooks' JSON shape, which lives in api/admissionregistration.ts because the admission webhook
 * plugins read the same objects.
 */
export const ADMISSIONREGISTRATION_GROUP = 'admissionregistration.k8s.io';

export {
  webhooksOf,
  type MatchConditionJson,
  type RuleWithOperationsJson,
  type ServiceReferenceJson,
  type WebhookClientConfigJson,
  type WebhookJson,
  /** MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
  type WebhookType as WebhookKind,
} from '../../../api/admissionregistration';
