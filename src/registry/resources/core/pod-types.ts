/**
 * The parts of core/v1 Pod the registry reads, as plain JSON shapes (k8s.io/api core/v1 types.go).
 * Everything is optional: these describe decoded client input, which validation checks.
 */
import type { KubeObject } from '../../../api';

export type ResourceList = Record<string, string | number>;

export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: { name?: string; request?: string }[];
}

export interface ContainerPort {
  name?: string;
  hostPort?: number;
  containerPort?: number;
  protocol?: string;
  hostIP?: string;
}

export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath?: string;
}

export interface ResourceFieldSelector {
  containerName?: string;
  resource?: string;
  divisor?: string | number;
}

export interface KeySelector {
  name?: string;
  key?: string;
  optional?: boolean;
}

export interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: KeySelector;
  secretKeyRef?: KeySelector;
}

export interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

export interface VolumeMount {
  name?: string;
  readOnly?: boolean;
  recursiveReadOnly?: string;
  mountPath?: string;
  subPath?: string;
  mountPropagation?: string;
  subPathExpr?: string;
}

export interface VolumeDevice {
  name?: string;
  devicePath?: string;
}

export type IntOrString = number | string;

export interface HTTPGetAction {
  path?: string;
  port?: IntOrString;
  host?: string;
  scheme?: string;
  httpHeaders?: { name?: string; value?: string }[];
}

export interface ProbeHandler {
  exec?: { command?: string[] };
  httpGet?: HTTPGetAction;
  tcpSocket?: { port?: IntOrString; host?: string };
  grpc?: { port?: number; service?: string };
}

export interface Probe extends ProbeHandler {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface LifecycleHandler {
  exec?: { command?: string[] };
  httpGet?: HTTPGetAction;
  tcpSocket?: { port?: IntOrString; host?: string };
  sleep?: { seconds?: number };
}

export interface SecurityContext {
  capabilities?: { add?: string[]; drop?: string[] };
  privileged?: boolean;
  seLinuxOptions?: Record<string, string>;
  windowsOptions?: Record<string, unknown>;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  procMount?: string;
  seccompProfile?: { type?: string; localhostProfile?: string };
  appArmorProfile?: { type?: string; localhostProfile?: string };
}

export interface Container {
  name?: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  resizePolicy?: { resourceName?: string; restartPolicy?: string }[];
  restartPolicy?: string;
  volumeMounts?: VolumeMount[];
  volumeDevices?: VolumeDevice[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { postStart?: LifecycleHandler; preStop?: LifecycleHandler };
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  securityContext?: SecurityContext;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  /** Ephemeral containers only. */
  targetContainerName?: string;
}

export interface KeyToPath {
  key?: string;
  path?: string;
  mode?: number;
}

export interface DownwardAPIVolumeFile {
  path?: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

export interface VolumeProjection {
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  configMap?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  serviceAccountToken?: { audience?: string; expirationSeconds?: number; path?: string };
  clusterTrustBundle?: Record<string, unknown>;
}

/** Every source field of a VolumeSource, in the order kube's validateVolumeSource looks at them. */
export const volumeSourceFields = [
  'emptyDir', 'hostPath', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs', 'flocker',
  'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc', 'flexVolume', 'configMap', 'azureFile',
  'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO', 'csi', 'ephemeral', 'image',
] as const;

/** A volume: its name and one source (each source is an object keyed by its field name). */
export interface Volume {
  name?: string;
  hostPath?: { path?: string; type?: string };
  emptyDir?: { medium?: string; sizeLimit?: string | number };
  secret?: { secretName?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  configMap?: { name?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[]; defaultMode?: number };
  projected?: { sources?: VolumeProjection[]; defaultMode?: number };
  ephemeral?: { volumeClaimTemplate?: { metadata?: Record<string, unknown>; spec?: Record<string, unknown> } };
  [source: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodSecurityContext extends Omit<SecurityContext, 'capabilities' | 'privileged' | 'readOnlyRootFilesystem' | 'allowPrivilegeEscalation' | 'procMount'> {
  supplementalGroups?: number[];
  supplementalGroupsPolicy?: string;
  fsGroup?: number;
  fsGroupChangePolicy?: string;
  sysctls?: { name?: string; value?: string }[];
  seLinuxChangePolicy?: string;
}

export interface PodSpec {
  volumes?: Volume[];
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: Container[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContext;
  imagePullSecrets?: { name?: string }[];
  hostname?: string;
  subdomain?: string;
  affinity?: Record<string, unknown>;
  schedulerName?: string;
  tolerations?: Toleration[];
  hostAliases?: { ip?: string; hostnames?: string[] }[];
  priorityClassName?: string;
  priority?: number;
  dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name?: string; value?: string }[] };
  readinessGates?: { conditionType?: string }[];
  runtimeClassName?: string;
  enableServiceLinks?: boolean;
  preemptionPolicy?: string;
  overhead?: ResourceList;
  topologySpreadConstraints?: Record<string, unknown>[];
  setHostnameAsFQDN?: boolean;
  os?: { name?: string };
  hostUsers?: boolean;
  schedulingGates?: { name?: string }[];
  resourceClaims?: { name?: string; resourceClaimName?: string; resourceClaimTemplateName?: string }[];
  resources?: ResourceRequirements;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode?: number; signal?: number; reason?: string; message?: string; startedAt?: string; finishedAt?: string; containerID?: string };
}

export interface ContainerStatus {
  name?: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready?: boolean;
  restartCount?: number;
  image?: string;
  imageID?: string;
  containerID?: string;
  started?: boolean;
  // Fields of features 1.32 keeps off by default (pod-drop.ts clears them).
  allocatedResources?: ResourceList;
  resources?: ResourceRequirements;
  user?: { linux?: { uid?: number; gid?: number; supplementalGroups?: number[] } };
  allocatedResourcesStatus?: { name?: string; resources?: { resourceID?: string; health?: string }[] }[];
  volumeMounts?: { name?: string; mountPath?: string; readOnly?: boolean; recursiveReadOnly?: string }[];
}

export interface PodCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip?: string }[];
  podIP?: string;
  podIPs?: { ip?: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  qosClass?: string;
  resize?: string;
  resourceClaimStatuses?: { name?: string; resourceClaimName?: string }[];
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}
