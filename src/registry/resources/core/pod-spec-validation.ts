/**
 * kube's ValidatePodSpec (pkg/apis/core/validation) for a Pod: volumes and containers (their own
 * modules), then the pod-wide fields, in kube's order and with its paths and messages.
 */
import { FieldError, FieldPath, LabelSelectorJson, fieldErrors, isQualifiedName, isValidLabelValue, validateLabelSelector, validateLabels } from '../../../api';
import { nameIsDNSSubdomain } from '../../../api/names';
import { validateContainers, validateEphemeralContainers, validateInitContainers, validateResourceRequirements, validateSeccompProfile, validateAppArmorProfile, validId, ContainerContext } from './pod-container-validation';
import { hasValue, ipFamily, isIP, validateDNS1123Label, validateDNS1123Subdomain, validateIP } from './pod-names';
import type { Pod, PodSpec, Toleration } from './pod-types';
import { validatePodOS, validateWindowsHostProcessPod, validateWindowsOptions } from './pod-os-validation';
import { validateSysctls } from './pod-sysctls';
import { validateVolumes } from './pod-volume-validation';

const inclusiveRange = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;
const MAX_INT32 = 2147483647;

function validateEnum(value: string | undefined, supported: string[], path: FieldPath): FieldError[] {
  if (!value) return [fieldErrors.required(path, '')];
  return supported.includes(value) ? [] : [fieldErrors.notSupported(path, value, supported)];
}

/** validateLabelName: a qualified name. */
const labelNameErrors = (key: string, path: FieldPath): FieldError[] => isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m));

