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
   * The quotas of a namespace: kube's GetQuotas (the informer's copy, a remembered live list when
   * it holds none; see plugins/quota-accessor.ts), synchronous when no I/O was needed; with `fresh`,
   * a consistent read (used when retrying after a conflict). Shared objects: never mutate them.
   */
  getQuotas(namespace: string, opts?: { fresh?: boolean }): KubeObject[] | Promise<KubeObject[]>;
  /**
   * Writes the quota's status through the status subresource, conditional on its
   * metadata.resourceVersion; throws the registry's ApiError (409 Conflict when it changed).
   */
  updateQuotaStatus(quota: KubeObject): Promise<KubeObject>;
}

/**
 * Reads service accounts for the ServiceAccount plugin (kube: its informer lister, and a client
 * for the live GET it falls back to when the lister lacks one).
 */
export interface ServiceAccountGetter {
  /** The account in the informer's copy, without I/O; undefined when missing there (or not synced). */
  cached(namespace: string, name: string): KubeObject | undefined;
  /** A consistent read through the registry; undefined when it does not exist. */
  live(namespace: string, name: string): Promise<KubeObject | undefined>;
}

/**
 * The PriorityClasses for the Priority plugin (kube: its informer's lister). Objects are shared:
 * never mutate them. Empty when scheduling.k8s.io is not served.
 */
export interface PriorityClassLister {
  /** The class in the informer's copy, without I/O; undefined when missing there. */
  get(name: string): KubeObject | undefined;
  /** Every class in the informer's copy. */
  list(): readonly KubeObject[];
  /** A consistent read through the registry, for a name the copy lacks; undefined when it does not exist. */
  live?(name: string): Promise<KubeObject | undefined>;
}

/**
 * Every dependency any registered plugin may ask for. Add a field here when a new plugin needs
 * something new (kube: a new Wants* interface and its initializer).
 */
export interface AdmissionDeps {
  /** NamespaceLifecycle: the namespace of a request (kube: namespace lister, then a live GET). */
  getNamespace?: NamespaceGetter;
  /** ServiceAccount: the pods' service accounts (kube: service-account lister and client). */
  serviceAccounts?: ServiceAccountGetter;
  /** ResourceQuota: quota reads and status writes (kube: quota lister and client). */
  quotas?: QuotaAccessor;
  /** ResourceQuota: how long one admission waits for its evaluation (kube: 10 s). */
  quotaTimeoutMs?: number;
  /** The server's authorizer chain (kube's WantsAuthorizer: webhooks' matchConditions `authorizer`). */
  authorize?: (attrs: AuthorizationAttributes) => Promise<Decision>;
  /** Admission webhooks: the stored webhook configurations (kube: their informers' listers). */
  webhookConfigurations?: WebhookConfigurationLister;
  /** Admission webhooks (matchPolicy Equivalent): the other served forms of a resource's objects. */
  equivalentResources?: EquivalentResourceMapper;
  /** Priority: the PriorityClasses (kube: their informer's lister). */
  priorityClasses?: PriorityClassLister;
  /** DefaultTolerationSeconds: --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (kube's 300 each when absent). */
  defaultTolerationSeconds?: { notReady: number; unreachable: number };
}

/**
 * The MutatingWebhookConfigurations and ValidatingWebhookConfigurations the server holds, read on
 * every request without I/O (the server's shared informers). Empty when admissionregistration.k8s.io
 * is not served. Objects are shared: never mutate them.
 */
export interface WebhookConfigurationLister {
  mutating(): readonly KubeObject[];
  validating(): readonly KubeObject[];
}

/**
 * A resource served at another group/version that holds the same objects as the one a request
 * names (kube's EquivalentResourceMapper: the same storage), e.g. events.k8s.io/v1 events beside
 * core/v1 events, with the conversions between the two forms.
 */
export interface EquivalentResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  /** The request's object in this form (apiVersion and kind included); must not modify `obj`. */
  fromRequest(obj: KubeObject): KubeObject;
  /** An object of this form back in the request's form; must not modify `obj`. */
  toRequest(obj: KubeObject): KubeObject;
  /** This form's decoder (AdmissionAttributes.decode's contract). */
  decode?(obj: unknown): KubeObject;
}

/** The equivalents of group/version/resource (with `subresource`), the resource itself left out. */
export type EquivalentResourceMapper = (group: string, version: string, resource: string, subresource: string) => readonly EquivalentResource[];

/** The dependency `key`, or an Error naming the plugin that needs it (kube: ValidateInitialization). */
export function requireDep<K extends keyof AdmissionDeps>(deps: AdmissionDeps, key: K, plugin: string): NonNullable<AdmissionDeps[K]> {
  const value = deps[key];
  if (value === undefined || value === null) throw new Error(`admission plugin "${plugin}" needs ${key}, which the server did not provide`);
  return value as NonNullable<AdmissionDeps[K]>;
}
