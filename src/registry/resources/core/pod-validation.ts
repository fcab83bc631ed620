/**
 * Pod validation as kube's pkg/apis/core/validation: ValidatePodCreate, ValidatePodUpdate (the
 * spec frozen but for kube's few mutable fields) and ValidatePodStatusUpdate, plus the create
 * warnings of kube's pod strategy. Object metadata is validated by the generic store.
 */
import { FieldError, FieldPath, fieldErrors, goQuote, isDNS1123Label, isQualifiedName, cloneJson } from '../../../api';
import { semanticEqual } from '../../../api/semantic-equal';
import { nameIsDNSSubdomain } from '../../../api/names';
import { imageWhitespaceErrors } from './pod-container-validation';
import { NodeAffinity, nodeAffinityMutationErrors, nodeSelectorMutationErrors } from './pod-gated-update';
import { PodSpecOptions, statusIPErrors, validatePodSpec, validateTolerations } from './pod-spec-validation';
import { hasHostNamespacedSysctl } from './pod-sysctls';
import { TOLERATIONS_ANNOTATION, tolerationsAnnotationErrors } from './pod-tolerations-annotation';
import type { Container, ContainerStatus, Pod, PodSpec, PodStatus, Toleration } from './pod-types';

/** kube-apiserver's --allow-privileged defaults to false, and this server has no such flag. */
const allowPrivileged = false;

/** kube's PodValidationOptions for a write (`old`: the stored pod of an update). */
function optionsFor(old: Pod | undefined): PodSpecOptions {
  return { allowPrivileged, allowHostNamespacedSysctls: hasHostNamespacedSysctl(old?.spec) };
}

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function seccompAnnotationErrors(value: string, path: FieldPath): FieldError[] {
  if (value === 'runtime/default' || value === 'docker/default' || value === 'unconfined') return [];
  if (value.startsWith('localhost/')) {
    const rest = value.slice('localhost/'.length);
    const errs: FieldError[] = [];
    if (rest.startsWith('/')) errs.push(fieldErrors.invalid(path, rest, 'must be a relative path'));
    if (rest.split('/').includes('..')) errs.push(fieldErrors.invalid(path, rest, "must not contain '..'"));
    return errs;
  }
  return [fieldErrors.invalid(path, value, 'must be a valid seccomp profile')];
}

/** ValidateAppArmorPodAnnotations: each annotation names a container of the pod and a known profile form. */
function appArmorAnnotationErrors(annotations: Record<string, string>, spec: PodSpec, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set([...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c) => c.name ?? ''));
  for (const [k, v] of Object.entries(annotations)) {
    if (!k.startsWith(APPARMOR_PREFIX)) continue;
    const container = k.slice(APPARMOR_PREFIX.length);
    if (!names.has(container)) errs.push(fieldErrors.invalid(path.key(k), container, 'container not found'));
    if (v && v !== 'runtime/default' && v !== 'unconfined' && !v.startsWith('localhost/')) errs.push(fieldErrors.invalid(path.key(k), v, `invalid AppArmor profile name: ${goQuote(v)}`));
  }
  return errs;
}

/** validateAppArmorAnnotationsAndFieldsMatchOnCreate: an annotation kept beside a profile must say the same. */
function appArmorMismatchErrors(pod: Pod, specPath: FieldPath): FieldError[] {
  const spec = pod.spec ?? {};
  if (spec.os?.name === 'windows') return [];
  const annotations = pod.metadata.annotations ?? {};
  const podProfile = spec.securityContext?.appArmorProfile;
  const errs: FieldError[] = [];
  const visit = (containers: Container[] | undefined, field: string) =>
    (containers ?? []).forEach((c, i) => {
      const profile = c.securityContext?.appArmorProfile ?? podProfile;
      const key = APPARMOR_PREFIX + (c.name ?? '');
      if (!profile || !Object.hasOwn(annotations, key)) return;
      const annotation = annotations[key] ?? '';
      const p = specPath.child(field).index(i).child('securityContext').child('appArmorProfile');
      const typeMismatch = () => errs.push(fieldErrors.forbidden(p.child('type'), 'apparmor type in annotation and field must match'));
      switch (profile.type) {
        case 'Unconfined':
          if (annotation !== 'unconfined') typeMismatch();
          break;
        case 'RuntimeDefault':
          if (annotation !== 'runtime/default') typeMismatch();
          break;
        case 'Localhost':
          if (!annotation.startsWith('localhost/')) typeMismatch();
          else if (annotation.slice('localhost/'.length) !== profile.localhostProfile) {
            errs.push(fieldErrors.forbidden(p.child('localhostProfile'), 'apparmor profile in annotation and field must match'));
          }
          break;
      }
    });
  // kube's VisitContainersWithPath order.
  visit(spec.initContainers, 'initContainers');
  visit(spec.containers, 'containers');
  visit(spec.ephemeralContainers, 'ephemeralContainers');
  return errs;
}

