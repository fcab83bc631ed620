import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { requestInfoFor } from '../../endpoints/request-info';
import { queryBool } from '../../endpoints/query-bool';
import { beginRequest } from '../../endpoints/request-state';

/** The request's typed state (endpoints/request-state.ts): its id (sent as Audit-Id), received time and RequestInfo. */
export function withRequestInfo(): RequestHandler {
  return (req, res, next) => {
    // kube's WithAuditInit: a client's own Audit-ID is kept (and sent back), else a new one.
    const given = req.headers['audit-id'];
    const state = beginRequest(res, {
      auditId: typeof given === 'string' && given !== '' ? given : randomUUID(),
      info: requestInfoFor(req.method, req.path, queryBool(req.query.watch) ?? false),
    });
    res.setHeader('Audit-Id', state.auditId);
    // kube's WithCacheControl: no response of the API is cached.
    res.setHeader('Cache-Control', 'no-cache, private');
    next();
  };
}
