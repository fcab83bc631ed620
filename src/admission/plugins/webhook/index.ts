/**
 * kube's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (apiserver
 * pkg/admission/plugin/webhook): the webhooks of the stored MutatingWebhookConfigurations and
 * ValidatingWebhookConfigurations (deps.webhookConfigurations: the server's informers, read per
 * request without I/O), called for CREATE, UPDATE, DELETE and CONNECT. The pieces:
 *
 * - accessor.ts: the configurations' webhooks, selectors parsed and matchConditions compiled once;
 * - rules.ts, match.ts: which webhooks a request reaches (rules, matchPolicy, selectors, conditions);
 * - review.ts: the AdmissionReview sent and the answer read and checked;
 * - clients.ts, call.ts: one call and its failures, worded as kube's;
 * - mutating.ts, validating.ts: the two dispatchers.
 *
 * Each plugin may be given kube's WebhookAdmissionConfiguration (`kubeConfigFile`: credentials
 * for webhook servers by host); this server does not read those credentials yet, so such a
 * configuration is refused at startup rather than ignored.
 */
import path from 'node:path';
import { goErrnoText, goQuote } from '../../../api';
import { ConfigDecodeError, ConfigScheme, configVersion, defineConfigKind, readConfigSource, s, type ConfigSource } from '../../../config/versioned-config';
import type { AdmissionDeps } from '../../deps';
import { handlesOperations, type AdmissionPlugin } from '../../interface';
import type { Plugins } from '../../plugin-registry';
import { WebhookSource, type WebhookType } from './accessor';
import { WebhookClients } from './clients';
import type { DispatchEnv } from './match';
import { dispatchMutating } from './mutating';
import { dispatchValidating } from './validating';

export const mutatingAdmissionWebhookPluginName = 'MutatingAdmissionWebhook';
export const validatingAdmissionWebhookPluginName = 'ValidatingAdmissionWebhook';

const webhookAdmissionKind = (kind: string, version: string) =>
  defineConfigKind<{ kubeConfigFile: string }>({
    group: 'apiserver.config.k8s.io',
    kind,
    versions: { [version]: configVersion(s.struct(`${version}.WebhookAdmission`, { kubeConfigFile: s.string() }), { toInternal: (v) => v }) },
    internalType: '*webhookadmission.WebhookAdmission',
    // kube decodes it with the universal decoder: unknown fields are ignored.
    strict: false,
  });

/** The webhook plugins' configuration scheme (kube's webhook/config): v1 WebhookAdmissionConfiguration, v1alpha1 WebhookAdmission. */
const webhookAdmissionScheme = new ConfigScheme('k8s.io/apiserver/pkg/admission/plugin/webhook/config/kubeconfig.go:34', [
  webhookAdmissionKind('WebhookAdmissionConfiguration', 'v1'),
  webhookAdmissionKind('WebhookAdmission', 'v1alpha1'),
]);

/** kube's webhook config.LoadConfig: the kubeconfig file named, which must be an absolute path. Throws Error. */
export function webhookKubeconfigFile(source: ConfigSource): string {
  const data = readConfigSource(source, (e, file) => new Error(`open ${file}: ${goErrnoText(e)}`));
  let file: string;
  try {
    file = (webhookAdmissionScheme.decode(data).config as { kubeConfigFile: string }).kubeConfigFile;
  } catch (e) {
    if (e instanceof ConfigDecodeError) throw new Error(e.message);
    throw e;
  }
  if (!path.isAbsolute(file)) throw new Error(`kubeConfigFile: Invalid value: ${goQuote(file)}: must be an absolute file path`);
  return file;
}

/** The plugins' configuration, read before anything starts: a kubeconfig of webhook credentials, which this server cannot use. */
function readWebhookAdmissionConfig(config: ConfigSource | undefined): void {
  if (!config) return;
  const file = webhookKubeconfigFile(config);
  throw new Error(`kubeConfigFile ${goQuote(file)}: credentials for admission webhooks are not supported by this server`);
}

function dispatchEnv(type: WebhookType, deps: AdmissionDeps): DispatchEnv {
  const lister = deps.webhookConfigurations;
  const source = new WebhookSource(type, () => (lister ? lister[type]() : []));
  return { hooks: () => source.webhooks(), clients: new WebhookClients(), deps };
}

/** Handles every operation (kube: Connect, Create, Delete, Update); no configurations served, no webhooks. */
export function registerMutatingAdmissionWebhook(plugins: Plugins): void {
  plugins.register(mutatingAdmissionWebhookPluginName, {
    readConfig: readWebhookAdmissionConfig,
    build: (_config, deps): AdmissionPlugin => {
      const env = dispatchEnv('mutating', deps);
      return {
        name: mutatingAdmissionWebhookPluginName,
        handles: handlesOperations('CONNECT', 'CREATE', 'DELETE', 'UPDATE'),
        admit: (ctx, attrs) => dispatchMutating(env, ctx, attrs),
      };
    },
  });
}

export function registerValidatingAdmissionWebhook(plugins: Plugins): void {
  plugins.register(validatingAdmissionWebhookPluginName, {
    readConfig: readWebhookAdmissionConfig,
    build: (_config, deps): AdmissionPlugin => {
      const env = dispatchEnv('validating', deps);
      return {
        name: validatingAdmissionWebhookPluginName,
        handles: handlesOperations('CONNECT', 'CREATE', 'DELETE', 'UPDATE'),
        validate: (ctx, attrs) => dispatchValidating(env, ctx, attrs),
      };
    },
  });
}

/** Both webhook plugins (the one line register-all.ts needs). */
export function registerAdmissionWebhooks(plugins: Plugins): void {
  registerMutatingAdmissionWebhook(plugins);
  registerValidatingAdmissionWebhook(plugins);
}
