/**
 * The command: kube-apiserver style flags → a resolved ServerConfig. The flags are declared by the
 * options groups (options/); this file composes them as kube-apiserver's cobra command does (its
 * flag sets plus the global `-h/--help`), parses with pflag's rules (pflag.ts), reports every
 * group's validation errors at once, and lets each group fill its part of the config.
 */
import * as path from 'node:path';
import { aggregateMessages, goQuote } from '../api';
import { ApplyContext, newServerRunOptions, optionsGroups, ServerRunOptions } from './options';
import { FlagError, FlagSection, FlagSpec, parseArgs, parseGoBool, printSections } from './pflag';
import type { ServerConfig } from './server-config';

export type { ServerConfig } from './server-config';

/** The command name used in messages and usage. */
const COMMAND_NAME = 'platform-apiserver';

/** What `--help` prints above the usage (cobra's Long). */
const LONG_DESCRIPTION = `${COMMAND_NAME} serves the Kubernetes API as kube-apiserver v1.32 does, storing objects
in etcd: an etcd of yours (--etcd-servers) or one it starts under --data-dir.`;

/** Options of parseFlags. */
export interface ParseFlagsOptions {
  /** Directory relative paths are resolved against; default process.cwd(). */
  cwd?: string;
}

/** The command's own flag (cobra's and globalflag's), printed under "Global flags:". */
function helpFlag(set: (v: boolean) => void): FlagSpec {
  return {
    name: 'help', shorthand: 'h', typeName: '', defaultText: '', isBool: true,
    help: `help for ${COMMAND_NAME}`,
    set: (v) => set(parseGoBool(v)),
  };
}

/** The flag sets in the order kube's NamedFlagSets keeps them: each section where its first group stands, then global. */
function flagSections(options: ServerRunOptions, help: FlagSpec): FlagSection[] {
  const sections = new Map<string, FlagSpec[]>();
  for (const group of optionsGroups(options)) {
    const flags = sections.get(group.section) ?? [];
    flags.push(...group.flags());
    sections.set(group.section, flags);
  }
  sections.set('global', [...(sections.get('global') ?? []), help]);
  return [...sections].map(([name, flags]) => ({ name, flags }));
}

/**
 * Parses kube-apiserver style flags into a fully resolved ServerConfig (absolute paths, dependent
 * defaults filled). Throws FlagError (one line, pflag's wording) for an unknown flag, a missing value,
 * a bad int/bool/duration/IP/URL, positional arguments, or what the groups' validation finds (every
 * problem at once, as kube's aggregate). With `--help` it returns `help: true` without positional
 * checks or validation (cobra looks at help first).
 */
export function parseFlags(argv: readonly string[], opts: ParseFlagsOptions = {}): ServerConfig {
  const options = newServerRunOptions();
  let help = false;
  const sections = flagSections(options, helpFlag((v) => { help = v; }));
  const positional = parseArgs(sections.flatMap((s) => s.flags), argv);
  const groups = optionsGroups(options);
  if (!help) {
    // kube-apiserver's Args check: empty arguments are let through.
    if (positional.some((a) => a !== '')) {
      const got = `[${positional.map((a) => goQuote(a)).join(' ')}]`;
      throw new FlagError(`${goQuote(COMMAND_NAME)} does not take any arguments, got ${got}`);
    }
    const errors = groups.flatMap((g) => g.validate());
    if (errors.length > 0) throw new FlagError(aggregateMessages(errors));
  }
  const cwd = opts.cwd ?? process.cwd();
  const abs = (p: string): string => path.resolve(cwd, p);
  const ctx: ApplyContext = {
    path: abs,
    optionalPath: (p) => (p === '' ? undefined : abs(p)),
    dataDir: abs(options.standalone.dataDir),
  };
  // Every field is written by exactly one group (the unit tests check the whole shape).
  const config = { help } as ServerConfig;
  for (const group of groups) group.applyTo(config, ctx);
  return config;
}

/** The usage text as kube's cobra prints it: the usage line, then each flag set under `<Name> flags:`. */
export function usage(): string {
  const sections = flagSections(newServerRunOptions(), helpFlag(() => undefined));
  return `Usage:\n  ${COMMAND_NAME} [flags]\n${printSections(sections)}`;
}

/** What `--help` prints (cobra's help: the long description, a blank line, the usage). */
export function help(): string {
  return `${LONG_DESCRIPTION}\n\n${usage()}`;
}
