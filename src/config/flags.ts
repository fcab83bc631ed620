/**
 * kube-apiserver style command-line flags → a resolved ServerConfig: the flag table, kube's value
 * formats (feature gates, runtime config, IPs, etcd URLs) and cross-flag validation. Parsing and
 * wording are pflag's (pflag.ts); durations are Go's (go-duration.ts).
 */
import * as path from 'node:path';
import { isIP } from 'node:net';
import { goQuote } from '../api';
import { parseGoDuration } from './go-duration';
import { FlagError, FlagSpec, FlagValueError, flagUsages, parseArgs, parseGoBool, parseGoInt } from './pflag';

/** The command name used in messages and usage. */
export const COMMAND_NAME = 'platform-apiserver';

/** Every server setting, defaults applied and paths absolute. */
export interface ServerConfig {
  /** `--help`/`-h` was given: print usage() and exit 0; other fields hold defaults and are not validated. */
  help: boolean;
  /** `--etcd-servers`; empty → start an embedded etcd under dataDir. */
  etcdServers: string[];
  /** `--etcd-prefix`, trailing slashes removed (default `/registry`). */
  etcdPrefix: string;
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** `--etcd-compaction-interval` in ms (default 5m); 0 disables compaction. */
  etcdCompactionIntervalMs: number;
  /** `--event-ttl` in whole seconds (default 1h): how long an event lives after its last write. */
  eventTtlSeconds: number;
  /** `--data-dir` (default `./.data`): embedded etcd data, certs, kubeconfig, generated tokens. */
  dataDir: string;
  /** `--bind-address` (default `0.0.0.0`). */
  bindAddress: string;
  /** `--secure-port` (default 6443); 0 picks a free port. */
  securePort: number;
  /** `--cert-dir` (default `<dataDir>/pki`). */
  certDir: string;
  /** `--tls-cert-file` / `--tls-private-key-file`: both or neither. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** `--write-kubeconfig` (default `<dataDir>/admin.kubeconfig`); undefined when given as empty (write none). */
  writeKubeconfig?: string;
  /** `--token-auth-file`: kube's static token CSV. */
  tokenAuthFile?: string;
  /** `--feature-gates`, parsed (gate names are validated elsewhere). */
  featureGates: Map<string, boolean>;
  /** `--runtime-config`, parsed (`key=value`; a bare key maps to ''). */
  runtimeConfig: Map<string, string>;
  /** `--watch-cache` (default true). */
  watchCache: boolean;
  /** `--request-timeout` in ms (default 1m0s). */
  requestTimeoutMs: number;
  /** `--max-requests-inflight` (default 400; 0 = no limit). */
  maxRequestsInflight: number;
  /** `--max-mutating-requests-inflight` (default 200; 0 = no limit). */
  maxMutatingRequestsInflight: number;
  /** `-v`/`--v` log verbosity (default 0). */
  verbosity: number;
  /** `--http2-max-streams-per-connection` (default 1000, kube-apiserver's; 0 or less = kube's fallback, 100). */
  http2MaxStreamsPerConnection: number;
  /** `--disable-http2-serving` (default false): ALPN offers http/1.1 only. */
  disableHttp2Serving: boolean;
}

/** Options of parseFlags. */
export interface ParseFlagsOptions {
  /** Directory relative paths are resolved against; default process.cwd(). */
  cwd?: string;
}

