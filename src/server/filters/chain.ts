/**
 * The filter chain, in the order a request meets it. Slots still to fill (each lands with its issue):
 * audit after authentication, priority-and-fairness in place of max-in-flight.
 */
import type { RequestHandler } from 'express';
import type { Logger } from 'winston';
import type { Authenticator } from '../../auth/authn/types';
import type { Authorizer } from '../../auth/authz/authorizer';
import { withAuthentication } from './authentication';
import { withAuthorization } from './authorization';
import { withCompression } from './compression';
import { withImpersonation } from './impersonation';
import { withLogging } from './logging';
import { withMaxInFlight } from './max-in-flight';
import { withRequestInfo } from './request-info';
import { defaultRequestTimeoutMs, withRequestTimeout } from './timeout';

export interface FilterDeps {
  logger: Logger;
  authenticator: Authenticator;
  authorizer: Authorizer;
  maxRequestsInFlight: number;
  maxMutatingRequestsInFlight: number;
  /** APIResponseCompression (default on). */
  responseCompression?: boolean;
  /** UnauthenticatedHTTP2DOSMitigation (default on). */
  http2DosMitigation?: boolean;
  /** --request-timeout in ms (default 60 s): the deadline of every request that is not long-running. */
  requestTimeoutMs?: number;
}

export function filterChain(d: FilterDeps): RequestHandler[] {
  return [
    withRequestInfo(),
    withLogging(d.logger),
    // kube's WithRequestDeadline and WithTimeoutForNonLongRunningRequests sit between request info
    // and authentication (DefaultBuildHandlerChain): a slow authenticator is bounded too, and a bad
    // `?timeout=` is a 400 before any 401.
    withRequestTimeout(d.requestTimeoutMs ?? defaultRequestTimeoutMs, d.logger),
    withAuthentication(d.authenticator, { http2DosMitigation: d.http2DosMitigation ?? true }),
    // kube's order: authentication, (audit), impersonation, max-in-flight, authorization.
    withImpersonation(d.authorizer),
    withMaxInFlight({ readOnly: d.maxRequestsInFlight, mutating: d.maxMutatingRequestsInFlight }),
    withAuthorization(d.authorizer),
    // Last, next to the handlers: kube compresses where it serialises objects (deferredResponseWriter).
    withCompression({ enabled: d.responseCompression ?? true }),
  ];
}
