/**
 * What plugins need from the server, handed to every factory (kube's PluginInitializers: a plugin
 * that WantsExternalKubeClientSet or WantsExternalKubeInformerFactory gets them set before use, and
 * ValidateInitialization fails startup when one is missing). Here: one typed object whose fields are
 * optional, so a server or test supplies only what its enabled plugins use; a factory takes what it
 * needs with requireDep, which names the plugin and the missing field.
 */
import type { AuthorizationAttributes, Decision, KubeObject } from '../api';

/** Reads a namespace; null when it does not exist. */
export type NamespaceGetter = (name: string) => Promise<KubeObject | null>;

/** Reads and writes quotas for the ResourceQuota plugin (the registry, wired by the server). */
export interface QuotaAccessor {
  /**
   * The quotas of a namespace: from the watch cache (kube's informer lister) unless `fresh`, which
   * asks for a consistent read (used when retrying after a conflict).
   */
  getQuotas(namespace: string, opts?: { fresh?: boolean }): Promise<KubeObject[]>;
  /**
   * Writes the quota's status through the status subresource, conditional on its
   * metadata.resourceVersion; throws the registry's ApiError (409 Conflict when it changed).
   */
  updateQuotaStatus(quota: KubeObject): Promise<KubeObject>;
}

/**
 * Every dependency any registered plugin may ask for. Add a field here when a new plugin needs
 * something new (kube: a new Wants* interface and its initializer).
 */
export interface AdmissionDeps {
  /** NamespaceLifecycle: the namespace of a request (kube: namespace lister, then a live GET). */
  getNamespace?: NamespaceGetter;
  /** ResourceQuota: quota reads and status writes (kube: quota lister and client). */
  quotas?: QuotaAccessor;
  /** ResourceQuota: how long one admission waits for its evaluation (kube: 10 s). */
  quotaTimeoutMs?: number;
  /** The server's authorizer chain (kube's WantsAuthorizer: webhooks' matchConditions `authorizer`). */
  authorize?: (attrs: AuthorizationAttributes) => Promise<Decision>;
}

/** The dependency `key`, or an Error naming the plugin that needs it (kube: ValidateInitialization). */
export function requireDep<K extends keyof AdmissionDeps>(deps: AdmissionDeps, key: K, plugin: string): NonNullable<AdmissionDeps[K]> {
  const value = deps[key];
  if (value === undefined || value === null) throw new Error(`admission plugin "${plugin}" needs ${key}, which the server did not provide`);
  return value as NonNullable<AdmissionDeps[K]>;
}
