/**
 * kube's EtcdOptions (apiserver `pkg/server/options/etcd.go`): where objects are stored and how
 * (etcd endpoints and TLS, key prefix, compaction, the watch cache). Printed under "Etcd flags:".
 * Unlike kube, no `--etcd-servers` means an embedded etcd (standalone.ts), not an error.
 */
import { goQuote } from '../../api';
import type { FlagSpec } from '../pflag';
import { FlagValueError, parseDurationValue, parseGoBool } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { ApplyContext, OptionsGroup } from './group';

type EtcdConfig = Pick<
  ServerConfig,
  | 'etcdServers'
  | 'etcdPrefix'
  | 'etcdCaFile'
  | 'etcdCertFile'
  | 'etcdKeyFile'
  | 'etcdCompactionIntervalMs'
  | 'etcdHealthcheckTimeoutMs'
  | 'etcdReadycheckTimeoutMs'
  | 'watchCache'
>;

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

export class EtcdOptions implements OptionsGroup {
  readonly section = 'etcd';
  etcdServers: string[] = [];
  /** pflag's string slice: the first use replaces the default, later uses append. */
  private etcdServersChanged = false;
  etcdPrefix = '/registry';
  etcdCaFile = '';
  etcdCertFile = '';
  etcdKeyFile = '';
  /** kube's CompactionInterval default, 5m. */
  etcdCompactionIntervalMs = 5 * 60_000;
  /** kube's HealthcheckTimeout and ReadycheckTimeout: 0 until set, which the checks read as 2 s. */
  etcdHealthcheckTimeoutMs = 0;
  etcdReadycheckTimeoutMs = 0;
  watchCache = true;

  flags(): FlagSpec[] {
    return [
      {
        name: 'etcd-cafile', typeName: 'string', defaultText: '',
        help: 'SSL Certificate Authority file used to secure etcd communication.',
        set: (v) => { this.etcdCaFile = v; },
      },
      {
        name: 'etcd-certfile', typeName: 'string', defaultText: '',
        help: 'SSL certification file used to secure etcd communication.',
        set: (v) => { this.etcdCertFile = v; },
      },
      {
        name: 'etcd-compaction-interval', typeName: 'duration', defaultText: '5m0s',
        help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.',
        set: (v) => { this.etcdCompactionIntervalMs = parseDurationValue(v); },
      },
      {
        name: 'etcd-healthcheck-timeout', typeName: 'duration', defaultText: '2s',
        help: 'The timeout to use when checking etcd health.',
        set: (v) => { this.etcdHealthcheckTimeoutMs = parseDurationValue(v); },
      },
      {
        name: 'etcd-keyfile', typeName: 'string', defaultText: '',
        help: 'SSL key file used to secure etcd communication.',
        set: (v) => { this.etcdKeyFile = v; },
      },
      {
        name: 'etcd-prefix', typeName: 'string', defaultText: '/registry',
        help: 'The prefix to prepend to all resource paths in etcd.',
        set: (v) => { this.etcdPrefix = v; },
      },
      {
        name: 'etcd-readycheck-timeout', typeName: 'duration', defaultText: '2s',
        help: 'The timeout to use when checking etcd readiness',
        set: (v) => { this.etcdReadycheckTimeoutMs = parseDurationValue(v); },
      },
      {
        name: 'etcd-servers', typeName: 'strings', defaultText: '',
        help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. If empty, an embedded etcd is started under --data-dir.',
        set: (v) => {
          const items = v === '' ? [] : v.split(',').map(parseEtcdServerUrl);
          this.etcdServers = this.etcdServersChanged ? [...this.etcdServers, ...items] : items;
          this.etcdServersChanged = true;
        },
      },
      {
        name: 'watch-cache', typeName: '', defaultText: 'true', isBool: true,
        help: 'Enable watch caching in the apiserver.',
        set: (v) => { this.watchCache = parseGoBool(v); },
      },
    ];
  }

  validate(): string[] {
    const errs: string[] = [];
    if (this.etcdCompactionIntervalMs < 0) errs.push('--etcd-compaction-interval can not be negative value');
    if ((this.etcdCertFile === '') !== (this.etcdKeyFile === '')) {
      errs.push('--etcd-certfile and --etcd-keyfile must be specified together');
    }
    return errs;
  }

  applyTo(config: EtcdConfig, ctx: ApplyContext): void {
    const prefix = this.etcdPrefix.replace(/\/+$/, '');
    config.etcdServers = this.etcdServers;
    config.etcdPrefix = prefix === '' && this.etcdPrefix !== '' ? '/' : prefix;
    config.etcdCaFile = ctx.optionalPath(this.etcdCaFile);
    config.etcdCertFile = ctx.optionalPath(this.etcdCertFile);
    config.etcdKeyFile = ctx.optionalPath(this.etcdKeyFile);
    config.etcdCompactionIntervalMs = this.etcdCompactionIntervalMs;
    config.etcdHealthcheckTimeoutMs = this.etcdHealthcheckTimeoutMs;
    config.etcdReadycheckTimeoutMs = this.etcdReadycheckTimeoutMs;
    config.watchCache = this.watchCache;
  }
}
