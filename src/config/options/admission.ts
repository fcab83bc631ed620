/**
 * kube's AdmissionOptions (kubernetes `pkg/kubeapiserver/options/admission.go` over apiserver's):
 * `--enable-admission-plugins`, `--disable-admission-plugins`, `--admission-control-config-file`.
 * Printed under "Admission flags:". None yet: the plugins run on kube's defaults.
 */
import type { FlagSpec } from '../pflag';
import type { OptionsGroup } from './group';

export class AdmissionOptions implements OptionsGroup {
  readonly section = 'admission';

  flags(): FlagSpec[] {
    return [];
  }

  validate(): string[] {
    return [];
  }

  applyTo(): void {}
}
