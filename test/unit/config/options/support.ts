/** Shared by the options group tests: parse flags into one group, apply it into an empty config. */
import * as path from 'node:path';
import type { ServerConfig } from '../../../../src/config';
import type { ApplyContext, OptionsGroup } from '../../../../src/config/options';
import { FlagError, parseArgs } from '../../../../src/config/pflag';

export const ctx: ApplyContext = {
  path: (p) => path.resolve('/srv', p),
  optionalPath: (p) => (p === '' ? undefined : path.resolve('/srv', p)),
  dataDir: '/srv/state',
};

/** Sets the group's flags from argv (pflag's rules); returns the group for chaining. */
export function parsed<G extends OptionsGroup>(group: G, ...argv: string[]): G {
  expect(parseArgs(group.flags(), argv)).toEqual([]);
  return group;
}

/** The message of the FlagError parsing argv into the group throws. */
export function valueError(group: OptionsGroup, ...argv: string[]): string {
  try {
    parseArgs(group.flags(), argv);
  } catch (e) {
    expect(e).toBeInstanceOf(FlagError);
    return (e as Error).message;
  }
  throw new Error(`expected ${argv.join(' ')} to fail`);
}

/** What the group's applyTo writes, and nothing else. */
export function applied(group: OptionsGroup): Partial<ServerConfig> {
  const config = {} as ServerConfig;
  group.applyTo(config, ctx);
  return config;
}
