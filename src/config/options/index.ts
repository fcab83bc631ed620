/**
 * The server's options groups, composed in one place (kube's controlplane `Options` struct and its
 * AddFlags). A new group is one file here and one line in newServerRunOptions().
 */
import type { OptionsGroup } from './group';
import { AdmissionOptions, DefaultTolerationSecondsOptions } from './admission';
import { APIEnablementOptions } from './api-enablement';
import { AuditOptions } from './audit';
import { BuiltInAuthenticationOptions } from './authentication';
import { BuiltInAuthorizationOptions } from './authorization';
import { EncryptionOptions } from './encryption';
import { EtcdOptions } from './etcd';
import { FeatureOptions } from './features';
import { GenericServerRunOptions } from './generic';
import { LogsOptions } from './logs';
import { MetricsOptions } from './metrics';
import { MiscOptions } from './misc';
import { SecureServingOptions } from './serving';
import { StandaloneOptions } from './standalone';

export type { ApplyContext, FlagSectionName, OptionsGroup } from './group';
export {
  AdmissionOptions,
  DefaultTolerationSecondsOptions,
  APIEnablementOptions,
  AuditOptions,
  BuiltInAuthenticationOptions,
  BuiltInAuthorizationOptions,
  EncryptionOptions,
  EtcdOptions,
  FeatureOptions,
  GenericServerRunOptions,
  LogsOptions,
  MetricsOptions,
  MiscOptions,
  SecureServingOptions,
  StandaloneOptions,
};

/**
 * Every group with its defaults, in kube-apiserver's AddFlags order. That order is the order of
 * the `--help` sections (a section prints where its first group stands), of validation messages,
 * and of applyTo.
 */
export function newServerRunOptions() {
  return {
    generic: new GenericServerRunOptions(),
    etcd: new EtcdOptions(),
    encryption: new EncryptionOptions(),
    secureServing: new SecureServingOptions(),
    audit: new AuditOptions(),
    features: new FeatureOptions(),
    authentication: new BuiltInAuthenticationOptions(),
    authorization: new BuiltInAuthorizationOptions(),
    apiEnablement: new APIEnablementOptions(),
    admission: new AdmissionOptions(),
    // kube-apiserver's custom global flags, which it adds to its generic flag set after the others.
    defaultTolerationSeconds: new DefaultTolerationSecondsOptions(),
    metrics: new MetricsOptions(),
    logs: new LogsOptions(),
    misc: new MiscOptions(),
    standalone: new StandaloneOptions(),
  } satisfies Record<string, OptionsGroup>;
}

export type ServerRunOptions = ReturnType<typeof newServerRunOptions>;

/** The groups of `options`, in registration order. */
export function optionsGroups(options: ServerRunOptions): OptionsGroup[] {
  return Object.values(options);
}
