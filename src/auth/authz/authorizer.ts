/** Authorization: the slot every request passes after authentication (RBAC and webhooks come later). */
import type { UserInfo } from '../authn/types';

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

/** An authorizer's answer (kube's DecisionAllow / DecisionDeny / DecisionNoOpinion) and why. */
export type Decision = { decision: 'allow' | 'deny' | 'no-opinion'; reason?: string };

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<Decision>;
}

/** Every authenticated request is allowed until RBAC lands (kube's AlwaysAllow mode). */
export const alwaysAllow: Authorizer = {
  authorize: async () => ({ decision: 'allow' }),
};

/** kube's AlwaysDeny mode. */
export const alwaysDeny: Authorizer = {
  authorize: async () => ({ decision: 'deny' }),
};