/** Flag values as parsed, before defaults that depend on other flags and before path resolution. */
interface ParsedFlags {
  help: boolean;
  etcdServers: string[];
  etcdServersChanged: boolean;
  etcdPrefix: string;
  etcdCaFile: string;
  etcdCertFile: string;
  etcdKeyFile: string;
  etcdCompactionIntervalMs: number;
  eventTtlMs: number;
  dataDir: string;
  bindAddress: string;
  securePort: number;
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  writeKubeconfig: string | undefined;
  tokenAuthFile: string;
  featureGates: Map<string, boolean>;
  runtimeConfig: Map<string, string>;
  watchCache: boolean;
  requestTimeoutMs: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  verbosity: number;
  http2MaxStreamsPerConnection: number;
  disableHttp2Serving: boolean;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

function defaults(): ParsedFlags {
  return {
    help: false,
    etcdServers: [],
    etcdServersChanged: false,
    etcdPrefix: '/registry',
    etcdCaFile: '',
    etcdCertFile: '',
    etcdKeyFile: '',
    etcdCompactionIntervalMs: DEFAULT_COMPACTION_INTERVAL_MS,
    eventTtlMs: 3_600_000,
    dataDir: './.data',
    bindAddress: '0.0.0.0',
    securePort: 6443,
    certDir: '',
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    writeKubeconfig: undefined,
    tokenAuthFile: '',
    featureGates: new Map(),
    runtimeConfig: new Map(),
    watchCache: true,
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    verbosity: 0,
    // kube-apiserver's default (apiserver pkg/server/options/recommended.go).
    http2MaxStreamsPerConnection: 1000,
    disableHttp2Serving: false,
  };
}

function parseDurationValue(s: string): number {
  try {
    return parseGoDuration(s);
  } catch (e) {
    throw new FlagValueError((e as Error).message);
  }
}

/** pflag's IP flag: net.ParseIP of the trimmed value. */
function parseIpValue(s: string): string {
  const ip = s.trim();
  if (ip.includes('%') || isIP(ip) === 0) throw new FlagValueError(`failed to parse IP: ${goQuote(s)}`);
  return ip;
}

/** An etcd server URL: http or https with a host. */
function parseEtcdServerUrl(s: string): string {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new FlagValueError(`parse ${goQuote(s)}: invalid URI for request`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new FlagValueError(`unsupported scheme ${goQuote(u.protocol.replace(/:$/, ''))} (want http or https)`);
  }
  if (u.hostname === '') throw new FlagValueError(`parse ${goQuote(s)}: missing host`);
  return s;
}

/** k8s.io/component-base featuregate Set: `A=true,B=false`; empty items skipped; keys and values trimmed. */
function parseFeatureGates(value: string, into: Map<string, boolean>): void {
  const parsed = new Map<string, boolean>();
  for (const item of value.split(',')) {
    if (item.length === 0) continue;
    const eq = item.indexOf('=');
    const k = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) throw new FlagValueError(`missing bool value for ${k}`);
    const v = item.slice(eq + 1).trim();
    let b: boolean;
    try {
      b = parseGoBool(v);
    } catch (e) {
      throw new FlagValueError(`invalid value of ${k}=${v}, err: ${(e as Error).message}`);
    }
    parsed.set(k, b);
  }
  for (const [k, v] of parsed) into.set(k, v);
}

/** k8s.io/component-base cliflag ConfigurationMap Set: `k=v,k2` (bare key → ''); keys and values trimmed. */
function parseConfigurationMap(value: string, into: Map<string, string>): void {
  for (const item of value.split(',')) {
    if (item.length === 0) continue;
    const eq = item.indexOf('=');
    if (eq < 0) into.set(item.trim(), '');
    else into.set(item.slice(0, eq).trim(), item.slice(eq + 1).trim());
  }
}

