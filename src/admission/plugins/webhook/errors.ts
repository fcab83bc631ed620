/**
 * How a webhook call can end other than in an answer (kube's webhookutil.ErrCallingWebhook and
 * ErrWebhookRejection, webhook/errors): a failure to reach or understand the webhook, which its
 * failurePolicy decides, and a denial, which always fails the request with the webhook's Status.
 */
import { ApiError, ListMeta, StatusDetails, StatusReason, errors, failureStatus, goQuote } from '../../../api';

/**
 * The webhook could not be called or answered nonsense (kube's ErrCallingWebhook): the request
 * fails with kube's 500 `Internal error occurred: failed calling webhook "<name>": <reason>` under
 * failurePolicy Fail and goes on under Ignore.
 */
export class CallingWebhookError extends Error {
  override readonly name = 'CallingWebhookError';
  constructor(
    readonly webhookName: string,
    readonly reason: string,
  ) {
    super(`failed calling webhook ${goQuote(webhookName)}: ${reason}`);
  }

  /** The request's error under failurePolicy Fail (apierrors.NewInternalError). */
  toApiError(): ApiError {
    return errors.internal(this);
  }
}

/** The Status a webhook answered a denial with, as decoded (metav1.Status's fields). */
export interface WebhookStatus {
  /** Its non-empty fields only (Go's omitempty). */
  metadata?: ListMeta;
  status?: string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/**
 * kube's ToStatusErr: the webhook's own Status (its metadata too), at least a 400, its status word
 * Failure where it was empty or Success (any other word is kept), its message prefixed with
 * `admission webhook "<name>" denied the request` (the reason stands in for an empty message;
 * with neither, `… without explanation`).
 */
export function webhookDenial(webhookName: string, result: WebhookStatus | undefined): ApiError {
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const r = result ?? {};
  const code = (r.code ?? 0) < 400 ? 400 : (r.code as number);
  const message = r.message ? `${deniedBy}: ${r.message}` : r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const status = failureStatus(code, (r.reason ?? '') as StatusReason, message, r.details);
  if (r.status && r.status !== 'Success') status.status = r.status;
  if (r.metadata) status.metadata = { ...r.metadata };
  return new ApiError(status);
}

/** kube's NewDryRunUnsupportedErr: a dry run reaching a webhook with side effects (400, whatever the failurePolicy). */
export function dryRunUnsupported(webhookName: string): ApiError {
  return errors.badRequest(`admission webhook ${goQuote(webhookName)} does not support dry run`);
}
