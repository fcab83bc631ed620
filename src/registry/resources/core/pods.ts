/**
 * core/v1 Pod as kube-apiserver serves it without a kubelet or scheduler (kube's pkg/registry/core/pod):
 * defaults, status Pending with the QoS class on create, the spec frozen but for kube's few
 * mutable fields, and kube 1.32's subresources: status, ephemeralcontainers, binding, eviction, and
 * the streaming ones (log, exec, attach, portforward, proxy), which with no kubelet answer as kube
 * does for a pod no node runs. Nothing runs the pods: they stay Pending until a client writes
 * their status.
 *
 * Deletion is immediate. kube deletes an unbound pod (no spec.nodeName) or a terminated one at once
 * too; a bound one kube marks with a deletionTimestamp and leaves for its kubelet to remove, and
 * with no kubelet here it is removed at once instead.
 */
import { KubeObject, cloneJson, podQOSClass, timestamp } from '../../../api';
import { ResourceDefinition, Strategy, SubresourceDefinition, allVerbs, baseStrategy } from '../../resource';
import { bindingAnswer } from './pod-binding';
import { podConnectSubresources } from './pod-connect';
import { ephemeralContainersStrategy } from './pod-ephemeral-containers';
import { evictionAnswer } from './pod-eviction';
import { defaultPod, fillGoStructValues } from './pod-defaults';
import { dropDisabledPodFields } from './pod-drop';
import { mutatePodAffinity, syncAppArmor } from './pod-prepare';
import { podRowConditions, podTableColumns } from './pod-table';
import type { Pod, PodStatus } from './pod-types';
import { podCreateWarnings, validatePodCreate, validatePodStatusUpdate, validatePodUpdate } from './pod-validation';

/**
 * The pod as kube's decoder hands it on: defaults applied (quantities canonical), Go's
 * always-present structs. The store runs this on every create and update before mutating
 * admission, and again after a webhook's patch, so webhooks, validation and storage see that shape.
 */
function decodedShape(obj: KubeObject): void {
  const pod = obj as Pod;
  defaultPod(pod);
  fillGoStructValues(pod);
  // kube's v1 conversion: the deprecated serviceAccount names the account when serviceAccountName
  // does not, and always reads back as serviceAccountName.
  const spec = pod.spec;
  if (spec) {
    if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
    if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
    else delete spec.serviceAccount;
  }
}

/** kube's applySchedulingGatedCondition: a gated pod is created with PodScheduled False, SchedulingGated. */
function schedulingGatedCondition(pod: Pod, status: PodStatus, now: Date): void {
  if (!pod.spec?.schedulingGates?.length) return;
  status.conditions = [
    {
      type: 'PodScheduled',
      status: 'False',
      lastProbeTime: null,
      lastTransitionTime: timestamp(now),
      reason: 'SchedulingGated',
      message: 'Scheduling is blocked due to non-empty scheduling gates',
    },
  ];
}

const statusStrategy: Strategy = {
  ...baseStrategy,
  allowUnconditionalUpdate: true,
  prepareForUpdate: (_ctx, obj, old) => {
    const pod = obj as Pod;
    const prev = old as Pod;
    pod.spec = cloneJson(prev.spec ?? {});
    // Not the status writer's either: BeforeUpdate puts back the stored one, if any.
    delete pod.metadata.deletionTimestamp;
    // Owner references are not the status writer's (old kubelets corrupted them).
    if (prev.metadata.ownerReferences) pod.metadata.ownerReferences = cloneJson(prev.metadata.ownerReferences);
    else delete pod.metadata.ownerReferences;
    pod.status ??= {};
    // The QoS class is fixed at creation: a writer that drops it gets it back.
    if (!pod.status.qosClass && prev.status?.qosClass) pod.status.qosClass = prev.status.qosClass;
    // Status fields of features that are off (container resources, users, resource claims...).
    dropDisabledPodFields(pod, prev);
  },
  validateUpdate: (_ctx, obj, old) => validatePodStatusUpdate(obj as Pod, old as Pod),
};

