import type { RequestHandler } from 'express';
import type { Logger } from 'winston';
import { maybeRequestState } from '../../endpoints/request-state';

/**
 * One structured line per finished request (verb, path, code, latency, user, and the user who
 * impersonated it, if any) when the logger's level includes `http` (-v=2 and up). The level is
 * checked first: winston runs a dropped line through its whole stream pipeline, a cost every
 * request would pay for nothing.
 *
 * Ours, not kube's httplog: the line also carries the request's audit annotations (what image
 * policy and admission webhooks added, `auditAnnotations`), since no audit event records them yet.
 * kube writes them only into the audit event (admission's audit handler, at level Metadata and
 * above); once auditing exists the request state's `audit` slot takes them there.
 */
export function withLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('http')) {
      next();
      return;
    }
    res.on('finish', () => {
      const state = maybeRequestState(res);
      logger.http('request', {
        verb: state?.info.verb ?? req.method,
        path: req.originalUrl,
        code: res.statusCode,
        latencyMs: state ? Number(process.hrtime.bigint() - state.received) / 1e6 : 0,
        user: state?.user?.name ?? '',
        // kube's httplog notes "<user> is impersonating <user>"; here the authenticated user beside `user`.
        ...(state?.impersonator ? { impersonatedBy: state.impersonator.name } : {}),
        ...(state?.auditAnnotations?.size ? { auditAnnotations: Object.fromEntries(state.auditAnnotations) } : {}),
      });
    });
    next();
  };
}
