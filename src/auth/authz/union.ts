/**
 * Combining authorizers as kube does (k8s.io/apiserver/pkg/authorization/union): asked in order,
 * the first that allows or denies decides; when every one has no opinion the request is not
 * allowed, with their reasons joined as kube joins them.
 */
import type { Authorizer, Decision } from './authorizer';

export function unionAuthorizer(...authorizers: Authorizer[]): Authorizer {
  return {
    authorize: async (attrs) => {
      const reasons: string[] = [];
      for (const a of authorizers) {
        const d: Decision = await a.authorize(attrs);
        if (d.decision !== 'no-opinion') return d;
        if (d.reason) reasons.push(d.reason);
      }
      return reasons.length ? { decision: 'no-opinion', reason: reasons.join('\n') } : { decision: 'no-opinion' };
    },
  };
}