function connect(name: string): SubresourceDefinition {
  const sub = podConnectSubresources.find((s) => s.name === name);
  if (!sub) throw new Error(`pods: no connect subresource ${name}`);
  return sub;
}

export const pods: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: 'pods',
  singularName: 'pod',
  kind: 'Pod',
  listKind: 'PodList',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  verbs: allVerbs,
  // kube 1.32's, in discovery's (name) order. binding and eviction answer a kind of their own;
  // attach, exec, log, portforward and proxy are served by the connect handler (pod-connect.ts).
  subresources: [
    connect('attach'),
    { name: 'binding', verbs: ['create'], strategy: baseStrategy, answer: bindingAnswer },
    { name: 'ephemeralcontainers', verbs: ['get', 'patch', 'update'], strategy: ephemeralContainersStrategy },
    { name: 'eviction', verbs: ['create'], strategy: baseStrategy, answer: evictionAnswer },
    connect('exec'),
    connect('log'),
    connect('portforward'),
    connect('proxy'),
    { name: 'status', verbs: ['get', 'patch', 'update'], strategy: statusStrategy, resetFields: [['spec'], ['metadata', 'deletionTimestamp'], ['metadata', 'ownerReferences']] },
  ],
  resetFields: [['status']],
  schemaName: 'io.k8s.api.core.v1.Pod',
  protobufMessage: 'k8s.io.api.core.v1.Pod',
  nameValidation: 'subdomain',
  // kube's pod storage sets ReturnDeletedObject and its REST embeds the generic Store.
  returnDeletedObject: true,
  documentsDeletedObject: true,
  strategy: {
    ...baseStrategy,
    defaults: decodedShape,
    prepareForCreate: (ctx, obj) => {
      const pod = obj as Pod;
      dropDisabledPodFields(pod, undefined);
      // kube keeps only the phase and the QoS class (a client's own qosClass wins, as GetPodQOS reads it first).
      const status: PodStatus = { phase: 'Pending', qosClass: podQOSClass(pod) };
      schedulingGatedCondition(pod, status, ctx.now());
      pod.status = status;
      mutatePodAffinity(pod);
      ctx.warnings.push(...syncAppArmor(pod));
    },
    prepareForUpdate: (_ctx, obj, old) => {
      const pod = obj as Pod;
      pod.status = cloneJson((old as Pod).status ?? {});
      dropDisabledPodFields(pod, old as Pod);
    },
    validate: (_ctx, obj) => validatePodCreate(obj as Pod),
    validateUpdate: (_ctx, obj, old) => validatePodUpdate(obj as Pod, old as Pod),
    warningsOnCreate: (_ctx, obj) => podCreateWarnings(obj as Pod),
  },
  // kube's pod field labels (ToSelectableFields); spec.host is the old name of spec.nodeName, and
  // status.podIPs is accepted but never set, so it reads as "".
  selectableFields: {
    'spec.nodeName': (o) => (o as Pod).spec?.nodeName ?? '',
    'spec.host': (o) => (o as Pod).spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => (o as Pod).spec?.restartPolicy ?? '',
    'spec.schedulerName': (o) => (o as Pod).spec?.schedulerName ?? '',
    'spec.serviceAccountName': (o) => (o as Pod).spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String((o as Pod).spec?.hostNetwork === true),
    'status.phase': (o) => (o as Pod).status?.phase ?? '',
    'status.podIP': (o) => (o as Pod).status?.podIPs?.[0]?.ip ?? '',
    'status.podIPs': () => '',
    'status.nominatedNodeName': (o) => (o as Pod).status?.nominatedNodeName ?? '',
  },
  fieldSelectorError: (label) => `field label not supported: ${label}`,
  tableColumns: podTableColumns,
  tableRowConditions: podRowConditions,
};
