/**
 * kube's AuditOptions (apiserver `pkg/server/options/audit.go`): the audit policy and where events go
 * (`--audit-policy-file`, `--audit-log-*`, `--audit-webhook-*`). Printed under "Auditing flags:". None yet.
 */
import type { FlagSpec } from '../pflag';
import type { OptionsGroup } from './group';

export class AuditOptions implements OptionsGroup {
  readonly section = 'auditing';

  flags(): FlagSpec[] {
    return [];
  }

  validate(): string[] {
    return [];
  }

  applyTo(): void {}
}
