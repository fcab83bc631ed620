import type { RequestHandler } from 'express';
import { errors } from '../../api';
import type { Authorizer } from '../../auth/authz/authorizer';
import type { UserInfo } from '../../auth/authn/types';
import type { RequestInfo } from '../../endpoints/request-info';
import { writeError } from '../../endpoints/responses';

/** 403 Forbidden unless the authorizer allows (the message is kube's authorizer-denial wording). */
export function withAuthorization(authorizer: Authorizer): RequestHandler {
  return async (req, res, next) => {
    const user = res.locals.user as UserInfo | undefined;
    if (!user) return next();
    const info = res.locals.requestInfo as RequestInfo;
    const d = await authorizer.authorize({
      user,
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      path: req.path,
      apiGroup: info.apiGroup,
      apiVersion: info.apiVersion,
      namespace: info.namespace,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
    });
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
