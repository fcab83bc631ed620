/**
 * The admission plugin registry (kube: k8s.io/apiserver/pkg/admission/plugins.go, with the ordering
 * and enabling of k8s.io/apiserver/pkg/server/options/admission.go): plugins are registered by name
 * with a factory, and a chain is built from a list of names, always in kube's order whatever the
 * order the names come in. Unknown names, a name registered twice and a factory that fails are
 * Errors naming the plugin, meant to stop the server at startup.
 *
 * Messages are kube's. Where kube's leave it out, a factory's error is followed by where the
 * plugin's configuration came from, `(in "<file>" at <field>)`: the AdmissionConfiguration entry
 * (`plugins[1].configuration`) or the plugin's own file, and the field a PluginConfigError names.
 * A name kube-apiserver 1.32 has but this server does not implement is told apart from an unknown one.
 */
import { aggregateMessages } from '../api';
import { readAdmissionConfiguration, type AdmissionConfigSource } from '../config/kinds/admission';
import type { ConfigSource } from '../config/versioned-config';
import type { AdmissionDeps } from './deps';
import { AdmissionChain, AdmissionPlugin } from './interface';
import { kubeAdmissionPluginOrder, kubeDefaultOnAdmissionPlugins } from './plugin-order';

/**
 * Builds one plugin. `config` says where the plugin's own configuration is, as kube hands a plugin
 * an io.Reader: the embedded `configuration` of its AdmissionConfiguration entry as JSON text, or
 * the file at its `path` (config/kinds/admission.ts); undefined when there is none. The plugin
 * decodes it itself (`loadConfig(config, itsKind)`); a factory that takes none ignores it. Returns
 * null when the plugin stays inactive (e.g. behind a feature gate); throws to refuse the
 * configuration (a PluginConfigError to name the field at fault).
 */
export type PluginFactory = (config: ConfigSource | undefined, deps: AdmissionDeps) => AdmissionPlugin | null;

/**
 * A plugin made in kube's two steps. `readConfig` is what kube's factory does with the plugin's
 * configuration (decode, validate, load the files it names; throws as a PluginFactory does): the
 * registry runs it in `configure`, before anything starts, so a refused configuration stops the
 * start before etcd is reached. `build` makes the plugin from what it returned and the server's
 * dependencies (kube's initializers), once the server exists. A plugin that reads a configuration
 * registers this form.
 */
export interface StagedPluginFactory<C> {
  readConfig(config: ConfigSource | undefined): C;
  build(config: C, deps: AdmissionDeps): AdmissionPlugin | null;
}

/** Where the named plugin's configuration is, or undefined (kube's ConfigProvider.ConfigFor). */
export type ConfigProvider = (name: string) => ConfigSource | undefined;

/**
 * A factory's refusal of one field of its configuration (`imagePolicy.allowTTL`), for a kube
 * message that does not name it: the registry adds the field to the message's location.
 */
export class PluginConfigError extends Error {
  override readonly name: string = 'PluginConfigError';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface PluginsOptions {
  /** The order plugins run in; every registered name must be in it (default: kube v1.32's). */
  order?: readonly string[];
  /** The plugins on when neither enabled nor disabled by name (default: kube v1.32's). */
  defaultOn?: ReadonlySet<string>;
}

export interface EnableOptions {
  /** kube's --enable-admission-plugins: on in addition to the defaults. */
  enable?: readonly string[];
  /** kube's --disable-admission-plugins: off although on by default. */
  disable?: readonly string[];
}

/** kube's AdmissionOptions: the plugin flags and --admission-control-config-file. */
export interface AdmissionSettings extends EnableOptions {
  /** An AdmissionConfiguration (config/kinds/admission.ts). */
  configFile?: string;
}

/** What the plugins are, where their configurations are and what each plugin read of its own (Plugins.configure). */
export interface AdmissionSetup {
  /** The enabled plugins, in plugin order. */
  names: string[];
  configFor: ConfigProvider;
  /** What each enabled plugin's `readConfig` returned (a plain factory's: its ConfigSource). */
  configs: ReadonlyMap<string, unknown>;
}

const kubePlugins: ReadonlySet<string> = new Set(kubeAdmissionPluginOrder);

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * `(in "<file>" at <field>)` after a factory's message: the file the plugin's configuration came
 * from and the field within it, when there is a source and the message does not name the file.
 */
function located(message: string, source: ConfigSource | undefined, e: unknown): string {
  if (!source?.path) return message;
  const field = e instanceof PluginConfigError ? e.field : undefined;
  const at = [(source as AdmissionConfigSource).field, field].filter((f) => f).join('.');
  if (message.includes(source.path)) return at ? `${message} (at ${at})` : message;
  return `${message} (in "${source.path}"${at ? ` at ${at}` : ''})`;
}

/** A plain factory as the staged form: it reads nothing ahead and gets its source when built. */
function staged(factory: PluginFactory | StagedPluginFactory<unknown>): StagedPluginFactory<unknown> {
  if (typeof factory !== 'function') return factory;
  return { readConfig: (config) => config, build: (config, deps) => factory(config as ConfigSource | undefined, deps) };
}

export class Plugins {
  private readonly factories = new Map<string, StagedPluginFactory<unknown>>();
  private readonly order: readonly string[];
  private readonly rank: ReadonlyMap<string, number>;
  private readonly defaultOn: ReadonlySet<string>;

