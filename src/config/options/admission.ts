/**
 * kube's AdmissionOptions (kubernetes `pkg/kubeapiserver/options/admission.go` over apiserver's):
 * `--enable-admission-plugins`, `--disable-admission-plugins`, `--admission-control-config-file`,
 * with kube's names and meanings. Printed under "Admission flags:". Whether a name is a plugin this
 * server has is checked before anything starts, with the registry (admission/plugin-registry.ts,
 * kube's messages; config/ cannot see the plugins), which stops the start.
 */
import type { FlagSpec } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { ApplyContext, OptionsGroup } from './group';

/** pflag's StringSlice: the first occurrence replaces the default, later ones append. */
function appendSlice(list: string[], v: string): string[] {
  return [...list, ...(v === '' ? [] : v.split(','))];
}

export class AdmissionOptions implements OptionsGroup {
  readonly section = 'admission';
  enablePlugins: string[] = [];
  disablePlugins: string[] = [];
  configFile = '';

  flags(): FlagSpec[] {
    return [
      {
        name: 'admission-control-config-file', typeName: 'string', defaultText: '',
        help: 'File with admission control configuration: an AdmissionConfiguration (apiserver.config.k8s.io/v1 or apiserver.k8s.io/v1alpha1) giving each plugin its configuration, embedded or by path.',
        set: (v) => { this.configFile = v; },
      },
      {
        name: 'disable-admission-plugins', typeName: 'strings', defaultText: '',
        help: "Admission plugins that should be disabled although they are in the default enabled plugins list (NamespaceLifecycle, ServiceAccount, MutatingAdmissionWebhook, ValidatingAdmissionWebhook, ResourceQuota here). The order of plugins in this flag does not matter. Comma-delimited list of: EventRateLimit, ImagePolicyWebhook, MutatingAdmissionWebhook, NamespaceLifecycle, ResourceQuota, ServiceAccount, ValidatingAdmissionWebhook; kube-apiserver's other plugins (PodSecurity, LimitRanger, ...) are accepted too, as they are off here anyway.",
        set: (v) => { this.disablePlugins = appendSlice(this.disablePlugins, v); },
      },
      {
        name: 'enable-admission-plugins', typeName: 'strings', defaultText: '',
        help: 'Admission plugins that should be enabled in addition to default enabled ones (NamespaceLifecycle, ServiceAccount, MutatingAdmissionWebhook, ValidatingAdmissionWebhook, ResourceQuota here). The order of plugins in this flag does not matter. Comma-delimited list of: EventRateLimit, ImagePolicyWebhook, MutatingAdmissionWebhook, NamespaceLifecycle, ResourceQuota, ServiceAccount, ValidatingAdmissionWebhook.',
        set: (v) => { this.enablePlugins = appendSlice(this.enablePlugins, v); },
      },
    ];
  }

  /** kube's AdmissionOptions.Validate, for what needs no registry: one name in both lists. */
  validate(): string[] {
    const disabled = new Set(this.disablePlugins);
    const both = [...new Set(this.enablePlugins)].filter((n) => disabled.has(n)).sort();
    return both.length ? [`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`] : [];
  }

  applyTo(config: Pick<ServerConfig, 'enableAdmissionPlugins' | 'disableAdmissionPlugins' | 'admissionControlConfigFile'>, ctx: ApplyContext): void {
    config.enableAdmissionPlugins = [...this.enablePlugins];
    config.disableAdmissionPlugins = [...this.disablePlugins];
    config.admissionControlConfigFile = ctx.optionalPath(this.configFile);
  }
}