/**
 * GetDeletionCostFromPodAnnotations accepts the value: a 32-bit integer without a plus sign or
 * leading zeros (`-007` passes, as Go's check only looks at the first character).
 */
function validDeletionCost(annotations: Record<string, string> | undefined): boolean {
  if (!annotations || !Object.hasOwn(annotations, DELETION_COST)) return true;
  const v = annotations[DELETION_COST] ?? '';
  if (!/^(-\d+|0|[1-9]\d*)$/.test(v)) return false;
  const n = Number(v);
  return n >= -2147483648 && n <= 2147483647;
}

/**
 * ValidatePodSpecificAnnotations. On an update (`old`) a deletion cost the stored pod already had
 * wrong is let through (kube's AllowInvalidPodDeletionCost).
 */
function podAnnotationErrors(pod: Pod, old?: Pod): FieldError[] {
  const annotations = pod.metadata.annotations ?? {};
  const path = FieldPath.root('metadata').child('annotations');
  const errs: FieldError[] = [];
  if (MIRROR_ANNOTATION in annotations && !pod.spec?.nodeName) {
    errs.push(fieldErrors.invalid(path.key(MIRROR_ANNOTATION), annotations[MIRROR_ANNOTATION], 'must set spec.nodeName if mirror pod annotation is set'));
  }
  const tolerations = annotations[TOLERATIONS_ANNOTATION];
  if (tolerations) errs.push(...tolerationsAnnotationErrors(tolerations, path, validateTolerations));
  const allowInvalidCost = old !== undefined && !validDeletionCost(old.metadata.annotations);
  if (!allowInvalidCost && !validDeletionCost(annotations)) {
    errs.push(fieldErrors.invalid(path.key(DELETION_COST), annotations[DELETION_COST] ?? '', 'must be a 32bit integer'));
  }
  // kube's path here is a child, not a key (so it reads annotations.<key>).
  if (SECCOMP_POD in annotations) errs.push(...seccompAnnotationErrors(annotations[SECCOMP_POD] ?? '', path.child(SECCOMP_POD)));
  for (const [k, v] of Object.entries(annotations)) {
    if (k.startsWith(SECCOMP_CONTAINER_PREFIX)) errs.push(...seccompAnnotationErrors(v, path.child(k)));
  }
  errs.push(...appArmorAnnotationErrors(annotations, pod.spec ?? {}, path));
  return errs;
}

