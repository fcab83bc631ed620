/**
 * kube-apiserver v1.32's admission plugin order and defaults (pkg/kubeapiserver/options/plugins.go:
 * AllOrderedPlugins, which kube-apiserver sets as the generic apiserver's RecommendedPluginOrder, and
 * DefaultOffAdmissionPlugins). Names only: this server registers the plugins it implements, and a
 * plugin added later takes kube's place in the chain by its name alone.
 *
 * The list mixes mutating and validating plugins; every mutating plugin runs before every
 * validating one whatever their places, so the order matters within each phase.
 */

/** Every kube-apiserver v1.32 admission plugin, in the order they run. */
export const kubeAdmissionPluginOrder: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  // kube: new plugins go above here; policies, webhooks, quota and deny stay at the end.
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  // Last but AlwaysDeny: it charges quota usage, which is only safe once every other plugin allowed the request.
  'ResourceQuota',
  'AlwaysDeny',
];

/** The plugins kube-apiserver v1.32 enables when no flag says otherwise. */
export const kubeDefaultOnAdmissionPlugins: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionPolicy', // active only with its feature gate
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
]);

/** kube's DefaultOffAdmissionPlugins: every ordered plugin that is not on by default. */
export function kubeDefaultOffAdmissionPlugins(): Set<string> {
  return new Set(kubeAdmissionPluginOrder.filter((n) => !kubeDefaultOnAdmissionPlugins.has(n)));
}
