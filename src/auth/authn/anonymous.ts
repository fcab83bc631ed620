/**
 * The anonymous authenticator (k8s.io/apiserver/pkg/authentication/request/anonymous): a request
 * no other authenticator claimed is `system:anonymous` in group `system:unauthenticated`, for the
 * authorizer to judge. `allows` plays the part of kube's AuthenticationConfiguration
 * `anonymous.conditions`: a request to another path gets no user (a 401).
 */
import { SYSTEM_ANONYMOUS, SYSTEM_UNAUTHENTICATED, type Authenticator, type UserInfo } from './types';

export interface AnonymousOptions {
  /** Which paths anonymous requests may reach; absent: every path. */
  allows?: (path: string) => boolean;
}

/**
 * The paths this server answers without credentials by default: health checks (with their
 * sub-checks) and /version, what kube's system:public-info-viewer role grants everyone.
 */
export function publicInfoPath(path: string): boolean {
  return /^\/(healthz|livez|readyz)(\/.*)?$/.test(path) || /^\/version\/?$/.test(path);
}

/** The one anonymous user every such request shares (frozen: nothing below may change it). */
const anonymousUser: UserInfo = Object.freeze({ name: SYSTEM_ANONYMOUS, uid: '', groups: Object.freeze([SYSTEM_UNAUTHENTICATED]) as string[] });

export function anonymousAuthenticator(opts: AnonymousOptions = {}): Authenticator {
  const { allows } = opts;
  return {
    authenticate: async (req) => (allows && !allows(req.path ?? '') ? null : anonymousUser),
  };
}

/**
 * ApiServerOptions.anonymous for `--anonymous-auth`: unset keeps the server's default (health
 * checks and /version only), true lets every path in for the authorizer to judge (kube's
 * behaviour), false turns the anonymous authenticator off.
 */
export function anonymousForFlag(allow: boolean | undefined): AnonymousOptions | false | undefined {
  if (allow === undefined) return undefined;
  return allow ? {} : false;
}