const FLAGS: readonly FlagSpec<ParsedFlags>[] = [
  {
    name: 'bind-address', typeName: 'ip', defaultText: '0.0.0.0',
    help: 'The IP address on which to listen for the --secure-port port.',
    set: (p, v) => { p.bindAddress = parseIpValue(v); },
  },
  {
    name: 'cert-dir', typeName: 'string', defaultText: '',
    help: 'The directory where the generated serving CA and certificate are kept (default <data-dir>/pki). Ignored if --tls-cert-file and --tls-private-key-file are provided.',
    set: (p, v) => { p.certDir = v; },
  },
  {
    name: 'data-dir', typeName: 'string', defaultText: './.data', quoteDefault: true,
    help: 'The directory holding the embedded etcd data, generated certificates, the admin kubeconfig and generated tokens.',
    set: (p, v) => {
      if (v === '') throw new FlagValueError('must not be empty');
      p.dataDir = v;
    },
  },
  {
    name: 'disable-http2-serving', typeName: '', defaultText: '', isBool: true,
    help: 'If true, HTTP2 serving will be disabled [default=false]',
    set: (p, v) => { p.disableHttp2Serving = parseGoBool(v); },
  },
  {
    name: 'etcd-cafile', typeName: 'string', defaultText: '',
    help: 'SSL Certificate Authority file used to secure etcd communication.',
    set: (p, v) => { p.etcdCaFile = v; },
  },
  {
    name: 'etcd-certfile', typeName: 'string', defaultText: '',
    help: 'SSL certification file used to secure etcd communication.',
    set: (p, v) => { p.etcdCertFile = v; },
  },
  {
    name: 'etcd-compaction-interval', typeName: 'duration', defaultText: '5m0s',
    help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.',
    set: (p, v) => { p.etcdCompactionIntervalMs = parseDurationValue(v); },
  },
  {
    name: 'etcd-keyfile', typeName: 'string', defaultText: '',
    help: 'SSL key file used to secure etcd communication.',
    set: (p, v) => { p.etcdKeyFile = v; },
  },
  {
    name: 'etcd-prefix', typeName: 'string', defaultText: '/registry', quoteDefault: true,
    help: 'The prefix to prepend to all resource paths in etcd.',
    set: (p, v) => { p.etcdPrefix = v; },
  },
  {
    name: 'etcd-servers', typeName: 'strings', defaultText: '',
    help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. If empty, an embedded etcd is started under --data-dir.',
    set: (p, v) => {
      // pflag string slice: the first use replaces the default, later uses append.
      const items = v === '' ? [] : v.split(',').map(parseEtcdServerUrl);
      p.etcdServers = p.etcdServersChanged ? [...p.etcdServers, ...items] : items;
      p.etcdServersChanged = true;
    },
  },
  {
    name: 'event-ttl', typeName: 'duration', defaultText: '1h0m0s',
    help: 'Amount of time to retain events.',
    set: (p, v) => { p.eventTtlMs = parseDurationValue(v); },
  },
  {
    name: 'feature-gates', typeName: 'mapStringBool', defaultText: '',
    help: 'A set of key=value pairs that describe feature gates for alpha/experimental features.',
    set: (p, v) => parseFeatureGates(v, p.featureGates),
  },
  {
    name: 'help', shorthand: 'h', typeName: '', defaultText: '', isBool: true,
    help: `help for ${COMMAND_NAME}`,
    set: (p, v) => { p.help = parseGoBool(v); },
  },
  {
    name: 'http2-max-streams-per-connection', typeName: 'int', defaultText: '1000',
    help: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default.",
    set: (p, v) => { p.http2MaxStreamsPerConnection = parseGoInt(v, 0, 64); },
  },
  {
    name: 'max-mutating-requests-inflight', typeName: 'int', defaultText: '200',
    help: 'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
    set: (p, v) => { p.maxMutatingRequestsInflight = parseGoInt(v, 0, 64); },
  },
  {
    name: 'max-requests-inflight', typeName: 'int', defaultText: '400',
    help: 'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
    set: (p, v) => { p.maxRequestsInflight = parseGoInt(v, 0, 64); },
  },
  {
    name: 'request-timeout', typeName: 'duration', defaultText: '1m0s',
    help: 'The duration a handler must keep a request open before timing it out (not for long-running requests such as watch).',
    set: (p, v) => { p.requestTimeoutMs = parseDurationValue(v); },
  },
  {
    name: 'runtime-config', typeName: 'mapStringString', defaultText: '',
    help: 'A set of key=value pairs that enable or disable built-in APIs (e.g. api/all=false, <group>/<version>=true).',
    set: (p, v) => parseConfigurationMap(v, p.runtimeConfig),
  },
  {
    name: 'secure-port', typeName: 'int', defaultText: '6443',
    help: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.',
    set: (p, v) => { p.securePort = parseGoInt(v, 0, 64); },
  },
  {
    name: 'tls-cert-file', typeName: 'string', defaultText: '',
    help: 'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert). If not provided, a self-signed CA and serving certificate are generated in --cert-dir.',
    set: (p, v) => { p.tlsCertFile = v; },
  },
  {
    name: 'tls-private-key-file', typeName: 'string', defaultText: '',
    help: 'File containing the default x509 private key matching --tls-cert-file.',
    set: (p, v) => { p.tlsPrivateKeyFile = v; },
  },
  {
    name: 'token-auth-file', typeName: 'string', defaultText: '',
    help: 'If set, the file that will be used to secure the secure port of the API server via token authentication (CSV: token,user,uid,"group1,group2").',
    set: (p, v) => { p.tokenAuthFile = v; },
  },
  {
    name: 'v', shorthand: 'v', typeName: 'Level', defaultText: '',
    help: 'number for the log level verbosity',
    // klog's Level.Set: strconv.ParseInt(value, 10, 32).
    set: (p, v) => { p.verbosity = parseGoInt(v, 10, 32); },
  },
  {
    name: 'watch-cache', typeName: '', defaultText: 'true', isBool: true,
    help: 'Enable watch caching in the apiserver.',
    set: (p, v) => { p.watchCache = parseGoBool(v); },
  },
  {
    name: 'write-kubeconfig', typeName: 'string', defaultText: '',
    help: 'Where to write an admin kubeconfig for this server (default <data-dir>/admin.kubeconfig); empty writes none.',
    set: (p, v) => { p.writeKubeconfig = v; },
  },
];

