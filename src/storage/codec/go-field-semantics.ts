/**
 * What a .proto file cannot say about kube's Go types, but the wire and JSON forms depend on:
 * which singular fields are Go pointers (written only when set, and kept in JSON even when zero)
 * and which fields lack `omitempty` in their JSON tag (kept in JSON even when empty).
 * Source: the Go structs of apimachinery@v0.32.13 pkg/apis/meta/v1/types.go and
 * api@v0.32.13 core/v1/types.go (the Pod entries generated from it), rbac/v1/types.go, authorization/v1/types.go, admissionregistration/v1/types.go and scheduling/v1/types.go,
 * and their gogo-generated MarshalToSizedBuffer.
 * Keys are protobuf full names without the leading dot.
 */

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const CORE = 'k8s.io.api.core.v1';
const AUTHZ = 'k8s.io.api.authorization.v1';
const RBAC = 'k8s.io.api.rbac.v1';
const EVENTS = 'k8s.io.api.events.v1';
const ADMREG = 'k8s.io.api.admissionregistration.v1';
const SCHED = 'k8s.io.api.scheduling.v1';

/**
 * Fields whose JSON name is not their protobuf name (kube's generated.proto names a field after the
 * Go field, e.g. BoundObjectReference's `UID` is `uID` there, while its JSON tag says `uid`).
 */
export const JSON_FIELD_NAMES: ReadonlyMap<string, Readonly<Record<string, string>>> = new Map([
  ['k8s.io.api.authentication.v1.BoundObjectReference', { uID: 'uid' }],
]);

/**
 * Singular fields that are Go pointers. Every other singular field is a Go value and is always
 * written by kube's marshaller (empty strings, zeros, empty structs included).
 */
