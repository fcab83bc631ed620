import { EncryptionOptions, EtcdOptions } from '../../../../src/config/options';
import { applied, parsed, valueError } from './support';

describe('EtcdOptions', () => {
  it('applies its defaults: no servers (embedded etcd), /registry, compaction every 5m, watch cache on', () => {
    expect(applied(new EtcdOptions())).toStrictEqual({
      etcdServers: [],
      etcdPrefix: '/registry',
      etcdCaFile: undefined,
      etcdCertFile: undefined,
      etcdKeyFile: undefined,
      etcdCompactionIntervalMs: 300_000,
      etcdHealthcheckTimeoutMs: 0,
      etcdReadycheckTimeoutMs: 0,
      watchCache: true,
    });
  });

  it('applies what was set: servers appended, prefix without trailing slashes, paths absolute', () => {
    const o = parsed(
      new EtcdOptions(),
      '--etcd-servers=https://a:2379', '--etcd-servers', 'https://b:2379,http://c:2379', '--etcd-prefix=/kube//',
      '--etcd-cafile=ca.crt', '--etcd-certfile=/pki/c.crt', '--etcd-keyfile=c.key', '--etcd-compaction-interval=0', '--watch-cache=false',
      '--etcd-healthcheck-timeout=500ms', '--etcd-readycheck-timeout=3s',
    );
    expect(o.validate()).toEqual([]);
    expect(applied(o)).toStrictEqual({
      etcdServers: ['https://a:2379', 'https://b:2379', 'http://c:2379'],
      etcdPrefix: '/kube',
      etcdCaFile: '/srv/ca.crt',
      etcdCertFile: '/pki/c.crt',
      etcdKeyFile: '/srv/c.key',
      etcdCompactionIntervalMs: 0,
      etcdHealthcheckTimeoutMs: 500,
      etcdReadycheckTimeoutMs: 3000,
      watchCache: false,
    });
  });

  it.each([
    ['/', '/'],
    ['///', '/'],
    ['', ''],
    ['registry', 'registry'],
  ])('--etcd-prefix=%j → %j', (given, prefix) => {
    expect(applied(parsed(new EtcdOptions(), `--etcd-prefix=${given}`)).etcdPrefix).toBe(prefix);
  });

  it('validates', () => {
    expect(parsed(new EtcdOptions(), '--etcd-compaction-interval=-1m', '--etcd-keyfile=k').validate()).toEqual([
      '--etcd-compaction-interval can not be negative value',
      '--etcd-certfile and --etcd-keyfile must be specified together',
    ]);
  });

  it('rejects a URL that is not http(s) with a host', () => {
    expect(valueError(new EtcdOptions(), '--etcd-servers=unix:///run/etcd.sock')).toBe(
      'invalid argument "unix:///run/etcd.sock" for "--etcd-servers" flag: unsupported scheme "unix" (want http or https)',
    );
  });
});

describe('EncryptionOptions', () => {
  it('has no flags yet and prints, when it has, under the etcd flags as kube does', () => {
    const o = new EncryptionOptions();
    expect(o.section).toBe('etcd');
    expect(o.flags()).toEqual([]);
    expect(o.validate()).toEqual([]);
    expect(applied(o)).toStrictEqual({});
  });
});
