/**
 * One call of one webhook (kube's callAttrMutatingHook / callHook up to the decision): the dry-run
 * rule, the review in the first version the webhook accepts, the POST bounded by timeoutSeconds
 * and by the request's own deadline, whichever comes first (`?timeout=` tells the webhook the time
 * left, rounded up to whole seconds), and cut off (its connection closed) when the request's context
 * ends first (the client gone), the answer decoded and checked, its audit annotations and warnings recorded, a denial turned
 * into the webhook's Status. Every way the call itself can fail is a CallingWebhookError worded as
 * kube's, for the failurePolicy to decide.
 */
import { isQualifiedName } from '../../../api';
import { addAuditAnnotation, contextError, contextSignal, deadlineReached, remainingMs, type RequestContext } from '../../../api/request-context';
import { WebhookCallError } from '../../../api/webhook-client';
import { ClientConfigError, type WebhookClients, type WebhookEndpoint } from './clients';
import { CallingWebhookError, dryRunUnsupported, webhookDenial } from './errors';
import type { Invocation } from './match';
import { InvalidReviewError, ReviewDecodeError, decodeReview, encodeReview, reviewVersionFor, verifyReview, type AdmissionResult } from './review';

/** kube's checkKeyFormat for admission annotations: `<prefix>/<name>`, a qualified name. */
function auditAnnotationKeyError(key: string): string | undefined {
  if (key.split('/').length !== 2) {
    return "annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')";
  }
  const msgs = isQualifiedName(key);
  if (msgs.length) return `annotation key has invalid format ${msgs.join(',')}. A qualified name like 'podsecuritypolicy.admission.k8s.io/admit-policy' is required.`;
  return undefined;
}

/** An annotation kube's attributes would keep: a valid key not set before to another value (others are logged and dropped there). */
export function addAdmissionAnnotation(ctx: RequestContext, key: string, value: string): boolean {
  return auditAnnotationKeyError(key) === undefined && addAuditAnnotation(ctx, key, value);
}

/**
 * Calls `inv`'s webhook: its decision when it allowed the request (a mutating webhook's patch
 * included). Throws CallingWebhookError (the failurePolicy decides), the webhook's denial as an
 * ApiError, or kube's 400 for a dry run the webhook cannot take.
 */
export async function callWebhook(ctx: RequestContext, inv: Invocation, mutating: boolean, clients: WebhookClients): Promise<AdmissionResult> {
  const hook = inv.hook;
  const name = hook.name;
  if (inv.request.dryRun === true) {
    const sideEffects = hook.hook.sideEffects;
    if (sideEffects === undefined || sideEffects === null) throw new CallingWebhookError(name, 'Webhook SideEffects is nil');
    if (sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(name);
  }
  const version = reviewVersionFor(hook.hook.admissionReviewVersions);
  if (!version) throw new CallingWebhookError(name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  const body = encodeReview(version, inv.request);
  let endpoint: WebhookEndpoint;
  try {
    endpoint = clients.endpointFor(hook.clientConfig);
  } catch (e) {
    if (e instanceof ClientConfigError) throw new CallingWebhookError(name, `could not get REST client: ${e.message}`);
    throw e;
  }
  // kube: the request's context, cut to timeoutSeconds; what is left of it, in whole seconds
  // rounded up, goes in `?timeout=`. A done context (deadline passed, client gone) fails before
  // anything is sent.
  const done = contextError(ctx);
  if (done) throw new CallingWebhookError(name, `failed to call webhook: ${done}`);
  const left = remainingMs(ctx);
  const byDeadline = left !== undefined && left < hook.timeoutMs;
  const timeoutMs = byDeadline ? left : hook.timeoutMs;
  const urlTimeoutMs = Math.ceil(timeoutMs / 1000) * 1000;
  let answer: string;
  try {
    // The request's context cuts the call off when it ends first (the client gone): kube's client
    // closes the connection under it, and the webhook sees it closed.
    answer = (await endpoint.post(body, timeoutMs, urlTimeoutMs, contextSignal(ctx))).body;
  } catch (e) {
    if (e instanceof WebhookCallError) {
      // A call cut at the request's own deadline ran out with it (kube: one context): what follows
      // (failurePolicy Ignore) sees the request done even if the deadline's timer has not fired yet.
      if (byDeadline && e.deadlineExceeded) deadlineReached(ctx);
      throw new CallingWebhookError(name, `failed to call webhook: ${e.message}`);
    }
    throw e;
  }
  let result: AdmissionResult;
  try {
    result = verifyReview(inv.uid, mutating, version, decodeReview(answer, version));
  } catch (e) {
    if (e instanceof ReviewDecodeError) throw new CallingWebhookError(name, `failed to call webhook: ${e.message}`);
    if (e instanceof InvalidReviewError) throw new CallingWebhookError(name, `received invalid webhook response: ${e.message}`);
    throw e;
  }
  for (const [k, v] of Object.entries(result.auditAnnotations)) addAdmissionAnnotation(ctx, `${name}/${k}`, v);
  // The request's warning recorder applies kube's rules (control characters, repeats, lengths).
  // One at a time: an answer may hold millions, too many arguments for one push.
  for (const w of result.warnings) ctx.warnings.push(w);
  if (!result.allowed) throw webhookDenial(name, result.status);
  return result;
}
