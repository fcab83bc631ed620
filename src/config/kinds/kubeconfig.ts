/**
 * The one kubeconfig reader: a file read the way client-go's clientcmd reads one (the file given
 * explicitly, one context): the cluster's server, CA (file or data), TLS server name, insecure
 * flag and proxy URL; the user's client certificate and key (files or data), token or token file,
 * basic credentials, and whether it uses an exec or auth-provider plugin. Relative paths are taken
 * from the kubeconfig's own directory (clientcmd's ResolveLocalPaths); `*-data` fields are Go
 * []byte (padded standard base64, CR and LF ignored). Decoding is lenient, as clientcmd's is:
 * unknown fields are ignored, apiVersion and kind may be left out.
 *
 * Two callers, each with its own wording of the same failures ({@link KubeconfigMessages}): the
 * webhook authorizer (apiserver's webhookutil.LoadKubeconfig, client-go's messages:
 * {@link loadKubeconfig}) and the `credential` exec plugin (cli/kubeconfig-credentials.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { goErrnoText, type ClientConnection } from '../../api';
import { ConfigYamlError, decodeConfigYaml } from '../config-yaml';

/** A kubeconfig that cannot be used; the message is the caller's wording (KubeconfigMessages). */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

/** The cluster or user a field belongs to, for messages: `field` of `owner` `name`. */
export interface KubeconfigField {
  owner: 'cluster' | 'user';
  name: string;
  field: string;
}

/** How one caller words each failure the reader finds. */
export interface KubeconfigMessages {
  /** The kubeconfig (`field` absent) or a file one of its fields names cannot be read; `reason` is Go's errno text. */
  unreadable(file: string, reason: string, field?: KubeconfigField): string;
  invalidYaml(file: string, yamlMessage: string): string;
  /** The document is a scalar or a list. */
  notAConfig(file: string, doc: unknown): string;
  /** No context asked for and no current-context. */
  noContext(file: string): string;
  contextNotFound(file: string, context: string): string;
  clusterNotFound(file: string, context: string, cluster: string): string;
  noServer(file: string, cluster: string): string;
  /** A `*-data` field that is not base64. */
  badData(file: string, field: KubeconfigField): string;
  /** A client certificate without its key, or a key without its certificate. */
  halfPair(file: string, user: string): string;
}

/** One context of a kubeconfig, resolved: `*-data` decoded, else the named files read. */
export interface KubeconfigContext {
  contextName: string;
  clusterName: string;
  cluster: {
    server: string;
    /** PEM CA bundle; absent: the system's roots. */
    ca?: string;
    insecureSkipTLSVerify: boolean;
    tlsServerName?: string;
    proxyUrl?: string;
  };
  userName: string;
  /** Undefined when the file has no user of that name (client-go then uses no credentials). */
  user?: {
    cert?: string;
    key?: string;
    token?: string;
    /** Absolute; read by the caller (client-go re-reads it). */
    tokenFile?: string;
    username?: string;
    password?: string;
    exec: boolean;
    authProvider: boolean;
  };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (o: Obj, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
const present = (v: unknown): boolean => v !== undefined && v !== null;

/** The named entry of a clientcmd list (`clusters`, `users`, `contexts`). */
function named(doc: Obj, list: string, field: string, name: string): Obj | undefined {
  const items = Array.isArray(doc[list]) ? (doc[list] as unknown[]) : [];
  for (const item of items) {
    if (isObj(item) && item.name === name) return isObj(item[field]) ? (item[field] as Obj) : {};
  }
  return undefined;
}

/** Go's errno text of a failed read. */
/** Reads a file the kubeconfig is or names; KubeconfigError in `messages`' words. */
export function readKubeconfigFile(file: string, messages: KubeconfigMessages, field?: KubeconfigField): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new KubeconfigError(messages.unreadable(file, goErrnoText(e), field));
  }
}

/**
 * A Go []byte field as encoding/json reads it (base64.StdEncoding: padded standard alphabet, CR
 * and LF ignored), as UTF-8 text; undefined when it is not such base64.
 */
export function decodeGoBytes(v: string): string | undefined {
  const compact = v.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  return Buffer.from(compact, 'base64').toString('utf8');
}

/**
 * The context `opts.context` (default: the file's current-context) of the kubeconfig at `file`.
 * Throws KubeconfigError worded by `opts.messages` (default client-go's).
 */