export const GO_POINTER_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    [`${META}.ObjectMeta`]: ['deletionTimestamp', 'deletionGracePeriodSeconds'],
    [`${META}.ListMeta`]: ['remainingItemCount'],
    [`${META}.ManagedFieldsEntry`]: ['time', 'fieldsV1'],
    [`${META}.OwnerReference`]: ['controller', 'blockOwnerDeletion'],
    [`${META}.Status`]: ['details'],
    [`${META}.DeleteOptions`]: [
      'gracePeriodSeconds',
      'preconditions',
      'orphanDependents',
      'propagationPolicy',
      'ignoreStoreReadErrorWithClusterBreakingPotential',
    ],
    [`${META}.Preconditions`]: ['uid', 'resourceVersion'],
    [`${CORE}.Secret`]: ['immutable'],
    [`${CORE}.ConfigMap`]: ['immutable'],
    [`${CORE}.ResourceQuotaSpec`]: ['scopeSelector'],
    [`${CORE}.Event`]: ['series', 'related'],
    [`${AUTHZ}.ResourceAttributes`]: ['fieldSelector', 'labelSelector'],
    [`${AUTHZ}.SubjectAccessReviewSpec`]: ['resourceAttributes', 'nonResourceAttributes'],
    [`${AUTHZ}.SelfSubjectAccessReviewSpec`]: ['resourceAttributes', 'nonResourceAttributes'],
    [`${RBAC}.ClusterRole`]: ['aggregationRule'],
    [`${EVENTS}.Event`]: ['series', 'related'],
    [`${ADMREG}.WebhookClientConfig`]: ['url', 'service'],
    [`${ADMREG}.ServiceReference`]: ['path', 'port'],
    [`${ADMREG}.Rule`]: ['scope'],
    [`${ADMREG}.MutatingWebhook`]: ['failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector', 'sideEffects', 'timeoutSeconds', 'reinvocationPolicy'],
    [`${ADMREG}.ValidatingWebhook`]: ['failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector', 'sideEffects', 'timeoutSeconds'],
    [`${SCHED}.PriorityClass`]: ['preemptionPolicy'],
    // core/v1 Pod and what it holds (generated from core/v1 types.go).
    [`${CORE}.Affinity`]: ['nodeAffinity', 'podAffinity', 'podAntiAffinity'],
    [`${CORE}.AppArmorProfile`]: ['localhostProfile'],
    [`${CORE}.AzureDiskVolumeSource`]: ['cachingMode', 'fsType', 'readOnly', 'kind'],
    [`${CORE}.CSIVolumeSource`]: ['readOnly', 'fsType', 'nodePublishSecretRef'],
    [`${CORE}.CephFSVolumeSource`]: ['secretRef'],
    [`${CORE}.CinderVolumeSource`]: ['secretRef'],
    [`${CORE}.ClusterTrustBundleProjection`]: ['name', 'signerName', 'labelSelector', 'optional'],
    [`${CORE}.ConfigMapEnvSource`]: ['optional'],
    [`${CORE}.ConfigMapKeySelector`]: ['optional'],
    [`${CORE}.ConfigMapProjection`]: ['optional'],
    [`${CORE}.ConfigMapVolumeSource`]: ['defaultMode', 'optional'],
    [`${CORE}.Container`]: ['restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'securityContext'],
    [`${CORE}.ContainerState`]: ['waiting', 'running', 'terminated'],
    [`${CORE}.ContainerStatus`]: ['started', 'resources', 'user'],
    [`${CORE}.ContainerUser`]: ['linux'],
    [`${CORE}.DownwardAPIVolumeFile`]: ['fieldRef', 'resourceFieldRef', 'mode'],
    [`${CORE}.DownwardAPIVolumeSource`]: ['defaultMode'],
    [`${CORE}.EmptyDirVolumeSource`]: ['sizeLimit'],
    [`${CORE}.EnvFromSource`]: ['configMapRef', 'secretRef'],
    [`${CORE}.EnvVar`]: ['valueFrom'],
    [`${CORE}.EnvVarSource`]: ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'],
    [`${CORE}.EphemeralContainerCommon`]: ['restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'securityContext'],
    [`${CORE}.EphemeralVolumeSource`]: ['volumeClaimTemplate'],
    [`${CORE}.FCVolumeSource`]: ['lun'],
    [`${CORE}.FlexVolumeSource`]: ['secretRef'],
    [`${CORE}.GRPCAction`]: ['service'],
    [`${CORE}.HostPathVolumeSource`]: ['type'],
    [`${CORE}.ISCSIVolumeSource`]: ['secretRef', 'initiatorName'],
    [`${CORE}.KeyToPath`]: ['mode'],
    [`${CORE}.Lifecycle`]: ['postStart', 'preStop'],
    [`${CORE}.LifecycleHandler`]: ['exec', 'httpGet', 'tcpSocket', 'sleep'],
    [`${CORE}.NodeAffinity`]: ['requiredDuringSchedulingIgnoredDuringExecution'],
    [`${CORE}.PersistentVolumeClaimSpec`]: ['selector', 'storageClassName', 'volumeMode', 'dataSource', 'dataSourceRef', 'volumeAttributesClassName'],
    [`${CORE}.PodAffinityTerm`]: ['labelSelector', 'namespaceSelector'],
    [`${CORE}.PodDNSConfigOption`]: ['value'],
    [`${CORE}.PodResourceClaim`]: ['resourceClaimName', 'resourceClaimTemplateName'],
    [`${CORE}.PodResourceClaimStatus`]: ['resourceClaimName'],
    [`${CORE}.PodSecurityContext`]: ['seLinuxOptions', 'windowsOptions', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'supplementalGroupsPolicy', 'fsGroup', 'fsGroupChangePolicy', 'seccompProfile', 'appArmorProfile', 'seLinuxChangePolicy'],
    [`${CORE}.PodSpec`]: ['terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'automountServiceAccountToken', 'shareProcessNamespace', 'securityContext', 'affinity', 'priority', 'dnsConfig', 'runtimeClassName', 'enableServiceLinks', 'preemptionPolicy', 'setHostnameAsFQDN', 'os', 'hostUsers', 'resources'],
    [`${CORE}.PodStatus`]: ['startTime'],
    [`${CORE}.Probe`]: ['terminationGracePeriodSeconds'],
    [`${CORE}.ProbeHandler`]: ['exec', 'httpGet', 'tcpSocket', 'grpc'],
    [`${CORE}.ProjectedVolumeSource`]: ['defaultMode'],
    [`${CORE}.RBDVolumeSource`]: ['secretRef'],
    [`${CORE}.ScaleIOVolumeSource`]: ['secretRef'],
    [`${CORE}.SeccompProfile`]: ['localhostProfile'],
    [`${CORE}.SecretEnvSource`]: ['optional'],
    [`${CORE}.SecretKeySelector`]: ['optional'],
    [`${CORE}.SecretProjection`]: ['optional'],
    [`${CORE}.SecretVolumeSource`]: ['defaultMode', 'optional'],
    [`${CORE}.SecurityContext`]: ['capabilities', 'privileged', 'seLinuxOptions', 'windowsOptions', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'readOnlyRootFilesystem', 'allowPrivilegeEscalation', 'procMount', 'seccompProfile', 'appArmorProfile'],
    [`${CORE}.ServiceAccountTokenProjection`]: ['expirationSeconds'],
    [`${CORE}.StorageOSVolumeSource`]: ['secretRef'],
    [`${CORE}.Toleration`]: ['tolerationSeconds'],
    [`${CORE}.TopologySpreadConstraint`]: ['labelSelector', 'minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy'],
    [`${CORE}.TypedLocalObjectReference`]: ['apiGroup'],
    [`${CORE}.TypedObjectReference`]: ['apiGroup', 'namespace'],
    [`${CORE}.VolumeMount`]: ['recursiveReadOnly', 'mountPropagation'],
    [`${CORE}.VolumeMountStatus`]: ['recursiveReadOnly'],
    [`${CORE}.VolumeProjection`]: ['secret', 'downwardAPI', 'configMap', 'serviceAccountToken', 'clusterTrustBundle'],
    [`${CORE}.VolumeSource`]: ['hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image'],
    [`${CORE}.WindowsSecurityContextOptions`]: ['gmsaCredentialSpecName', 'gmsaCredentialSpec', 'runAsUserName', 'hostProcess'],
  }).map(([k, v]) => [k, new Set(v)]),
);

