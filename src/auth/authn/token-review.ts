/**
 * A TokenReview's question put to the server's own authenticators (kubernetes
 * pkg/registry/authentication/tokenreview): the token goes in a request that carries nothing but
 * `Authorization: Bearer <token>`, and the answer is whatever the authenticator chain makes of it.
 */
import { ApiError, errors, isApiError } from '../../api';
import type { TokenReviewResult } from '../../api/user-info';
import type { Authenticator, TokenUser } from './types';

/** kube's bearer-token authenticator's error when no token authenticator claims the token. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/**
 * A 401 whose reason a TokenReview reports in `status.error` (kube's authenticator error text; the
 * request itself is answered only "Unauthorized"). An authenticator that refuses a credential with a
 * reason of its own throws this; a bare `errors.unauthorized()` reads as "invalid bearer token".
 */
export function authenticationFailure(reason: string): ApiError {
  const e = errors.unauthorized();
  e.cause = new Error(reason);
  return e;
}

/** What stands in a logged reason for a value the token held. */
export const REDACTED = '[redacted]';

/**
 * Why an authenticator refused a token, twice: `message` in kube's wording, values from the token
 * included, for a TokenReview's `status.error` (its caller sent the token, so it learns nothing
 * new); `logged`, the same sentence with every value from the token replaced by {@link REDACTED},
 * for the server's log (nothing about a token's contents goes there).
 */
export class Refusal extends Error {
  constructor(
    message: string,
    readonly logged: string = message,
  ) {
    super(message);
  }
}

/** The reason of an authenticator's 401 (see authenticationFailure). */
function failureReason(e: ApiError): string {
  return e.cause instanceof Error ? e.cause.message : INVALID_BEARER_TOKEN;
}

export interface TokenReviewOptions {
  /**
   * The server's own audiences (kube's --api-audiences, which defaults to the service-account
   * issuers). None: a review without spec.audiences checks no audience at all.
   */
  apiAudiences?: readonly string[];
}

/**
 * Reviews `token` for `audiences` (spec.audiences; empty: the server's own) as kube's TokenReview REST
 * does: the token goes through the authenticator chain with those audiences asked for. The
 * service-account authenticator checks them against the token's own `aud`; every other token source
 * is audience-agnostic (kube's WrapAudienceAgnosticToken, see `audienceAgnostic`): good only for the
 * server's own audiences, so a review naming none of them gets "invalid bearer token". An accepted
 * token's audiences are the ones the authenticator matched.
 * Errors other than an authenticator's 401 propagate (a broken authenticator is the server's fault).
 */
export async function reviewToken(
  authenticator: Authenticator,
  token: string,
  audiences: readonly string[],
  opts: TokenReviewOptions = {},
): Promise<TokenReviewResult> {
  const apiAudiences = opts.apiAudiences ?? [];
  const wanted = audiences.length > 0 ? audiences : apiAudiences;
  let user: TokenUser | null;
  try {
    // No audience asked for and none configured: kube sets no audiences on the request at all.
    user = await authenticator.authenticate({ headers: { authorization: `Bearer ${token}` }, ...(wanted.length > 0 ? { audiences: wanted } : {}) });
  } catch (e) {
    if (isApiError(e) && e.code === 401) return { authenticated: false, error: failureReason(e) };
    throw e;
  }
  if (!user) return { authenticated: false };
  const { audiences: granted, ...info } = user;
  return { authenticated: true, user: info, audiences: granted ?? [] };
}
