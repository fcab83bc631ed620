/**
 * kube's ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount): every pod runs as a
 * service account that exists. On create it names `default` when the pod names none, copies the
 * account's imagePullSecrets into a pod that has none, and (unless the pod or the account turns
 * automounting off) adds the projected `kube-api-access-*` volume (token, cluster CA, namespace)
 * mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in every container and init
 * container. Mirror pods (made by a kubelet from a static manifest) are left as they are, and
 * refused if they reference an account, secrets or a token projection. An account annotated
 * kubernetes.io/enforce-mountable-secrets=true limits the secrets its pods may use to its own.
 *
 * kube's Admit also runs Validate; Validate runs again in the validating phase, after webhooks.
 */
import { ApiError, KubeObject, errors, failureStatus, generateName } from '../../api';
import { ServiceAccountGetter, requireDep } from '../deps';
import { AdmissionAttributes, AdmissionPlugin, handlesOperations } from '../interface';
import type { Plugins } from '../plugin-registry';

export const serviceAccountPluginName = 'ServiceAccount';
export const defaultServiceAccountName = 'default';
export const enforceMountableSecretsAnnotation = 'kubernetes.io/enforce-mountable-secrets';
export const serviceAccountVolumePrefix = 'kube-api-access-';
export const defaultAPITokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
/** kube's WarnOnlyBoundTokenExpirationSeconds: the projected token's lifetime (an hour and 7 s). */
export const projectedTokenExpirationSeconds = 3607;

interface Ref {
  name?: string;
}
interface PodContainer {
  name?: string;
  env?: { name?: string; valueFrom?: { secretKeyRef?: Ref } }[];
  envFrom?: { secretRef?: Ref }[];
  volumeMounts?: { name?: string; readOnly?: boolean; mountPath?: string }[];
}
type PodVolume = Record<string, unknown> & { name?: string; secret?: { secretName?: string }; projected?: { sources?: Record<string, unknown>[] } };
interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: Ref[];
  containers?: PodContainer[];
  initContainers?: PodContainer[];
  ephemeralContainers?: PodContainer[];
  volumes?: PodVolume[];
}
type Pod = KubeObject & { spec?: PodSpec };
type ServiceAccount = KubeObject & { automountServiceAccountToken?: boolean; secrets?: Ref[]; imagePullSecrets?: Ref[] };

export interface ServiceAccountPluginOptions {
  serviceAccounts: ServiceAccountGetter;
  /** The token volume's name (kube: names.SimpleNameGenerator). */
  generateName?: (prefix: string) => string;
  /** Waits between live reads of a missing `default` account (kube sleeps 100–200 ms). */
  sleep?: (ms: number) => Promise<void>;
}

/** kube's TokenVolumeSource (upstream's three sources; defaultMode set explicitly, as kube does). */
export function tokenVolumeSource(): Record<string, unknown> {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: projectedTokenExpirationSeconds, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

/** admission.NewForbidden: named after the request, else the object's name or generateName, else "Unknown". */
function forbidden(a: AdmissionAttributes, message: string): ApiError {
  const meta = a.object?.metadata;
  const name = a.name || meta?.name || meta?.generateName || 'Unknown';
  return errors.forbidden({ group: a.group, resource: a.resource }, name, message);
}

/** kube's shouldIgnore: pods and their ephemeralcontainers subresource, with an object. */
function podOf(a: AdmissionAttributes): Pod | undefined {
  if (a.group !== '' || a.resource !== 'pods') return undefined;
  if (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return undefined;
  return a.object as Pod | undefined;
}

const isMirrorPod = (pod: Pod): boolean => Object.hasOwn(pod.metadata.annotations ?? {}, mirrorPodAnnotation);

/** Go's strconv.ParseBool, false on anything it refuses. */
const parseBool = (v: string): boolean => ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);

/** kube's podutil.VisitPodSecretNames over every container kind: true when the pod names a secret. */
function referencesSecrets(spec: PodSpec): boolean {
  const names: (string | undefined)[] = [];
  for (const r of spec.imagePullSecrets ?? []) names.push(r.name);
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    for (const e of c.envFrom ?? []) names.push(e.secretRef?.name);
    for (const e of c.env ?? []) names.push(e.valueFrom?.secretKeyRef?.name);
  }
  for (const v of spec.volumes ?? []) {
    const src = v as Record<string, { secretName?: string; secretRef?: Ref; nodePublishSecretRef?: Ref } | undefined>;
    names.push(src.azureFile?.secretName, src.secret?.secretName, src.csi?.nodePublishSecretRef?.name);
    for (const k of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) names.push(src[k]?.secretRef?.name);
    for (const s of v.projected?.sources ?? []) names.push((s.secret as Ref | undefined)?.name);
  }
  return names.some((n) => !!n);
}

