/** kube's union authenticator: the first authenticator with an opinion wins. */
import type { Authenticator, UserInfo } from './types';

export function unionAuthenticator(authenticators: Authenticator[]): Authenticator {
  return {
    async authenticate(req): Promise<UserInfo | null> {
      for (const a of authenticators) {
        const user = await a.authenticate(req);
        if (user) return user;
      }
      return null;
    },
  };
}
