/**
 * A TokenReview's question put to the server's own authenticators (kubernetes
 * pkg/registry/authentication/tokenreview): the token goes in a request that carries nothing but
 * `Authorization: Bearer <token>`, and the answer is whatever the authenticator chain makes of it.
 */
import { ApiError, errors, isApiError } from '../../api';
import type { TokenReviewResult } from '../../api/user-info';
import type { Authenticator } from './types';

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
 * Reviews `token` for `audiences` (spec.audiences; empty: the server's own) as kube's TokenReview
 * REST does. Every token authenticator of this server is audience-agnostic, as kube wraps its
 * static-token and OIDC authenticators (WrapAudienceAgnosticToken): a token is good only for the
 * server's own audiences, so a review naming none of them is answered "invalid bearer token", and an
 * accepted token's audiences are the ones both sides named. The service-account authenticator is
 * audience-aware in kube; here it checks --api-audiences only, so a review for another audience
 * refuses its tokens (kube would carry the review's audiences on the request).
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
  // No audience asked for and none configured: kube sets no audiences on the request at all.
  const granted = wanted.length > 0 ? apiAudiences.filter((a) => wanted.includes(a)) : [];
  if (wanted.length > 0 && granted.length === 0) {
    // Each audience-agnostic token authenticator passes; the bearer authenticator's default error.
    return { authenticated: false, error: INVALID_BEARER_TOKEN };
  }
  let user;
  try {
    user = await authenticator.authenticate({ headers: { authorization: `Bearer ${token}` } });
  } catch (e) {
    if (isApiError(e) && e.code === 401) return { authenticated: false, error: failureReason(e) };
    throw e;
  }
  if (!user) return { authenticated: false };
  return { authenticated: true, user, audiences: granted };
}
