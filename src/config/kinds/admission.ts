/**
 * AdmissionConfiguration (`--admission-control-config-file`), read as kube-apiserver 1.32 reads it
 * (k8s.io/apiserver/pkg/admission/config.go ReadAdmissionConfiguration): `apiserver.config.k8s.io/v1`
 * and `apiserver.k8s.io/v1alpha1`, decoded strictly (kube's codec factory there is EnableStrict:
 * unknown and repeated fields are errors). It lists, per plugin name, the plugin's own
 * configuration: embedded (`configuration`, any object, which this decoder does not look into, as
 * kube keeps it a runtime.Unknown) or in a file (`path`, relative to the AdmissionConfiguration's
 * directory). Each plugin decodes its own configuration, as strictly as kube's plugin does; this
 * file only says where it is.
 *
 * kube's legacy form is kept: a file that is not an AdmissionConfiguration (no kind, or a kind not
 * registered) but holds an `imagePolicy` or `podNodeSelectorPluginConfig` key is the whole
 * configuration of ImagePolicyWebhook and PodNodeSelector (those enabled), as it was before
 * AdmissionConfiguration existed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeConfigYaml } from '../config-yaml';
import { configVersion, defineConfigKind, loadConfig, s, ConfigFileError, type ConfigSource } from '../versioned-config';

export interface AdmissionPluginConfiguration {
  name: string;
  /** Absolute (made so against the AdmissionConfiguration's directory), or '' when not given. */
  path: string;
  /** The embedded configuration, as given. */
  configuration?: unknown;
}

export interface AdmissionConfiguration {
  plugins: AdmissionPluginConfiguration[];
}

function versionShape(pkg: string) {
  return s.struct(`${pkg}.AdmissionConfiguration`, {
    plugins: s.list(
      s.struct(`${pkg}.AdmissionPluginConfiguration`, {
        name: s.string(),
        path: s.string(),
        configuration: s.raw('runtime.Unknown'),
      }),
    ),
  });
}

function toInternal(v: { plugins?: { name: string; path: string; configuration?: unknown }[] }): AdmissionConfiguration {
  return {
    plugins: (v.plugins ?? []).map((p) => ({
      name: p.name,
      path: p.path,
      ...(p.configuration === undefined || p.configuration === null ? {} : { configuration: p.configuration }),
    })),
  };
}

export const admissionConfigurationKind = defineConfigKind<AdmissionConfiguration>({
  group: 'apiserver.config.k8s.io',
  kind: 'AdmissionConfiguration',
  versions: {
    v1: configVersion(versionShape('v1'), { toInternal }),
    'apiserver.k8s.io/v1alpha1': configVersion(versionShape('v1alpha1'), { toInternal }),
  },
  internalType: '*apiserver.AdmissionConfiguration',
  // kube: `unable to read admission control configuration from "<path>" [<os error>]` for a read
  // error; a decode error comes back bare from runtime.Decode: here the file follows it.
  fileError: (p) =>
    p.stage === 'read' ? `unable to read admission control configuration from "${p.path ?? ''}" [${p.detail}]` : `${p.detail} (in "${p.path ?? ''}")`,
});

/** The plugins whose configuration was an unversioned file before AdmissionConfiguration (kube's legacy list). */
const legacyUnversionedPlugins = new Set(['ImagePolicyWebhook', 'PodNodeSelector']);

/**
 * A plugin's configuration as ConfigFor finds it, and where: `field` is the AdmissionConfiguration
 * field an embedded configuration was at (`plugins[1].configuration`), for messages.
 */
export type AdmissionConfigSource = ConfigSource & { field?: string };

/**
 * Where each plugin's configuration is (kube's ConfigProvider.ConfigFor): the embedded
 * configuration as JSON text (kube hands the plugin its raw bytes), or the plugin's file; undefined
 * when the plugin has none.
 */
export type AdmissionConfigProvider = (pluginName: string) => AdmissionConfigSource | undefined;

/** kube's "no kind / no apiVersion / not registered" decode errors, the ones that allow the legacy form. */
function isMissingOrUnregisteredKind(detail: string): boolean {
  return /^Object '(Kind|apiVersion)' is missing in /.test(detail) || /^no kind ".*" is registered for version /.test(detail);
}

/**
 * Reads `--admission-control-config-file` (kube's ReadAdmissionConfiguration). `enabledPlugins`
 * are the plugins in force, for the legacy form. Throws a ConfigFileError naming the file.
 */
export function readAdmissionConfiguration(enabledPlugins: readonly string[], file: string | undefined): AdmissionConfigProvider {
  if (!file) return () => undefined;
  let text: Buffer;
  try {
    text = readFileSync(file);
  } catch {
    // loadConfig words the read error as kube does.
    loadConfig({ path: file }, admissionConfigurationKind);
    throw new Error(`unable to read admission control configuration from "${file}"`);
  }
  let config: AdmissionConfiguration;
  try {
    config = loadConfig({ text, path: file }, admissionConfigurationKind);
  } catch (e) {
    if (!(e instanceof ConfigFileError) || e.problem.stage !== 'decode' || !isMissingOrUnregisteredKind(e.problem.detail)) throw e;
    if (!isLegacyPluginFile(text)) throw e;
    // The legacy form: the whole file configures the legacy plugins that are enabled.
    const legacy = enabledPlugins.filter((n) => legacyUnversionedPlugins.has(n));
    return (name) => (legacy.includes(name) ? { text, path: file } : undefined);
  }
  const baseDir = path.dirname(file);
  const plugins = config.plugins.map((p) => ({ ...p, path: p.path === '' ? '' : path.resolve(baseDir, p.path) }));
  return (name) => {
    // kube: the first entry naming the plugin wins.
    const i = plugins.findIndex((q) => q.name === name);
    const p = plugins[i];
    if (!p) return undefined;
    if (p.configuration !== undefined) return { text: JSON.stringify(p.configuration), path: file, field: `plugins[${i}].configuration` };
    if (p.path !== '') return { path: p.path };
    return undefined;
  };
}

/** Whether the file is a YAML/JSON map with a top-level `imagePolicy` or `podNodeSelectorPluginConfig`. */
function isLegacyPluginFile(text: Buffer): boolean {
  try {
    const doc = decodeConfigYaml(text.toString('utf8')).value as unknown;
    return !!doc && typeof doc === 'object' && !Array.isArray(doc) && ('imagePolicy' in doc || 'podNodeSelectorPluginConfig' in doc);
  } catch {
    return false;
  }
}
