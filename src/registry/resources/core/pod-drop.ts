/**
 * kube's DropDisabledPodFields (pkg/api/pod): the fields of features that are off by default in 1.32
 * are cleared on a write unless the stored pod already uses them. kube runs it on create, on update
 * and on a status update (podStatusStrategy.PrepareForUpdate), over the spec and the status.
 *
 * The registry does not see `--feature-gates`: the gates are kube-apiserver 1.32's defaults, listed
 * in `podFeatureGates` (a unit test holds them to the server's gate table).
 */
import type { Container, ContainerStatus, Pod, PodSpec, PodStatus } from './pod-types';

/** The gates DropDisabledPodFields reads, at their 1.32 defaults. */
export const podFeatureGates = {
  UserNamespacesSupport: false, // spec.hostUsers
  SupplementalGroupsPolicy: false, // securityContext.supplementalGroupsPolicy, containerStatuses[].user
  SELinuxChangePolicy: false, // securityContext.seLinuxChangePolicy
  PodLevelResources: false, // spec.resources
  DynamicResourceAllocation: false, // resourceClaims, resources.claims, status.resourceClaimStatuses
  InPlacePodVerticalScaling: false, // resizePolicy, status.resize, containerStatuses[].resources
  InPlacePodVerticalScalingAllocatedStatus: false, // containerStatuses[].allocatedResources
  ResourceHealthStatus: false, // containerStatuses[].allocatedResourcesStatus
  RecursiveReadOnlyMounts: true, // containerStatuses[].volumeMounts
  ProcMountType: false, // securityContext.procMount (forced to Default)
  ClusterTrustBundleProjection: false, // projected clusterTrustBundle sources
  ImageVolume: false, // image volumes and their mounts
} as const;

const gate = (name: keyof typeof podFeatureGates): boolean => podFeatureGates[name];

const allContainers = (s: PodSpec | undefined): Container[] => [...(s?.containers ?? []), ...(s?.initContainers ?? []), ...(s?.ephemeralContainers ?? [])];

const allStatuses = (s: PodStatus): ContainerStatus[] => [...(s.containerStatuses ?? []), ...(s.initContainerStatuses ?? []), ...(s.ephemeralContainerStatuses ?? [])];

/** DropDisabledPodFields: `old` is the stored pod (none on create). */
export function dropDisabledPodFields(pod: Pod, old: Pod | undefined): void {
  dropDisabledSpecFields((pod.spec ??= {}), old?.spec);
  if (pod.status) dropDisabledStatusFields(pod.status, old?.spec);
}

/** kube's inPlacePodVerticalScalingInUse: a container of the stored spec has a resize policy. */
const resizeInUse = (old: PodSpec | undefined) => allContainers(old).some((c) => c.resizePolicy?.length);

/** kube's dynamicResourceAllocationInUse: the stored spec has pod-level claims. */
const claimsInUse = (old: PodSpec | undefined) => !!old?.resourceClaims?.length;

/** kube's rroInUse: a mount of the stored spec sets recursiveReadOnly. */
const rroInUse = (old: PodSpec | undefined) => allContainers(old).some((c) => c.volumeMounts?.some((m) => m.recursiveReadOnly !== undefined && m.recursiveReadOnly !== null));

function dropDisabledSpecFields(spec: PodSpec, old: PodSpec | undefined): void {
  const sc = spec.securityContext;
  if (!gate('UserNamespacesSupport') && old?.hostUsers === undefined) delete spec.hostUsers;
  if (!gate('SupplementalGroupsPolicy') && sc && old?.securityContext?.supplementalGroupsPolicy === undefined) delete sc.supplementalGroupsPolicy;
  if (!gate('SELinuxChangePolicy') && sc && old?.securityContext?.seLinuxChangePolicy === undefined) delete sc.seLinuxChangePolicy;
  if (!gate('PodLevelResources') && !old?.resources) delete spec.resources;
  if (!gate('DynamicResourceAllocation') && !claimsInUse(old)) {
    delete spec.resourceClaims;
    for (const c of allContainers(spec)) if (c.resources) delete c.resources.claims;
  }
  if (!gate('InPlacePodVerticalScaling') && !resizeInUse(old)) for (const c of allContainers(spec)) delete c.resizePolicy;
  // kube once wrote procMount on every pod, so an unused one is reset to Default rather than dropped.
  const procMount = (c: Container) => c.securityContext?.procMount ?? undefined;
  if (!gate('ProcMountType') && !allContainers(old).some((c) => procMount(c) !== undefined && procMount(c) !== 'Default')) {
    for (const c of allContainers(spec)) if (c.securityContext && procMount(c) !== undefined) c.securityContext.procMount = 'Default';
  }
  const usesTrustBundles = (s: PodSpec | undefined) => !!s?.volumes?.some((v) => v.projected?.sources?.some((p) => p.clusterTrustBundle));
  if (!gate('ClusterTrustBundleProjection') && !usesTrustBundles(old)) {
    for (const v of spec.volumes ?? []) for (const p of v.projected?.sources ?? []) delete p.clusterTrustBundle;
  }
  const imageVolumes = (s: PodSpec | undefined) => (s?.volumes ?? []).filter((v) => v.image !== undefined && v.image !== null);
  if (!gate('ImageVolume') && !imageVolumes(old).length) {
    const dropped = new Set(imageVolumes(spec).map((v) => v.name));
    if (dropped.size) {
      // Go leaves nil slices when nothing is left, which JSON omits.
      spec.volumes = (spec.volumes ?? []).filter((v) => !dropped.has(v.name));
      if (!spec.volumes.length) delete spec.volumes;
      for (const c of allContainers(spec)) {
        if (!c.volumeMounts) continue;
        c.volumeMounts = c.volumeMounts.filter((m) => !dropped.has(m.name));
        if (!c.volumeMounts.length) delete c.volumeMounts;
      }
    }
  }
}

/** kube's dropDisabledPodStatusFields; what is "in use" is judged on the stored spec. */
function dropDisabledStatusFields(status: PodStatus, old: PodSpec | undefined): void {
  const statuses = allStatuses(status);
  if (!gate('InPlacePodVerticalScaling') && !resizeInUse(old)) {
    for (const cs of statuses) delete cs.resources;
    delete status.resize;
  }
  if (!gate('InPlacePodVerticalScaling') || !gate('InPlacePodVerticalScalingAllocatedStatus')) {
    for (const cs of statuses) delete cs.allocatedResources;
  }
  if (!gate('DynamicResourceAllocation') && !claimsInUse(old)) delete status.resourceClaimStatuses;
  if (!gate('RecursiveReadOnlyMounts') && !rroInUse(old)) for (const cs of statuses) delete cs.volumeMounts;
  if (!gate('ResourceHealthStatus')) for (const cs of statuses) delete cs.allocatedResourcesStatus;
  if (!gate('SupplementalGroupsPolicy') && old?.securityContext?.supplementalGroupsPolicy === undefined) {
    for (const cs of statuses) delete cs.user;
  }
}
