import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { requestInfoFor } from '../../endpoints/request-info';
import { queryBool } from '../../endpoints/query-bool';
import { beginRequest } from '../../endpoints/request-state';

/** The request's typed state (endpoints/request-state.ts): its id (sent as Audit-Id), received time and RequestInfo. */
export function withRequestInfo(): RequestHandler {
  return (req, res, next) => {
    const state = beginRequest(res, {
      auditId: randomUUID(),
      info: requestInfoFor(req.method, req.path, queryBool(req.query.watch) ?? false),
    });
    res.setHeader('Audit-Id', state.auditId);
    next();
  };
}
