/**
 * The pods' streaming subresources as kube-apiserver answers them with no kubelet behind it
 * (pkg/registry/core/pod/rest/log.go and subresources.go, pkg/registry/core/pod/strategy.go's
 * LogLocation, ExecLocation, AttachLocation, PortForwardLocation and ResourceLocation).
 *
 * kube reads the pod, checks the container, and then needs the pod's node: a pod no scheduler
 * bound has none (log: 204 No Content; exec, attach, portforward: 400 `pod <name> does not have
 * a host assigned`). A bound pod names a Node; this server serves no Nodes, so it is kube's 404
 * for a Node that does not exist, where kube would dial that node's kubelet. The proxy goes to
 * the pod's IP (kube's proxy: the request forwarded there, endpoints/connect-proxy.ts), which a
 * pod has only when a client wrote one into its status; without one it is a 400.
 */
import { isIPv6 } from 'node:net';
import { posix } from 'node:path';
import { ApiError, FieldError, KubeObject, errors, failureStatus, fieldErrors, goQuote } from '../../../api';
import type { RequestContext } from '../../context';
import type { ConnectAnswer, SubresourceConnect, SubresourceDefinition, SubresourceEnv } from '../../resource';
import { baseStrategy } from '../../resource';
import { podAttachOptions, podExecOptions, podLogOptions, podPortForwardOptions, podProxyOptions } from './pod-connect-options';
import type { Container, Pod } from './pod-types';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const nodesGVR = { group: '', version: 'v1', resource: 'nodes' };

async function getPod(ctx: RequestContext, env: SubresourceEnv, name: string): Promise<Pod> {
  const pods = env.store(podsGVR);
  if (!pods) throw errors.notFound({ group: '', resource: 'pods' }, name);
  return (await pods.get(ctx, name)) as Pod;
}

/** podutil.VisitContainers with every kind enabled: init containers, containers, ephemeral containers. */
function allContainerNames(pod: Pod): string[] {
  const spec = pod.spec ?? {};
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...((spec.ephemeralContainers ?? []) as Container[])].map((c) => c.name ?? '');
}

/**
 * kube's validateContainer: no container named picks the pod's only container; none or several is
 * a 400 naming them (Go's %s of a []string); a name the pod lacks is a 400 too.
 */
export function containerFor(pod: Pod, container: string): string {
  const podName = pod.metadata.name ?? '';
  if (!container) {
    const containers = pod.spec?.containers ?? [];
    if (containers.length === 1) return containers[0]?.name ?? '';
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${podName}`);
    throw errors.badRequest(`a container name must be specified for pod ${podName}, choose one of: [${allContainerNames(pod).join(' ')}]`);
  }
  if (!allContainerNames(pod).includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${podName}`);
  return container;
}

/**
 * kube's GetConnectionInfo: the node's kubelet address, read from the Node. No Node is served here,
 * so every node is kube's 404 for a missing one; one served later would still have no kubelet to dial.
 */
async function nodeConnection(ctx: RequestContext, env: SubresourceEnv, nodeName: string): Promise<never> {
  const node = await env.get(ctx, nodesGVR, nodeName);
  if (!node) throw errors.notFound({ group: '', resource: 'nodes' }, nodeName);
  throw errors.serviceUnavailable(`no kubelet answers for node ${nodeName}: this server runs none`);
}