/** Fields whose JSON tag has no `omitempty`: present in kube's JSON even when zero or empty. */
export const JSON_REQUIRED_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    [`${META}.OwnerReference`]: ['apiVersion', 'kind', 'name', 'uid'],
    [`${META}.PartialObjectMetadataList`]: ['items'],
    [`${META}.LabelSelectorRequirement`]: ['key', 'operator'],
    [`${META}.WatchEvent`]: ['type', 'object'],
    [`${META}.FieldSelectorRequirement`]: ['key', 'operator'],
    [`${AUTHZ}.SubjectAccessReviewStatus`]: ['allowed'],
    [`${AUTHZ}.SubjectRulesReviewStatus`]: ['resourceRules', 'nonResourceRules', 'incomplete'],
    [`${AUTHZ}.ResourceRule`]: ['verbs'],
    [`${AUTHZ}.NonResourceRule`]: ['verbs'],
    [`${CORE}.NamespaceCondition`]: ['type', 'status'],
    [`${CORE}.ScopedResourceSelectorRequirement`]: ['scopeName', 'operator'],
    [`${CORE}.NamespaceList`]: ['items'],
    [`${CORE}.SecretList`]: ['items'],
    [`${CORE}.ConfigMapList`]: ['items'],
    [`${CORE}.ResourceQuotaList`]: ['items'],
    [`${CORE}.EventList`]: ['items'],
    // Event.reportingComponent/reportingInstance have no omitempty in 1.32.
    [`${CORE}.Event`]: ['reportingComponent', 'reportingInstance'],
    // rbac/v1 (Role.rules and ClusterRole.rules lack omitempty too, but Go writes their nil as null,
    // which an absent field stands for here).
    [`${RBAC}.PolicyRule`]: ['verbs'],
    [`${RBAC}.Subject`]: ['kind', 'name'],
    [`${RBAC}.RoleRef`]: ['apiGroup', 'kind', 'name'],
    [`${RBAC}.RoleList`]: ['items'],
    [`${RBAC}.ClusterRoleList`]: ['items'],
    [`${RBAC}.RoleBindingList`]: ['items'],
    [`${RBAC}.ClusterRoleBindingList`]: ['items'],
    // events/v1 (eventTime, and a series' fields, have no omitempty).
    [`${EVENTS}.Event`]: ['eventTime'],
    [`${EVENTS}.EventSeries`]: ['count', 'lastObservedTime'],
    [`${EVENTS}.EventList`]: ['items'],
    // admissionregistration/v1 (sideEffects and admissionReviewVersions lack omitempty too, but as
    // a nil pointer and a nil slice Go writes them as null, which an absent field stands for here).
    [`${ADMREG}.MutatingWebhook`]: ['name'],
    [`${ADMREG}.ValidatingWebhook`]: ['name'],
    [`${ADMREG}.ServiceReference`]: ['namespace', 'name'],
    [`${ADMREG}.MatchCondition`]: ['name', 'expression'],
    [`${ADMREG}.MutatingWebhookConfigurationList`]: ['items'],
    [`${ADMREG}.ValidatingWebhookConfigurationList`]: ['items'],
    // scheduling/v1 (value has no omitempty).
    [`${SCHED}.PriorityClass`]: ['value'],
    [`${SCHED}.PriorityClassList`]: ['items'],
    // core/v1 Pod and what it holds (generated from core/v1 types.go).
    [`${CORE}.AWSElasticBlockStoreVolumeSource`]: ['volumeID'],
    [`${CORE}.AppArmorProfile`]: ['type'],
    [`${CORE}.AzureDiskVolumeSource`]: ['diskName', 'diskURI'],
    [`${CORE}.AzureFileVolumeSource`]: ['secretName', 'shareName'],
    [`${CORE}.CSIVolumeSource`]: ['driver'],
    [`${CORE}.CinderVolumeSource`]: ['volumeID'],
    [`${CORE}.ClusterTrustBundleProjection`]: ['path'],
    [`${CORE}.ConfigMapKeySelector`]: ['key'],
    [`${CORE}.Container`]: ['name'],
    [`${CORE}.ContainerPort`]: ['containerPort'],
    [`${CORE}.ContainerResizePolicy`]: ['resourceName', 'restartPolicy'],
    [`${CORE}.ContainerStateTerminated`]: ['exitCode'],
    [`${CORE}.ContainerStatus`]: ['name', 'ready', 'restartCount', 'image', 'imageID'],
    [`${CORE}.DownwardAPIVolumeFile`]: ['path'],
    [`${CORE}.EnvVar`]: ['name'],
    [`${CORE}.EphemeralContainerCommon`]: ['name'],
    [`${CORE}.FlexVolumeSource`]: ['driver'],
    [`${CORE}.GCEPersistentDiskVolumeSource`]: ['pdName'],
    [`${CORE}.GRPCAction`]: ['port'],
    [`${CORE}.GitRepoVolumeSource`]: ['repository'],
    [`${CORE}.GlusterfsVolumeSource`]: ['endpoints', 'path'],
    [`${CORE}.HTTPGetAction`]: ['port'],
    [`${CORE}.HTTPHeader`]: ['name', 'value'],
    [`${CORE}.HostAlias`]: ['ip'],
    [`${CORE}.HostIP`]: ['ip'],
    [`${CORE}.HostPathVolumeSource`]: ['path'],
    [`${CORE}.ISCSIVolumeSource`]: ['targetPortal', 'iqn', 'lun'],
    [`${CORE}.KeyToPath`]: ['key', 'path'],
    [`${CORE}.LinuxContainerUser`]: ['uid', 'gid'],
    [`${CORE}.NFSVolumeSource`]: ['server', 'path'],
    [`${CORE}.NodeSelectorRequirement`]: ['key', 'operator'],
    [`${CORE}.ObjectFieldSelector`]: ['fieldPath'],
    [`${CORE}.PersistentVolumeClaimTemplate`]: ['spec'],
    [`${CORE}.PersistentVolumeClaimVolumeSource`]: ['claimName'],
    [`${CORE}.PhotonPersistentDiskVolumeSource`]: ['pdID'],
    [`${CORE}.PodAffinityTerm`]: ['topologyKey'],
    [`${CORE}.PodCondition`]: ['type', 'status'],
    [`${CORE}.PodIP`]: ['ip'],
    [`${CORE}.PodList`]: ['items'],
    [`${CORE}.PodOS`]: ['name'],
    [`${CORE}.PodReadinessGate`]: ['conditionType'],
    [`${CORE}.PodResourceClaim`]: ['name'],
    [`${CORE}.PodResourceClaimStatus`]: ['name'],
    [`${CORE}.PodSchedulingGate`]: ['name'],
    [`${CORE}.PortworxVolumeSource`]: ['volumeID'],
    [`${CORE}.PreferredSchedulingTerm`]: ['weight', 'preference'],
    [`${CORE}.QuobyteVolumeSource`]: ['registry', 'volume'],
    [`${CORE}.RBDVolumeSource`]: ['image'],
    [`${CORE}.ResourceClaim`]: ['name'],
    [`${CORE}.ResourceFieldSelector`]: ['resource'],
    [`${CORE}.ResourceHealth`]: ['resourceID'],
    [`${CORE}.ResourceStatus`]: ['name'],
    [`${CORE}.ScaleIOVolumeSource`]: ['gateway', 'system'],
    [`${CORE}.SeccompProfile`]: ['type'],
    [`${CORE}.SecretKeySelector`]: ['key'],
    [`${CORE}.ServiceAccountTokenProjection`]: ['path'],
    [`${CORE}.SleepAction`]: ['seconds'],
    [`${CORE}.Sysctl`]: ['name', 'value'],
    [`${CORE}.TCPSocketAction`]: ['port'],
    [`${CORE}.TopologySpreadConstraint`]: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
    [`${CORE}.TypedLocalObjectReference`]: ['kind', 'name'],
    [`${CORE}.TypedObjectReference`]: ['kind', 'name'],
    [`${CORE}.Volume`]: ['name'],
    [`${CORE}.VolumeDevice`]: ['name', 'devicePath'],
    [`${CORE}.VolumeMount`]: ['name', 'mountPath'],
    [`${CORE}.VolumeMountStatus`]: ['name', 'mountPath'],
    [`${CORE}.VsphereVirtualDiskVolumeSource`]: ['volumePath'],
    [`${CORE}.WeightedPodAffinityTerm`]: ['weight', 'podAffinityTerm'],
  }).map(([k, v]) => [k, new Set(v)]),
);

