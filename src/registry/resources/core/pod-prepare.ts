/**
 * What kube's pod PrepareForCreate does to the spec besides the status (pkg/registry/core/pod
 * strategy.go): matchLabelKeys and mismatchLabelKeys of pod (anti-)affinity terms become selector
 * requirements on the pod's own labels (gate MatchLabelKeysInPodAffinity, on in 1.32), and the
 * deprecated AppArmor annotations and the appArmorProfile fields are made to agree.
 */
import { FieldPath } from '../../../api';
import { validateAppArmorProfile } from './pod-container-validation';
import type { Container, Pod } from './pod-types';

interface SelectorRequirement {
  key: string;
  operator: string;
  values: string[];
}

interface AffinityTerm {
  labelSelector?: { matchExpressions?: SelectorRequirement[] | null } | null;
  matchLabelKeys?: string[] | null;
  mismatchLabelKeys?: string[] | null;
}

interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: AffinityTerm[] | null;
  preferredDuringSchedulingIgnoredDuringExecution?: Array<{ podAffinityTerm?: AffinityTerm | null }> | null;
}

/** applyMatchLabelKeysAndMismatchLabelKeys: `In` (match) or `NotIn` (mismatch) the pod's value of each key it has. */
function applyLabelKeys(term: AffinityTerm | null | undefined, labels: Record<string, string>): void {
  const selector = term?.labelSelector;
  // A missing selector matches nothing, so there is nothing to narrow.
  if (!term || !selector || (!term.matchLabelKeys?.length && !term.mismatchLabelKeys?.length)) return;
  const add = (keys: string[] | null | undefined, operator: string) => {
    for (const key of keys ?? []) {
      if (!Object.hasOwn(labels, key)) continue;
      (selector.matchExpressions ??= []).push({ key, operator, values: [labels[key] as string] });
    }
  };
  add(term.matchLabelKeys, 'In');
  add(term.mismatchLabelKeys, 'NotIn');
}

/** kube's mutatePodAffinity. */
export function mutatePodAffinity(pod: Pod): void {
  const affinity = pod.spec?.affinity as { podAffinity?: PodAffinity | null; podAntiAffinity?: PodAffinity | null } | undefined;
  if (!affinity) return;
  const labels = pod.metadata.labels ?? {};
  for (const a of [affinity.podAffinity, affinity.podAntiAffinity]) {
    for (const w of a?.preferredDuringSchedulingIgnoredDuringExecution ?? []) applyLabelKeys(w.podAffinityTerm, labels);
    for (const t of a?.requiredDuringSchedulingIgnoredDuringExecution ?? []) applyLabelKeys(t, labels);
  }
}

type AppArmorProfile = { type?: string; localhostProfile?: string };

const appArmorAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';
const localhostPrefix = 'localhost/';

/** appArmorAnnotationForField: "" for a Localhost profile without a name or an unknown type. */
function annotationForField(p: AppArmorProfile): string {
  switch (p.type) {
    case 'Unconfined':
      return 'unconfined';
    case 'RuntimeDefault':
      return 'runtime/default';
    case 'Localhost':
      return p.localhostProfile !== undefined ? localhostPrefix + p.localhostProfile : '';
    default:
      return '';
  }
}

/** apparmorFieldForAnnotation: undefined for an unknown value or an empty localhost name. */
function fieldForAnnotation(annotation: string): AppArmorProfile | undefined {
  if (annotation === 'unconfined') return { type: 'Unconfined' };
  if (annotation === 'runtime/default') return { type: 'RuntimeDefault' };
  if (annotation.startsWith(localhostPrefix) && annotation.length > localhostPrefix.length) {
    return { type: 'Localhost', localhostProfile: annotation.slice(localhostPrefix.length) };
  }
  return undefined;
}

const sameProfile = (a: AppArmorProfile, b: AppArmorProfile | undefined) => !!b && a.type === b.type && a.localhostProfile === b.localhostProfile;

/**
 * kube's applyAppArmorVersionSkew (not for Windows pods): a container without the annotation gets
 * the one its own or the pod's profile implies; a container with the annotation but no profile
 * gets the profile the annotation names, unless that is the pod's. A kept annotation that is not
 * copied to a field is warned about, as kube does. Returns the warnings.
 */
export function syncAppArmor(pod: Pod): string[] {
  const spec = pod.spec ?? {};
  if (spec.os?.name === 'windows') return [];
  const podProfile = spec.securityContext?.appArmorProfile;
  const warnings: string[] = [];
  const containers: Container[] = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
  for (const c of containers) {
    const key = appArmorAnnotationPrefix + (c.name ?? '');
    const annotations = pod.metadata.annotations;
    const own = c.securityContext?.appArmorProfile;
    if (!annotations || !Object.hasOwn(annotations, key)) {
      const value = own ? annotationForField(own) : podProfile ? annotationForField(podProfile) : '';
      if (value) (pod.metadata.annotations ??= {})[key] = value;
      continue;
    }
    if (own) continue;
    let field = fieldForAnnotation(annotations[key] ?? '');
    if (field && validateAppArmorProfile(field, FieldPath.root('appArmorProfile')).length) field = undefined;
    let warn = !field;
    if (field && !sameProfile(field, podProfile)) {
      (c.securityContext ??= {}).appArmorProfile = field;
      warn = true;
    }
    if (warn) warnings.push(`${String(FieldPath.root('metadata').child('annotations').key(key))}: deprecated since v1.30; use the "appArmorProfile" field instead`);
  }
  return warnings;
}
