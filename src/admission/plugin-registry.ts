/**
 * The admission plugin registry (kube: k8s.io/apiserver/pkg/admission/plugins.go, with the ordering
 * and enabling of k8s.io/apiserver/pkg/server/options/admission.go): plugins are registered by name
 * with a factory, and a chain is built from a list of names, always in kube's order whatever the
 * order the names come in. Unknown names, a name registered twice and a factory that fails are
 * Errors naming the plugin, meant to stop the server at startup.
 */
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
 * configuration.
 */
export type PluginFactory = (config: ConfigSource | undefined, deps: AdmissionDeps) => AdmissionPlugin | null;

/** Where the named plugin's configuration is, or undefined (kube's ConfigProvider.ConfigFor). */
export type ConfigProvider = (name: string) => ConfigSource | undefined;

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

export class Plugins {
  private readonly factories = new Map<string, PluginFactory>();
  private readonly order: readonly string[];
  private readonly rank: ReadonlyMap<string, number>;
  private readonly defaultOn: ReadonlySet<string>;

  constructor(opts: PluginsOptions = {}) {
    this.order = [...(opts.order ?? kubeAdmissionPluginOrder)];
    this.rank = new Map(this.order.map((n, i) => [n, i]));
    this.defaultOn = opts.defaultOn ?? kubeDefaultOnAdmissionPlugins;
  }

  /** Registers a plugin's factory under its name (kube: Plugins.Register). */
  register(name: string, factory: PluginFactory): void {
    if (!name) throw new Error('an admission plugin needs a name');
    if (this.factories.has(name)) throw new Error(`admission plugin "${name}" was registered twice`);
    if (!this.rank.has(name)) throw new Error(`admission plugin "${name}" has no place in the plugin order`);
    this.factories.set(name, factory);
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
      if (!this.factories.has(name)) throw new Error(`unknown admission plugin: ${name}`);
      out.add(name);
    }
    return [...out].sort((a, b) => (this.rank.get(a) ?? 0) - (this.rank.get(b) ?? 0));
  }

  /**
   * The registered plugins that are on, in plugin order (kube: AdmissionOptions.enabledPluginNames
   * after AdmissionOptions.Validate): the default-on ones, plus `enable`, minus `disable`. Naming an
   * unregistered plugin, or one plugin in both lists, is an Error.
   */
  enabledPluginNames(opts: EnableOptions = {}): string[] {
    const enable = new Set(opts.enable ?? []);
    const disable = new Set(opts.disable ?? []);
    const problems: string[] = [];
    for (const n of enable) if (!this.factories.has(n)) problems.push(`enable-admission-plugins plugin "${n}" is unknown`);
    for (const n of disable) if (!this.factories.has(n)) problems.push(`disable-admission-plugins plugin "${n}" is unknown`);
    const both = [...enable].filter((n) => disable.has(n)).sort();
    if (both.length) problems.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
    if (problems.length) throw new Error(problems.join('; '));
    return this.order.filter((n) => this.factories.has(n) && (enable.has(n) || (this.defaultOn.has(n) && !disable.has(n))));
  }

  /**
   * Builds the chain of the named plugins, in plugin order whatever the order of `names` (kube:
   * Plugins.NewFromPlugins): each factory gets its plugin's configuration and the dependencies.
   */
  newFromPlugins(names: Iterable<string>, configFor: ConfigProvider | Readonly<Record<string, ConfigSource>> = {}, deps: AdmissionDeps = {}): AdmissionChain {
    const configOf: ConfigProvider = typeof configFor === 'function' ? configFor : (n) => (Object.hasOwn(configFor, n) ? configFor[n] : undefined);
    const plugins: AdmissionPlugin[] = [];
    for (const name of this.ordered(names)) {
      const factory = this.factories.get(name) as PluginFactory;
      let plugin: AdmissionPlugin | null;
      try {
        plugin = factory(configOf(name), deps);
      } catch (e) {
        throw new Error(`couldn't init admission plugin "${name}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      if (!plugin) continue;
      if (plugin.name !== name) throw new Error(`admission plugin "${name}" was built with the name "${plugin.name}"`);
      plugins.push(plugin);
    }
    return new AdmissionChain(plugins);
  }
}
