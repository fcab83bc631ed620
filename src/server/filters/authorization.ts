import type { RequestHandler } from 'express';
import type { Authorizer } from '../../auth/authz/authorizer';
import { authorizationAttributes } from '../../endpoints/authorization-attributes';
import { forbiddenError } from '../../endpoints/forbidden';
import { requestState } from '../../endpoints/request-state';
import { writeError } from '../../endpoints/responses';

/**
 * 403 Forbidden unless the authorizer allows (the message is kube's authorizer-denial wording).
 * Every request reaching it has a user: authentication let it through (anonymous ones as system:anonymous).
 */
export function withAuthorization(authorizer: Authorizer): RequestHandler {
  return async (_req, res, next) => {
    const { user, info } = requestState(res);
    if (!user) return next();
    const attrs = authorizationAttributes(user, info);
    const d = await authorizer.authorize(attrs);
    if (d.decision === 'allow') return next();
    // kube's responsewriters.Forbidden: nosniff, and the message of endpoints/forbidden.ts.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    writeError(res, forbiddenError(attrs, d.reason));
  };
}
