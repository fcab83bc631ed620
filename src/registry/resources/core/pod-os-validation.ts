/**
 * What kube's pod validation ties to the operating system (pkg/apis/core/validation): `spec.os`
 * (validateOS, then validateLinux or validateWindows), Windows HostProcess pods
 * (validateWindowsHostProcessPod) and the Windows options of a security context
 * (validateWindowsSecurityContextOptions), with kube's paths and messages.
 */
import { FieldError, FieldPath, fieldErrors } from '../../../api';
import { isDNS1123Subdomain } from '../../../api/names';
import type { Container, PodSpec } from './pod-types';

const notForWindows = 'cannot be set for a windows pod';

/** VisitContainersWithPath: init containers, containers, then ephemeral containers, with their paths. */
function visitContainers(spec: PodSpec, path: FieldPath, visit: (c: Container, p: FieldPath) => void): void {
  (spec.initContainers ?? []).forEach((c, i) => visit(c, path.child('initContainers').index(i)));
  (spec.containers ?? []).forEach((c, i) => visit(c, path.child('containers').index(i)));
  (spec.ephemeralContainers ?? []).forEach((c, i) => visit(c, path.child('ephemeralContainers').index(i)));
}

const isSet = (v: unknown) => v !== undefined && v !== null;

/** validateOS and, for a valid name, the rules of that OS. */
export function validatePodOS(spec: PodSpec, path: FieldPath): FieldError[] {
  if (!spec.os) return [];
  const name = spec.os.name ?? '';
  if (!name) return [fieldErrors.required(path.child('os').child('name'), 'cannot be empty')];
  if (name === 'linux') return validateLinux(spec, path);
  if (name === 'windows') return validateWindows(spec, path);
  return [fieldErrors.notSupported(path.child('os'), name, ['linux', 'windows'])];
}

/** validateLinux: no Windows options, on the pod or any container. */
function validateLinux(spec: PodSpec, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const message = 'windows options cannot be set for a linux pod';
  if (isSet(spec.securityContext?.windowsOptions)) errs.push(fieldErrors.forbidden(path.child('securityContext').child('windowsOptions'), message));
  visitContainers(spec, path, (c, p) => {
    if (isSet(c.securityContext?.windowsOptions)) errs.push(fieldErrors.forbidden(p.child('securityContext').child('windowsOptions'), message));
  });
  return errs;
}

/**
 * validateWindows: none of the Linux-only fields. kube keeps hostUsers, hostPID, hostIPC and
 * shareProcessNamespace in the internal pod security context, so they are checked with it but
 * reported at their own paths.
 */
function validateWindows(spec: PodSpec, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const sc = spec.securityContext ?? {};
  const scPath = path.child('securityContext');
  const forbid = (p: FieldPath) => errs.push(fieldErrors.forbidden(p, notForWindows));
  if (isSet(sc.appArmorProfile)) forbid(scPath.child('appArmorProfile'));
  if (isSet(sc.seLinuxOptions)) forbid(scPath.child('seLinuxOptions'));
  if (isSet(spec.hostUsers)) forbid(path.child('hostUsers'));
  if (spec.hostPID === true) forbid(path.child('hostPID'));
  if (spec.hostIPC === true) forbid(path.child('hostIPC'));
  if (isSet(sc.seccompProfile)) forbid(scPath.child('seccompProfile'));
  if (isSet(sc.fsGroup)) forbid(scPath.child('fsGroup'));
  if (isSet(sc.fsGroupChangePolicy)) forbid(scPath.child('fsGroupChangePolicy'));
  if (sc.sysctls?.length) forbid(scPath.child('sysctls'));
  if (isSet(spec.shareProcessNamespace)) forbid(path.child('shareProcessNamespace'));
  if (isSet(sc.runAsUser)) forbid(scPath.child('runAsUser'));
  if (isSet(sc.runAsGroup)) forbid(scPath.child('runAsGroup'));
  if (isSet(sc.supplementalGroups)) forbid(scPath.child('supplementalGroups'));
  if (isSet(sc.supplementalGroupsPolicy)) forbid(scPath.child('supplementalGroupsPolicy'));
  if (isSet(sc.seLinuxChangePolicy)) forbid(scPath.child('seLinuxChangePolicy'));
  visitContainers(spec, path, (c, p) => {
    const csc = c.securityContext;
    if (!csc) return;
    const cp = p.child('securityContext');
    const fields = ['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup'] as const;
    for (const f of fields) if (isSet(csc[f])) forbid(cp.child(f));
  });
  return errs;
}

interface WindowsOptions {
  gmsaCredentialSpecName?: string | null;
  gmsaCredentialSpec?: string | null;
  runAsUserName?: string | null;
  hostProcess?: boolean | null;
}

const windowsOptionsOf = (sc: { windowsOptions?: unknown } | undefined): WindowsOptions | undefined => (sc?.windowsOptions ?? undefined) as WindowsOptions | undefined;

/**
 * validateWindowsHostProcessPod: a pod's containers are all HostProcess containers or none (the
 * pod's value inherited where a container sets none, and never contradicted), a HostProcess pod
 * uses the host network, and the cluster must allow privileged containers (kube-apiserver's
 * `--allow-privileged`).
 */
