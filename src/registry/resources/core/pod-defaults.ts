/**
 * kube's defaulting of a core/v1 Pod (pkg/apis/core/v1 defaults.go and the generated
 * SetObjectDefaults_Pod), with 1.32's default feature gates: InPlacePodVerticalScaling,
 * PodLevelResources and ImageVolume are off, so their defaults are not applied.
 * kube defaults while decoding a request; here the pod strategy's `defaults` hook runs it, which
 * the store calls before mutating admission and again after a webhook's patch. Nothing of
 * PrepareForCreate belongs here (status, dropped fields): that is the prepare hooks' work.
 */
import { Quantity, QuantityParseError, parseQuantity } from '../../../api';
import { type Container, type HTTPGetAction, type ObjectFieldSelector, type Pod, type Probe, type ResourceList, type Volume, volumeSourceFields } from './pod-types';

/**
 * SetDefaults_ResourceList: values finer than a thousandth are rounded up to one (kube's
 * RoundUp(-3)). Every value is written back in canonical form, as Go serialises a Quantity: this
 * walk reaches every ResourceList of a pod, so it is also where pods get canonical quantities.
 */
function roundUpResourceList(list: ResourceList | undefined): void {
  if (!list) return;
  for (const [name, raw] of Object.entries(list)) {
    let q;
    try {
      q = parseQuantity(raw);
    } catch (e) {
      if (e instanceof QuantityParseError) continue; // left as written, for validation to report
      throw e;
    }
    // Exact at milli scale: kept. Otherwise the milli value, rounded up, replaces it.
    const rounded = q.cmp(Quantity.fromMilli(q.milliValue())) === 0 ? q : Quantity.fromMilli(q.milliValue(), q.format);
    list[name] = rounded.toString();
  }
}