/** kube's streamLocation (exec, attach): the pod, its container, then its node. */
async function streamLocation(ctx: RequestContext, env: SubresourceEnv, name: string, options: KubeObject): Promise<ConnectAnswer> {
  const pod = await getPod(ctx, env, name);
  containerFor(pod, typeof options.container === 'string' ? options.container : '');
  const nodeName = pod.spec?.nodeName ?? '';
  if (!nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
  return nodeConnection(ctx, env, nodeName);
}

/** kube's ValidatePodLogOptions. */
export function validatePodLogOptions(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  const tail = n('tailLines');
  if (tail !== undefined && tail < 0) errs.push(fieldErrors.invalid('tailLines', tail, 'must be greater than or equal to 0'));
  const limit = n('limitBytes');
  if (limit !== undefined && limit < 1) errs.push(fieldErrors.invalid('limitBytes', limit, 'must be greater than 0'));
  const since = n('sinceSeconds');
  if (since !== undefined && o.sinceTime !== undefined) errs.push(fieldErrors.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (since !== undefined && since < 1) errs.push(fieldErrors.invalid('sinceSeconds', since, 'must be greater than 0'));
  return errs;
}

/** kube's LogREST.Get: options validated (422), then LogLocation; a pod with no node has an empty location: 204. */
async function serveLog(ctx: RequestContext, name: string, options: KubeObject, env: SubresourceEnv): Promise<ConnectAnswer> {
  const errs = validatePodLogOptions(options);
  if (errs.length) throw errors.invalid({ group: '', kind: 'PodLogOptions' }, name, errs);
  const pod = await getPod(ctx, env, name);
  containerFor(pod, typeof options.container === 'string' ? options.container : '');
  const nodeName = pod.spec?.nodeName ?? '';
  if (!nodeName) return { status: 204 };
  return nodeConnection(ctx, env, nodeName);
}

/** kube's PortForwardLocation: no container to check, only the node. */
async function servePortForward(ctx: RequestContext, name: string, _options: KubeObject, env: SubresourceEnv): Promise<ConnectAnswer> {
  const pod = await getPod(ctx, env, name);
  const nodeName = pod.spec?.nodeName ?? '';
  if (!nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
  return nodeConnection(ctx, env, nodeName);
}

/**
 * apimachinery's SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port`, the scheme http,
 * https or none, the name not empty.
 */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0] as string;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  if (!name || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

/** Go's net.ParseIP (utils' ParseIPSloppy: IPv4 parts may have leading zeros) then IP.IsGlobalUnicast. */
export function isGlobalUnicast(ip: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) {
    const b = v4.slice(1).map((x) => Number.parseInt(x, 10));
    if (b.some((x) => x > 255)) return false;
    const [a, second] = [b[0] as number, b[1] as number];
    if (b.every((x) => x === 0) || b.every((x) => x === 255)) return false; // unspecified, broadcast
    if (a === 127 || (a >= 224 && a <= 239)) return false; // loopback, multicast
    return !(a === 169 && second === 254); // link-local
  }
  if (ip.includes('%') || !isIPv6(ip)) return false;
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return isGlobalUnicast(mapped[1] as string);
  if (/^[0:]+$/.test(lower) || /^[0:]+:0*1$/.test(lower)) return false; // unspecified, loopback
  // multicast ff00::/8, link-local fe80::/10
  return !(/^ff[0-9a-f]{2}:/.test(lower) || /^fe[89ab][0-9a-f]:/.test(lower));
}

/**
 * kube's ResourceLocation and ProxyREST.Connect: the id parsed, the pod read, the port the named
 * one or the first a container declares, the address the pod's first IP, which must be a global
 * unicast address (400 `address not allowed`: every pod here until a client writes status.podIPs).
 */
async function serveProxy(ctx: RequestContext, id: string, options: KubeObject, env: SubresourceEnv): Promise<ConnectAnswer> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw errors.badRequest(`invalid pod request ${goQuote(id)}`);
  const pod = await getPod(ctx, env, parsed.name);
  let port = parsed.port;
  if (!port) port = String((pod.spec?.containers ?? []).find((c) => c.ports?.length)?.ports?.[0]?.containerPort ?? '');
  const podIP = pod.status?.podIPs?.[0]?.ip ?? '';
  if (!isGlobalUnicast(podIP)) throw errors.badRequest('address not allowed');
  const scheme = parsed.scheme === 'https' ? 'https' : 'http';
  const path = joinPreservingTrailingSlash(typeof options.path === 'string' ? options.path : '');
  return { status: 'proxy', target: { scheme, host: podIP.replace(/^::ffff:(?=\d)/i, ''), port: portNumber(port, scheme), path } };
}

/** Go's net.LookupPort as the dial makes it: none is the scheme's, a number itself, a service name from the services table. */
function portNumber(port: string, scheme: 'http' | 'https'): number {
  if (port === '') return scheme === 'https' ? 443 : 80;
  if (/^[0-9]+$/.test(port) && Number(port) <= 65535) return Number(port);
  const services: Record<string, number> = { http: 80, https: 443 };
  const known = services[port.toLowerCase()];
  if (known !== undefined) return known;
  throw new ApiError(failureStatus(500, '', `dial tcp: lookup tcp/${port}: unknown port`));
}

/** apimachinery's JoinPreservingTrailingSlash("", p): Go's path.Clean of p, its trailing slash kept. */
export function joinPreservingTrailingSlash(p: string): string {
  if (!p) return '';
  let c = posix.normalize(p);
  if (c === '.' || c === './') c = '';
  if (c.length > 1 && c.endsWith('/')) c = c.slice(0, -1);
  if (p.endsWith('/') && !c.endsWith('/')) c += '/';
  return c;
}

const connectVerbs = ['create', 'get'] as const;
const noWrites = baseStrategy;

type Param = SubresourceConnect['parameters'][number];
const param = (name: string, type: Param['type'], description: string): Param => ({ name, type, description });
const container = (what: string) => param('container', 'string', `The container to ${what}; may be left out when the pod has one container.`);
const streamParams = (what: string): Param[] => [
  param('stderr', 'boolean', `Stream the container's standard error ${what}.`),
  param('stdin', 'boolean', `Stream the client's standard input to the container ${what}.`),
  param('stdout', 'boolean', `Stream the container's standard output ${what}.`),
  param('tty', 'boolean', `Allocate a terminal ${what}.`),
];

/** pods/log, exec, attach, portforward and proxy, in kube's discovery order. */
export const podConnectSubresources: SubresourceDefinition[] = [
  {
    name: 'attach',
    verbs: [...connectVerbs],
    strategy: noWrites,
    connect: { kind: 'PodAttachOptions', methods: ['GET', 'POST'], connecter: true, parameters: [container('attach to'), ...streamParams('of the attached process')], options: podAttachOptions, serve: (ctx, name, o, env) => streamLocation(ctx, env, name, o) },
  },
  {
    name: 'exec',
    verbs: [...connectVerbs],
    strategy: noWrites,
    connect: { kind: 'PodExecOptions', methods: ['GET', 'POST'], connecter: true, parameters: [param('command', 'string', 'The command to run and its arguments, one value each (no shell).'), container('run the command in'), ...streamParams('of the command')], options: podExecOptions, serve: (ctx, name, o, env) => streamLocation(ctx, env, name, o) },
  },
  {
    name: 'log',
    verbs: ['get'],
    strategy: noWrites,
    connect: {
      kind: 'Pod',
      methods: ['GET'],
      connecter: false,
      parameters: [
        container('read the log of'),
        param('follow', 'boolean', 'Keep the answer open and stream the log as it grows.'),
        param('insecureSkipTLSVerifyBackend', 'boolean', "Read the log from the node without verifying the node's serving certificate."),
        param('limitBytes', 'integer', 'Stop after this many bytes of log (at least 1).'),
        param('previous', 'boolean', "Read the log of the container's previous, terminated instance."),
        param('sinceSeconds', 'integer', 'Only the log written in the last this many seconds (at least 1; not with sinceTime).'),
        param('stream', 'string', 'Which of the container\'s streams to read: All, Stdout or Stderr (needs the PodLogsQuerySplitStreams feature).'),
        param('tailLines', 'integer', 'Only this many lines from the end of the log (0 or more).'),
        param('timestamps', 'boolean', 'Start every line with its RFC3339 timestamp.'),
      ],
      options: podLogOptions,
      serve: serveLog,
    },
  },
  {
    name: 'portforward',
    verbs: [...connectVerbs],
    strategy: noWrites,
    connect: { kind: 'PodPortForwardOptions', methods: ['GET', 'POST'], connecter: true, parameters: [param('ports', 'integer', 'The ports of the pod to forward (needed over WebSockets).')], options: podPortForwardOptions, serve: servePortForward },
  },
  {
    name: 'proxy',
    verbs: ['create', 'delete', 'get', 'patch', 'update'],
    strategy: noWrites,
    connect: {
      kind: 'PodProxyOptions',
      methods: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'],
      connecter: true,
      subpath: true,
      parameters: [param('path', 'string', 'The URL path to ask the pod for.')],
      options: podProxyOptions,
      serve: serveProxy,
    },
  },
];
