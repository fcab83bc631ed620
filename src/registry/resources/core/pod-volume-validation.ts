/**
 * A pod's volumes as kube's ValidateVolumes and validateVolumeSource check them: unique DNS-label
 * names, exactly one source each, and each source's own rules. The common sources (emptyDir,
 * hostPath, secret, configMap, persistentVolumeClaim, downwardAPI, projected, nfs, csi, ephemeral,
 * gitRepo) are checked fully; the in-tree cloud and storage-vendor sources get kube's required
 * fields. Returns the names that validated with their source (kube's vols map), which mounts use.
 */
import { FieldError, FieldPath, fieldErrors, isDNS1123Subdomain, parseQuantity } from '../../../api';
import { nameIsDNSSubdomain } from '../../../api/names';
import {
  localDescendingPathErrors,
  localNonReservedPathErrors,
  validateObjectFieldSelector,
  validateResourceFieldSelector,
  volumeFieldPaths,
} from './pod-container-validation';
import { hasValue, validateDNS1123Label } from './pod-names';
import { type DownwardAPIVolumeFile, type KeyToPath, type Volume, volumeSourceFields } from './pod-types';

const fileModeError = 'must be a number between 0 and 0777 (octal), both inclusive';
const badMode = (m: number | undefined) => m !== undefined && (m > 0o777 || m < 0);

function modeErrors(mode: number | undefined, path: FieldPath): FieldError[] {
  return badMode(mode) ? [fieldErrors.invalid(path, mode, fileModeError)] : [];
}

function keyToPathErrors(kp: KeyToPath, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!kp.key) errs.push(fieldErrors.required(path.child('key'), ''));
  if (!kp.path) errs.push(fieldErrors.required(path.child('path'), ''));
  errs.push(...localNonReservedPathErrors(kp.path ?? '', path.child('path')), ...modeErrors(kp.mode, path.child('mode')));
  return errs;
}