/** validatePodMetadataAndSpec without the object metadata: annotations, spec, pod-only rules. */
function validateMetadataAndSpec(pod: Pod, old: Pod | undefined): FieldError[] {
  const spec = pod.spec ?? {};
  const specPath = FieldPath.root('spec');
  const errs = [...podAnnotationErrors(pod, old), ...validatePodSpec(pod, specPath, optionsFor(old))];
  if (!spec.serviceAccountName) {
    (spec.volumes ?? []).forEach((v, vi) => {
      (v.projected?.sources ?? []).forEach((s, si) => {
        if (s.serviceAccountToken) {
          const p = specPath.child('volumes').index(vi).child('projected').child('sources').index(si).child('serviceAccountToken');
          errs.push(fieldErrors.forbidden(p, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  (spec.containers ?? []).forEach((c, i) => errs.push(...imageWhitespaceErrors(c, specPath.child('containers').index(i))));
  (spec.initContainers ?? []).forEach((c, i) => errs.push(...imageWhitespaceErrors(c, specPath.child('initContainers').index(i))));
  return errs;
}

export function validatePodCreate(pod: Pod): FieldError[] {
  const errs = validateMetadataAndSpec(pod, undefined);
  const specPath = FieldPath.root('spec');
  if (pod.spec?.ephemeralContainers?.length) errs.push(fieldErrors.forbidden(specPath.child('ephemeralContainers'), 'cannot be set on create'));
  if (pod.spec?.nodeName && pod.spec.schedulingGates?.length) {
    errs.push(fieldErrors.forbidden(specPath.child('nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  }
  errs.push(...appArmorMismatchErrors(pod, specPath));
  return errs;
}

const updatableFields = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** Go's field name of a PodSpec JSON field, as a diff prints it. */
function goFieldName(json: string): string {
  const special: Record<string, string> = { dnsPolicy: 'DNSPolicy', hostPID: 'HostPID', hostIPC: 'HostIPC', dnsConfig: 'DNSConfig', os: 'OS', setHostnameAsFQDN: 'SetHostnameAsFQDN' };
  return special[json] ?? json.charAt(0).toUpperCase() + json.slice(1);
}

/**
 * A short diff of the fields that changed, in the shape of the go-cmp diff kube appends (of a
 * core.PodSpec, a core.EphemeralContainer). go-cmp randomises its output on purpose, so no client
 * can match its bytes; this keeps its layout.
 */
function specDiff(old: object, now: object, goType = 'core.PodSpec'): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(now)])];
  const lines = [`  ${goType}{`];
  let same = 0;
  const flush = () => {
    if (same) lines.push(`  \t... // ${same} identical field${same === 1 ? '' : 's'}`);
    same = 0;
  };
  for (const k of keys) {
    const a = (old as Record<string, unknown>)[k];
    const b = (now as Record<string, unknown>)[k];
    if (semanticEqual(a, b)) {
      same++;
      continue;
    }
    flush();
    if (a !== undefined) lines.push(`- \t${goFieldName(k)}: ${JSON.stringify(a)},`);
    if (b !== undefined) lines.push(`+ \t${goFieldName(k)}: ${JSON.stringify(b)},`);
  }
  flush();
  lines.push('  }');
  return `${lines.join('\n')}\n`;
}

/** validateOnlyAddedTolerations: existing ones stay (tolerationSeconds may change). */
function onlyAddedTolerations(now: Toleration[] | undefined, old: Toleration[] | undefined, path: FieldPath): FieldError[] {
  for (const o of old ?? []) {
    const found = (now ?? []).some((n) => semanticEqual({ ...o, tolerationSeconds: n.tolerationSeconds }, n));
    if (!found) return [fieldErrors.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(now, path);
}

/** ValidatePodSpecificAnnotationUpdates: AppArmor and mirror annotations are fixed, then the rest. */
function annotationUpdateErrors(pod: Pod, old: Pod): FieldError[] {
  const path = FieldPath.root('metadata').child('annotations');
  const now = pod.metadata.annotations ?? {};
  const before = old.metadata.annotations ?? {};
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(before)) {
    if (k in now && now[k] === v) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(fieldErrors.forbidden(path.key(k), 'may not remove or update AppArmor annotations'));
    if (k === MIRROR_ANNOTATION) errs.push(fieldErrors.forbidden(path.key(k), 'may not remove or update mirror pod annotation'));
  }
  for (const k of Object.keys(now)) {
    if (k in before) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(fieldErrors.forbidden(path.key(k), 'may not add AppArmor annotations'));
    if (k === MIRROR_ANNOTATION) errs.push(fieldErrors.forbidden(path.key(k), 'may not add mirror pod annotation'));
  }
  return errs;
}

export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  // kube checks the annotations twice on an update (validatePodMetadataAndSpec, then
  // ValidatePodSpecificAnnotationUpdates), so an error there is listed twice among the causes.
  const errs = [...validateMetadataAndSpec(pod, old), ...annotationUpdateErrors(pod, old), ...podAnnotationErrors(pod, old)];
  const specPath = FieldPath.root('spec');
  const spec = pod.spec ?? {};
  const prev = old.spec ?? {};
  for (const key of ['containers', 'initContainers'] as const) {
    const now = spec[key] ?? [];
    const before = prev[key] ?? [];
    if (now.length !== before.length) {
      errs.push(fieldErrors.forbidden(specPath.child(key), 'pod updates may not add or remove containers'));
      return errs;
    }
    now.forEach((c, i) => {
      if (!c.image) errs.push(fieldErrors.required(specPath.child(key).index(i).child('image'), ''));
      // imageWhitespaceErrors is part of validateMetadataAndSpec already; kube reports it twice on update.
      errs.push(...imageWhitespaceErrors(c, specPath.child(key).index(i)));
    });
  }
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined) {
    if (ads < 0 || ads > 2147483647) {
      errs.push(fieldErrors.invalid(specPath.child('activeDeadlineSeconds'), ads, 'must be between 0 and 2147483647, inclusive'));
      return errs;
    }
    if (prev.activeDeadlineSeconds !== undefined && prev.activeDeadlineSeconds < ads) {
      errs.push(fieldErrors.invalid(specPath.child('activeDeadlineSeconds'), ads, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (prev.activeDeadlineSeconds !== undefined) {
    errs.push(fieldErrors.invalid(specPath.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...onlyAddedTolerations(spec.tolerations, prev.tolerations, specPath.child('tolerations')));
  const newGates = spec.schedulingGates ?? [];
  const oldGates = new Set((prev.schedulingGates ?? []).map((g) => g.name));
  newGates.forEach((g, i) => {
    if (!oldGates.has(g.name)) errs.push(fieldErrors.forbidden(specPath.child('schedulingGates').index(i).child('name'), `only deletion is allowed, but found new scheduling gate '${g.name ?? ''}'`));
  });
  if (semanticEqual(spec, prev)) return errs;

  // Put back what may change, then anything else that differs is a change kube forbids.
  const munged = cloneJson(spec);
  (munged.containers ?? []).forEach((c, i) => (c.image = prev.containers?.[i]?.image));
  (munged.initContainers ?? []).forEach((c, i) => (c.image = prev.initContainers?.[i]?.image));
  if (prev.activeDeadlineSeconds === undefined) delete munged.activeDeadlineSeconds;
  else munged.activeDeadlineSeconds = prev.activeDeadlineSeconds;
  setOrDelete(munged, 'schedulingGates', prev.schedulingGates);
  setOrDelete(munged, 'tolerations', prev.tolerations);
  if ((prev.terminationGracePeriodSeconds ?? 0) < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = prev.terminationGracePeriodSeconds;
  if (prev.schedulingGates?.length) {
    // A gated pod may add to its nodeSelector and narrow its required node affinity.
    if (!semanticEqual(munged.nodeSelector, prev.nodeSelector)) {
      errs.push(...nodeSelectorMutationErrors(munged.nodeSelector, prev.nodeSelector, specPath.child('nodeSelector')));
      setOrDelete(munged, 'nodeSelector', prev.nodeSelector);
    }
    const affinity = munged.affinity as { nodeAffinity?: NodeAffinity; podAffinity?: unknown; podAntiAffinity?: unknown } | undefined;
    const oldNodeAffinity = (prev.affinity as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity;
    if (!semanticEqual(oldNodeAffinity, affinity?.nodeAffinity)) {
      errs.push(...nodeAffinityMutationErrors(affinity?.nodeAffinity, oldNodeAffinity, specPath.child('affinity').child('nodeAffinity')));
      if (!affinity) {
        if (oldNodeAffinity) munged.affinity = { nodeAffinity: cloneJson(oldNodeAffinity) };
      } else if (!prev.affinity && affinity.podAffinity === undefined && affinity.podAntiAffinity === undefined) {
        // Only the node affinity was added to a pod that had none: nothing else changed.
        delete munged.affinity;
      } else if (oldNodeAffinity) affinity.nodeAffinity = cloneJson(oldNodeAffinity);
      else delete affinity.nodeAffinity;
    }
  }
  if (!semanticEqual(munged, prev)) {
    errs.push(fieldErrors.forbidden(specPath, `pod updates may not change fields other than ${updatableFields.join(',')}\n${specDiff(prev, munged)}`));
  }
  return errs;
}

/**
 * kube's ValidatePodEphemeralContainersUpdate (the pods/ephemeralcontainers subresource, whose
 * strategy kept everything of the stored pod but its ephemeral containers): the pod as a whole,
 * its annotations as on an update, then existing ephemeral containers neither removed nor changed.
 * A mirror (static) pod gets that one refusal alone.
 */
export function validatePodEphemeralContainersUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = [...validateMetadataAndSpec(pod, old), ...annotationUpdateErrors(pod, old), ...podAnnotationErrors(pod, old)];
  if (old.metadata.annotations && MIRROR_ANNOTATION in old.metadata.annotations) return [fieldErrors.forbidden('', 'static pods do not support ephemeral containers')];
  const path = FieldPath.root('spec').child('ephemeralContainers');
  const byName = new Map((pod.spec?.ephemeralContainers ?? []).map((c) => [c.name ?? '', c]));
  for (const before of old.spec?.ephemeralContainers ?? []) {
    const name = before.name ?? '';
    const now = byName.get(name);
    if (!now) errs.push(fieldErrors.forbidden(path, `existing ephemeral containers ${goQuote(name)} may not be removed\n`));
    else if (!semanticEqual(before, now)) {
      errs.push(fieldErrors.forbidden(path, `existing ephemeral containers ${goQuote(name)} may not be changed\n${specDiff(before, now, 'core.EphemeralContainer')}`));
    }
  }
  return errs;
}

function setOrDelete<K extends keyof PodSpec>(spec: PodSpec, key: K, value: PodSpec[K] | undefined): void {
  if (value === undefined) delete spec[key];
  else spec[key] = cloneJson(value);
}

/** ValidateContainerStateTransition: a terminated container that may not restart stays terminated. */
function stateTransitionErrors(now: ContainerStatus[] | undefined, old: ContainerStatus[] | undefined, path: FieldPath, restartPolicy: string, restartable: Set<string>): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  (old ?? []).forEach((o, i) => {
    const term = o.state?.terminated;
    if (!term) return;
    if ((term.exitCode ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    if (restartable.has(o.name ?? '')) return;
    for (const n of now ?? []) {
      if (n.name === o.name && !n.state?.terminated) errs.push(fieldErrors.forbidden(path.index(i).child('state'), 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

/**
 * validatePodResourceClaimStatuses: each names a claim of the spec, once; a generated claim's name
 * is a DNS subdomain (reported, as kube does, at the entry's `name`).
 */
function resourceClaimStatusErrors(statuses: PodStatus['resourceClaimStatuses'], claims: PodSpec['resourceClaims'], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set((claims ?? []).map((c) => c.name ?? ''));
  const seen = new Set<string>();
  (statuses ?? []).forEach((st, i) => {
    const p = path.index(i).child('name');
    const name = st.name ?? '';
    if (!names.has(name)) errs.push(fieldErrors.invalid(p, name, 'must match the name of an entry in `spec.resourceClaims`'));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(p, name));
    seen.add(name);
    if (st.resourceClaimName !== undefined && st.resourceClaimName !== null) {
      for (const m of nameIsDNSSubdomain(st.resourceClaimName, false)) errs.push(fieldErrors.invalid(p, st.resourceClaimName, m));
    }
  });
  return errs;
}

export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = [...annotationUpdateErrors(pod, old), ...podAnnotationErrors(pod, old)];
  const status = pod.status ?? {};
  const before = old.status ?? {};
  // kube validates the conditions under metadata.conditions, with a capitalised Type.
  const systemConditions = new Set(['PodScheduled', 'Ready', 'Initialized']);
  (status.conditions ?? []).forEach((c, i) => {
    const type = c.type ?? '';
    if (systemConditions.has(type)) return;
    for (const m of isQualifiedName(type)) errs.push(fieldErrors.invalid(FieldPath.root('metadata').child('conditions').index(i).child('Type'), type, m));
  });
  const path = FieldPath.root('status');
  if ((pod.spec?.nodeName ?? '') !== (old.spec?.nodeName ?? '')) errs.push(fieldErrors.forbidden(path.child('nodeName'), 'may not be changed directly'));
  const nominated = status.nominatedNodeName ?? '';
  if (nominated !== (before.nominatedNodeName ?? '') && nominated) {
    for (const m of nameIsDNSSubdomain(nominated, false)) errs.push(fieldErrors.invalid(path.child('nominatedNodeName'), nominated, m));
  }
  if ((status.qosClass ?? '') !== (before.qosClass ?? '')) errs.push(fieldErrors.invalid(path.child('qosClass'), status.qosClass ?? '', 'field is immutable'));
  const restartPolicy = old.spec?.restartPolicy ?? '';
  const sidecars = new Set((old.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name ?? ''));
  errs.push(
    ...stateTransitionErrors(status.containerStatuses, before.containerStatuses, path.child('containerStatuses'), restartPolicy, new Set()),
    ...stateTransitionErrors(status.initContainerStatuses, before.initContainerStatuses, path.child('initContainerStatuses'), restartPolicy, sidecars),
    ...stateTransitionErrors(status.ephemeralContainerStatuses, before.ephemeralContainerStatuses, path.child('ephemeralContainerStatuses'), 'Never', new Set()),
    ...resourceClaimStatusErrors(status.resourceClaimStatuses, pod.spec?.resourceClaims, path.child('resourceClaimStatuses')),
    ...statusIPErrors(status.podIPs, path.child('podIPs'), 'PodIP'),
  );
  const hostIPs = status.hostIPs ?? [];
  if (hostIPs.length) {
    if ((status.hostIP ?? '') !== (hostIPs[0]?.ip ?? '')) errs.push(fieldErrors.invalid(path.child('hostIPs').index(0).child('ip'), hostIPs[0]?.ip ?? '', 'must be equal to `hostIP`'));
    errs.push(...statusIPErrors(hostIPs, path.child('hostIPs'), 'HostIP'));
  }
  return errs;
}

/** kube's pod strategy warns when the name is no DNS label (it becomes the pod's hostname). */
export function podCreateWarnings(pod: Pod): string[] {
  const msgs = isDNS1123Label(pod.metadata.name ?? '');
  if (!msgs.length) return [];
  return [`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
}
