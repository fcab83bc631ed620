/**
 * Encryption at rest. kube declares `--encryption-provider-config` and
 * `--encryption-provider-config-automatic-reload` in its EtcdOptions, so they print under
 * "Etcd flags:"; here they get a group of their own in the same section. None yet.
 */
import type { FlagSpec } from '../pflag';
import type { OptionsGroup } from './group';

export class EncryptionOptions implements OptionsGroup {
  readonly section = 'etcd';

  flags(): FlagSpec[] {
    return [];
  }

  validate(): string[] {
    return [];
  }

  applyTo(): void {}
}