export function readKubeconfig(file: string, opts: { context?: string; messages?: KubeconfigMessages } = {}): KubeconfigContext {
  const m = opts.messages ?? clientGoMessages;
  let doc: unknown;
  try {
    doc = decodeConfigYaml(readKubeconfigFile(file, m)).value;
  } catch (e) {
    if (e instanceof ConfigYamlError) throw new KubeconfigError(m.invalidYaml(file, e.message));
    throw e;
  }
  doc ??= {};
  if (!isObj(doc)) throw new KubeconfigError(m.notAConfig(file, doc));
  const dir = path.dirname(file);
  const local = (p: string): string => (path.isAbsolute(p) ? p : path.join(dir, p));
  /** A `*-data` field, else the contents of the file its sibling names. */
  const dataOrFile = (o: Obj, field: KubeconfigField, fileField: string): string | undefined => {
    const data = str(o, field.field);
    if (data !== '') {
      const decoded = decodeGoBytes(data);
      if (decoded === undefined) throw new KubeconfigError(m.badData(file, field));
      return decoded;
    }
    const other = str(o, fileField);
    return other === '' ? undefined : readKubeconfigFile(local(other), m, { ...field, field: fileField });
  };

  const contextName = opts.context || str(doc, 'current-context');
  if (contextName === '') throw new KubeconfigError(m.noContext(file));
  const context = named(doc, 'contexts', 'context', contextName);
  if (!context) throw new KubeconfigError(m.contextNotFound(file, contextName));
  const clusterName = str(context, 'cluster');
  const cluster = named(doc, 'clusters', 'cluster', clusterName);
  if (!cluster) throw new KubeconfigError(m.clusterNotFound(file, contextName, clusterName));
  const server = str(cluster, 'server');
  if (server === '') throw new KubeconfigError(m.noServer(file, clusterName));

  const out: KubeconfigContext = { contextName, clusterName, cluster: { server, insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true }, userName: str(context, 'user') };
  const ca = dataOrFile(cluster, { owner: 'cluster', name: clusterName, field: 'certificate-authority-data' }, 'certificate-authority');
  if (ca !== undefined) out.cluster.ca = ca;
  if (str(cluster, 'tls-server-name')) out.cluster.tlsServerName = str(cluster, 'tls-server-name');
  if (str(cluster, 'proxy-url')) out.cluster.proxyUrl = str(cluster, 'proxy-url');

  const user = named(doc, 'users', 'user', out.userName);
  if (!user) return out;
  const u: NonNullable<KubeconfigContext['user']> = (out.user = { exec: present(user.exec), authProvider: present(user['auth-provider']) });
  const owner = { owner: 'user', name: out.userName } as const;
  const cert = dataOrFile(user, { ...owner, field: 'client-certificate-data' }, 'client-certificate');
  const key = dataOrFile(user, { ...owner, field: 'client-key-data' }, 'client-key');
  if ((cert === undefined) !== (key === undefined)) throw new KubeconfigError(m.halfPair(file, out.userName));
  if (cert !== undefined && key !== undefined) Object.assign(u, { cert, key });
  // clientcmd: a token wins over tokenFile.
  if (str(user, 'token')) u.token = str(user, 'token');
  else if (str(user, 'tokenFile')) u.tokenFile = local(str(user, 'tokenFile'));
  if (str(user, 'username') || str(user, 'password')) Object.assign(u, { username: str(user, 'username'), password: str(user, 'password') });
  return out;
}

/** client-go's wording (clientcmd's loader and DirectClientConfig.ConfirmUsable). */
const clientGoMessages: KubeconfigMessages = {
  unreadable: (file, reason) => `open ${file}: ${reason}`,
  invalidYaml: (file, message) => `error loading config file "${file}": ${message}`,
  notAConfig: (file, doc) =>
    `error loading config file "${file}": couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(doc) ? 'array' : typeof doc} into Go value of type struct`,
  noContext: () => 'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
  contextNotFound: (_file, context) => `invalid configuration: [context was not found for specified context: ${context}]`,
  clusterNotFound: (_file, context) => `invalid configuration: [context was not found for specified context: ${context}, cluster has no server defined]`,
  noServer: (_file, cluster) => `invalid configuration: no server found for cluster "${cluster}"`,
  badData: (file, f) => `error loading config file "${file}": illegal base64 data in ${f.field}`,
  halfPair: () => 'invalid configuration: client-cert-data and client-key-data must both be specified',
};

/** What the webhook client needs from the kubeconfig. */
export type KubeconfigClient = ClientConnection;

/**
 * A webhook's kubeconfig (apiserver's webhookutil.LoadKubeconfig): its current context, with
 * client-go's messages. Exec and auth-provider users are refused; proxy-url is not used. Throws
 * KubeconfigError.
 */
export function loadKubeconfig(file: string): KubeconfigClient {
  const kc = readKubeconfig(file);
  const { user = { exec: false, authProvider: false }, cluster } = kc;
  if (user.exec || user.authProvider) throw new KubeconfigError(`invalid configuration: user "${kc.userName}": exec and auth-provider credentials are not supported by this server`);
  const out: KubeconfigClient = { server: cluster.server };
  if (cluster.ca !== undefined) out.ca = cluster.ca;
  if (cluster.insecureSkipTLSVerify) out.insecureSkipTLSVerify = true;
  if (cluster.tlsServerName) out.tlsServerName = cluster.tlsServerName;
  for (const k of ['cert', 'key', 'token', 'tokenFile', 'username', 'password'] as const) if (user[k] !== undefined) out[k] = user[k];
  return out;
}