export function validateWindowsHostProcessPod(spec: PodSpec, path: FieldPath, allowPrivileged: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const podHostProcess = windowsOptionsOf(spec.securityContext)?.hostProcess ?? undefined;
  let containers = 0;
  let hostProcess = 0;
  visitContainers(spec, path, (c, p) => {
    containers++;
    const own = windowsOptionsOf(c.securityContext)?.hostProcess ?? undefined;
    if (podHostProcess !== undefined && own !== undefined && own !== podHostProcess) {
      errs.push(fieldErrors.invalid(p.child('securityContext').child('windowsOptions').child('hostProcess'), own, `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`));
    }
    if (own === true || (own === undefined && podHostProcess === true)) hostProcess++;
  });
  if (hostProcess > 0) {
    if (hostProcess !== containers) errs.push(fieldErrors.invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    if (spec.hostNetwork !== true) errs.push(fieldErrors.invalid(path.child('hostNetwork'), false, 'hostNetwork must be true if pod contains any hostProcess containers'));
    if (!allowPrivileged) errs.push(fieldErrors.forbidden(path, 'hostProcess containers are disallowed by cluster policy'));
  }
  return errs;
}

const maxGMSACredentialSpecKiB = 64;
const maxRunAsUserNameDomainLength = 256;
const maxRunAsUserNameUserLength = 104;
// Go's [[:cntrl:]]: the ASCII control characters.
const controlChars = /[\x00-\x1f\x7f]/;
const netBiosDomain = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const dnsLabel = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const dnsDomain = new RegExp(`^${dnsLabel}(?:\\.${dnsLabel})*$`);
const badUserChars = /["/\\:;|=,+*?<>@[\]]/;
const onlyDotsOrSpaces = /^[. ]+$/;

/** Go's len() of a string: its UTF-8 bytes. */
const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/** validateWindowsSecurityContextOptions, for a pod's or a container's `windowsOptions`. */
export function validateWindowsOptions(raw: unknown, path: FieldPath): FieldError[] {
  if (raw === undefined || raw === null || typeof raw !== 'object') return [];
  const o = raw as WindowsOptions;
  const errs: FieldError[] = [];
  if (isSet(o.gmsaCredentialSpecName)) {
    const name = o.gmsaCredentialSpecName as string;
    // The name of a GMSACredentialSpec custom resource.
    for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(path.child('gmsaCredentialSpecName'), name, m));
  }
  if (isSet(o.gmsaCredentialSpec)) {
    const spec = o.gmsaCredentialSpec as string;
    const p = path.child('gmsaCredentialSpec');
    if (spec === '') errs.push(fieldErrors.invalid(p, spec, 'gmsaCredentialSpec cannot be an empty string'));
    else if (byteLength(spec) > maxGMSACredentialSpecKiB * 1024) errs.push(fieldErrors.invalid(p, spec, `gmsaCredentialSpec size must be under ${maxGMSACredentialSpecKiB} KiB`));
  }
  if (isSet(o.runAsUserName)) errs.push(...runAsUserNameErrors(o.runAsUserName as string, path.child('runAsUserName')));
  return errs;
}

/** kube's rules for a Windows user name, `[DOMAIN\]USER`. */
function runAsUserNameErrors(name: string, p: FieldPath): FieldError[] {
  if (name === '') return [fieldErrors.invalid(p, name, 'runAsUserName cannot be an empty string')];
  if (controlChars.test(name)) return [fieldErrors.invalid(p, name, 'runAsUserName cannot contain control characters')];
  const parts = name.split('\\');
  if (parts.length > 2) return [fieldErrors.invalid(p, name, 'runAsUserName cannot contain more than one backslash')];
  const errs: FieldError[] = [];
  const hasDomain = parts.length === 2;
  const domain = hasDomain ? (parts[0] as string) : '';
  const user = hasDomain ? (parts[1] as string) : (parts[0] as string);
  if (byteLength(domain) >= maxRunAsUserNameDomainLength) {
    errs.push(fieldErrors.invalid(p, name, `runAsUserName's Domain length must be under ${maxRunAsUserNameDomainLength} characters`));
  }
  if (hasDomain && !(netBiosDomain.test(domain) || dnsDomain.test(domain))) {
    errs.push(fieldErrors.invalid(p, name, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
  }
  const userBytes = byteLength(user);
  if (userBytes === 0) errs.push(fieldErrors.invalid(p, name, "runAsUserName's User cannot be empty"));
  else if (userBytes > maxRunAsUserNameUserLength) {
    errs.push(fieldErrors.invalid(p, name, `runAsUserName's User length must not be longer than ${maxRunAsUserNameUserLength} characters`));
  }
  if (onlyDotsOrSpaces.test(user)) errs.push(fieldErrors.invalid(p, name, "runAsUserName's User cannot contain only periods or spaces"));
  if (badUserChars.test(user)) errs.push(fieldErrors.invalid(p, name, 'runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]'));
  return errs;
}
