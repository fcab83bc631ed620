/**
 * An options group: the flags of one subsystem, as kube's `pkg/server/options` structs are
 * (SecureServingOptions, EtcdOptions, ...). A group holds its values with their defaults (set when
 * it is constructed, as kube's NewXOptions), declares its flags bound to them, checks them in
 * validate(), and writes its part of the resolved ServerConfig in applyTo().
 */
import type { FlagSpec } from '../pflag';
import type { ServerConfig } from '../server-config';

/**
 * kube-apiserver's flag sets, in the order its `--help` prints them (controlplane
 * `Options.AddFlags`, then the command's own). `standalone` is ours: the flags that exist because
 * this server can run on its own (embedded etcd, generated certificates, an admin kubeconfig).
 */
export type FlagSectionName =
  | 'generic'
  | 'etcd'
  | 'secure serving'
  | 'auditing'
  | 'features'
  | 'authentication'
  | 'authorization'
  | 'API enablement'
  | 'admission'
  | 'metrics'
  | 'logs'
  | 'misc'
  | 'standalone'
  | 'global';

/** What applyTo may need besides its own values. */
export interface ApplyContext {
  /** A path flag made absolute, against the command's working directory. */
  path(p: string): string;
  /** A path flag whose empty value means "not set": undefined, else absolute. */
  optionalPath(p: string): string | undefined;
  /** `--data-dir`, absolute: where generated state lives by default (certificates, kubeconfig, tokens). */
  dataDir: string;
}

export interface OptionsGroup {
  /** The `--help` section the group's flags print in (kube's flag set name). Several groups may share one. */
  readonly section: FlagSectionName;
  /** The group's flags, each bound to the value it sets (pflag's `fs.XxxVar(&o.Field, ...)`). */
  flags(): FlagSpec[];
  /** kube's Validate(): one message per problem, in kube's wording; [] when all is well. */
  validate(): string[];
  /** Writes this group's fields of the resolved config (only after validate() found nothing, or for --help). */
  applyTo(config: ServerConfig, ctx: ApplyContext): void;
}
