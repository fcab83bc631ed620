import { SecureServingOptions } from '../../../../src/config/options';
import { applied, parsed, valueError } from './support';

describe('SecureServingOptions', () => {
  it('applies its defaults: cert dir under the data dir, no TLS files', () => {
    expect(applied(new SecureServingOptions())).toStrictEqual({
      bindAddress: '0.0.0.0',
      securePort: 6443,
      certDir: '/srv/state/pki',
      tlsCertFile: undefined,
      tlsPrivateKeyFile: undefined,
      http2MaxStreamsPerConnection: 1000,
      disableHttp2Serving: false,
    });
  });

  it('applies what was set, paths made absolute', () => {
    const o = parsed(
      new SecureServingOptions(),
      '--bind-address=::1', '--secure-port=0', '--cert-dir=pki', '--tls-cert-file=/etc/a.crt', '--tls-private-key-file=a.key',
      '--http2-max-streams-per-connection=0', '--disable-http2-serving',
    );
    expect(o.validate()).toEqual([]);
    expect(applied(o)).toStrictEqual({
      bindAddress: '::1',
      securePort: 0,
      certDir: '/srv/pki',
      tlsCertFile: '/etc/a.crt',
      tlsPrivateKeyFile: '/srv/a.key',
      http2MaxStreamsPerConnection: 0,
      disableHttp2Serving: true,
    });
  });

  it.each([
    [['--secure-port=65536'], ['--secure-port 65536 must be between 0 and 65535, inclusive. 0 picks a free port']],
    [['--secure-port=-1', '--tls-private-key-file=k'], [
      '--secure-port -1 must be between 0 and 65535, inclusive. 0 picks a free port',
      '--tls-cert-file and --tls-private-key-file must be specified together',
    ]],
    [['--tls-cert-file=c'], ['--tls-cert-file and --tls-private-key-file must be specified together']],
    [['--secure-port=65535', '--tls-cert-file=c', '--tls-private-key-file=k'], []],
  ])('validate %j', (argv, messages) => {
    expect(parsed(new SecureServingOptions(), ...argv).validate()).toEqual(messages);
  });

  it('rejects values as pflag does', () => {
    expect(valueError(new SecureServingOptions(), '--bind-address=localhost')).toBe(
      'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"',
    );
    expect(valueError(new SecureServingOptions(), '--bind-address=fe80::1%eth0')).toBe(
      'invalid argument "fe80::1%eth0" for "--bind-address" flag: failed to parse IP: "fe80::1%eth0"',
    );
    expect(valueError(new SecureServingOptions(), '--disable-http2-serving=maybe')).toBe(
      'invalid argument "maybe" for "--disable-http2-serving" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
  });
});
