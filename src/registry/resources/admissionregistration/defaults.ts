/**
 * kube's defaults for admissionregistration.k8s.io/v1 webhooks (pkg/apis/admissionregistration/v1
 * defaults.go and its generated SetObjectDefaults_*): failurePolicy Fail, matchPolicy Equivalent,
 * empty namespace and object selectors, timeoutSeconds 10, reinvocationPolicy Never (mutating),
 * each rule's scope "*", a service's port 443. kube applies them when it decodes; an unset field is
 * an absent or null one (a nil Go pointer). Defaulted objects are written in kube's (Go struct) key
 * order, the order kube serialises them.
 */
import type { KubeObject } from '../../../api';
import type { RuleWithOperationsJson, ServiceReferenceJson, WebhookClientConfigJson, WebhookJson, WebhookKind } from './common';

/** Go struct field order of MutatingWebhook; ValidatingWebhook lacks reinvocationPolicy. */
const WEBHOOK_ORDER = [
  'name',
  'clientConfig',
  'rules',
  'failurePolicy',
  'matchPolicy',
  'namespaceSelector',
  'objectSelector',
  'sideEffects',
  'timeoutSeconds',
  'admissionReviewVersions',
  'reinvocationPolicy',
  'matchConditions',
];
const CLIENT_CONFIG_ORDER = ['url', 'service', 'caBundle'];
const SERVICE_ORDER = ['namespace', 'name', 'path', 'port'];
const RULE_ORDER = ['operations', 'apiGroups', 'apiVersions', 'resources', 'scope'];

/** A copy of `o` with the `order` keys first, in that order, then any others as they were. */
function inOrder<T extends object>(o: T, order: readonly string[]): T {
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of order) if (Object.prototype.hasOwnProperty.call(src, k)) out[k] = src[k];
  for (const k of Object.keys(src)) if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = src[k];
  return out as T;
}

function defaultRule(rule: RuleWithOperationsJson | null): RuleWithOperationsJson {
  const r: RuleWithOperationsJson = { ...(rule ?? {}) };
  r.scope ??= '*';
  return inOrder(r, RULE_ORDER);
}

function defaultClientConfig(cc: WebhookClientConfigJson | null | undefined): WebhookClientConfigJson {
  const c: WebhookClientConfigJson = { ...(cc ?? {}) };
  if (c.service != null) {
    const s: ServiceReferenceJson = { ...c.service };
    s.port ??= 443;
    c.service = inOrder(s, SERVICE_ORDER);
  }
  return inOrder(c, CLIENT_CONFIG_ORDER);
}

/** SetDefaults_MutatingWebhook / SetDefaults_ValidatingWebhook with the nested rule and service defaults. */
export function defaultWebhook(webhook: WebhookJson | null, kind: WebhookKind): WebhookJson {
  const w: WebhookJson = { ...(webhook ?? {}) };
  w.clientConfig = defaultClientConfig(w.clientConfig);
  if (Array.isArray(w.rules)) w.rules = w.rules.map(defaultRule);
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (kind === 'mutating') w.reinvocationPolicy ??= 'Never';
  return inOrder(w, WEBHOOK_ORDER);
}

/** SetObjectDefaults_MutatingWebhookConfiguration / SetObjectDefaults_ValidatingWebhookConfiguration, in place. */
export function defaultWebhookConfiguration(obj: KubeObject, kind: WebhookKind): void {
  const webhooks = obj.webhooks as (WebhookJson | null)[] | null | undefined;
  if (!Array.isArray(webhooks)) return;
  obj.webhooks = webhooks.map((w) => defaultWebhook(w, kind));
}