  constructor(opts: PluginsOptions = {}) {
    this.order = [...(opts.order ?? kubeAdmissionPluginOrder)];
    this.rank = new Map(this.order.map((n, i) => [n, i]));
    this.defaultOn = opts.defaultOn ?? kubeDefaultOnAdmissionPlugins;
  }

  /** Registers a plugin's factory under its name (kube: Plugins.Register). */
  register<C>(name: string, factory: PluginFactory | StagedPluginFactory<C>): void {
    if (!name) throw new Error('an admission plugin needs a name');
    if (this.factories.has(name)) throw new Error(`admission plugin "${name}" was registered twice`);
    if (!this.rank.has(name)) throw new Error(`admission plugin "${name}" has no place in the plugin order`);
    this.factories.set(name, staged(factory as PluginFactory | StagedPluginFactory<unknown>));
  }

  /** The registered names, sorted (kube: Plugins.Registered). */
  registered(): string[] {
    return [...this.factories.keys()].sort();
  }

  isRegistered(name: string): boolean {
    return this.factories.has(name);
  }

  /**
   * The given names in plugin order, each once; empty names are skipped (kube: "no admission plugin
   * specified"); an unregistered name is an Error.
   */
  ordered(names: Iterable<string>): string[] {
    const out = new Set<string>();
    for (const name of names) {
      if (!name) continue;
      if (!this.factories.has(name)) throw new Error(kubePlugins.has(name) ? `admission plugin "${name}" ${this.notImplemented()}` : `unknown admission plugin: ${name}`);
      out.add(name);
    }
    return [...out].sort((a, b) => (this.rank.get(a) ?? 0) - (this.rank.get(b) ?? 0));
  }

  /** The end of the message for a plugin kube-apiserver has and this server does not. */
  private notImplemented(): string {
    return `is a kube-apiserver plugin this server does not implement (it has: ${this.registered().join(', ')})`;
  }

  /**
   * The registered plugins that are on, in plugin order (kube: AdmissionOptions.enabledPluginNames
   * after AdmissionOptions.Validate): the default-on ones, plus `enable`, minus `disable`. Naming an
   * unregistered plugin, or one plugin in both lists, is an Error with kube's messages, all of them
   * as kube's aggregate (`[a, b]`); a plugin kube-apiserver has but this server does not is said to
   * be so. Disabling such a plugin is accepted: it is off, as asked.
   */
  enabledPluginNames(opts: EnableOptions = {}): string[] {
    const enable = new Set(opts.enable ?? []);
    const disable = new Set(opts.disable ?? []);
    const problems: string[] = [];
    for (const n of enable) {
      if (this.factories.has(n)) continue;
      problems.push(`enable-admission-plugins plugin "${n}" ${kubePlugins.has(n) ? this.notImplemented() : 'is unknown'}`);
    }
    for (const n of disable) if (!this.factories.has(n) && !kubePlugins.has(n)) problems.push(`disable-admission-plugins plugin "${n}" is unknown`);
    const both = [...enable].filter((n) => disable.has(n)).sort();
    if (both.length) problems.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
    if (problems.length) throw new Error(aggregateMessages(problems));
    return this.order.filter((n) => this.factories.has(n) && (enable.has(n) || (this.defaultOn.has(n) && !disable.has(n))));
  }

