/**
 * The Go types kube decodes each schema into, as reflect's Type.String() prints them in decode
 * errors ("json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type
 * map[string]string"). OpenAPI loses Go's named types (v1.SecretType, types.UID, v1.ResourceList),
 * so fields whose Go type is not derivable from the schema are listed here, taken from
 * k8s.io/api core/v1 types.go and k8s.io/apimachinery meta/v1 types.go (v0.32).
 */

/** A Go type name for one field; `elem` is the element type of a named slice or map type. */
export interface GoFieldType {
  type: string;
  elem?: string;
}

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** `<schema name>.<json field>` → the field's Go type, where the schema alone does not tell it. */
export const goFieldTypes: ReadonlyMap<string, GoFieldType> = new Map([
  [`${CORE}Secret.type`, { type: 'v1.SecretType' }],
  [`${CORE}NamespaceSpec.finalizers`, { type: '[]v1.FinalizerName', elem: 'v1.FinalizerName' }],
  [`${CORE}NamespaceStatus.phase`, { type: 'v1.NamespacePhase' }],
  [`${CORE}NamespaceCondition.type`, { type: 'v1.NamespaceConditionType' }],
  [`${CORE}NamespaceCondition.status`, { type: 'v1.ConditionStatus' }],
  [`${CORE}ResourceQuotaSpec.hard`, { type: 'v1.ResourceList' }],
  [`${CORE}ResourceQuotaSpec.scopes`, { type: '[]v1.ResourceQuotaScope', elem: 'v1.ResourceQuotaScope' }],
  [`${CORE}ResourceQuotaStatus.hard`, { type: 'v1.ResourceList' }],
  [`${CORE}ResourceQuotaStatus.used`, { type: 'v1.ResourceList' }],
  [`${CORE}ScopedResourceSelectorRequirement.scopeName`, { type: 'v1.ResourceQuotaScope' }],
  [`${CORE}ScopedResourceSelectorRequirement.operator`, { type: 'v1.ScopeSelectorOperator' }],
  // core/v1 Pod and what it holds (generated from core/v1 types.go: fields of named Go types).
  [`${CORE}AppArmorProfile.type`, { type: 'v1.AppArmorProfileType' }],
  [`${CORE}AzureDiskVolumeSource.cachingMode`, { type: 'v1.AzureDataDiskCachingMode' }],
  [`${CORE}AzureDiskVolumeSource.kind`, { type: 'v1.AzureDataDiskKind' }],
  [`${CORE}Capabilities.add`, { type: '[]v1.Capability', elem: 'v1.Capability' }],
  [`${CORE}Capabilities.drop`, { type: '[]v1.Capability', elem: 'v1.Capability' }],
  [`${CORE}Container.restartPolicy`, { type: 'v1.ContainerRestartPolicy' }],
  [`${CORE}Container.terminationMessagePolicy`, { type: 'v1.TerminationMessagePolicy' }],
  [`${CORE}Container.imagePullPolicy`, { type: 'v1.PullPolicy' }],
  [`${CORE}ContainerPort.protocol`, { type: 'v1.Protocol' }],
  [`${CORE}ContainerResizePolicy.resourceName`, { type: 'v1.ResourceName' }],
  [`${CORE}ContainerResizePolicy.restartPolicy`, { type: 'v1.ResourceResizeRestartPolicy' }],
  [`${CORE}ContainerStatus.allocatedResources`, { type: 'v1.ResourceList' }],
  [`${CORE}EmptyDirVolumeSource.medium`, { type: 'v1.StorageMedium' }],
  [`${CORE}HTTPGetAction.scheme`, { type: 'v1.URIScheme' }],
  [`${CORE}HostPathVolumeSource.type`, { type: 'v1.HostPathType' }],
  [`${CORE}ImageVolumeSource.pullPolicy`, { type: 'v1.PullPolicy' }],
  [`${CORE}NodeSelectorRequirement.operator`, { type: 'v1.NodeSelectorOperator' }],
  [`${CORE}PersistentVolumeClaimSpec.accessModes`, { type: '[]v1.PersistentVolumeAccessMode', elem: 'v1.PersistentVolumeAccessMode' }],
  [`${CORE}PersistentVolumeClaimSpec.volumeMode`, { type: 'v1.PersistentVolumeMode' }],
  [`${CORE}PodCondition.type`, { type: 'v1.PodConditionType' }],
  [`${CORE}PodCondition.status`, { type: 'v1.ConditionStatus' }],
  [`${CORE}PodOS.name`, { type: 'v1.OSName' }],
  [`${CORE}PodReadinessGate.conditionType`, { type: 'v1.PodConditionType' }],
  [`${CORE}PodSecurityContext.supplementalGroupsPolicy`, { type: 'v1.SupplementalGroupsPolicy' }],
  [`${CORE}PodSecurityContext.fsGroupChangePolicy`, { type: 'v1.PodFSGroupChangePolicy' }],
  [`${CORE}PodSecurityContext.seLinuxChangePolicy`, { type: 'v1.PodSELinuxChangePolicy' }],
  [`${CORE}PodSpec.restartPolicy`, { type: 'v1.RestartPolicy' }],
  [`${CORE}PodSpec.dnsPolicy`, { type: 'v1.DNSPolicy' }],
  [`${CORE}PodSpec.preemptionPolicy`, { type: 'v1.PreemptionPolicy' }],
  [`${CORE}PodSpec.overhead`, { type: 'v1.ResourceList' }],
  [`${CORE}PodStatus.phase`, { type: 'v1.PodPhase' }],
  [`${CORE}PodStatus.qosClass`, { type: 'v1.PodQOSClass' }],
  [`${CORE}PodStatus.resize`, { type: 'v1.PodResizeStatus' }],
  [`${CORE}ResourceHealth.resourceID`, { type: 'v1.ResourceID' }],
  [`${CORE}ResourceHealth.health`, { type: 'v1.ResourceHealthStatus' }],
  [`${CORE}ResourceRequirements.limits`, { type: 'v1.ResourceList' }],
  [`${CORE}ResourceRequirements.requests`, { type: 'v1.ResourceList' }],
  [`${CORE}ResourceStatus.name`, { type: 'v1.ResourceName' }],
  [`${CORE}SeccompProfile.type`, { type: 'v1.SeccompProfileType' }],
  [`${CORE}SecurityContext.procMount`, { type: 'v1.ProcMountType' }],
  [`${CORE}Toleration.operator`, { type: 'v1.TolerationOperator' }],
  [`${CORE}Toleration.effect`, { type: 'v1.TaintEffect' }],
  [`${CORE}TopologySpreadConstraint.whenUnsatisfiable`, { type: 'v1.UnsatisfiableConstraintAction' }],
  [`${CORE}TopologySpreadConstraint.nodeAffinityPolicy`, { type: 'v1.NodeInclusionPolicy' }],
  [`${CORE}TopologySpreadConstraint.nodeTaintsPolicy`, { type: 'v1.NodeInclusionPolicy' }],
  [`${CORE}VolumeMount.recursiveReadOnly`, { type: 'v1.RecursiveReadOnlyMode' }],
  [`${CORE}VolumeMount.mountPropagation`, { type: 'v1.MountPropagationMode' }],
  [`${CORE}VolumeMountStatus.recursiveReadOnly`, { type: 'v1.RecursiveReadOnlyMode' }],
  [`${CORE}VolumeResourceRequirements.limits`, { type: 'v1.ResourceList' }],
  [`${CORE}VolumeResourceRequirements.requests`, { type: 'v1.ResourceList' }],
  [`${CORE}EphemeralContainer.restartPolicy`, { type: 'v1.ContainerRestartPolicy' }],
  [`${CORE}EphemeralContainer.terminationMessagePolicy`, { type: 'v1.TerminationMessagePolicy' }],
  [`${CORE}EphemeralContainer.imagePullPolicy`, { type: 'v1.PullPolicy' }],
  [`${META}ObjectMeta.uid`, { type: 'types.UID' }],
  [`${META}OwnerReference.uid`, { type: 'types.UID' }],
  [`${META}ManagedFieldsEntry.operation`, { type: 'v1.ManagedFieldsOperationType' }],
  [`${META}Status.reason`, { type: 'v1.StatusReason' }],
  [`${META}StatusDetails.uid`, { type: 'types.UID' }],
  [`${META}StatusCause.reason`, { type: 'v1.CauseType' }],
  [`${META}DeleteOptions.propagationPolicy`, { type: 'v1.DeletionPropagation' }],
  [`${META}Preconditions.uid`, { type: 'types.UID' }],
  [`${META}APIResource.verbs`, { type: 'v1.Verbs', elem: 'string' }],
]);

/** Go's qualified name of a named schema's type: io.k8s.api.core.v1.Secret → "v1.Secret". */
export function goTypeOfSchemaName(name: string): string {
  const parts = name.split('.');
  const typeName = parts[parts.length - 1] ?? name;
  const pkg = parts[parts.length - 2];
  return pkg ? `${pkg}.${typeName}` : typeName;
}

/** The bare struct name Go puts in decode errors: io.k8s.api.core.v1.Secret → "Secret". */
export function goStructName(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? name : name.slice(i + 1);
}
