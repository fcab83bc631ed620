/** The request context the in-process controllers and informers call the registry with. */
import type { RequestContext } from '../registry';

/**
 * A fresh context per call (registry calls may append warnings to it), acting as `user` in `groups`,
 * as kube-controller-manager's controllers act under their own service accounts.
 */
export function controllerContext(user: string, groups: string[], namespace = ''): RequestContext {
  return { namespace, warnings: [], dryRun: false, now: () => new Date(), user: { name: user, uid: '', groups } };
}
