/**
 * kube's BuiltInAuthorizationOptions (kubernetes `pkg/kubeapiserver/options/authorization.go`):
 * `--authorization-mode`, `--authorization-config`, the webhook settings. Printed under
 * "Authorization flags:". None yet: every request is allowed (AlwaysAllow).
 */
import type { FlagSpec } from '../pflag';
import type { OptionsGroup } from './group';

export class BuiltInAuthorizationOptions implements OptionsGroup {
  readonly section = 'authorization';

  flags(): FlagSpec[] {
    return [];
  }

  validate(): string[] {
    return [];
  }

  applyTo(): void {}
}
