import type { RequestHandler } from 'express';
import { errors } from '../../api';
import type { Authorizer } from '../../auth/authz/authorizer';
import { authorizationAttributes } from '../../endpoints/authorization-attributes';
import { requestState } from '../../endpoints/request-state';
import { writeError } from '../../endpoints/responses';

/**
 * 403 Forbidden unless the authorizer allows (the message is kube's authorizer-denial wording).
 * Every request reaching it has a user: authentication let it through (anonymous ones as system:anonymous).
 */
export function withAuthorization(authorizer: Authorizer): RequestHandler {
  return async (req, res, next) => {
    const { user, info } = requestState(res);
    if (!user) return next();
    const d = await authorizer.authorize(authorizationAttributes(user, info));
    if (d.decision === 'allow') return next();
    const reason = d.reason ? `: ${d.reason}` : '';
    if (!info.isResourceRequest) {
      return writeError(res, errors.forbidden({ group: '', resource: '' }, '', `User "${user.name}" cannot ${info.verb} path "${req.path}"${reason}`));
    }
    const res_ = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
    const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
    writeError(
      res,
      errors.forbidden(
        { group: info.apiGroup, resource: info.resource },
        info.name,
        `User "${user.name}" cannot ${info.verb} resource "${res_}" in API group "${info.apiGroup}" ${scope}${reason}`,
      ),
    );
  };
}
