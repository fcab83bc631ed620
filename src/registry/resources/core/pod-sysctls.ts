/**
 * kube's pod sysctl checks (validateSysctls, ValidateHostSysctl) and the kernel namespace a sysctl
 * belongs to (k8s.io/component-helpers/node/util/sysctl): a pod sharing the host's network or IPC
 * namespace may not set sysctls of that namespace.
 */
import { FieldError, FieldPath, fieldErrors } from '../../../api';
import type { PodSpec } from './pod-types';

const ipcNames = new Set(['kernel.sem', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.shm_rmid_forced', 'kernel.shm', 'kernel.msgmax', 'kernel.msgmnb', 'kernel.msgmni', 'kernel.msg']);

/** NormalizeName: a name written with `/` separators (`net/ipv4/ip_forward`) in its dotted form. */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] === '.') return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

/** GetNamespace: `Net`, `IPC` or '' for a sysctl (up to its first `*`). */
export function sysctlNamespace(name: string): 'Net' | 'IPC' | '' {
  let s = normalizeSysctlName(name);
  const star = s.indexOf('*');
  if (star !== -1) s = s.slice(0, star);
  if (ipcNames.has(s)) return 'IPC';
  if (s.startsWith('net.')) return 'Net';
  if (s.startsWith('fs.mqueue.')) return 'IPC';
  return '';
}

/** ValidateHostSysctl: the error for a namespaced sysctl in a pod sharing that namespace with the host. */
export function hostSysctlError(name: string, spec: PodSpec, path: FieldPath): FieldError | undefined {
  const ns = sysctlNamespace(name);
  if (spec.hostNetwork === true && ns === 'Net') return fieldErrors.invalid(path, name, "may not be specified when 'hostNetwork' is true");
  if (spec.hostIPC === true && ns === 'IPC') return fieldErrors.invalid(path, name, "may not be specified when 'hostIPC' is true");
  return undefined;
}

const sysctlName = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;

/**
 * validateSysctls: each name is given, well formed and not repeated; unless `allowHostNamespaced`
 * (the stored pod already broke the rule, kube's AllowNamespacedSysctlsForHostNetAndHostIPC), none
 * belongs to a namespace the pod shares with the host.
 */
export function validateSysctls(spec: PodSpec, path: FieldPath, allowHostNamespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (spec.securityContext?.sysctls ?? []).forEach((s, i) => {
    const p = path.index(i).child('name');
    const name = s.name ?? '';
    if (!name) errs.push(fieldErrors.required(p, ''));
    else if (name.length > 253 || !sysctlName.test(name)) {
      errs.push(fieldErrors.invalid(p, name, "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"));
    } else if (seen.has(name)) errs.push(fieldErrors.duplicate(p, name));
    if (!allowHostNamespaced) {
      const e = hostSysctlError(name, spec, p);
      if (e) errs.push(e);
    }
    seen.add(name);
  });
  return errs;
}

/** Whether a stored spec already sets a sysctl the host namespaces forbid (so an update may keep it). */
export function hasHostNamespacedSysctl(spec: PodSpec | undefined): boolean {
  return !!spec && (spec.securityContext?.sysctls ?? []).some((s) => hostSysctlError(s.name ?? '', spec, FieldPath.root()) !== undefined);
}