/**
 * Message fields that are a Go embedded struct inlined in JSON (`json:",inline"`): on the wire a
 * nested message, in JSON its fields sit in the parent object, at the field's place.
 */
export const GO_INLINE_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    [`${ADMREG}.RuleWithOperations`]: ['rule'],
    // core/v1 Pod and what it holds (generated from core/v1 types.go).
    [`${CORE}.ConfigMapEnvSource`]: ['localObjectReference'],
    [`${CORE}.ConfigMapKeySelector`]: ['localObjectReference'],
    [`${CORE}.ConfigMapProjection`]: ['localObjectReference'],
    [`${CORE}.ConfigMapVolumeSource`]: ['localObjectReference'],
    [`${CORE}.EphemeralContainer`]: ['ephemeralContainerCommon'],
    [`${CORE}.Probe`]: ['handler'],
    [`${CORE}.SecretEnvSource`]: ['localObjectReference'],
    [`${CORE}.SecretKeySelector`]: ['localObjectReference'],
    [`${CORE}.SecretProjection`]: ['localObjectReference'],
    [`${CORE}.Volume`]: ['volumeSource'],
  }).map(([k, v]) => [k, new Set(v)]),
);

/** Messages with a custom Go (un)marshaller whose JSON form is not an object of their fields. */
export type SpecialMessage = 'time' | 'microTime' | 'quantity' | 'fieldsV1' | 'rawExtension' | 'stringList' | 'intOrString';

/** Full message name → its special JSON mapping. */
export const SPECIAL_MESSAGES: ReadonlyMap<string, SpecialMessage> = new Map([
  [`${META}.Time`, 'time'],
  [`${META}.MicroTime`, 'microTime'],
  [`${META}.FieldsV1`, 'fieldsV1'],
  ['k8s.io.apimachinery.pkg.api.resource.Quantity', 'quantity'],
  ['k8s.io.apimachinery.pkg.runtime.RawExtension', 'rawExtension'],
  // intstr.IntOrString: {type, intVal, strVal} on the wire, a bare number or string in JSON.
  ['k8s.io.apimachinery.pkg.util.intstr.IntOrString', 'intOrString'],
  // A Go `[]string` type (authentication/v1 ExtraValue): on the wire {repeated string items = 1},
  // in JSON the bare array (null when empty, as Go's nil slice).
  ['k8s.io.api.authentication.v1.ExtraValue', 'stringList'],
  ['k8s.io.api.authorization.v1.ExtraValue', 'stringList'],
]);