  /**
   * kube's AdmissionOptions.Validate and ApplyTo up to the plugins' dependencies, everything that
   * can be judged before anything starts: the enabled plugins (flag errors as enabledPluginNames
   * words them), where each one's configuration is (`failed to apply admission: failed to read
   * plugin config: …` when the AdmissionConfiguration cannot be read), and each plugin's own
   * reading of it (`failed to apply admission: couldn't init admission plugin "<name>": …`).
   */
  configure(opts: AdmissionSettings = {}): AdmissionSetup {
    const names = this.enabledPluginNames(opts);
    let configFor: ConfigProvider;
    try {
      configFor = readAdmissionConfiguration(names, opts.configFile);
    } catch (e) {
      throw new Error(`failed to apply admission: failed to read plugin config: ${errorMessage(e)}`, { cause: e });
    }
    const configs = new Map<string, unknown>();
    try {
      for (const name of names) configs.set(name, this.readConfig(name, configFor(name)));
    } catch (e) {
      throw new Error(`failed to apply admission: ${errorMessage(e)}`, { cause: e });
    }
    return { names, configFor, configs };
  }

  /**
   * kube's AdmissionOptions.ApplyTo: `configure`, then the chain of the enabled plugins, its errors
   * after kube's `failed to apply admission: `.
   */
  apply(opts: AdmissionSettings = {}, deps: AdmissionDeps = {}): AdmissionChain {
    return this.applyConfigured(this.configure(opts), deps);
  }

  /**
   * The chain of a setup `configure` returned (on this registry, or one with the same plugins
   * registered): the configurations are not read again. Errors as `apply`'s.
   */
  applyConfigured(setup: AdmissionSetup, deps: AdmissionDeps = {}): AdmissionChain {
    try {
      return this.chainOf(this.ordered(setup.names).map((name) => [name, setup.configs.get(name), setup.configFor(name)]), deps);
    } catch (e) {
      throw new Error(`failed to apply admission: ${errorMessage(e)}`, { cause: e });
    }
  }

  /**
   * Builds the chain of the named plugins, in plugin order whatever the order of `names` (kube:
   * Plugins.NewFromPlugins): each factory reads its plugin's configuration and gets the dependencies.
   */
  newFromPlugins(names: Iterable<string>, configFor: ConfigProvider | Readonly<Record<string, ConfigSource>> = {}, deps: AdmissionDeps = {}): AdmissionChain {
    const configOf: ConfigProvider = typeof configFor === 'function' ? configFor : (n) => (Object.hasOwn(configFor, n) ? configFor[n] : undefined);
    return this.chainOf(
      this.ordered(names).map((name) => {
        const source = configOf(name);
        return [name, this.readConfig(name, source), source];
      }),
      deps,
    );
  }

  /** A plugin's factory run on its configuration; errors as kube's `couldn't init admission plugin`. */
  private readConfig(name: string, source: ConfigSource | undefined): unknown {
    try {
      return (this.factories.get(name) as StagedPluginFactory<unknown>).readConfig(source);
    } catch (e) {
      throw new Error(`couldn't init admission plugin "${name}": ${located(errorMessage(e), source, e)}`, { cause: e });
    }
  }

  /** The chain of plugins already ordered, each built from what it read of its configuration (from `source`). */
  private chainOf(entries: Array<[name: string, config: unknown, source: ConfigSource | undefined]>, deps: AdmissionDeps): AdmissionChain {
    const plugins: AdmissionPlugin[] = [];
    for (const [name, config, source] of entries) {
      let plugin: AdmissionPlugin | null;
      try {
        plugin = (this.factories.get(name) as StagedPluginFactory<unknown>).build(config, deps);
      } catch (e) {
        throw new Error(`couldn't init admission plugin "${name}": ${located(errorMessage(e), source, e)}`, { cause: e });
      }
      if (!plugin) continue;
      if (plugin.name !== name) throw new Error(`admission plugin "${name}" was built with the name "${plugin.name}"`);
      plugins.push(plugin);
    }
    return new AdmissionChain(plugins);
  }
}
