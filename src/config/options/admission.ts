/**
 * kube's AdmissionOptions (kubernetes `pkg/kubeapiserver/options/admission.go` over apiserver's):
 * `--enable-admission-plugins`, `--disable-admission-plugins`, `--admission-control-config-file`,
 * with kube's names and meanings. Printed under "Admission flags:". Whether a name is a plugin this
 * server has is checked before anything starts, with the registry (admission/plugin-registry.ts,
 * kube's messages; config/ cannot see the plugins), which stops the start.
 */
import { type FlagSpec, FlagValueError, parseGoInt } from '../pflag';
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
        help: "Admission plugins that should be disabled although they are in the default enabled plugins list (NamespaceLifecycle, ServiceAccount, Priority, DefaultTolerationSeconds, MutatingAdmissionWebhook, ValidatingAdmissionWebhook, ResourceQuota here). The order of plugins in this flag does not matter. Comma-delimited list of: DefaultTolerationSeconds, EventRateLimit, ImagePolicyWebhook, MutatingAdmissionWebhook, NamespaceLifecycle, Priority, ResourceQuota, ServiceAccount, ValidatingAdmissionWebhook; kube-apiserver's other plugins (PodSecurity, LimitRanger, ...) are accepted too, as they are off here anyway.",
        set: (v) => { this.disablePlugins = appendSlice(this.disablePlugins, v); },
      },
      {
        name: 'enable-admission-plugins', typeName: 'strings', defaultText: '',
        help: 'Admission plugins that should be enabled in addition to default enabled ones (NamespaceLifecycle, ServiceAccount, Priority, DefaultTolerationSeconds, MutatingAdmissionWebhook, ValidatingAdmissionWebhook, ResourceQuota here). The order of plugins in this flag does not matter. Comma-delimited list of: DefaultTolerationSeconds, EventRateLimit, ImagePolicyWebhook, MutatingAdmissionWebhook, NamespaceLifecycle, Priority, ResourceQuota, ServiceAccount, ValidatingAdmissionWebhook.',
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

/**
 * Go's flag.Int64 (kube registers both toleration flags on Go's flag set, in
 * plugin/pkg/admission/defaulttolerationseconds): strconv.ParseInt(s, 0, 64), its error reduced to
 * Go flag's own words.
 */
function parseGoFlagInt64(v: string): number {
  try {
    return parseGoInt(v, 0, 64);
  } catch (e) {
    if (e instanceof FlagValueError) throw new FlagValueError(e.message.endsWith('value out of range') ? 'value out of range' : 'parse error');
    throw e;
  }
}

/**
 * The DefaultTolerationSeconds plugin's two flags. kube-apiserver adds them (AddCustomGlobalFlags,
 * cmd/kube-apiserver/app/options/globalflags.go) to its "generic" flag set, so they print under
 * "Generic flags:"; type `int`, as pflag shows a Go int64 flag. Not validated, as in kube.
 */
export class DefaultTolerationSecondsOptions implements OptionsGroup {
  readonly section = 'generic';
  notReadySeconds = 300;
  unreachableSeconds = 300;

  flags(): FlagSpec[] {
    return [
      {
        name: 'default-not-ready-toleration-seconds', typeName: 'int', defaultText: '300',
        help: 'The tolerationSeconds of the node.kubernetes.io/not-ready:NoExecute toleration given to every pod that does not already tolerate that taint.',
        set: (v) => { this.notReadySeconds = parseGoFlagInt64(v); },
      },
      {
        name: 'default-unreachable-toleration-seconds', typeName: 'int', defaultText: '300',
        help: 'The tolerationSeconds of the node.kubernetes.io/unreachable:NoExecute toleration given to every pod that does not already tolerate that taint.',
        set: (v) => { this.unreachableSeconds = parseGoFlagInt64(v); },
      },
    ];
  }

  validate(): string[] {
    return [];
  }

  applyTo(config: Pick<ServerConfig, 'defaultNotReadyTolerationSeconds' | 'defaultUnreachableTolerationSeconds'>): void {
    config.defaultNotReadyTolerationSeconds = this.notReadySeconds;
    config.defaultUnreachableTolerationSeconds = this.unreachableSeconds;
  }
}
