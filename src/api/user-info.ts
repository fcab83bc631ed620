/** The authenticated identity (kube's user.Info): produced by auth/, carried down every request. */
export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * What the server's authenticators make of one bearer token (a TokenReview's answer, kube's
 * authenticator.Response or error): the user and the audiences it was accepted for, or not
 * authenticated with the authenticator's reason (none when no authenticator had an opinion).
 */
export type TokenReviewResult =
  | { authenticated: true; user: UserInfo; audiences: string[] }
  | { authenticated: false; error?: string };
