/**
 * The filter chain, in the order a request meets it. Slots still to fill (each lands with its issue):
 * audit after authentication, priority-and-fairness in place of max-in-flight.
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'winston';
import type { Authenticator } from '../../auth/authn/types';
import type { Authorizer } from '../../auth/authz/authorizer';
import type { FrontHandler } from '../http2-express';
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

export function filterChain(d: FilterDeps): RequestHandler {
  return inSequence([
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
  ]);
}

/**
 * Handlers run one after the other as one Express handler, each one's `next` calling the following
 * directly: Express would give each a router layer of its own, whose path match, parameter pass and
 * closures every request paid for at each filter. The contract is Express's: `next()` goes on,
 * `next(err)`, a throw or a rejected promise go to the error handler (`next('route')` goes on, as
 * for a layer mounted with `use`); after the last handler, `next()` leaves for the routes.
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction): void => {
    let i = 0;
    const next = (err?: unknown): void => {
      if (err && err !== 'route') return done(err);
      const handler = handlers[i++];
      if (!handler) return done();
      try {
        const ret = handler(req, res, next) as unknown;
        if (ret && typeof (ret as Promise<unknown>).then === 'function') {
          (ret as Promise<unknown>).then(undefined, (e: unknown) => done(e || new Error('Rejected promise')));
        }
      } catch (e) {
        done(e);
      }
    };
    next();
  };
}

/**
 * The filters, then `serve` (resource requests), run ahead of the Express app (http2-express.ts
 * FrontHandler): what `serve` passes on goes to the app's routes, an error any of them raises to
 * `onError`, the app's own error handler. Express would route every request through its router
 * twice (the app's, then the routes'); a resource request, nearly every request, meets neither.
 */
export function frontOfApp(filters: RequestHandler, serve: RequestHandler, onError: ErrorRequestHandler): FrontHandler {
  const run = inSequence([filters, serve]);
  return (req, res, toApp) => {
    run(req, res, (err?: unknown) => {
      if (!err) return toApp();
      try {
        onError(err, req, res, () => undefined);
      } catch {
        // The error handler failing too (it never should): Express's last resort, a bare 500 or a cut connection.
        if (res.headersSent) res.destroy();
        else res.status(500).end();
      }
    });
  };
}
