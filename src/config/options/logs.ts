/**
 * kube's logs Options (component-base `logs/api/v1`): verbosity. Printed under "Logs flags:".
 */
import type { FlagSpec } from '../pflag';
import { parseGoInt } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { OptionsGroup } from './group';

export class LogsOptions implements OptionsGroup {
  readonly section = 'logs';
  verbosity = 0;

  flags(): FlagSpec[] {
    return [
      {
        name: 'v', shorthand: 'v', typeName: 'Level', defaultText: '',
        help: 'number for the log level verbosity',
        // klog's Level.Set: strconv.ParseInt(value, 10, 32).
        set: (v) => { this.verbosity = parseGoInt(v, 10, 32); },
      },
    ];
  }

  validate(): string[] {
    return [];
  }

  applyTo(config: Pick<ServerConfig, 'verbosity'>): void {
    config.verbosity = this.verbosity;
  }
}