function downwardFileErrors(file: DownwardAPIVolumeFile, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!file.path) errs.push(fieldErrors.required(path.child('path'), ''));
  errs.push(...localNonReservedPathErrors(file.path ?? '', path.child('path')));
  if (file.fieldRef) {
    errs.push(...validateObjectFieldSelector(file.fieldRef, volumeFieldPaths, path.child('fieldRef')));
    if (file.resourceFieldRef) errs.push(fieldErrors.invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (file.resourceFieldRef) {
    errs.push(...validateResourceFieldSelector(file.resourceFieldRef, path.child('resourceFieldRef'), true));
  } else {
    errs.push(fieldErrors.required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...modeErrors(file.mode, path.child('mode')));
  return errs;
}

type Obj = Record<string, unknown>;
const str = (o: Obj, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');

/** The fields the less common sources must set (kube's per-source validators, required checks). */
const requiredBySource: Record<string, string[]> = {
  gcePersistentDisk: ['pdName'],
  awsElasticBlockStore: ['volumeID'],
  iscsi: ['targetPortal', 'iqn'],
  glusterfs: ['endpoints', 'path'],
  rbd: ['monitors', 'image'],
  cinder: ['volumeID'],
  cephfs: ['monitors'],
  flexVolume: ['driver'],
  azureFile: ['secretName', 'shareName'],
  vsphereVolume: ['volumePath'],
  quobyte: ['registry', 'volume'],
  azureDisk: ['diskName', 'diskURI'],
  photonPersistentDisk: ['pdID'],
  portworxVolume: ['volumeID'],
  scaleIO: ['gateway', 'system', 'volumeName'],
  storageos: ['volumeName'],
};

/**
 * The path kube reports a source's own errors under: its field name, except two kube spells
 * differently (gcePersistentDisk's errors under `persistentDisk`; a second source's Forbidden under
 * `cephFS` and `downwarAPI`, kube's spellings).
 */
const ownPath: Record<string, string> = { gcePersistentDisk: 'persistentDisk' };
const duplicatePath: Record<string, string> = { cephfs: 'cephFS', downwardAPI: 'downwarAPI' };

function sourceErrors(kind: string, src: Obj, path: FieldPath, volName: string, podName: string): FieldError[] {
  const p = path.child(ownPath[kind] ?? kind);
  const errs: FieldError[] = [];
  switch (kind) {
    case 'emptyDir': {
      const limit = src.sizeLimit;
      // The decoder has refused an unparseable quantity already.
      if (hasValue(limit) && parseQuantity(limit as string | number).sign() < 0) {
        errs.push(fieldErrors.forbidden(p.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      }
      return errs;
    }
    case 'hostPath': {
      const hp = str(src, 'path');
      if (!hp) return [fieldErrors.required(p.child('path'), '')];
      if (hp.split('/').includes('..')) errs.push(fieldErrors.invalid(p.child('path'), hp, "must not contain '..'"));
      const types = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
      if (hasValue(src.type) && !types.includes(String(src.type))) errs.push(fieldErrors.notSupported(p.child('type'), src.type, types));
      return errs;
    }
    case 'gitRepo':
      if (!str(src, 'repository')) errs.push(fieldErrors.required(p.child('repository'), ''));
      errs.push(...localDescendingPathErrors(str(src, 'directory'), p.child('directory')));
      return errs;
    case 'secret':
    case 'configMap': {
      const nameKey = kind === 'secret' ? 'secretName' : 'name';
      if (!str(src, nameKey)) errs.push(fieldErrors.required(p.child(nameKey), ''));
      errs.push(...modeErrors(src.defaultMode as number | undefined, p.child('defaultMode')));
      ((src.items as KeyToPath[] | undefined) ?? []).forEach((kp, i) => errs.push(...keyToPathErrors(kp, p.child('items').index(i))));
      return errs;
    }
    case 'persistentVolumeClaim':
      return str(src, 'claimName') ? [] : [fieldErrors.required(p.child('claimName'), '')];
    case 'nfs': {
      const nfsPath = str(src, 'path');
      if (!str(src, 'server')) errs.push(fieldErrors.required(p.child('server'), ''));
      if (!nfsPath) errs.push(fieldErrors.required(p.child('path'), ''));
      if (!nfsPath.startsWith('/')) errs.push(fieldErrors.invalid(p.child('path'), nfsPath, 'must be an absolute path'));
      return errs;
    }
    case 'downwardAPI':
      errs.push(...modeErrors(src.defaultMode as number | undefined, p.child('defaultMode')));
      // kube reports each file under the source's path, without the item index.
      for (const file of (src.items as DownwardAPIVolumeFile[] | undefined) ?? []) errs.push(...downwardFileErrors(file, p));
      return errs;
    case 'projected':
      return projectedErrors(src, p);
    case 'csi': {
      const driver = str(src, 'driver');
      if (!driver) errs.push(fieldErrors.required(p.child('driver'), ''));
      else {
        if (driver.length > 63) errs.push(fieldErrors.tooLong(p.child('driver'), 63));
        for (const m of isDNS1123Subdomain(driver.toLowerCase())) errs.push(fieldErrors.invalid(p.child('driver'), driver, m));
      }
      const ref = src.nodePublishSecretRef as Obj | undefined;
      if (ref) {
        const name = str(ref, 'name');
        if (!name) errs.push(fieldErrors.required(p.child('nodePublishSecretRef').child('name'), ''));
        else for (const m of nameIsDNSSubdomain(name, false)) errs.push(fieldErrors.invalid(p.child('name'), name, m));
      }
      return errs;
    }
    case 'ephemeral': {
      if (!hasValue(src.volumeClaimTemplate)) return [fieldErrors.required(p.child('volumeClaimTemplate'), '')];
      const tmpl = src.volumeClaimTemplate as Obj;
      const spec = (tmpl.spec as Obj | undefined) ?? {};
      const modes = (spec.accessModes as string[] | undefined) ?? [];
      const sp = p.child('volumeClaimTemplate').child('spec');
      if (!modes.length) errs.push(fieldErrors.required(sp.child('accessModes'), 'at least 1 access mode is required'));
      const supported = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
      for (const m of modes) if (!supported.includes(m)) errs.push(fieldErrors.notSupported(sp.child('accessModes'), m, supported));
      const storage = ((spec.resources as Obj | undefined)?.requests as Obj | undefined)?.storage;
      if (!hasValue(storage)) errs.push(fieldErrors.required(sp.child('resources').key('storage'), ''));
      if (podName && volName) {
        const pvc = `${podName}-${volName}`;
        for (const m of nameIsDNSSubdomain(pvc, false)) errs.push(fieldErrors.invalid(p.child('name'), volName, `PVC name ${JSON.stringify(pvc)}: ${m}`));
      }
      return errs;
    }
    case 'storageos':
      if (!str(src, 'volumeName')) errs.push(fieldErrors.required(p.child('volumeName'), ''));
      else errs.push(...validateDNS1123Label(str(src, 'volumeName'), p.child('volumeName')));
      if (str(src, 'volumeNamespace')) errs.push(...validateDNS1123Label(str(src, 'volumeNamespace'), p.child('volumeNamespace')));
      return errs;
    default:
      for (const field of requiredBySource[kind] ?? []) {
        const v = src[field];
        if (!hasValue(v) || v === '' || (Array.isArray(v) && !v.length)) errs.push(fieldErrors.required(p.child(field), ''));
      }
      return errs;
  }
}

function projectedErrors(src: Obj, path: FieldPath): FieldError[] {
  const errs = modeErrors(src.defaultMode as number | undefined, path.child('defaultMode'));
  const paths = new Set<string>();
  const sources = (src.sources as Obj[] | undefined) ?? [];
  sources.forEach((source, i) => {
    const sp = path.child('sources').index(i);
    let count = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      const s = source[kind] as Obj | undefined;
      if (!s) continue;
      count++;
      const pp = sp.child(kind);
      if (!str(s, 'name')) errs.push(fieldErrors.required(pp.child('name'), ''));
      ((s.items as KeyToPath[] | undefined) ?? []).forEach((kp, j) => {
        errs.push(...keyToPathErrors(kp, pp.child('items').index(j)));
        if (kp.path) {
          if (paths.has(kp.path)) errs.push(fieldErrors.invalid(path, str(s, 'name'), 'conflicting duplicate paths'));
          else paths.add(kp.path);
        }
      });
    }
    const dapi = source.downwardAPI as { items?: DownwardAPIVolumeFile[] } | undefined;
    if (dapi) {
      count++;
      for (const file of dapi.items ?? []) {
        errs.push(...downwardFileErrors(file, sp.child('downwardAPI')));
        if (file.path) {
          if (paths.has(file.path)) errs.push(fieldErrors.invalid(path, file.path, 'conflicting duplicate paths'));
          else paths.add(file.path);
        }
      }
    }
    const token = source.serviceAccountToken as { expirationSeconds?: number; path?: string } | undefined;
    if (token) {
      count++;
      const tp = sp.child('serviceAccountToken');
      const exp = token.expirationSeconds ?? 0;
      if (exp < 600) errs.push(fieldErrors.invalid(tp.child('expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
      if (exp > 2 ** 32) errs.push(fieldErrors.invalid(tp.child('expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'));
      // kube reports the token's path at the projected source's own path.
      if (!token.path) errs.push(fieldErrors.required(path.child('path'), ''));
      else errs.push(...localNonReservedPathErrors(token.path, path.child('path')));
    }
    if (source.clusterTrustBundle) count++;
    if (count > 1) errs.push(fieldErrors.forbidden(sp, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

export interface VolumesResult {
  /** Volume name → its source's field name, for the volumes that validated. */
  volumes: Map<string, string>;
  errors: FieldError[];
}

export function validateVolumes(volumes: Volume[] | undefined, podName: string, path: FieldPath): VolumesResult {
  const errors: FieldError[] = [];
  const valid = new Map<string, string>();
  const names = new Set<string>();
  const createdClaims = new Set(podName ? (volumes ?? []).filter((v) => hasValue(v.ephemeral)).map((v) => `${podName}-${v.name ?? ''}`) : []);
  (volumes ?? []).forEach((vol, i) => {
    const p = path.index(i);
    const name = vol.name ?? '';
    const el: FieldError[] = [];
    let first: string | undefined;
    for (const kind of volumeSourceFields) {
      const src = vol[kind];
      if (!hasValue(src)) continue;
      if (first !== undefined) {
        el.push(fieldErrors.forbidden(p.child(duplicatePath[kind] ?? kind), 'may not specify more than 1 volume type'));
        continue;
      }
      first = kind;
      el.push(...sourceErrors(kind, src as Obj, p, name, podName));
    }
    if (first === undefined) el.push(fieldErrors.required(p, 'must specify a volume type'));
    if (!name) el.push(fieldErrors.required(p.child('name'), ''));
    else el.push(...validateDNS1123Label(name, p.child('name')));
    if (names.has(name)) el.push(fieldErrors.duplicate(p.child('name'), name));
    if (!el.length) {
      names.add(name);
      valid.set(name, first ?? '');
    } else errors.push(...el);
    const claim = vol.persistentVolumeClaim?.claimName;
    if (claim && createdClaims.has(claim)) {
      errors.push(fieldErrors.invalid(p.child('persistentVolumeClaim').child('claimName'), claim, 'must not reference a PVC that gets created for an ephemeral volume'));
    }
  });
  return { volumes: valid, errors };
}
