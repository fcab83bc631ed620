/**
 * kube's APIEnablementOptions (apiserver `pkg/server/options/api_enablement.go`): which built-in
 * APIs are served. Printed under "API enablement flags:". The pairs are passed on as given; what
 * they mean is decided where the APIs are installed.
 */
import type { FlagSpec } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { OptionsGroup } from './group';

/** k8s.io/component-base cliflag ConfigurationMap Set: `k=v,k2` (bare key → ''); keys and values trimmed. */
function parseConfigurationMap(value: string, into: Map<string, string>): void {
  for (const item of value.split(',')) {
    if (item.length === 0) continue;
    const eq = item.indexOf('=');
    if (eq < 0) into.set(item.trim(), '');
    else into.set(item.slice(0, eq).trim(), item.slice(eq + 1).trim());
  }
}

export class APIEnablementOptions implements OptionsGroup {
  readonly section = 'API enablement';
  readonly runtimeConfig = new Map<string, string>();

  flags(): FlagSpec[] {
    return [
      {
        name: 'runtime-config', typeName: 'mapStringString', defaultText: '',
        help: 'A set of key=value pairs that enable or disable built-in APIs (e.g. api/all=false, <group>/<version>=true).',
        set: (v) => parseConfigurationMap(v, this.runtimeConfig),
      },
    ];
  }

  validate(): string[] {
    return [];
  }

  applyTo(config: Pick<ServerConfig, 'runtimeConfig'>): void {
    config.runtimeConfig = this.runtimeConfig;
  }
}
