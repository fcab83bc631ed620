/**
 * Combining authenticators as kube does (k8s.io/apiserver/pkg/authentication/request/union):
 * the first to recognise the request wins; when none does, an error any of them raised fails the
 * request (a 401), else there is no user. `failOnError` puts the anonymous authenticator behind
 * the rest: a request whose credential is bad is refused, never let in as anonymous.
 */
import type { Authenticator, UserInfo } from './types';

/** kube's union.New: tried in order; the first user wins; errors only count when nobody answered. */
export function unionAuthenticator(...authenticators: Authenticator[]): Authenticator {
  return {
    authenticate: async (req) => {
      let firstError: unknown;
      for (const a of authenticators) {
        let user: UserInfo | null;
        try {
          user = await a.authenticate(req);
        } catch (e) {
          firstError ??= e;
          continue;
        }
        if (user) return user;
      }
      if (firstError !== undefined) throw firstError;
      return null;
    },
  };
}

/** kube's union.NewFailOnError: `fallback` is asked only when `primary` had no opinion and no error. */
export function failOnError(primary: Authenticator, fallback: Authenticator): Authenticator {
  return {
    authenticate: async (req) => (await primary.authenticate(req)) ?? fallback.authenticate(req),
  };
}