// The docker reference grammar (distribution/reference) that parsers.ParseImageName parses with.
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `${domainComponent}(?:\\.${domainComponent})*(?::[0-9]+)?`;
const pathComponent = '[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*';
const referenceRe = new RegExp(
  `^((?:${domain}/)?${pathComponent}(?:/${pathComponent})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);

/**
 * The tag parsers.ParseImageName finds: the reference's tag, "latest" when it has neither tag nor
 * digest, and "" when it has only a digest or does not parse (kube ignores the error there).
 */
export function imageTag(image: string): string {
  const m = referenceRe.exec(image);
  if (!m || (m[1] ?? '').length > 255 || /^[a-f0-9]{64}$/.test(image)) return '';
  if (m[2]) return m[2];
  return m[3] ? '' : 'latest';
}

function defaultObjectFieldSelector(sel: ObjectFieldSelector | undefined): void {
  if (sel && !sel.apiVersion) sel.apiVersion = 'v1';
}

function defaultHTTPGet(action: HTTPGetAction | undefined): void {
  if (!action) return;
  if (!action.path) action.path = '/';
  if (!action.scheme) action.scheme = 'HTTP';
}

function defaultProbe(probe: Probe | undefined): void {
  if (!probe) return;
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  defaultHTTPGet(probe.httpGet);
  if (probe.grpc && probe.grpc.service === undefined) probe.grpc.service = '';
}

/** SetDefaults_Container plus the generated defaults of what a container holds. */
function defaultContainer(c: Container): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  for (const p of c.ports ?? []) if (!p.protocol) p.protocol = 'TCP';
  for (const e of c.env ?? []) defaultObjectFieldSelector(e.valueFrom?.fieldRef);
  roundUpResourceList(c.resources?.limits);
  roundUpResourceList(c.resources?.requests);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultHTTPGet(c.lifecycle?.postStart?.httpGet);
  defaultHTTPGet(c.lifecycle?.preStop?.httpGet);
}

type Obj = Record<string, unknown>;

function defaultVolume(v: Volume): void {
  // SetDefaults_Volume: no source at all (every pointer of VolumeSource nil) is an emptyDir.
  if (!volumeSourceFields.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  if (v.hostPath && v.hostPath.type === undefined) v.hostPath.type = '';
  if (v.secret && v.secret.defaultMode === undefined) v.secret.defaultMode = 0o644;
  if (v.configMap && v.configMap.defaultMode === undefined) v.configMap.defaultMode = 0o644;
  if (v.downwardAPI) {
    if (v.downwardAPI.defaultMode === undefined) v.downwardAPI.defaultMode = 0o644;
    for (const item of v.downwardAPI.items ?? []) defaultObjectFieldSelector(item.fieldRef);
  }
  if (v.projected) {
    if (v.projected.defaultMode === undefined) v.projected.defaultMode = 0o644;
    for (const src of v.projected.sources ?? []) {
      for (const item of src.downwardAPI?.items ?? []) defaultObjectFieldSelector(item.fieldRef);
      if (src.serviceAccountToken && src.serviceAccountToken.expirationSeconds === undefined) src.serviceAccountToken.expirationSeconds = 3600;
    }
  }
  const iscsi = v.iscsi as Obj | undefined;
  if (iscsi && !iscsi.iscsiInterface) iscsi.iscsiInterface = 'default';
  const rbd = v.rbd as Obj | undefined;
  if (rbd) {
    if (!rbd.pool) rbd.pool = 'rbd';
    if (!rbd.user) rbd.user = 'admin';
    if (!rbd.keyring) rbd.keyring = '/etc/ceph/keyring';
  }
  const azureDisk = v.azureDisk as Obj | undefined;
  if (azureDisk) {
    azureDisk.cachingMode ??= 'ReadWrite';
    azureDisk.fsType ??= 'ext4';
    azureDisk.readOnly ??= false;
    azureDisk.kind ??= 'Shared';
  }
  const scaleIO = v.scaleIO as Obj | undefined;
  if (scaleIO) {
    if (!scaleIO.storageMode) scaleIO.storageMode = 'ThinProvisioned';
    if (!scaleIO.fsType) scaleIO.fsType = 'xfs';
  }
  // The template's spec is a Go struct, defaulted even when the client sent none.
  const template = v.ephemeral?.volumeClaimTemplate;
  if (template) {
    const claimSpec = (template.spec ??= {}) as { volumeMode?: string; resources?: { limits?: ResourceList; requests?: ResourceList } };
    claimSpec.volumeMode ??= 'Filesystem';
    roundUpResourceList(claimSpec.resources?.limits);
    roundUpResourceList(claimSpec.resources?.requests);
  }
}

/** requests default to limits for every resource a container limits but does not request (SetDefaults_Pod). */
function defaultRequestsFromLimits(c: Container): void {
  const limits = c.resources?.limits;
  if (!limits || !c.resources) return;
  const requests = (c.resources.requests ??= {});
  for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
}

/** Applies kube's defaults to a pod in place (spec and status's resource lists). */
export function defaultPod(pod: Pod): void {
  const spec = (pod.spec ??= {});
  // SetDefaults_Pod
  for (const c of spec.containers ?? []) defaultRequestsFromLimits(c);
  for (const c of spec.initContainers ?? []) defaultRequestsFromLimits(c);
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork) {
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      for (const p of c.ports ?? []) if (!p.hostPort) p.hostPort = p.containerPort;
    }
  }
  // SetDefaults_PodSpec
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  // The generated walk over what the spec holds.
  for (const v of spec.volumes ?? []) defaultVolume(v);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  roundUpResourceList(spec.overhead);
  roundUpResourceList(spec.resources?.limits);
  roundUpResourceList(spec.resources?.requests);
  const status = pod.status;
  for (const cs of [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])]) {
    const r = cs as { allocatedResources?: ResourceList; resources?: { limits?: ResourceList; requests?: ResourceList } };
    roundUpResourceList(r.allocatedResources);
    roundUpResourceList(r.resources?.limits);
    roundUpResourceList(r.resources?.requests);
  }
}

/**
 * Go marshals a struct-valued field even when it is empty (omitempty never drops a struct), so kube's
 * pods always show `resources: {}` on a container, `state`/`lastState` on a container status and a
 * `divisor` on a resource field reference. The stored object carries them too, as kube's does.
 */
export function fillGoStructValues(pod: Pod): void {
  const spec = pod.spec ?? {};
  const fillDivisor = (ref: { divisor?: string | number } | undefined) => {
    if (ref && ref.divisor === undefined) ref.divisor = '0';
  };
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    c.resources ??= {};
    for (const e of c.env ?? []) fillDivisor(e.valueFrom?.resourceFieldRef);
  }
  for (const v of spec.volumes ?? []) {
    for (const item of v.downwardAPI?.items ?? []) fillDivisor(item.resourceFieldRef);
    for (const src of v.projected?.sources ?? []) for (const item of src.downwardAPI?.items ?? []) fillDivisor(item.resourceFieldRef);
    const template = v.ephemeral?.volumeClaimTemplate;
    if (template) {
      const claimSpec = (template.spec ??= {});
      claimSpec.resources ??= {};
    }
  }
  const affinity = spec.affinity as Record<string, Record<string, unknown> | undefined> | undefined;
  for (const term of (affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution as Record<string, unknown>[] | undefined) ?? []) term.preference ??= {};
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    for (const term of (affinity?.[kind]?.preferredDuringSchedulingIgnoredDuringExecution as Record<string, unknown>[] | undefined) ?? []) term.podAffinityTerm ??= {};
  }
  const status = pod.status;
  for (const cs of [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])]) {
    cs.state ??= {};
    cs.lastState ??= {};
  }
}
