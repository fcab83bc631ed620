/**
 * The flags kube-apiserver declares itself rather than in a shared options struct (controlplane
 * `Options.AddFlags`, flag set "misc"). Printed under "Misc flags:".
 */
import type { FlagSpec } from '../pflag';
import { parseDurationValue } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { OptionsGroup } from './group';

export class MiscOptions implements OptionsGroup {
  readonly section = 'misc';
  /** kube's EventTTL default, 1h. */
  eventTtlMs = 3_600_000;

  flags(): FlagSpec[] {
    return [
      {
        name: 'event-ttl', typeName: 'duration', defaultText: '1h0m0s',
        help: 'Amount of time to retain events.',
        set: (v) => { this.eventTtlMs = parseDurationValue(v); },
      },
    ];
  }

  validate(): string[] {
    return this.eventTtlMs <= 0 ? ['--event-ttl must be greater than 0'] : [];
  }

  applyTo(config: Pick<ServerConfig, 'eventTtlSeconds'>): void {
    // kube passes uint64(EventTTL.Seconds()): whole seconds.
    config.eventTtlSeconds = Math.floor(this.eventTtlMs / 1000);
  }
}