/** The envs and envFroms of `containers` that name a secret the account does not list (kube's wording, `label` first). */
function containerSecretError(label: string, containers: PodContainer[] | undefined, mountable: Set<string>, sa: string): string | undefined {
  for (const c of containers ?? []) {
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      if (ref && !mountable.has(ref.name ?? '')) {
        return `${label} ${c.name ?? ''} with envVar ${e.name ?? ''} referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
      }
    }
    for (const e of c.envFrom ?? []) {
      const ref = e.secretRef;
      if (ref && !mountable.has(ref.name ?? '')) {
        return `${label} ${c.name ?? ''} with envFrom referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
      }
    }
  }
  return undefined;
}

const mountableSecrets = (sa: ServiceAccount): Set<string> => new Set((sa.secrets ?? []).map((s) => s.name ?? ''));

/** kube's limitSecretReferences: volumes, init containers, containers, then image pull secrets. */
function limitSecretReferences(sa: ServiceAccount, spec: PodSpec): string | undefined {
  const saName = sa.metadata.name ?? '';
  const mountable = mountableSecrets(sa);
  for (const v of spec.volumes ?? []) {
    if (!v.secret) continue;
    const name = v.secret.secretName ?? '';
    if (!mountable.has(name)) return `volume with secret.secretName="${name}" is not allowed because service account ${saName} does not reference that secret`;
  }
  const inContainers = containerSecretError('init container', spec.initContainers, mountable, saName) ?? containerSecretError('container', spec.containers, mountable, saName);
  if (inContainers) return inContainers;
  const pullSecrets = new Set((sa.imagePullSecrets ?? []).map((s) => s.name ?? ''));
  for (const [i, ref] of (spec.imagePullSecrets ?? []).entries()) {
    if (!pullSecrets.has(ref.name ?? '')) {
      return `imagePullSecrets[${i}].name="${ref.name ?? ''}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

const enforcesMountableSecrets = (sa: ServiceAccount): boolean => {
  const v = sa.metadata.annotations?.[enforceMountableSecretsAnnotation];
  return v !== undefined && parseBool(v);
};

/** kube's shouldAutomount: the pod's choice, else the account's, else true. */
function shouldAutomount(sa: ServiceAccount, spec: PodSpec): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof sa.automountServiceAccountToken === 'boolean') return sa.automountServiceAccountToken;
  return true;
}

/**
 * kube's mountServiceAccountToken: reuses a `kube-api-access-*` volume the pod already has, mounts
 * it in every init container and container with nothing at the token path (ephemeral containers
 * are left alone, as in kube), and adds the volume when a container got the mount.
 */
function mountToken(spec: PodSpec, generate: (prefix: string) => string): void {
  let volumeName = '';
  for (const v of spec.volumes ?? []) {
    if (v.name?.startsWith(serviceAccountVolumePrefix)) {
      volumeName = v.name;
      break;
    }
  }
  const hasVolume = volumeName !== '';
  if (!hasVolume) volumeName = generate(serviceAccountVolumePrefix);
  let needsVolume = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === defaultAPITokenMountPath)) continue;
    (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath });
    needsVolume = true;
  }
  if (!hasVolume && needsVolume) (spec.volumes ??= []).push({ name: volumeName, projected: tokenVolumeSource() });
}

export function serviceAccountAdmission(opts: ServiceAccountPluginOptions): AdmissionPlugin {
  const generate = opts.generateName ?? generateName;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  /**
   * kube's getServiceAccount: the lister, then live reads; `default` is read up to ten times, a
   * random 100–200 ms apart, since its controller may not have made it yet in a new namespace.
   */
  async function getServiceAccount(namespace: string, name: string): Promise<ServiceAccount | undefined> {
    const cached = opts.serviceAccounts.cached(namespace, name);
    if (cached) return cached as ServiceAccount;
    const attempts = name === defaultServiceAccountName ? 10 : 1;
    const interval = 100 + Math.floor(Math.random() * 100);
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(interval);
      const live = await opts.serviceAccounts.live(namespace, name);
      if (live) return live as ServiceAccount;
    }
    return undefined;
  }

  async function mustGet(a: AdmissionAttributes, name: string): Promise<ServiceAccount> {
    const sa = await getServiceAccount(a.namespace, name);
    if (!sa) throw forbidden(a, `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`);
    return sa;
  }

  async function validate(a: AdmissionAttributes, pod: Pod): Promise<void> {
    const spec = pod.spec ?? {};
    if (a.operation === 'UPDATE' && a.subresource === 'ephemeralcontainers') {
      if (!spec.serviceAccountName) throw forbidden(a, `no service account specified for pod ${a.namespace}/${pod.metadata.name ?? ''}`);
      const sa = await mustGet(a, spec.serviceAccountName);
      if (!enforcesMountableSecrets(sa)) return;
      const err = containerSecretError('ephemeral container', spec.ephemeralContainers, mountableSecrets(sa), sa.metadata.name ?? '');
      // kube returns this one as a plain error, which the handler answers as a 500 of unknown reason.
      if (err) throw new ApiError(failureStatus(500, '', err));
      return;
    }
    if (a.operation !== 'CREATE') return;
    if (isMirrorPod(pod)) {
      if (spec.serviceAccountName) throw forbidden(a, 'a mirror pod may not reference service accounts');
      if (referencesSecrets(spec)) throw forbidden(a, 'a mirror pod may not reference secrets');
      for (const v of spec.volumes ?? []) {
        if ((v.projected?.sources ?? []).some((s) => s.serviceAccountToken)) throw forbidden(a, 'a mirror pod may not use ServiceAccountToken volume projections');
      }
      return;
    }
    if (!spec.serviceAccountName) throw forbidden(a, `no service account specified for pod ${a.namespace}/${pod.metadata.name ?? ''}`);
    const sa = await mustGet(a, spec.serviceAccountName);
    if (enforcesMountableSecrets(sa)) {
      const err = limitSecretReferences(sa, spec);
      if (err) throw forbidden(a, err);
    }
  }

  return {
    name: serviceAccountPluginName,
    handles: handlesOperations('CREATE', 'UPDATE'),
    async admit(_ctx, a) {
      const pod = podOf(a);
      if (!pod || a.operation !== 'CREATE') return;
      // A mirror pod's spec must stay as its kubelet wrote it (it would delete a changed one).
      if (isMirrorPod(pod)) return validate(a, pod);
      const spec = (pod.spec ??= {});
      if (!spec.serviceAccountName) spec.serviceAccountName = defaultServiceAccountName;
      // The deprecated alias always reads as the account's name (kube's v1 conversion).
      spec.serviceAccount = spec.serviceAccountName;
      const sa = await mustGet(a, spec.serviceAccountName);
      if (shouldAutomount(sa, spec)) mountToken(spec, generate);
      if (!spec.imagePullSecrets?.length) {
        const pull = (sa.imagePullSecrets ?? []).map((s) => ({ name: s.name ?? '' }));
        if (pull.length) spec.imagePullSecrets = pull;
        else delete spec.imagePullSecrets;
      }
      return validate(a, pod);
    },
    async validate(_ctx, a) {
      const pod = podOf(a);
      if (pod) await validate(a, pod);
    },
  };
}

/** Takes no configuration; needs deps.serviceAccounts. */
export function registerServiceAccount(plugins: Plugins): void {
  plugins.register(serviceAccountPluginName, (_config, deps) =>
    serviceAccountAdmission({ serviceAccounts: requireDep(deps, 'serviceAccounts', serviceAccountPluginName) }),
  );
}
