/**
 * kube's DropDisabledPodFields (pkg/api/pod): fields of features that are off by default in 1.32
 * are cleared on a write unless the stored pod already uses them. The gates: UserNamespacesSupport
 * (hostUsers), SupplementalGroupsPolicy, PodLevelResources (spec.resources),
 * DynamicResourceAllocation (resourceClaims, resources.claims), ClusterTrustBundleProjection,
 * InPlacePodVerticalScaling (resizePolicy), ImageVolume (image volumes and their mounts),
 * SELinuxChangePolicy and ProcMountType (a container's procMount is forced to Default, not dropped:
 * kube once wrote the field on every pod).
 */
import type { Container, PodSpec } from './pod-types';

const allContainers = (s: PodSpec | undefined): Container[] => [...(s?.containers ?? []), ...(s?.initContainers ?? []), ...(s?.ephemeralContainers ?? [])];

export function dropDisabledPodFields(spec: PodSpec, old: PodSpec | undefined): void {
  const sc = spec.securityContext;
  if (old?.hostUsers === undefined) delete spec.hostUsers;
  if (sc && old?.securityContext?.supplementalGroupsPolicy === undefined) delete sc.supplementalGroupsPolicy;
  if (sc && old?.securityContext?.seLinuxChangePolicy === undefined) delete sc.seLinuxChangePolicy;
  if (!old?.resources) delete spec.resources;
  if (!old?.resourceClaims?.length) {
    delete spec.resourceClaims;
    for (const c of allContainers(spec)) if (c.resources) delete c.resources.claims;
  }
  if (!allContainers(old).some((c) => c.resizePolicy?.length)) for (const c of allContainers(spec)) delete c.resizePolicy;
  const procMount = (c: Container) => c.securityContext?.procMount ?? undefined;
  if (!allContainers(old).some((c) => procMount(c) !== undefined && procMount(c) !== 'Default')) {
    for (const c of allContainers(spec)) if (c.securityContext && procMount(c) !== undefined) c.securityContext.procMount = 'Default';
  }
  const usesTrustBundles = (s: PodSpec | undefined) => !!s?.volumes?.some((v) => v.projected?.sources?.some((p) => p.clusterTrustBundle));
  if (!usesTrustBundles(old)) {
    for (const v of spec.volumes ?? []) for (const p of v.projected?.sources ?? []) delete p.clusterTrustBundle;
  }
  const imageVolumes = (s: PodSpec | undefined) => (s?.volumes ?? []).filter((v) => v.image !== undefined && v.image !== null);
  if (!imageVolumes(old).length) {
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
