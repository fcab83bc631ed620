import type { RequestHandler } from 'express';
import type { Logger } from 'winston';
import { maybeRequestState } from '../../endpoints/request-state';

/**
 * One structured line per finished request (verb, path, code, latency, user, and the user who
 * impersonated it, if any) when the logger's level includes `http` (-v=2 and up). The level is
 * checked first: winston runs a dropped line through its whole stream pipeline, a cost every
 * request would pay for nothing.
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
      });
    });
    next();
  };
}
