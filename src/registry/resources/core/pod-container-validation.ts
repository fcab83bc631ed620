/**
 * Validation of a pod's containers as kube's pkg/apis/core/validation does it (validateContainers,
 * validateInitContainers, validateEphemeralContainers, validateContainerCommon and what they call),
 * with kube's field paths and messages and 1.32's default gates (sidecar init containers on,
 * relaxed environment variable names on, zero-second sleep actions off).
 */
import { FieldError, FieldPath, Quantity, QuantityParseError, fieldErrors, isConfigMapKey, isExtendedResourceName, isNativeResource, isQualifiedName, parseQuantity } from '../../../api';
import { nameIsDNSSubdomain } from '../../../api/names';
import type { Container, ContainerPort, EnvVar, IntOrString, LifecycleHandler, Probe, ProbeHandler, ResourceRequirements, SecurityContext, VolumeMount } from './pod-types';
import { hasValue, isValidPortName, validateDNS1123Label } from './pod-names';
import { validateWindowsOptions } from './pod-os-validation';
import { isIntegerResourceName, isStandardResourceName } from './quota-validation';

/** What each container's validation needs to know about the pod around it. */
export interface ContainerContext {
  /** Names of the pod's volumes that validated (kube's vols map), with their source name. */
  volumes: Map<string, string>;
  gracePeriod: number | undefined;
  /** kube's --allow-privileged (false by default in kube-apiserver). */
  allowPrivileged: boolean;
}

const portRange = 'must be between 1 and 65535, inclusive';
const isValidPortNum = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;

