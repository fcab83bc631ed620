import {
  APIEnablementOptions,
  BuiltInAuthenticationOptions,
  DefaultTolerationSecondsOptions,
  LogsOptions,
  MiscOptions,
  StandaloneOptions,
} from '../../../../src/config/options';
import { applied, parsed, valueError } from './support';

describe('BuiltInAuthenticationOptions', () => {
  it('applies --token-auth-file as an absolute path, or none', () => {
    expect(applied(new BuiltInAuthenticationOptions())).toStrictEqual({ tokenAuthFile: undefined, clientCaFile: undefined, anonymousAuth: undefined, authenticationConfig: undefined, serviceAccountIssuers: [], serviceAccountKeyFiles: [], serviceAccountSigningKeyFile: undefined, apiAudiences: [], serviceAccountMaxTokenExpirationSeconds: 0, serviceAccountJwksUri: undefined });
    expect(applied(parsed(new BuiltInAuthenticationOptions(), '--token-auth-file=tokens.csv'))).toStrictEqual({
      tokenAuthFile: '/srv/tokens.csv',
      clientCaFile: undefined,
      anonymousAuth: undefined,
      authenticationConfig: undefined,
      serviceAccountIssuers: [],
      serviceAccountKeyFiles: [],
      serviceAccountSigningKeyFile: undefined,
      apiAudiences: [],
      serviceAccountMaxTokenExpirationSeconds: 0,
      serviceAccountJwksUri: undefined,
    });
    expect(applied(parsed(new BuiltInAuthenticationOptions(), '--authentication-config=authn.yaml')).authenticationConfig).toBe('/srv/authn.yaml');
  });

  it('service-account flags: repeatable issuers and key files, audiences, kube\'s validation messages', () => {
    const o = parsed(
      new BuiltInAuthenticationOptions(),
      '--service-account-issuer=https://a.example',
      '--service-account-issuer=b',
      '--service-account-key-file=k1.pem',
      '--service-account-key-file=k2.pem',
      '--service-account-signing-key-file=sign.key',
      '--api-audiences=x,y',
      '--service-account-max-token-expiration=2h',
    );
    expect(o.validate()).toEqual([]);
    expect(applied(o)).toMatchObject({
      serviceAccountIssuers: ['https://a.example', 'b'],
      serviceAccountKeyFiles: ['/srv/k1.pem', '/srv/k2.pem'],
      serviceAccountSigningKeyFile: '/srv/sign.key',
      apiAudiences: ['x', 'y'],
      serviceAccountMaxTokenExpirationSeconds: 7200,
    });
    const bad = parsed(
      new BuiltInAuthenticationOptions(),
      '--service-account-issuer=',
      '--service-account-issuer=a',
      '--service-account-issuer=a',
      '--service-account-issuer=http://[::1',
      '--service-account-max-token-expiration=30m',
      '--service-account-jwks-uri=http://keys.example/jwks',
    );
    expect(bad.validate()).toEqual([
      'service-account-issuer should not be an empty string',
      'service-account-issuer "a" is already specified',
      'service-account-issuer "http://[::1" contained a \':\' but was not a valid URL',
      'service-account-jwks-uri requires https scheme, parsed as: http://keys.example/jwks',
      'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds',
    ]);
    const jwks = parsed(new BuiltInAuthenticationOptions(), '--service-account-jwks-uri=https://keys.example/openid/v1/jwks');
    expect(jwks.validate()).toEqual([]);
    expect(applied(jwks).serviceAccountJwksUri).toBe('https://keys.example/openid/v1/jwks');
  });

  it('applies --client-ca-file as an absolute path, or none', () => {
    expect(applied(parsed(new BuiltInAuthenticationOptions(), '--client-ca-file=pki/ca.crt')).clientCaFile).toBe('/srv/pki/ca.crt');
    expect(applied(parsed(new BuiltInAuthenticationOptions(), '--client-ca-file=')).clientCaFile).toBeUndefined();
  });

  it('keeps --anonymous-auth unset unless given; a bare flag is true (pflag bool)', () => {
    const anon = (...argv: string[]) => applied(parsed(new BuiltInAuthenticationOptions(), ...argv)).anonymousAuth;
    expect(anon()).toBeUndefined();
    expect(anon('--anonymous-auth')).toBe(true);
    expect(anon('--anonymous-auth=true')).toBe(true);
    expect(anon('--anonymous-auth=false')).toBe(false);
    expect(anon('--anonymous-auth=0')).toBe(false);
    expect(valueError(new BuiltInAuthenticationOptions(), '--anonymous-auth=maybe')).toBe(
      'invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
  });
});

describe('APIEnablementOptions', () => {
  it('applies --runtime-config as the map of pairs given (bare key → ""), later pairs winning', () => {
    expect(applied(new APIEnablementOptions())).toStrictEqual({ runtimeConfig: new Map() });
    const o = parsed(new APIEnablementOptions(), '--runtime-config=api/all=false,batch/v1', '--runtime-config', ' api/all = true ');
    expect(o.validate()).toEqual([]);
    expect(applied(o)).toStrictEqual({
      runtimeConfig: new Map([
        ['api/all', 'true'],
        ['batch/v1', ''],
      ]),
    });
  });
});

describe('LogsOptions', () => {
  it('applies -v (klog Level: base 10, 32 bits)', () => {
    expect(applied(new LogsOptions())).toStrictEqual({ verbosity: 0 });
    expect(applied(parsed(new LogsOptions(), '-v3'))).toStrictEqual({ verbosity: 3 });
    expect(valueError(new LogsOptions(), '--v=4294967296')).toBe(
      'invalid argument "4294967296" for "-v, --v" flag: strconv.ParseInt: parsing "4294967296": value out of range',
    );
  });
});

describe('MiscOptions', () => {
  it('applies --event-ttl in whole seconds', () => {
    expect(applied(new MiscOptions())).toStrictEqual({ eventTtlSeconds: 3600 });
    expect(applied(parsed(new MiscOptions(), '--event-ttl=2.5s'))).toStrictEqual({ eventTtlSeconds: 2 });
  });

  it('validates --event-ttl', () => {
    expect(parsed(new MiscOptions(), '--event-ttl=0s').validate()).toEqual(['--event-ttl must be greater than 0']);
    expect(parsed(new MiscOptions(), '--event-ttl=1ms').validate()).toEqual([]);
  });
});

describe('StandaloneOptions', () => {
  it('applies the data dir from the context and the kubeconfig under it', () => {
    const cert = { writeCertKubeconfig: '/srv/state/admin-cert.kubeconfig', writeKubeconfigExecServiceAccount: undefined };
    expect(applied(new StandaloneOptions())).toStrictEqual({ dataDir: '/srv/state', writeKubeconfig: '/srv/state/admin.kubeconfig', ...cert });
    expect(applied(parsed(new StandaloneOptions(), '--write-kubeconfig=kc'))).toStrictEqual({ dataDir: '/srv/state', writeKubeconfig: '/srv/kc', ...cert });
    expect(applied(parsed(new StandaloneOptions(), '--write-kubeconfig='))).toStrictEqual({ dataDir: '/srv/state', writeKubeconfig: undefined, ...cert });
    expect(applied(parsed(new StandaloneOptions(), '--write-cert-kubeconfig=c.kc')).writeCertKubeconfig).toBe('/srv/c.kc');
    expect(applied(parsed(new StandaloneOptions(), '--write-cert-kubeconfig=')).writeCertKubeconfig).toBeUndefined();
  });

  it('keeps --data-dir as given (parseFlags resolves it) and refuses an empty one', () => {
    expect(parsed(new StandaloneOptions(), '--data-dir=state').dataDir).toBe('state');
    expect(valueError(new StandaloneOptions(), '--data-dir=')).toBe('invalid argument "" for "--data-dir" flag: must not be empty');
  });
});

describe('DefaultTolerationSecondsOptions', () => {
  it('has kube’s 300 s defaults and reads Go int64 values (base prefixes too)', () => {
    expect(applied(new DefaultTolerationSecondsOptions())).toStrictEqual({ defaultNotReadyTolerationSeconds: 300, defaultUnreachableTolerationSeconds: 300 });
    expect(applied(parsed(new DefaultTolerationSecondsOptions(), '--default-not-ready-toleration-seconds=60', '--default-unreachable-toleration-seconds', '0x10'))).toStrictEqual({
      defaultNotReadyTolerationSeconds: 60,
      defaultUnreachableTolerationSeconds: 16,
    });
    // kube does not validate them.
    expect(parsed(new DefaultTolerationSecondsOptions(), '--default-not-ready-toleration-seconds=-1').validate()).toEqual([]);
  });

  it('words a bad value as Go’s flag package does', () => {
    expect(valueError(new DefaultTolerationSecondsOptions(), '--default-not-ready-toleration-seconds=5m')).toBe(
      'invalid argument "5m" for "--default-not-ready-toleration-seconds" flag: parse error',
    );
    expect(valueError(new DefaultTolerationSecondsOptions(), '--default-unreachable-toleration-seconds=9223372036854775808')).toBe(
      'invalid argument "9223372036854775808" for "--default-unreachable-toleration-seconds" flag: value out of range',
    );
  });

  it('prints under Generic flags, as kube-apiserver adds them to its generic set', () => {
    const g = new DefaultTolerationSecondsOptions();
    expect(g.section).toBe('generic');
    expect(g.flags().map((f) => [f.name, f.typeName, f.defaultText])).toEqual([
      ['default-not-ready-toleration-seconds', 'int', '300'],
      ['default-unreachable-toleration-seconds', 'int', '300'],
    ]);
  });
});
