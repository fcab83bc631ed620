/** authentication.k8s.io/v1 UserInfo as kube writes it: username, uid, groups, extra, each left out when empty. */
import type { UserInfo } from '../../../api';

export function userInfoObject(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (user.name) out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  const extra = Object.entries(user.extra ?? {});
  if (extra.length > 0) out.extra = Object.fromEntries(extra.map(([k, v]) => [k, [...v]]));
  return out;
}
