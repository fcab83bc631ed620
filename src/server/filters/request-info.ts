import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { requestInfoFor } from '../../endpoints/request-info';
import { queryBool } from '../../endpoints/query-bool';

/** Request id, received time, RequestInfo and an empty warning list on res.locals. */
export function withRequestInfo(): RequestHandler {
  return (req, res, next) => {
    res.locals.requestId = randomUUID();
    res.locals.received = process.hrtime.bigint();
    res.locals.warnings = [] as string[];
    res.locals.requestInfo = requestInfoFor(req.method, req.path, queryBool(req.query.watch) ?? false);
    res.setHeader('Audit-Id', res.locals.requestId as string);
    next();
  };
}
