/**
 * kube's FeatureOptions (apiserver `pkg/server/options/feature.go`): `--profiling`,
 * `--contention-profiling`, `--debug-socket-path`. Printed under "Features flags:". None yet.
 * `--feature-gates` is not here: kube registers it with the generic flags (generic.ts).
 */
import type { FlagSpec } from '../pflag';
import type { OptionsGroup } from './group';

export class FeatureOptions implements OptionsGroup {
  readonly section = 'features';

  flags(): FlagSpec[] {
    return [];
  }

  validate(): string[] {
    return [];
  }

  applyTo(): void {}
}
