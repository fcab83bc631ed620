/**
 * kube's metrics Options (component-base `metrics/options.go`): `--show-hidden-metrics-for-version`,
 * `--disabled-metrics`, `--allow-metric-labels`. Printed under "Metrics flags:". None yet.
 */
import type { FlagSpec } from '../pflag';
import type { OptionsGroup } from './group';

export class MetricsOptions implements OptionsGroup {
  readonly section = 'metrics';

  flags(): FlagSpec[] {
    return [];
  }

  validate(): string[] {
    return [];
  }

  applyTo(): void {}
}