export function validateTolerations(tolerations: Toleration[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (tolerations ?? []).forEach((t, i) => {
    const p = path.index(i);
    const key = t.key ?? '';
    const operator = t.operator ?? '';
    const value = t.value ?? '';
    const effect = t.effect ?? '';
    if (key) errs.push(...labelNameErrors(key, p.child('key')));
    if (!key && operator !== 'Exists') {
      errs.push(fieldErrors.invalid(p.child('operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && effect !== 'NoExecute') {
      errs.push(fieldErrors.invalid(p.child('effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(value);
        if (msgs.length) errs.push(fieldErrors.invalid(p.child('operator'), value, msgs.join(';')));
        break;
      }
      case 'Exists':
        if (value) errs.push(fieldErrors.invalid(p.child('operator'), value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(fieldErrors.notSupported(p.child('operator'), operator, ['Equal', 'Exists']));
    }
    if (effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errs.push(fieldErrors.notSupported(p.child('effect'), effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

type Obj = Record<string, unknown>;
interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

function nodeSelectorRequirementErrors(rq: NodeSelectorRequirement, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const n = rq.values?.length ?? 0;
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (!n) errs.push(fieldErrors.required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (n) errs.push(fieldErrors.forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (n !== 1) errs.push(fieldErrors.required(path.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldErrors.invalid(path.child('operator'), rq.operator ?? '', 'not a valid selector operator'));
  }
  errs.push(...labelNameErrors(rq.key ?? '', path.child('key')));
  return errs;
}

function nodeFieldRequirementErrors(rq: NodeSelectorRequirement, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (rq.operator === 'In' || rq.operator === 'NotIn') {
    if ((rq.values?.length ?? 0) !== 1) errs.push(fieldErrors.required(path.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else errs.push(fieldErrors.invalid(path.child('operator'), rq.operator ?? '', 'not a valid selector operator'));
  if (rq.key !== 'metadata.name') errs.push(fieldErrors.invalid(path.child('key'), rq.key ?? '', 'not a valid field selector key'));
  else (rq.values ?? []).forEach((v, i) => errs.push(...nameIsDNSSubdomain(v, false).map((m) => fieldErrors.invalid(path.child('values').index(i), v, m))));
  return errs;
}

function nodeSelectorTermErrors(term: Obj | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  ((term?.matchExpressions as NodeSelectorRequirement[] | undefined) ?? []).forEach((r, j) => errs.push(...nodeSelectorRequirementErrors(r, path.child('matchExpressions').index(j))));
  ((term?.matchFields as NodeSelectorRequirement[] | undefined) ?? []).forEach((r, j) => errs.push(...nodeFieldRequirementErrors(r, path.child('matchFields').index(j))));
  return errs;
}

/**
 * validateMatchLabelKeysAndMismatchLabelKeys: label names, only beside a selector; a matchLabelKeys
 * key may not also be in the selector (checked after PrepareForCreate added its own requirement,
 * so a key found twice is the user's); and no key in both lists.
 */
function labelKeysErrors(match: string[] | undefined, mismatch: string[] | undefined, selector: LabelSelectorJson | null | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [keys, field] of [
    [match, 'matchLabelKeys'],
    [mismatch, 'mismatchLabelKeys'],
  ] as const) {
    if (!keys?.length) continue;
    if (!selector) errs.push(fieldErrors.forbidden(path.child(field), 'must not be specified when labelSelector is not set'));
    else keys.forEach((k, i) => errs.push(...labelNameErrors(k, path.child(field).index(i))));
  }
  if (selector) {
    const index = new Map((match ?? []).map((k, i) => [k, i]));
    const seen = new Set(Object.keys(selector.matchLabels ?? {}));
    for (const e of selector.matchExpressions ?? []) {
      const key = e?.key ?? '';
      const i = index.get(key);
      // kube's path here is the term's index, not matchLabelKeys'.
      if (i !== undefined && seen.has(key)) errs.push(fieldErrors.invalid(path.index(i), key, 'exists in both matchLabelKeys and labelSelector'));
      seen.add(key);
    }
  }
  const mismatched = new Set(mismatch ?? []);
  (match ?? []).forEach((k, i) => {
    if (mismatched.has(k)) errs.push(fieldErrors.invalid(path.child('matchLabelKeys').index(i), k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errs;
}

function podAffinityTermErrors(term: Obj | undefined, path: FieldPath): FieldError[] {
  const t = term ?? {};
  const errs = [
    ...validateLabelSelector(t.labelSelector as LabelSelectorJson | undefined, {}, path.child('labelSelector')),
    ...validateLabelSelector(t.namespaceSelector as LabelSelectorJson | undefined, {}, path.child('namespaceSelector')),
  ];
  for (const ns of (t.namespaces as string[] | undefined) ?? []) errs.push(...validateDNS1123Label(ns, path.child('namespace')));
  errs.push(...labelKeysErrors(t.matchLabelKeys as string[] | undefined, t.mismatchLabelKeys as string[] | undefined, t.labelSelector as LabelSelectorJson | null | undefined, path));
  const topologyKey = typeof t.topologyKey === 'string' ? t.topologyKey : '';
  if (!topologyKey) errs.push(fieldErrors.required(path.child('topologyKey'), 'can not be empty'));
  errs.push(...labelNameErrors(topologyKey, path.child('topologyKey')));
  return errs;
}

const weightErrors = (w: unknown, path: FieldPath): FieldError[] =>
  typeof w === 'number' && w > 0 && w <= 100 ? [] : [fieldErrors.invalid(path, typeof w === 'number' ? w : 0, 'must be in the range 1-100')];

function podAffinityErrors(a: Obj | undefined, path: FieldPath): FieldError[] {
  if (!a) return [];
  const errs: FieldError[] = [];
  const req = path.child('requiredDuringSchedulingIgnoredDuringExecution');
  ((a.requiredDuringSchedulingIgnoredDuringExecution as Obj[] | undefined) ?? []).forEach((t, i) => errs.push(...podAffinityTermErrors(t, req.index(i))));
  const pref = path.child('preferredDuringSchedulingIgnoredDuringExecution');
  ((a.preferredDuringSchedulingIgnoredDuringExecution as Obj[] | undefined) ?? []).forEach((w, i) => {
    errs.push(...weightErrors(w.weight, pref.index(i).child('weight')), ...podAffinityTermErrors(w.podAffinityTerm as Obj | undefined, pref.index(i).child('podAffinityTerm')));
  });
  return errs;
}

function affinityErrors(affinity: Obj | undefined, path: FieldPath): FieldError[] {
  if (!affinity) return [];
  const errs: FieldError[] = [];
  const na = affinity.nodeAffinity as Obj | undefined;
  if (na) {
    const np = path.child('nodeAffinity');
    const required = na.requiredDuringSchedulingIgnoredDuringExecution as { nodeSelectorTerms?: Obj[] } | undefined;
    if (required) {
      const tp = np.child('requiredDuringSchedulingIgnoredDuringExecution').child('nodeSelectorTerms');
      if (!required.nodeSelectorTerms?.length) errs.push(fieldErrors.required(tp, 'must have at least one node selector term'));
      (required.nodeSelectorTerms ?? []).forEach((t, i) => errs.push(...nodeSelectorTermErrors(t, tp.index(i))));
    }
    const pp = np.child('preferredDuringSchedulingIgnoredDuringExecution');
    ((na.preferredDuringSchedulingIgnoredDuringExecution as Obj[] | undefined) ?? []).forEach((t, i) => {
      errs.push(...weightErrors(t.weight, pp.index(i).child('weight')), ...nodeSelectorTermErrors(t.preference as Obj | undefined, pp.index(i).child('preference')));
    });
  }
  errs.push(...podAffinityErrors(affinity.podAffinity as Obj | undefined, path.child('podAffinity')));
  errs.push(...podAffinityErrors(affinity.podAntiAffinity as Obj | undefined, path.child('podAntiAffinity')));
  return errs;
}

function dnsConfigErrors(spec: PodSpec, path: FieldPath): FieldError[] {
  const cfg = spec.dnsConfig;
  if (spec.dnsPolicy === 'None') {
    if (!cfg) return [fieldErrors.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!cfg.nameservers?.length) return [fieldErrors.required(path.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!cfg) return [];
  const errs: FieldError[] = [];
  const ns = cfg.nameservers ?? [];
  if (ns.length > 3) errs.push(fieldErrors.invalid(path.child('nameservers'), ns, 'must not have more than 3 nameservers'));
  ns.forEach((n, i) => errs.push(...validateIP(n, path.child('nameservers').index(i))));
  const searches = cfg.searches ?? [];
  if (searches.length > 32) errs.push(fieldErrors.invalid(path.child('searches'), searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(fieldErrors.invalid(path.child('searches'), searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((s, i) => errs.push(...validateDNS1123Subdomain(s.endsWith('.') ? s.slice(0, -1) : s, path.child('searches').index(i))));
  (cfg.options ?? []).forEach((o, i) => {
    if (!o.name) errs.push(fieldErrors.required(path.child('options').index(i), 'must not be empty'));
  });
  return errs;
}

/** validatePodSpecSecurityContext. */
function podSecurityContextErrors(spec: PodSpec, path: FieldPath, opts: PodSpecOptions): FieldError[] {
  const sc = spec.securityContext;
  if (!sc) return [];
  const errs = [...validId(sc.fsGroup, path.child('fsGroup')), ...validId(sc.runAsUser, path.child('runAsUser')), ...validId(sc.runAsGroup, path.child('runAsGroup'))];
  (sc.supplementalGroups ?? []).forEach((g, i) => errs.push(...validId(g, path.child('supplementalGroups').index(i))));
  // kube keeps shareProcessNamespace and hostPID in the internal security context, hence the path.
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(fieldErrors.invalid(path.child('shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  errs.push(...validateSysctls(spec, path.child('sysctls'), opts.allowHostNamespacedSysctls));
  if (sc.fsGroupChangePolicy !== undefined && !['Always', 'OnRootMismatch'].includes(sc.fsGroupChangePolicy)) {
    errs.push(fieldErrors.notSupported(path.child('fsGroupChangePolicy'), sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']));
  }
  errs.push(
    ...validateSeccompProfile(sc.seccompProfile, path.child('seccompProfile')),
    ...validateWindowsOptions(sc.windowsOptions, path.child('windowsOptions')),
    ...validateAppArmorProfile(sc.appArmorProfile, path.child('appArmorProfile')),
  );
  return errs;
}

interface TopologySpreadConstraint {
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  labelSelector?: LabelSelectorJson;
  minDomains?: number | null;
  nodeAffinityPolicy?: string | null;
  nodeTaintsPolicy?: string | null;
  matchLabelKeys?: string[];
}

/**
 * validateMatchLabelKeysInTopologySpread: label names, only beside a selector (1.32 does not merge
 * them into it, so a key also in the selector is the user's).
 */
function spreadLabelKeysErrors(keys: string[] | undefined, selector: LabelSelectorJson | undefined, path: FieldPath): FieldError[] {
  if (!keys?.length) return [];
  const errs: FieldError[] = [];
  const selectorKeys = new Set<string>();
  if (selector) {
    for (const k of Object.keys(selector.matchLabels ?? {})) selectorKeys.add(k);
    for (const e of selector.matchExpressions ?? []) selectorKeys.add(e?.key ?? '');
  } else errs.push(fieldErrors.forbidden(path, 'must not be specified when labelSelector is not set'));
  keys.forEach((k, i) => {
    errs.push(...labelNameErrors(k, path.index(i)));
    if (selectorKeys.has(k)) errs.push(fieldErrors.invalid(path.index(i), k, 'exists in both matchLabelKeys and labelSelector'));
  });
  return errs;
}

/** validateTopologySpreadConstraints, each constraint's checks in kube's order. */
function topologySpreadErrors(constraints: TopologySpreadConstraint[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const list = constraints ?? [];
  list.forEach((c, i) => {
    const p = path.index(i);
    const maxSkew = c.maxSkew ?? 0;
    if (maxSkew <= 0) errs.push(fieldErrors.invalid(p.child('maxSkew'), maxSkew, 'must be greater than zero'));
    // Only its presence: kube does not check the key's form.
    if (!c.topologyKey) errs.push(fieldErrors.required(p.child('topologyKey'), 'can not be empty'));
    const when = c.whenUnsatisfiable ?? '';
    if (!['DoNotSchedule', 'ScheduleAnyway'].includes(when)) errs.push(fieldErrors.notSupported(p.child('whenUnsatisfiable'), when, ['DoNotSchedule', 'ScheduleAnyway']));
    // {topologyKey, whenUnsatisfiable} names one kind of constraint: reported on the first of a repeated pair.
    if (list.slice(i + 1).some((o) => (o.topologyKey ?? '') === (c.topologyKey ?? '') && (o.whenUnsatisfiable ?? '') === when)) {
      errs.push(fieldErrors.duplicate(p.child('{topologyKey, whenUnsatisfiable}'), `{${c.topologyKey ?? ''}, ${when}}`));
    }
    if (c.minDomains !== undefined && c.minDomains !== null) {
      if (c.minDomains <= 0) errs.push(fieldErrors.invalid(p.child('minDomains'), c.minDomains, 'must be greater than zero'));
      if (when !== 'DoNotSchedule') errs.push(fieldErrors.invalid(p.child('minDomains'), c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${when}`));
    }
    for (const [key, v] of [['nodeAffinityPolicy', c.nodeAffinityPolicy], ['nodeTaintsPolicy', c.nodeTaintsPolicy]] as const) {
      if (v !== undefined && v !== null && !['Honor', 'Ignore'].includes(v)) errs.push(fieldErrors.notSupported(p.child(key), v, ['Honor', 'Ignore']));
    }
    errs.push(...spreadLabelKeysErrors(c.matchLabelKeys, c.labelSelector, p.child('matchLabelKeys')));
    errs.push(...validateLabelSelector(c.labelSelector, {}, p.child('labelSelector')));
  });
  return errs;
}

/** What decides parts of a pod's validation besides the pod (kube's PodValidationOptions). */
export interface PodSpecOptions {
  /** kube-apiserver's --allow-privileged (false here: the flag does not exist). */
  allowPrivileged: boolean;
  /** The stored pod already sets a sysctl its host namespaces forbid (an update may keep it). */
  allowHostNamespacedSysctls: boolean;
}

/** validateHostUsers: a pod in its own user namespace shares no other namespace with the host. */
function hostUsersErrors(spec: PodSpec, path: FieldPath): FieldError[] {
  if (spec.hostUsers !== false) return [];
  const errs: FieldError[] = [];
  const detail = 'when `pod.Spec.HostUsers` is false';
  // kube names the last two by their Go field names.
  if (spec.hostNetwork === true) errs.push(fieldErrors.forbidden(path.child('hostNetwork'), detail));
  if (spec.hostPID === true) errs.push(fieldErrors.forbidden(path.child('HostPID'), detail));
  if (spec.hostIPC === true) errs.push(fieldErrors.forbidden(path.child('HostIPC'), detail));
  return errs;
}

/** The pod's containers' validation context and the pod-wide checks (kube's ValidatePodSpec). */
export function validatePodSpec(pod: Pod, path: FieldPath, opts: PodSpecOptions): FieldError[] {
  const spec = pod.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.terminationGracePeriodSeconds === undefined) errs.push(fieldErrors.required(path.child('terminationGracePeriodSeconds'), ''));
  const vols = validateVolumes(spec.volumes, pod.metadata.name ?? '', path.child('volumes'));
  errs.push(...vols.errors);
  const claimNames = new Set((spec.resourceClaims ?? []).map((c) => c.name ?? '').filter(Boolean));
  errs.push(...podResourceClaimErrors(spec, path.child('resourceClaims')));
  const ctx: ContainerContext = { volumes: vols.volumes, gracePeriod: spec.terminationGracePeriodSeconds, allowPrivileged: opts.allowPrivileged };
  errs.push(
    ...validateContainers(spec.containers, ctx, claimNames, path.child('containers')),
    ...validateInitContainers(spec.initContainers, spec.containers, ctx, claimNames, path.child('initContainers')),
    ...validateEphemeralContainers(spec.ephemeralContainers, spec, ctx, claimNames, path.child('ephemeralContainers')),
  );
  if (spec.hostNetwork) {
    (spec.containers ?? []).forEach((c, i) =>
      (c.ports ?? []).forEach((port, j) => {
        if ((port.hostPort ?? 0) !== (port.containerPort ?? 0)) {
          errs.push(fieldErrors.invalid(path.child('containers').index(i).child('ports').index(j).child('hostPort'), port.hostPort ?? 0, 'must match `containerPort` when `hostNetwork` is true'));
        }
      }),
    );
  }
  errs.push(
    ...validateEnum(spec.restartPolicy, ['Always', 'OnFailure', 'Never'], path.child('restartPolicy')),
    ...validateEnum(spec.dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'], path.child('dnsPolicy')),
    ...validateLabels(spec.nodeSelector, path.child('nodeSelector')),
    ...podSecurityContextErrors(spec, path.child('securityContext'), opts),
  );
  (spec.imagePullSecrets ?? []).forEach((s, i) => {
    const extra = Object.keys(s).filter((k) => k !== 'name');
    if (extra.length) errs.push({ type: 'FieldValueInvalid', field: String(path.child('imagePullSecrets').index(i)), badValueText: `core.LocalObjectReference{Name:${JSON.stringify(s.name ?? '')}}`, detail: 'only name may be set' });
  });
  errs.push(...affinityErrors(spec.affinity, path.child('affinity')), ...dnsConfigErrors(spec, path.child('dnsConfig')));
  (spec.readinessGates ?? []).forEach((g, i) => errs.push(...isQualifiedName(g.conditionType ?? '').map((m) => fieldErrors.invalid(path.child('readinessGates').index(i).child('conditionType'), g.conditionType ?? '', m))));
  const gates = new Set<string>();
  (spec.schedulingGates ?? []).forEach((g, i) => {
    const name = g.name ?? '';
    errs.push(...isQualifiedName(name).map((m) => fieldErrors.invalid(path.child('schedulingGates').index(i), name, m)));
    if (gates.has(name)) errs.push(fieldErrors.duplicate(path.child('schedulingGates').index(i), name));
    gates.add(name);
  });
  errs.push(
    ...topologySpreadErrors(spec.topologySpreadConstraints as TopologySpreadConstraint[] | undefined, path.child('topologySpreadConstraints')),
    ...validateWindowsHostProcessPod(spec, path, opts.allowPrivileged),
    ...hostUsersErrors(spec, path),
  );
  const subdomainField = (value: string | undefined, key: string) => {
    if (value) for (const m of nameIsDNSSubdomain(value, false)) errs.push(fieldErrors.invalid(path.child(key), value, m));
  };
  subdomainField(spec.serviceAccountName, 'serviceAccountName');
  subdomainField(spec.nodeName, 'nodeName');
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && (ads < 1 || ads > MAX_INT32)) errs.push(fieldErrors.invalid(path.child('activeDeadlineSeconds'), ads, inclusiveRange(1, MAX_INT32)));
  if (spec.hostname) errs.push(...validateDNS1123Label(spec.hostname, path.child('hostname')));
  if (spec.subdomain) errs.push(...validateDNS1123Label(spec.subdomain, path.child('subdomain')));
  errs.push(...validateTolerations(spec.tolerations, path.child('tolerations')));
  (spec.hostAliases ?? []).forEach((h, i) => {
    errs.push(...validateIP(h.ip ?? '', path.child('hostAliases').index(i).child('ip')));
    (h.hostnames ?? []).forEach((n, j) => errs.push(...validateDNS1123Subdomain(n, path.child('hostAliases').index(i).child('hostnames').index(j))));
  });
  subdomainField(spec.priorityClassName, 'priorityClassName');
  if (hasValue(spec.runtimeClassName)) {
    for (const m of nameIsDNSSubdomain(spec.runtimeClassName ?? '', false)) errs.push(fieldErrors.invalid(path.child('runtimeClassName'), spec.runtimeClassName, m));
  }
  if (hasValue(spec.preemptionPolicy)) errs.push(...validateEnum(spec.preemptionPolicy, ['PreemptLowerPriority', 'Never'], path.child('preemptionPolicy')));
  // kube reuses the container check on {limits: overhead}, so its paths read overhead.limits[...].
  if (spec.overhead) errs.push(...validateResourceRequirements({ limits: spec.overhead }, path.child('overhead'), new Set()));
  errs.push(...validatePodOS(spec, path));
  return errs;
}

function podResourceClaimErrors(spec: PodSpec, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (spec.resourceClaims ?? []).forEach((c, i) => {
    const p = path.index(i);
    const name = c.name ?? '';
    if (!name) errs.push(fieldErrors.required(p.child('name'), ''));
    else if (names.has(name)) errs.push(fieldErrors.duplicate(p.child('name'), name));
    else {
      errs.push(...validateDNS1123Label(name, p.child('name')));
      names.add(name);
    }
    const a = hasValue(c.resourceClaimName);
    const b = hasValue(c.resourceClaimTemplateName);
    if (a && b) errs.push(fieldErrors.invalid(p, c, 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'));
    if (!a && !b) errs.push(fieldErrors.invalid(p, c, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
  });
  return errs;
}

/** validatePodIPs / validateHostIPs: valid, at most one per family, no repeats. */
export function statusIPErrors(ips: { ip?: string }[] | undefined, path: FieldPath, goType: string): FieldError[] {
  const list = ips ?? [];
  const errs: FieldError[] = [];
  list.forEach((x, i) => errs.push(...validateIP(x.ip ?? '', path.index(i))));
  if (list.length > 1) {
    const values = list.map((x) => x.ip ?? '');
    const dual = values.length === 2 && values.every(isIP) && ipFamily(values[0] ?? '') !== ipFamily(values[1] ?? '');
    if (!dual || values.length > 2) {
      errs.push({ type: 'FieldValueInvalid', field: String(path), badValueText: `[]core.${goType}{${values.map((v) => `core.${goType}{IP:${JSON.stringify(v)}}`).join(', ')}}`, detail: 'may specify no more than one IP for each IP family' });
    }
    const seen = new Set<string>();
    values.forEach((v, i) => {
      if (seen.has(v)) errs.push({ type: 'FieldValueDuplicate', field: String(path.index(i)), badValueText: `core.${goType}{IP:${JSON.stringify(v)}}` });
      seen.add(v);
    });
  }
  return errs;
}
