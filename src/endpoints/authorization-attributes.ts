/**
 * The one place a request's authorization attributes are derived (kube's
 * GetAuthorizerAttributes): the authorization filter, the impersonation filter and every check a
 * handler makes on its own (a verb such as `unsafe-delete-ignore-read-errors`) ask the authorizer
 * with these.
 */
import type { UserInfo } from '../api/user-info';
import type { AuthorizationAttributes } from '../auth';
import type { RequestInfo } from './request-info';

/**
 * What an authorization check names: a request's RequestInfo, or a record of its own such as the
 * impersonation filter's `impersonate` checks on users, groups, service accounts, uids and userextras.
 */
export type AttributesSource = Pick<
  RequestInfo,
  'isResourceRequest' | 'path' | 'verb' | 'apiGroup' | 'apiVersion' | 'namespace' | 'resource' | 'subresource' | 'name'
>;

/** The attributes of `info` for `user`; `overrides` for a check of another verb or subresource on the same object. */
export function authorizationAttributes(
  user: UserInfo,
  info: AttributesSource,
  overrides: Partial<Pick<AuthorizationAttributes, 'verb' | 'subresource'>> = {},
): AuthorizationAttributes {
  return {
    user,
    verb: overrides.verb ?? info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    namespace: info.namespace,
    resource: info.resource,
    subresource: overrides.subresource ?? info.subresource,
    name: info.name,
  };
}
