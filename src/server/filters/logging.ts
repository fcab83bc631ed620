import type { RequestHandler } from 'express';
import type { Logger } from 'winston';
import type { RequestInfo } from '../../endpoints/request-info';
import type { UserInfo } from '../../auth/authn/types';

/**
 * One structured line per finished request (verb, path, code, latency, user) when the logger's
 * level includes `http` (-v=2 and up). The level is checked first: winston runs a dropped line
 * through its whole stream pipeline, a cost every request would pay for nothing.
 */
export function withLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('http')) {
      next();
      return;
    }
    res.on('finish', () => {
      const info = res.locals.requestInfo as RequestInfo | undefined;
      const user = res.locals.user as UserInfo | undefined;
      const started = res.locals.received as bigint;
      logger.http('request', {
        verb: info?.verb ?? req.method,
        path: req.originalUrl,
        code: res.statusCode,
        latencyMs: Number(process.hrtime.bigint() - started) / 1e6,
        user: user?.name ?? '',
      });
    });
    next();
  };
}
