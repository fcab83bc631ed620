/**
 * Every admission plugin this server implements, registered by name (kube:
 * pkg/kubeapiserver/options/plugins.go, RegisterAllAdmissionPlugins). The order of these lines does
 * not matter: plugin-order.ts decides the order plugins run in.
 */
import { Plugins } from './plugin-registry';
import { registerDefaultTolerationSeconds } from './plugins/default-toleration-seconds';
import { registerEventRateLimit } from './plugins/event-rate-limit';
import { registerImagePolicyWebhook } from './plugins/image-policy';
import { registerNamespaceLifecycle } from './plugins/namespace-lifecycle';
import { registerPriority } from './plugins/priority';
import { registerResourceQuota } from './plugins/resource-quota';
import { registerServiceAccount } from './plugins/service-account';
import { registerAdmissionWebhooks } from './plugins/webhook';

export function registerAllAdmissionPlugins(plugins: Plugins): void {
  registerDefaultTolerationSeconds(plugins);
  registerEventRateLimit(plugins);
  registerImagePolicyWebhook(plugins);
  registerNamespaceLifecycle(plugins);
  registerPriority(plugins);
  registerResourceQuota(plugins);
  registerServiceAccount(plugins);
  registerAdmissionWebhooks(plugins);
}

/** A registry holding every plugin of this server, in kube v1.32's order and defaults. */
export function newAdmissionPlugins(): Plugins {
  const plugins = new Plugins();
  registerAllAdmissionPlugins(plugins);
  return plugins;
}