/** Cross-flag checks and kube's option validation messages. */
function validate(p: ParsedFlags): void {
  if (p.securePort < 0 || p.securePort > 65535) {
    throw new FlagError(`--secure-port ${p.securePort} must be between 0 and 65535, inclusive. 0 picks a free port`);
  }
  if (p.maxRequestsInflight < 0) throw new FlagError('--max-requests-inflight can not be negative value');
  if (p.maxMutatingRequestsInflight < 0) {
    throw new FlagError('--max-mutating-requests-inflight can not be negative value');
  }
  if (p.requestTimeoutMs < 0) throw new FlagError('--request-timeout can not be negative value');
  if (p.etcdCompactionIntervalMs < 0) throw new FlagError('--etcd-compaction-interval can not be negative value');
  if (p.eventTtlMs <= 0) throw new FlagError('--event-ttl must be greater than 0');
  if ((p.tlsCertFile === '') !== (p.tlsPrivateKeyFile === '')) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be specified together');
  }
  if ((p.etcdCertFile === '') !== (p.etcdKeyFile === '')) {
    throw new FlagError('--etcd-certfile and --etcd-keyfile must be specified together');
  }
}

/**
 * Parses kube-apiserver style flags into a fully resolved ServerConfig (absolute paths, dependent
 * defaults filled). Throws FlagError (one line, pflag's wording) for an unknown flag, a missing value,
 * a bad int/bool/duration/IP/URL, positional arguments, or an invalid combination. With `--help`
 * it returns `help: true` without cross-flag validation (as cobra checks help first).
 */
export function parseFlags(argv: readonly string[], opts: ParseFlagsOptions = {}): ServerConfig {
  const p = defaults();
  const positional = parseArgs(FLAGS, p, argv);
  if (!p.help) {
    if (positional.length > 0) {
      // cobra's NoArgs-style check in kube-apiserver's command.
      const got = `[${positional.map((a) => goQuote(a)).join(' ')}]`;
      throw new FlagError(`${goQuote(COMMAND_NAME)} does not take any arguments, got ${got}`);
    }
    validate(p);
  }
  const cwd = opts.cwd ?? process.cwd();
  const abs = (f: string): string => path.resolve(cwd, f);
  const optionalPath = (f: string): string | undefined => (f === '' ? undefined : abs(f));
  const dataDir = abs(p.dataDir);
  const prefix = p.etcdPrefix.replace(/\/+$/, '');
  return {
    help: p.help,
    etcdServers: p.etcdServers,
    etcdPrefix: prefix === '' && p.etcdPrefix !== '' ? '/' : prefix,
    etcdCaFile: optionalPath(p.etcdCaFile),
    etcdCertFile: optionalPath(p.etcdCertFile),
    etcdKeyFile: optionalPath(p.etcdKeyFile),
    etcdCompactionIntervalMs: p.etcdCompactionIntervalMs,
    // kube passes uint64(EventTTL.Seconds()): whole seconds.
    eventTtlSeconds: Math.floor(p.eventTtlMs / 1000),
    dataDir,
    bindAddress: p.bindAddress,
    securePort: p.securePort,
    certDir: p.certDir === '' ? path.join(dataDir, 'pki') : abs(p.certDir),
    tlsCertFile: optionalPath(p.tlsCertFile),
    tlsPrivateKeyFile: optionalPath(p.tlsPrivateKeyFile),
    writeKubeconfig:
      p.writeKubeconfig === undefined ? path.join(dataDir, 'admin.kubeconfig') : optionalPath(p.writeKubeconfig),
    tokenAuthFile: optionalPath(p.tokenAuthFile),
    featureGates: p.featureGates,
    runtimeConfig: p.runtimeConfig,
    watchCache: p.watchCache,
    requestTimeoutMs: p.requestTimeoutMs,
    maxRequestsInflight: p.maxRequestsInflight,
    maxMutatingRequestsInflight: p.maxMutatingRequestsInflight,
    verbosity: p.verbosity,
    http2MaxStreamsPerConnection: p.http2MaxStreamsPerConnection,
    disableHttp2Serving: p.disableHttp2Serving,
  };
}

/** The usage text: a header and every flag (sorted, as pflag lists them) with its type, help and default. */
export function usage(): string {
  return `Usage:\n  ${COMMAND_NAME} [flags]\n\nFlags:\n${flagUsages(FLAGS)}`;
}
