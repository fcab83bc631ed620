/**
 * Every admission plugin this server implements, registered by name (kube:
 * pkg/kubeapiserver/options/plugins.go, RegisterAllAdmissionPlugins). The order of these lines does
 * not matter: plugin-order.ts decides the order plugins run in.
 */
import { Plugins } from './plugin-registry';
import { registerNamespaceLifecycle } from './plugins/namespace-lifecycle';
import { registerResourceQuota } from './plugins/resource-quota';

export function registerAllAdmissionPlugins(plugins: Plugins): void {
  registerNamespaceLifecycle(plugins);
  registerResourceQuota(plugins);
}

/** A registry holding every plugin of this server, in kube v1.32's order and defaults. */
export function newAdmissionPlugins(): Plugins {
  const plugins = new Plugins();
  registerAllAdmissionPlugins(plugins);
  return plugins;
}
