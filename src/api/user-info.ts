/** The authenticated identity (kube's user.Info): produced by auth/, carried down every request. */
export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
