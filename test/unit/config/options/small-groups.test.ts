import {
  APIEnablementOptions,
  BuiltInAuthenticationOptions,
  LogsOptions,
  MiscOptions,
  StandaloneOptions,
} from '../../../../src/config/options';
import { applied, parsed, valueError } from './support';

describe('BuiltInAuthenticationOptions', () => {
  it('applies --token-auth-file as an absolute path, or none', () => {
    expect(applied(new BuiltInAuthenticationOptions())).toStrictEqual({ tokenAuthFile: undefined });
    expect(applied(parsed(new BuiltInAuthenticationOptions(), '--token-auth-file=tokens.csv'))).toStrictEqual({ tokenAuthFile: '/srv/tokens.csv' });
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
    expect(applied(new StandaloneOptions())).toStrictEqual({ dataDir: '/srv/state', writeKubeconfig: '/srv/state/admin.kubeconfig' });
    expect(applied(parsed(new StandaloneOptions(), '--write-kubeconfig=kc'))).toStrictEqual({ dataDir: '/srv/state', writeKubeconfig: '/srv/kc' });
    expect(applied(parsed(new StandaloneOptions(), '--write-kubeconfig='))).toStrictEqual({ dataDir: '/srv/state', writeKubeconfig: undefined });
  });

  it('keeps --data-dir as given (parseFlags resolves it) and refuses an empty one', () => {
    expect(parsed(new StandaloneOptions(), '--data-dir=state').dataDir).toBe('state');
    expect(valueError(new StandaloneOptions(), '--data-dir=')).toBe('invalid argument "" for "--data-dir" flag: must not be empty');
  });
});