function validatePorts(ports: ContainerPort[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const p = path.index(i);
    if (port.name) {
      const msgs = isValidPortName(port.name);
      if (msgs.length) for (const m of msgs) errs.push(fieldErrors.invalid(p.child('name'), port.name, m));
      else if (names.has(port.name)) errs.push(fieldErrors.duplicate(p.child('name'), port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(fieldErrors.required(p.child('containerPort'), ''));
    else if (!isValidPortNum(port.containerPort)) errs.push(fieldErrors.invalid(p.child('containerPort'), port.containerPort, portRange));
    if (port.hostPort && !isValidPortNum(port.hostPort)) errs.push(fieldErrors.invalid(p.child('hostPort'), port.hostPort, portRange));
    if (!port.protocol) errs.push(fieldErrors.required(p.child('protocol'), ''));
    else if (!['SCTP', 'TCP', 'UDP'].includes(port.protocol)) errs.push(fieldErrors.notSupported(p.child('protocol'), port.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

/** IsRelaxedEnvVarName (gate RelaxedEnvironmentVariableValidation is on in 1.32). */
function envNameErrors(name: string): string[] {
  for (const ch of name) {
    const c = ch.codePointAt(0) ?? 0;
    if (c > 0x7e || c < 0x20 || ch === '=') return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
  }
  return [];
}

const envFieldPaths = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
export const volumeFieldPaths = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const resourceFieldPaths = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

/** kube's downward API field label conversion for v1: the only version it knows. */
function convertFieldLabel(apiVersion: string, fieldPath: string): string | undefined {
  if (apiVersion !== 'v1') return undefined;
  return fieldPath;
}

/** SplitMaybeSubscriptedPath: `metadata.labels['key']`. */
function splitSubscript(fieldPath: string): { path: string; subscript?: string } {
  const m = /^(.*)\['(.*)'\]$/.exec(fieldPath);
  return m ? { path: m[1] ?? '', subscript: m[2] } : { path: fieldPath };
}

export function validateObjectFieldSelector(fs: { apiVersion?: string; fieldPath?: string }, expressions: string[], path: FieldPath): FieldError[] {
  if (!fs.apiVersion) return [fieldErrors.required(path.child('apiVersion'), '')];
  if (!fs.fieldPath) return [fieldErrors.required(path.child('fieldPath'), '')];
  const internal = convertFieldLabel(fs.apiVersion, fs.fieldPath);
  if (internal === undefined) {
    return [fieldErrors.invalid(path.child('fieldPath'), fs.fieldPath, `error converting fieldPath: field label not supported: ${fs.fieldPath}`)];
  }
  const { path: fp, subscript } = splitSubscript(internal);
  if (subscript !== undefined) {
    if (fp === 'metadata.annotations') return isQualifiedName(subscript.toLowerCase()).map((m) => fieldErrors.invalid(path, subscript.toLowerCase(), m));
    if (fp === 'metadata.labels') return isQualifiedName(subscript).map((m) => fieldErrors.invalid(path, subscript, m));
    return [fieldErrors.invalid(path, fp, 'does not support subscript')];
  }
  if (!expressions.includes(fp)) return [fieldErrors.notSupported(path.child('fieldPath'), fp, expressions)];
  return [];
}

const memoryDivisors = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

export function validateResourceFieldSelector(
  fs: { containerName?: string; resource?: string; divisor?: string | number },
  path: FieldPath,
  volume: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const resource = fs.resource ?? '';
  if (volume && !fs.containerName) errs.push(fieldErrors.required(path.child('containerName'), ''));
  else if (!resource) errs.push(fieldErrors.required(path.child('resource'), ''));
  else if (!resourceFieldPaths.includes(resource) && !resource.startsWith('requests.hugepages-') && !resource.startsWith('limits.hugepages-')) {
    errs.push(fieldErrors.notSupported(path.child('resource'), resource, resourceFieldPaths));
  }
  let divisor: string | undefined;
  try {
    const q = fs.divisor === undefined ? undefined : parseQuantity(fs.divisor);
    divisor = q && !q.isZero() ? q.toString() : undefined;
  } catch (e) {
    if (!(e instanceof QuantityParseError)) throw e;
  }
  if (divisor === undefined) return errs;
  const bad = (what: string, allowed: string) => fieldErrors.invalid(path.child('divisor'), resource, `only divisor's values ${allowed} are supported with the ${what} resource`);
  const memList = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei';
  if ((resource === 'limits.cpu' || resource === 'requests.cpu') && !['1m', '1'].includes(divisor)) errs.push(bad('cpu', '1m and 1'));
  if ((resource === 'limits.memory' || resource === 'requests.memory') && !memoryDivisors.includes(divisor)) errs.push(bad('memory', memList));
  if ((resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage') && !memoryDivisors.includes(divisor)) errs.push(bad('local ephemeral storage', memList));
  if ((resource.startsWith('requests.hugepages-') || resource.startsWith('limits.hugepages-')) && !memoryDivisors.includes(divisor)) errs.push(bad('hugepages', memList));
  return errs;
}

function validateKeySelector(s: { name?: string; key?: string }, path: FieldPath): FieldError[] {
  const errs: FieldError[] = nameIsDNSSubdomain(s.name ?? '', false).map((m) => fieldErrors.invalid(path.child('name'), s.name ?? '', m));
  if (!s.key) errs.push(fieldErrors.required(path.child('key'), ''));
  else for (const m of isConfigMapKey(s.key)) errs.push(fieldErrors.invalid(path.child('key'), s.key, m));
  return errs;
}

function validateEnv(vars: EnvVar[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (vars ?? []).forEach((ev, i) => {
    const p = path.index(i);
    if (!ev.name) errs.push(fieldErrors.required(p.child('name'), ''));
    else for (const m of envNameErrors(ev.name)) errs.push(fieldErrors.invalid(p.child('name'), ev.name, m));
    const from = ev.valueFrom;
    if (!from) return;
    const fp = p.child('valueFrom');
    let sources = 0;
    if (from.fieldRef) {
      sources++;
      errs.push(...validateObjectFieldSelector(from.fieldRef, envFieldPaths, fp.child('fieldRef')));
    }
    if (from.resourceFieldRef) {
      sources++;
      errs.push(...validateResourceFieldSelector(from.resourceFieldRef, fp.child('resourceFieldRef'), false));
    }
    if (from.configMapKeyRef) {
      sources++;
      errs.push(...validateKeySelector(from.configMapKeyRef, fp.child('configMapKeyRef')));
    }
    if (from.secretKeyRef) {
      sources++;
      errs.push(...validateKeySelector(from.secretKeyRef, fp.child('secretKeyRef')));
    }
    if (sources === 0) errs.push(fieldErrors.invalid(fp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (ev.value) errs.push(fieldErrors.invalid(fp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(fieldErrors.invalid(fp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateEnvFrom(c: Container, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (c.envFrom ?? []).forEach((ev, i) => {
    const p = path.index(i);
    if (ev.prefix) for (const m of envNameErrors(ev.prefix)) errs.push(fieldErrors.invalid(p.child('prefix'), ev.prefix, m));
    let sources = 0;
    for (const [key, ref] of [['configMapRef', ev.configMapRef], ['secretRef', ev.secretRef]] as const) {
      if (!ref) continue;
      sources++;
      const rp = p.child(key).child('name');
      if (!ref.name) errs.push(fieldErrors.required(rp, ''));
      else for (const m of nameIsDNSSubdomain(ref.name, true)) errs.push(fieldErrors.invalid(rp, ref.name, m));
    }
    // kube reports both at the list's path, not the item's.
    if (sources === 0) errs.push(fieldErrors.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(fieldErrors.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

const hasBackstep = (p: string) => p.split('/').includes('..');

/** validateLocalDescendingPath: relative, no `..` element. */
export function localDescendingPathErrors(target: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(fieldErrors.invalid(path, target, 'must be a relative path'));
  if (hasBackstep(target)) errs.push(fieldErrors.invalid(path, target, "must not contain '..'"));
  return errs;
}

/** ValidateLocalNonReservedPath. */
export function localNonReservedPathErrors(target: string, path: FieldPath): FieldError[] {
  const errs = localDescendingPathErrors(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(fieldErrors.invalid(path, target, "must not start with '..'"));
  return errs;
}

function validateVolumeMounts(c: Container, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  const devices = new Map((c.volumeDevices ?? []).map((d) => [d.name ?? '', d.devicePath ?? '']));
  const devicePaths = new Set(devices.values());
  (c.volumeMounts ?? []).forEach((m: VolumeMount, i) => {
    const p = path.index(i);
    const name = m.name ?? '';
    const mountPath = m.mountPath ?? '';
    if (!name) errs.push(fieldErrors.required(p.child('name'), ''));
    if (!ctx.volumes.has(name)) errs.push(fieldErrors.notFound(p.child('name'), name));
    if (!mountPath) errs.push(fieldErrors.required(p.child('mountPath'), ''));
    if (mountPoints.has(mountPath)) errs.push(fieldErrors.invalid(p.child('mountPath'), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if (devices.has(name)) errs.push(fieldErrors.invalid(p.child('name'), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(fieldErrors.invalid(p.child('mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    // kube reports subPath problems at the list's path (volumeMounts.subPath), not the item's.
    if (m.subPath) errs.push(...localDescendingPathErrors(m.subPath, path.child('subPath')));
    if (m.subPathExpr) {
      if (m.subPath) errs.push(fieldErrors.invalid(p.child('subPathExpr'), m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...localDescendingPathErrors(m.subPathExpr, path.child('subPathExpr')));
    }
    if (m.mountPropagation !== undefined) {
      const supported = ['Bidirectional', 'HostToContainer', 'None'];
      const pp = path.child('mountPropagation');
      if (!supported.includes(m.mountPropagation)) errs.push(fieldErrors.notSupported(pp, m.mountPropagation, supported));
      if (m.mountPropagation === 'Bidirectional' && c.securityContext?.privileged !== true) {
        errs.push(fieldErrors.forbidden(pp, 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
    if (m.recursiveReadOnly !== undefined) errs.push(...validateRecursiveReadOnly(m, path.child('recursiveReadOnly')));
  });
  return errs;
}

function validateRecursiveReadOnly(m: VolumeMount, path: FieldPath): FieldError[] {
  const rro = m.recursiveReadOnly ?? '';
  switch (rro) {
    case 'Disabled':
      return [];
    case 'IfPossible':
    case 'Enabled':
      if (!m.readOnly) return [fieldErrors.forbidden(path, 'may only be specified when readOnly is true')];
      if (m.mountPropagation && m.mountPropagation !== 'None') return [fieldErrors.forbidden(path, 'may only be specified when mountPropagation is None or not specified')];
      return [];
    default:
      return [fieldErrors.notSupported(path, rro, ['Disabled', 'Enabled', 'IfPossible'])];
  }
}

function validateVolumeDevices(c: Container, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  const names = new Set<string>();
  const mounts = new Map((c.volumeMounts ?? []).map((m) => [m.name ?? '', m.mountPath ?? '']));
  const mountPaths = new Set(mounts.values());
  (c.volumeDevices ?? []).forEach((d, i) => {
    const p = path.index(i);
    const name = d.name ?? '';
    const devPath = d.devicePath ?? '';
    const source = ctx.volumes.get(name);
    if (!name) errs.push(fieldErrors.required(p.child('name'), ''));
    if (names.has(name)) errs.push(fieldErrors.invalid(p.child('name'), name, 'must be unique'));
    if (source !== undefined && source !== 'persistentVolumeClaim' && source !== 'ephemeral') {
      errs.push(fieldErrors.invalid(p.child('name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    }
    if (source === undefined) errs.push(fieldErrors.notFound(p.child('name'), name));
    if (!devPath) errs.push(fieldErrors.required(p.child('devicePath'), ''));
    if (paths.has(devPath)) errs.push(fieldErrors.invalid(p.child('devicePath'), devPath, 'must be unique'));
    if (devPath && hasBackstep(devPath)) errs.push(fieldErrors.invalid(p.child('devicePath'), devPath, "can not contain backsteps ('..')"));
    else paths.add(devPath);
    if (mounts.has(name)) errs.push(fieldErrors.invalid(p.child('name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devPath)) errs.push(fieldErrors.invalid(p.child('devicePath'), devPath, 'must not already exist as a path in volumeMounts'));
    if (name) names.add(name);
  });
  return errs;
}

const isHugePages = (n: string) => n.startsWith('hugepages-');
/** helper.IsOvercommitAllowed. */
const overcommitAllowed = (n: string) => isNativeResource(n) && !isHugePages(n);

/** validateContainerResourceName: a qualified, standard or extended resource. */
function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
  if (errs.length) return errs;
  const unprefixed = !name.includes('/');
  if (unprefixed && !isStandardResourceName(name)) {
    return [fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified')];
  }
  if (unprefixed) {
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(name) && !isHugePages(name)) return [fieldErrors.invalid(path, name, 'must be a standard resource for containers')];
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    return [fieldErrors.invalid(path, name, "doesn't follow extended resource name standard")];
  }
  return [];
}

function quantity(raw: string | number): Quantity | undefined {
  try {
    return parseQuantity(raw);
  } catch (e) {
    if (e instanceof QuantityParseError) return undefined;
    throw e;
  }
}

/** ValidateResourceQuantityValue: not negative, whole for integer resources. */
function validateQuantityValue(name: string, q: Quantity, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(fieldErrors.invalid(path, q.toString(), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && q.milliValue() % 1000n !== 0n) {
    errs.push({ type: 'FieldValueInvalid', field: String(path), badValueText: q.goStructString(), detail: 'must be an integer' });
  }
  return errs;
}

/** The bytes of a hugepages-<size> resource's page size, or undefined when the size does not parse. */
function hugePageSize(name: string): Quantity | undefined {
  return quantity(name.slice('hugepages-'.length));
}

function validateHugePageValue(name: string, q: Quantity, path: FieldPath): FieldError[] {
  const size = hugePageSize(name);
  if (size && size.sign() > 0 && size.milliValue() % 1000n === 0n && q.value() % size.value() === 0n) return [];
  return [fieldErrors.invalid(path, q.toString(), `${q.toString()} is not positive integer multiple of ${name}`)];
}

export function validateResourceRequirements(r: ResourceRequirements | undefined, path: FieldPath, claimNames: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const limPath = path.child('limits');
  const reqPath = path.child('requests');
  const limits = new Map<string, Quantity>();
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, raw] of Object.entries(r?.limits ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const p = limPath.key(name);
    errs.push(...validateContainerResourceName(name, p));
    const q = quantity(raw);
    if (!q) continue;
    limits.set(name, q);
    errs.push(...validateQuantityValue(name, q, p));
    if (isHugePages(name)) {
      hugePages = true;
      errs.push(...validateHugePageValue(name, q, p));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, raw] of Object.entries(r?.requests ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const p = reqPath.key(name);
    errs.push(...validateContainerResourceName(name, p));
    const q = quantity(raw);
    if (!q) continue;
    errs.push(...validateQuantityValue(name, q, p));
    const limit = limits.get(name);
    if (limit) {
      if (q.cmp(limit) !== 0 && !overcommitAllowed(name)) {
        errs.push(fieldErrors.invalid(reqPath, q.toString(), `must be equal to ${name} limit of ${limit.toString()}`));
      } else if (q.cmp(limit) > 0) {
        errs.push(fieldErrors.invalid(reqPath, q.toString(), `must be less than or equal to ${name} limit of ${limit.toString()}`));
      }
    } else if (!overcommitAllowed(name)) {
      errs.push(fieldErrors.required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) {
      hugePages = true;
      errs.push(...validateHugePageValue(name, q, p));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (!cpuOrMemory && hugePages) errs.push(fieldErrors.forbidden(path, 'HugePages require cpu or memory'));
  errs.push(...validateClaims(r?.claims, path.child('claims'), claimNames));
  return errs;
}

/** validateResourceClaimNames: every claim names one of spec.resourceClaims, once. */
function validateClaims(claims: ResourceRequirements['claims'], path: FieldPath, podClaims: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (claims ?? []).forEach((c, i) => {
    const name = c.name ?? '';
    if (!name) {
      errs.push(fieldErrors.required(path.index(i), ''));
      return;
    }
    if (seen.has(name)) errs.push(fieldErrors.duplicate(path.index(i), name));
    else {
      let key = name;
      if (c.request) {
        errs.push(...validateDNS1123Label(c.request, path.index(i).child('request')));
        key += `/${c.request}`;
      }
      if (seen.has(key)) errs.push(fieldErrors.duplicate(path.index(i), key));
      else if (!c.request) for (const k of seen) if (k.startsWith(`${name}/`)) errs.push(fieldErrors.duplicate(path.index(i), name));
      seen.add(key);
    }
    if (!podClaims.has(name)) {
      const names = [...podClaims].sort();
      const detail = `must be one of the names in pod.spec.resourceClaims${names.length ? `: ${names.join(', ')}` : ' which is empty'}`;
      errs.push({ ...fieldErrors.notFound(path.index(i), name), detail });
    }
  });
  return errs;
}

function validatePortNumOrName(port: IntOrString | undefined, path: FieldPath): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((m) => fieldErrors.invalid(path, port, m));
  const n = typeof port === 'number' ? port : 0;
  return isValidPortNum(n) ? [] : [fieldErrors.invalid(path, n, portRange)];
}

/** validateHandler over a probe's or a lifecycle hook's actions: exactly one, each valid. */
function validateHandler(h: ProbeHandler & LifecycleHandler, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let handlers = 0;
  const one = (key: string, check: () => FieldError[]) => {
    if (handlers > 0) errs.push(fieldErrors.forbidden(path.child(key), 'may not specify more than 1 handler type'));
    else {
      handlers++;
      errs.push(...check());
    }
  };
  if (hasValue(h.exec)) one('exec', () => (h.exec?.command?.length ? [] : [fieldErrors.required(path.child('exec').child('command'), '')]));
  if (hasValue(h.httpGet)) {
    one('httpGet', () => {
      const g = h.httpGet ?? {};
      const p = path.child('httpGet');
      const out: FieldError[] = [];
      if (!g.path) out.push(fieldErrors.required(p.child('path'), ''));
      out.push(...validatePortNumOrName(g.port, p.child('port')));
      if (!['HTTP', 'HTTPS'].includes(g.scheme ?? '')) out.push(fieldErrors.notSupported(p.child('scheme'), g.scheme ?? '', ['HTTP', 'HTTPS']));
      for (const header of g.httpHeaders ?? []) {
        if (!/^[-A-Za-z0-9]+$/.test(header.name ?? '')) {
          out.push(
            fieldErrors.invalid(
              p.child('httpHeaders'),
              header.name ?? '',
              "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')",
            ),
          );
        }
      }
      return out;
    });
  }
  if (hasValue(h.tcpSocket)) one('tcpSocket', () => validatePortNumOrName(h.tcpSocket?.port, path.child('tcpSocket').child('port')));
  if (hasValue(h.grpc)) one('grpc', () => validatePortNumOrName(h.grpc?.port ?? 0, path.child('grpc').child('port')));
  if (hasValue(h.sleep)) {
    one('sleep', () => {
      const s = h.sleep?.seconds ?? 0;
      const g = ctx.gracePeriod;
      if (g !== undefined && (s <= 0 || s > g)) {
        return [
          fieldErrors.invalid(
            path.child('sleep'),
            s,
            `must be greater than 0 and less than terminationGracePeriodSeconds (${g}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`,
          ),
        ];
      }
      return [];
    });
  }
  if (handlers === 0) errs.push(fieldErrors.required(path, 'must specify a handler type'));
  return errs;
}

const nonNegative = (v: number | undefined, path: FieldPath): FieldError[] => ((v ?? 0) < 0 ? [fieldErrors.invalid(path, v, 'must be greater than or equal to 0')] : []);

function validateProbe(probe: Probe | undefined, kind: 'liveness' | 'readiness' | 'startup', ctx: ContainerContext, path: FieldPath): FieldError[] {
  if (!probe) return [];
  const errs = validateHandler({ exec: probe.exec, httpGet: probe.httpGet, tcpSocket: probe.tcpSocket, grpc: probe.grpc }, ctx, path);
  errs.push(
    ...nonNegative(probe.initialDelaySeconds, path.child('initialDelaySeconds')),
    ...nonNegative(probe.timeoutSeconds, path.child('timeoutSeconds')),
    ...nonNegative(probe.periodSeconds, path.child('periodSeconds')),
    ...nonNegative(probe.successThreshold, path.child('successThreshold')),
    ...nonNegative(probe.failureThreshold, path.child('failureThreshold')),
  );
  const tgps = probe.terminationGracePeriodSeconds;
  if (tgps !== undefined && tgps <= 0) errs.push(fieldErrors.invalid(path.child('terminationGracePeriodSeconds'), tgps, 'must be greater than 0'));
  if (kind !== 'readiness' && (probe.successThreshold ?? 0) !== 1) errs.push(fieldErrors.invalid(path.child('successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  if (kind === 'readiness' && tgps !== undefined) {
    errs.push(fieldErrors.invalid(path.child('terminationGracePeriodSeconds'), tgps, 'must not be set for readinessProbes'));
  }
  return errs;
}

function validateLifecycle(c: Container, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (c.lifecycle?.postStart) errs.push(...validateHandler(c.lifecycle.postStart, ctx, path.child('postStart')));
  if (c.lifecycle?.preStop) errs.push(...validateHandler(c.lifecycle.preStop, ctx, path.child('preStop')));
  return errs;
}

const idRange = 'must be between 0 and 2147483647, inclusive';
export const validId = (v: number | undefined, path: FieldPath): FieldError[] => (v !== undefined && (v < 0 || v > 2147483647) ? [fieldErrors.invalid(path, v, idRange)] : []);

const profileTypes = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** Go's %#v of a *string: a pointer, so an address (a fixed placeholder here). */
const goStringPointer = '(*string)(0xc000000000)';

/** validateSeccompProfileField. */
export function validateSeccompProfile(sp: { type?: string; localhostProfile?: string } | undefined, path: FieldPath): FieldError[] {
  if (!sp) return [];
  const errs: FieldError[] = [];
  const type = sp.type ?? '';
  if (!type) errs.push(fieldErrors.required(path.child('type'), 'type is required when seccompProfile is set'));
  else if (!profileTypes.includes(type)) errs.push(fieldErrors.notSupported(path.child('type'), type, profileTypes));
  if (type === 'Localhost') {
    if (sp.localhostProfile === undefined) errs.push(fieldErrors.required(path.child('localhostProfile'), 'must be set when seccomp type is Localhost'));
    else errs.push(...localDescendingPathErrors(sp.localhostProfile, path.child('localhostProfile')));
  } else if (sp.localhostProfile !== undefined) {
    // kube prints the whole *SeccompProfile, dereferenced.
    const text = `core.SeccompProfile{Type:${JSON.stringify(type)}, LocalhostProfile:${goStringPointer}}`;
    errs.push({ type: 'FieldValueInvalid', field: String(path.child('localhostProfile')), badValueText: text, detail: 'can only be set when seccomp type is Localhost' });
  }
  return errs;
}

/** ValidateAppArmorProfileField. */
export function validateAppArmorProfile(ap: { type?: string; localhostProfile?: string } | undefined, path: FieldPath): FieldError[] {
  if (!ap) return [];
  const lp = ap.localhostProfile;
  switch (ap.type ?? '') {
    case 'Localhost': {
      if (lp === undefined) return [fieldErrors.required(path.child('localhostProfile'), 'must be set when AppArmor type is Localhost')];
      const errs: FieldError[] = [];
      if (lp.trim() !== lp) errs.push(fieldErrors.invalid(path.child('localhostProfile'), lp, 'must not be padded with whitespace'));
      else if (!lp) errs.push(fieldErrors.required(path.child('localhostProfile'), 'must be set when AppArmor type is Localhost'));
      if (Buffer.byteLength(lp) > 4095) errs.push(fieldErrors.tooLong(path.child('localhostProfile'), 4095));
      return errs;
    }
    case 'RuntimeDefault':
    case 'Unconfined':
      // A *string, dereferenced by the field-error printer.
      return lp === undefined ? [] : [fieldErrors.invalid(path.child('localhostProfile'), lp, 'can only be set when AppArmor type is Localhost')];
    case '':
      return [fieldErrors.required(path.child('type'), 'type is required when appArmorProfile is set')];
    default:
      return [fieldErrors.notSupported(path.child('type'), ap.type, profileTypes)];
  }
}

function validateSecurityContext(sc: SecurityContext | undefined, ctx: ContainerContext, path: FieldPath): FieldError[] {
  if (!sc) return [];
  const errs: FieldError[] = [];
  if (sc.privileged === true && !ctx.allowPrivileged) errs.push(fieldErrors.forbidden(path.child('privileged'), 'disallowed by cluster policy'));
  errs.push(...validId(sc.runAsUser, path.child('runAsUser')), ...validId(sc.runAsGroup, path.child('runAsGroup')));
  if (sc.procMount !== undefined) {
    if (!['Default', 'Unmasked'].includes(sc.procMount)) errs.push(fieldErrors.notSupported(path.child('procMount'), sc.procMount, ['Default', 'Unmasked']));
    // hostUsers is always true here (UserNamespacesSupport is off).
    if (sc.procMount === 'Unmasked') errs.push(fieldErrors.invalid(path.child('procMount'), sc.procMount, '`hostUsers` must be false to use `Unmasked`'));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, path.child('seccompProfile')));
  if (sc.allowPrivilegeEscalation === false) {
    const whole = (detail: string): FieldError => ({ type: 'FieldValueInvalid', field: String(path), badValueText: goSecurityContext(sc), detail });
    if (sc.privileged === true) errs.push(whole('cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const cap of sc.capabilities?.add ?? []) if (cap === 'CAP_SYS_ADMIN') errs.push(whole('cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  errs.push(...validateWindowsOptions(sc.windowsOptions, path.child('windowsOptions')), ...validateAppArmorProfile(sc.appArmorProfile, path.child('appArmorProfile')));
  return errs;
}

/** Go's %#v of the *core.SecurityContext kube prints (a pointer, so its address: a placeholder here). */
function goSecurityContext(_sc: SecurityContext): string {
  return '(*core.SecurityContext)(0xc000000000)';
}

function validatePullPolicy(policy: string | undefined, path: FieldPath): FieldError[] {
  const supported = ['Always', 'IfNotPresent', 'Never'];
  if (!policy) return [fieldErrors.required(path, '')];
  return supported.includes(policy) ? [] : [fieldErrors.notSupported(path, policy, supported)];
}

/** validateContainerCommon: what every kind of container must satisfy. */
function validateContainerCommon(c: Container, ctx: ContainerContext, claimNames: Set<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(fieldErrors.required(path.child('name'), ''));
  else errs.push(...validateDNS1123Label(c.name, path.child('name')));
  if (!c.image) errs.push(fieldErrors.required(path.child('image'), ''));
  const tmp = c.terminationMessagePolicy ?? '';
  if (!tmp) errs.push(fieldErrors.required(path.child('terminationMessagePolicy'), ''));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') errs.push(fieldErrors.notSupported(path.child('terminationMessagePolicy'), tmp, ['File', 'FallbackToLogsOnError']));
  errs.push(
    ...validatePorts(c.ports, path.child('ports')),
    ...validateEnv(c.env, path.child('env')),
    ...validateEnvFrom(c, path.child('envFrom')),
    ...validateVolumeMounts(c, ctx, path.child('volumeMounts')),
    ...validateVolumeDevices(c, ctx, path.child('volumeDevices')),
    ...validatePullPolicy(c.imagePullPolicy, path.child('imagePullPolicy')),
    ...validateResourceRequirements(c.resources, path.child('resources'), claimNames),
    ...validateSecurityContext(c.securityContext, ctx, path.child('securityContext')),
  );
  return errs;
}

/** validateContainerOnlyForPod: no whitespace around the image. */
export function imageWhitespaceErrors(c: Container, path: FieldPath): FieldError[] {
  const image = c.image ?? '';
  return image.trim() !== image ? [fieldErrors.invalid(path.child('image'), image, 'must not have leading or trailing whitespace')] : [];
}

/** AccumulateUniqueHostPorts over a set of containers. */
function hostPortConflicts(containers: Container[], path: FieldPath, indexOffset = 0): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    (c.ports ?? []).forEach((port, pi) => {
      if (!port.hostPort) return;
      const key = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${port.hostPort}`;
      if (seen.has(key)) errs.push(fieldErrors.duplicate(path.index(ci + indexOffset).child('ports').index(pi).child('hostPort'), key));
      else seen.add(key);
    });
  });
  return errs;
}

export function validateContainers(containers: Container[] | undefined, ctx: ContainerContext, claimNames: Set<string>, path: FieldPath): FieldError[] {
  if (!containers?.length) return [fieldErrors.required(path, '')];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = path.index(i);
    errs.push(...validateContainerCommon(c, ctx, claimNames, p));
    if (names.has(c.name ?? '')) errs.push(fieldErrors.duplicate(p.child('name'), c.name ?? ''));
    else names.add(c.name ?? '');
    if (c.lifecycle) errs.push(...validateLifecycle(c, ctx, p.child('lifecycle')));
    errs.push(
      ...validateProbe(c.livenessProbe, 'liveness', ctx, p.child('livenessProbe')),
      ...validateProbe(c.readinessProbe, 'readiness', ctx, p.child('readinessProbe')),
      ...validateProbe(c.startupProbe, 'startup', ctx, p.child('startupProbe')),
    );
    if (c.restartPolicy !== undefined) errs.push(fieldErrors.forbidden(p.child('restartPolicy'), 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(containers, path));
  return errs;
}

export function validateInitContainers(inits: Container[] | undefined, regular: Container[] | undefined, ctx: ContainerContext, claimNames: Set<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set((regular ?? []).map((c) => c.name ?? ''));
  (inits ?? []).forEach((c, i) => {
    const p = path.index(i);
    errs.push(...validateContainerCommon(c, ctx, claimNames, p));
    let restartAlways = false;
    if (c.restartPolicy !== undefined) {
      if (c.restartPolicy !== 'Always') errs.push(fieldErrors.notSupported(p.child('restartPolicy'), c.restartPolicy, ['Always']));
      restartAlways = c.restartPolicy === 'Always';
    }
    if (names.has(c.name ?? '')) errs.push(fieldErrors.duplicate(p.child('name'), c.name ?? ''));
    else if (c.name) names.add(c.name);
    // Init containers run one by one: host ports only clash within one.
    errs.push(...hostPortConflicts([c], path, i));
    if (restartAlways) {
      if (c.lifecycle) errs.push(...validateLifecycle(c, ctx, p.child('lifecycle')));
      errs.push(
        ...validateProbe(c.livenessProbe, 'liveness', ctx, p.child('livenessProbe')),
        ...validateProbe(c.readinessProbe, 'readiness', ctx, p.child('readinessProbe')),
        ...validateProbe(c.startupProbe, 'startup', ctx, p.child('startupProbe')),
      );
    } else {
      const forbidden = 'may not be set for init containers without restartPolicy=Always';
      if (c.lifecycle) errs.push(fieldErrors.forbidden(p.child('lifecycle'), forbidden));
      if (c.livenessProbe) errs.push(fieldErrors.forbidden(p.child('livenessProbe'), forbidden));
      if (c.readinessProbe) errs.push(fieldErrors.forbidden(p.child('readinessProbe'), forbidden));
      if (c.startupProbe) errs.push(fieldErrors.forbidden(p.child('startupProbe'), forbidden));
    }
  });
  return errs;
}

/** The fields an ephemeral container may set (kube's allowedEphemeralContainerFields). */
const ephemeralAllowed = new Set([
  'name', 'image', 'command', 'args', 'workingDir', 'env', 'envFrom', 'volumeMounts', 'volumeDevices', 'terminationMessagePath',
  'terminationMessagePolicy', 'imagePullPolicy', 'securityContext', 'stdin', 'stdinOnce', 'tty', 'targetContainerName',
]);

export function validateEphemeralContainers(ecs: Container[] | undefined, spec: { containers?: Container[]; initContainers?: Container[] }, ctx: ContainerContext, claimNames: Set<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!ecs?.length) return errs;
  const others = new Set([...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c) => c.name ?? ''));
  const all = new Set(others);
  ecs.forEach((c, i) => {
    const p = path.index(i);
    errs.push(...validateContainerCommon(c, ctx, claimNames, p), ...imageWhitespaceErrors(c, p));
    if (all.has(c.name ?? '')) errs.push(fieldErrors.duplicate(p.child('name'), c.name ?? ''));
    else all.add(c.name ?? '');
    if (c.targetContainerName && !others.has(c.targetContainerName)) errs.push(fieldErrors.notFound(p.child('targetContainerName'), c.targetContainerName));
    for (const [key, value] of Object.entries(c)) {
      if (ephemeralAllowed.has(key) || !hasValue(value)) continue;
      // resources is a Go struct value: only a non-empty one counts as set.
      if (key === 'resources' && !Object.keys(value as object).length) continue;
      errs.push(fieldErrors.forbidden(p.child(key), 'cannot be set for an Ephemeral Container'));
    }
    (c.volumeMounts ?? []).forEach((m, j) => {
      if (m.subPath) errs.push(fieldErrors.forbidden(p.child('volumeMounts').index(j).child('subPath'), 'cannot be set for an Ephemeral Container'));
      if (m.subPathExpr) errs.push(fieldErrors.forbidden(p.child('volumeMounts').index(j).child('subPathExpr'), 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}
