import * as path from 'node:path';
import { aggregateMessages as aggregateMessage } from '../../../src/api';
import { FlagError, formatGoDuration, help, parseFlags, parseGoDuration, parseGoDurationNanos, usage } from '../../../src/config';

const cwd = '/srv/apiserver';
const parse = (...argv: string[]) => parseFlags(argv, { cwd });
const failure = (...argv: string[]): string => {
  try {
    parseFlags(argv, { cwd });
  } catch (e) {
    expect(e).toBeInstanceOf(FlagError);
    return (e as Error).message;
  }
  throw new Error(`expected ${argv.join(' ')} to fail`);
};

describe('parseFlags defaults', () => {
  it('resolves every field', () => {
    const c = parse();
    expect(c).toEqual({
      help: false,
      etcdServers: [],
      etcdPrefix: '/registry',
      etcdCaFile: undefined,
      etcdCertFile: undefined,
      etcdKeyFile: undefined,
      etcdCompactionIntervalMs: 300_000,
      etcdHealthcheckTimeoutMs: 0,
      etcdReadycheckTimeoutMs: 0,
      eventTtlSeconds: 3600,
      dataDir: '/srv/apiserver/.data',
      bindAddress: '0.0.0.0',
      securePort: 6443,
      certDir: '/srv/apiserver/.data/pki',
      tlsCertFile: undefined,
      tlsPrivateKeyFile: undefined,
      writeKubeconfig: '/srv/apiserver/.data/admin.kubeconfig',
      writeCertKubeconfig: '/srv/apiserver/.data/admin-cert.kubeconfig',
      tokenAuthFile: undefined,
      clientCaFile: undefined,
      anonymousAuth: undefined,
      authenticationConfig: undefined,
      serviceAccountIssuers: [],
      serviceAccountKeyFiles: [],
      serviceAccountSigningKeyFile: undefined,
      serviceAccountJwksUri: undefined,
      apiAudiences: [],
      serviceAccountMaxTokenExpirationSeconds: 0,
      // Ours: RBAC when no authorization flag is given (kube: AlwaysAllow).
      authorizationModes: ['RBAC'],
      authorizationConfig: undefined,
      authorizationWebhookConfigFile: undefined,
      authorizationWebhookVersion: 'v1beta1',
      authorizationWebhookCacheAuthorizedTtlMs: 300_000,
      authorizationWebhookCacheUnauthorizedTtlMs: 30_000,
      enableAdmissionPlugins: [],
      disableAdmissionPlugins: [],
      admissionControlConfigFile: undefined,
      defaultNotReadyTolerationSeconds: 300,
      defaultUnreachableTolerationSeconds: 300,
      featureGates: new Map(),
      runtimeConfig: new Map(),
      watchCache: true,
      requestTimeoutMs: 60_000,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      verbosity: 0,
      http2MaxStreamsPerConnection: 1000,
      disableHttp2Serving: false,
    });
  });

  it.each([
    // kube-apiserver: default 1000; any int is accepted (0 or less means Go's 100 at serving time).
    [[], 1000, false],
    [['--http2-max-streams-per-connection=250'], 250, false],
    [['--http2-max-streams-per-connection', '0'], 0, false],
    [['--http2-max-streams-per-connection=-1'], -1, false],
    [['--disable-http2-serving'], 1000, true],
    [['--disable-http2-serving=false'], 1000, false],
  ])('HTTP/2 serving flags %j', (args, streams, disabled) => {
    const c = parse(...(args as string[]));
    expect([c.http2MaxStreamsPerConnection, c.disableHttp2Serving]).toEqual([streams, disabled]);
  });

  it('rejects a non-integer --http2-max-streams-per-connection', () => {
    expect(() => parse('--http2-max-streams-per-connection=many')).toThrow(/invalid argument "many" for "--http2-max-streams-per-connection" flag/);
  });

  it('derives cert dir and kubeconfig from --data-dir, and resolves paths against cwd', () => {
    const c = parse('--data-dir', 'state', '--token-auth-file=tokens.csv', '--tls-cert-file=/etc/a.crt', '--tls-private-key-file', 'a.key');
    expect(c.dataDir).toBe('/srv/apiserver/state');
    expect(c.certDir).toBe('/srv/apiserver/state/pki');
    expect(c.writeKubeconfig).toBe('/srv/apiserver/state/admin.kubeconfig');
    expect(c.tokenAuthFile).toBe('/srv/apiserver/tokens.csv');
    expect(c.tlsCertFile).toBe('/etc/a.crt');
    expect(c.tlsPrivateKeyFile).toBe('/srv/apiserver/a.key');
    expect(path.isAbsolute(parseFlags([]).dataDir)).toBe(true);
  });

  it('keeps explicit --cert-dir and --write-kubeconfig; empty --write-kubeconfig writes none', () => {
    expect(parse('--cert-dir=/pki', '--write-kubeconfig=kc').certDir).toBe('/pki');
    expect(parse('--write-kubeconfig=kc').writeKubeconfig).toBe('/srv/apiserver/kc');
    expect(parse('--write-kubeconfig=').writeKubeconfig).toBeUndefined();
  });
});

describe('parseFlags values', () => {
  it.each([
    [['--secure-port=0'], { securePort: 0 }],
    [['--secure-port', '8443'], { securePort: 8443 }],
    [['--secure-port=0x1F90'], { securePort: 8080 }], // strconv.ParseInt base 0
    [['--secure_port=7000'], { securePort: 7000 }], // kube's word-separator normalization
    [['--max-requests-inflight=1_000'], { maxRequestsInflight: 1000 }],
    [['--max-requests-inflight=0o17'], { maxRequestsInflight: 15 }],
    [['--max-requests-inflight=017'], { maxRequestsInflight: 15 }],
    [['--max-requests-inflight=0b101'], { maxRequestsInflight: 5 }],
    [['--max-requests-inflight=+7'], { maxRequestsInflight: 7 }],
    [['--bind-address', '127.0.0.1'], { bindAddress: '127.0.0.1' }],
    [['--bind-address=::'], { bindAddress: '::' }],
    [['--bind-address= 10.0.0.1 '], { bindAddress: '10.0.0.1' }],
    [['--etcd-prefix=/kube/'], { etcdPrefix: '/kube' }],
    [['--etcd-compaction-interval=0'], { etcdCompactionIntervalMs: 0 }],
    [['--etcd-compaction-interval', '1h30m'], { etcdCompactionIntervalMs: 5_400_000 }],
    [['--etcd-healthcheck-timeout=0', '--etcd-readycheck-timeout', '5s'], { etcdHealthcheckTimeoutMs: 0, etcdReadycheckTimeoutMs: 5000 }],
    [['--request-timeout=30s'], { requestTimeoutMs: 30_000 }],
    [[], { eventTtlSeconds: 3600 }],
    [['--event-ttl=90m'], { eventTtlSeconds: 5400 }],
    [['--event-ttl=1500ms'], { eventTtlSeconds: 1 }],
    [['--max-requests-inflight=0', '--max-mutating-requests-inflight=5'], { maxRequestsInflight: 0, maxMutatingRequestsInflight: 5 }],
    [['--watch-cache'], { watchCache: true }],
    [['--watch-cache=false'], { watchCache: false }],
    [['--watch-cache=F'], { watchCache: false }],
    [['--watch-cache=0'], { watchCache: false }],
    [['-v', '4'], { verbosity: 4 }],
    [['-v=5'], { verbosity: 5 }],
    [['-v6'], { verbosity: 6 }],
    [['--v=2'], { verbosity: 2 }],
    [['--help'], { help: true }],
    [['-h'], { help: true }],
    [['-hv3'], { help: true, verbosity: 3 }],
  ])('%j', (argv, expected) => {
    expect(parse(...argv)).toMatchObject(expected);
  });

  it('collects --etcd-servers (comma lists, repeated flags append)', () => {
    expect(parse('--etcd-servers=http://a:2379,https://b:2379').etcdServers).toEqual(['http://a:2379', 'https://b:2379']);
    expect(parse('--etcd-servers=http://a:2379', '--etcd-servers', 'http://c:2379').etcdServers).toEqual([
      'http://a:2379',
      'http://c:2379',
    ]);
    expect(parse('--etcd-servers=').etcdServers).toEqual([]);
  });

  it('parses --feature-gates into a map, merging repeated flags and trimming', () => {
    const c = parse('--feature-gates=A=true, B = false,,', '--feature-gates', 'C=1,A=false');
    expect([...c.featureGates]).toEqual([
      ['A', false],
      ['B', false],
      ['C', true],
    ]);
  });

  it('parses --runtime-config into a map (bare key → "")', () => {
    const c = parse('--runtime-config=api/all=false, apps/v1=true ,batch/v1');
    expect([...c.runtimeConfig]).toEqual([
      ['api/all', 'false'],
      ['apps/v1', 'true'],
      ['batch/v1', ''],
    ]);
  });

  it('takes the next argument as the value even when it looks like a flag (pflag)', () => {
    expect(failure('--secure-port', '--bind-address=1.2.3.4')).toBe(
      'invalid argument "--bind-address=1.2.3.4" for "--secure-port" flag: strconv.ParseInt: parsing "--bind-address=1.2.3.4": invalid syntax',
    );
  });

  it('stops parsing flags at --', () => {
    expect(failure('--', '--secure-port=1')).toBe(
      '"platform-apiserver" does not take any arguments, got ["--secure-port=1"]',
    );
  });
});

describe('parseFlags errors (pflag wording)', () => {
  it.each([
    [['--foo'], 'unknown flag: --foo'],
    [['--foo=bar'], 'unknown flag: --foo'],
    [['-x'], "unknown shorthand flag: 'x' in -x"],
    [['-hx'], "unknown shorthand flag: 'x' in -x"],
    [['---secure-port=1'], 'bad flag syntax: ---secure-port=1'],
    [['--=1'], 'bad flag syntax: --=1'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
    [['-v'], "flag needs an argument: 'v' in -v"],
    [['--secure-port=abc'], 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--secure-port='], 'invalid argument "" for "--secure-port" flag: strconv.ParseInt: parsing "": invalid syntax'],
    [['--secure-port=1.5'], 'invalid argument "1.5" for "--secure-port" flag: strconv.ParseInt: parsing "1.5": invalid syntax'],
    [
      ['--max-requests-inflight=99999999999999999999'],
      'invalid argument "99999999999999999999" for "--max-requests-inflight" flag: strconv.ParseInt: parsing "99999999999999999999": value out of range',
    ],
    [['--secure-port=08'], 'invalid argument "08" for "--secure-port" flag: strconv.ParseInt: parsing "08": invalid syntax'],
    [['--secure-port=1__0'], 'invalid argument "1__0" for "--secure-port" flag: strconv.ParseInt: parsing "1__0": invalid syntax'],
    [['--secure-port=_1'], 'invalid argument "_1" for "--secure-port" flag: strconv.ParseInt: parsing "_1": invalid syntax'],
    [['-v=0x1'], 'invalid argument "0x1" for "-v, --v" flag: strconv.ParseInt: parsing "0x1": invalid syntax'],
    [['-v=x'], 'invalid argument "x" for "-v, --v" flag: strconv.ParseInt: parsing "x": invalid syntax'],
    [['--watch-cache=yes'], 'invalid argument "yes" for "--watch-cache" flag: strconv.ParseBool: parsing "yes": invalid syntax'],
    [['--request-timeout=10'], 'invalid argument "10" for "--request-timeout" flag: time: missing unit in duration "10"'],
    [['--request-timeout=1d'], 'invalid argument "1d" for "--request-timeout" flag: time: unknown unit "d" in duration "1d"'],
    [['--etcd-compaction-interval=x'], 'invalid argument "x" for "--etcd-compaction-interval" flag: time: invalid duration "x"'],
    [['--event-ttl=0'], '--event-ttl must be greater than 0'],
    [['--event-ttl=-1h'], '--event-ttl must be greater than 0'],
    [['--bind-address=localhost'], 'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"'],
    [['--etcd-servers=ftp://e:2379'], 'invalid argument "ftp://e:2379" for "--etcd-servers" flag: unsupported scheme "ftp" (want http or https)'],
    [['--etcd-servers=http://a:1,'], 'invalid argument "http://a:1," for "--etcd-servers" flag: parse "": invalid URI for request'],
    [['--etcd-servers=not a url'], 'invalid argument "not a url" for "--etcd-servers" flag: parse "not a url": invalid URI for request'],
    [['--feature-gates=A'], 'invalid argument "A" for "--feature-gates" flag: missing bool value for A'],
    [
      ['--feature-gates=A=maybe'],
      'invalid argument "A=maybe" for "--feature-gates" flag: invalid value of A=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
    [['--data-dir='], 'invalid argument "" for "--data-dir" flag: must not be empty'],
    [['serve'], '"platform-apiserver" does not take any arguments, got ["serve"]'],
    [['--watch-cache', 'false'], '"platform-apiserver" does not take any arguments, got ["false"]'],
    [['--secure-port=65536'], '--secure-port 65536 must be between 0 and 65535, inclusive. 0 picks a free port'],
    [['--secure-port=-1'], '--secure-port -1 must be between 0 and 65535, inclusive. 0 picks a free port'],
    [['--max-requests-inflight=-1'], '--max-requests-inflight can not be negative value'],
    [['--max-mutating-requests-inflight=-1'], '--max-mutating-requests-inflight can not be negative value'],
    [['--request-timeout=-1s'], '--request-timeout can not be negative value'],
    [['--tls-cert-file=a.crt'], '--tls-cert-file and --tls-private-key-file must be specified together'],
    [['--tls-private-key-file=a.key'], '--tls-cert-file and --tls-private-key-file must be specified together'],
    [['--etcd-certfile=c'], '--etcd-certfile and --etcd-keyfile must be specified together'],
  ])('%j → %s', (argv, message) => {
    expect(failure(...argv)).toBe(message);
  });

  it('reports the first bad flag, left to right', () => {
    expect(failure('--secure-port=x', '--nope')).toMatch(/^invalid argument "x" for "--secure-port"/);
    expect(failure('--nope', '--secure-port=x')).toBe('unknown flag: --nope');
  });

  it('skips cross-flag validation and positional checks with --help', () => {
    expect(parse('--help', 'extra', '--tls-cert-file=a').help).toBe(true);
  });

  it('still rejects unknown flags with --help', () => {
    expect(failure('--help', '--nope')).toBe('unknown flag: --nope');
  });
});

describe('usage', () => {
  const text = usage();
  it('lists every flag with its type and default', () => {
    for (const line of [
      /^ {6}--bind-address ip +.* \(default 0\.0\.0\.0\)$/m,
      /^ {6}--secure-port int +.* \(default 6443\)$/m,
      /^ {6}--etcd-prefix string +.* \(default "\/registry"\)$/m,
      /^ {6}--request-timeout duration +.* \(default 1m0s\)$/m,
      /^ {6}--etcd-compaction-interval duration +.* \(default 5m0s\)$/m,
      /^ {6}--max-requests-inflight int +.* \(default 400\)$/m,
      /^ {6}--max-mutating-requests-inflight int +.* \(default 200\)$/m,
      /^ {6}--watch-cache +.* \(default true\)$/m,
      /^ {6}--data-dir string +.* \(default "\.\/\.data"\)$/m,
      /^ {2}-v, --v Level +number for the log level verbosity$/m,
      /^ {2}-h, --help +help for platform-apiserver$/m,
      /^ {6}--etcd-servers strings /m,
      /^ {6}--feature-gates mapStringBool /m,
      /^ {6}--runtime-config mapStringString /m,
      /^ {6}--token-auth-file string /m,
      /^ {6}--write-kubeconfig string /m,
      /^ {6}--cert-dir string /m,
      /^ {6}--tls-cert-file string /m,
      /^ {6}--tls-private-key-file string /m,
      /^ {6}--etcd-cafile string /m,
      /^ {6}--etcd-certfile string /m,
      /^ {6}--etcd-keyfile string /m,
    ]) {
      expect(text).toMatch(line);
    }
  });
  it('groups flags in sections as kube-apiserver does, each sorted by name like pflag', () => {
    const sections = text.split(/\n(?=[A-Z][A-Za-z ]* flags:\n)/);
    expect(sections[0]).toBe('Usage:\n  platform-apiserver [flags]\n');
    const byName = new Map(
      sections.slice(1).map((s) => {
        const [title = '', blank, ...lines] = s.split('\n');
        expect(blank).toBe('');
        const names = lines.filter((l) => l !== '').map((l) => /^\s+(?:-\w, )?--([a-z0-9-]+)/.exec(l)?.[1]);
        return [title, names] as const;
      }),
    );
    // kube-apiserver v1.32's section order; sections without flags (auditing, features,
    // metrics) are not printed. "Standalone" is ours.
    expect([...byName.keys()]).toEqual([
      'Generic flags:',
      'Etcd flags:',
      'Secure serving flags:',
      'Authentication flags:',
      'Authorization flags:',
      'API enablement flags:',
      'Admission flags:',
      'Logs flags:',
      'Misc flags:',
      'Standalone flags:',
      'Global flags:',
    ]);
    expect(Object.fromEntries(byName)).toEqual({
      'Generic flags:': [
        'default-not-ready-toleration-seconds',
        'default-unreachable-toleration-seconds',
        'feature-gates',
        'max-mutating-requests-inflight',
        'max-requests-inflight',
        'request-timeout',
      ],
      'Etcd flags:': ['etcd-cafile', 'etcd-certfile', 'etcd-compaction-interval', 'etcd-healthcheck-timeout', 'etcd-keyfile', 'etcd-prefix', 'etcd-readycheck-timeout', 'etcd-servers', 'watch-cache'],
      'Secure serving flags:': [
        'bind-address',
        'cert-dir',
        'disable-http2-serving',
        'http2-max-streams-per-connection',
        'secure-port',
        'tls-cert-file',
        'tls-private-key-file',
      ],
      'Authentication flags:': [
        'anonymous-auth',
        'api-audiences',
        'authentication-config',
        'client-ca-file',
        'service-account-issuer',
        'service-account-jwks-uri',
        'service-account-key-file',
        'service-account-max-token-expiration',
        'service-account-signing-key-file',
        'token-auth-file',
      ],
      'Authorization flags:': [
        'authorization-config',
        'authorization-mode',
        'authorization-webhook-cache-authorized-ttl',
        'authorization-webhook-cache-unauthorized-ttl',
        'authorization-webhook-config-file',
        'authorization-webhook-version',
      ],
      'API enablement flags:': ['runtime-config'],
      'Admission flags:': ['admission-control-config-file', 'disable-admission-plugins', 'enable-admission-plugins'],
      'Logs flags:': ['v'],
      'Misc flags:': ['event-ttl'],
      'Standalone flags:': ['data-dir', 'write-cert-kubeconfig', 'write-kubeconfig', 'write-kubeconfig-exec-service-account'],
      'Global flags:': ['help'],
    });
  });

  it('aligns help within each section (pflag aligns per flag set)', () => {
    expect(text).toContain('\nLogs flags:\n\n  -v, --v Level   number for the log level verbosity\n');
    expect(text).toContain('\nMisc flags:\n\n      --event-ttl duration   Amount of time to retain events. (default 1h0m0s)\n');
    expect(text).toMatch(/\nGlobal flags:\n\n {2}-h, --help {3}help for platform-apiserver\n$/);
  });

  it('--help prints a description, a blank line, then the usage (cobra\'s help)', () => {
    const h = help();
    expect(h.endsWith(`\n\n${text}`)).toBe(true);
    expect(h.startsWith('platform-apiserver ')).toBe(true);
  });
});

describe('validation errors together (kube aggregates them)', () => {
  it('reports every problem at once, in group order', () => {
    expect(failure('--event-ttl=0', '--secure-port=70000', '--max-requests-inflight=-1', '--etcd-certfile=c')).toBe(
      '[--max-requests-inflight can not be negative value, --etcd-certfile and --etcd-keyfile must be specified together, ' +
        '--secure-port 70000 must be between 0 and 65535, inclusive. 0 picks a free port, --event-ttl must be greater than 0]',
    );
  });

  it('formats like utilerrors.NewAggregate: one message alone, repeats once', () => {
    expect(aggregateMessage(['a'])).toBe('a');
    expect(aggregateMessage(['a', 'b', 'a'])).toBe('[a, b]');
    expect(aggregateMessage(['a', 'a'])).toBe('a');
  });

  it('lets empty positional arguments through, as kube-apiserver\'s Args check does', () => {
    expect(parse('').help).toBe(false);
    expect(failure('', 'x')).toBe('"platform-apiserver" does not take any arguments, got ["" "x"]');
  });
});

describe('parseGoDuration (Go time.ParseDuration cases)', () => {
  it.each([
    ['0', 0n],
    ['5s', 5_000_000_000n],
    ['30s', 30_000_000_000n],
    ['1478s', 1_478_000_000_000n],
    ['-5s', -5_000_000_000n],
    ['+5s', 5_000_000_000n],
    ['-0', 0n],
    ['+0', 0n],
    ['5.0s', 5_000_000_000n],
    ['5.6s', 5_600_000_000n],
    ['5.s', 5_000_000_000n],
    ['.5s', 500_000_000n],
    ['1.0s', 1_000_000_000n],
    ['1.00s', 1_000_000_000n],
    ['1.004s', 1_004_000_000n],
    ['1.0040s', 1_004_000_000n],
    ['100.00100s', 100_001_000_000n],
    ['10ns', 10n],
    ['11us', 11_000n],
    ['12\u00b5s', 12_000n],
    ['12\u03bcs', 12_000n],
    ['13ms', 13_000_000n],
    ['14s', 14_000_000_000n],
    ['15m', 900_000_000_000n],
    ['16h', 57_600_000_000_000n],
    ['3h30m', 12_600_000_000_000n],
    ['10.5s4m', 250_500_000_000n],
    ['-2m3.4s', -123_400_000_000n],
    ['1h2m3s4ms5us6ns', 3_723_004_005_006n],
    ['39h9m14.425s', 140_954_425_000_000n],
    ['52763797000ns', 52_763_797_000n],
    ['0.3333333333333333333h', 1_200_000_000_000n],
    ['9007199254740993ns', 9_007_199_254_740_993n],
    ['9223372036854775807ns', 9_223_372_036_854_775_807n],
    ['9223372036854775.807us', 9_223_372_036_854_775_807n],
    ['9223372036s854ms775us807ns', 9_223_372_036_854_775_807n],
    ['9223372036854ms775us807ns', 9_223_372_036_854_775_807n],
    ['-9223372036854775808ns', -9_223_372_036_854_775_808n],
    ['-9223372036854775.808us', -9_223_372_036_854_775_808n],
    ['0.100000000000000000000h', 360_000_000_000n],
    ['0.830103483285477580700h', 2_988_372_539_827n],
  ])('%s', (input, nanos) => {
    expect(parseGoDurationNanos(input)).toBe(nanos);
  });

  it('returns milliseconds', () => {
    expect(parseGoDuration('5m')).toBe(300_000);
    expect(parseGoDuration('1m0s')).toBe(60_000);
    expect(parseGoDuration('1500us')).toBe(1.5);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['3', 'time: missing unit in duration "3"'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.', 'time: invalid duration "."'],
    ['-.', 'time: invalid duration "-."'],
    ['.s', 'time: invalid duration ".s"'],
    ['+.s', 'time: invalid duration "+.s"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['1.5.5s', 'time: missing unit in duration "1.5.5s"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['9223372036854775.808us', 'time: invalid duration "9223372036854775.808us"'],
    ['9223372036854ms775us808ns', 'time: invalid duration "9223372036854ms775us808ns"'],
    ['-9223372036854775809ns', 'time: invalid duration "-9223372036854775809ns"'],
  ])('%j fails with %s', (input, message) => {
    expect(() => parseGoDuration(input)).toThrow(message);
  });
});

describe('formatGoDuration (Go Duration.String cases)', () => {
  it.each([
    [0, '0s'],
    [1e-6, '1ns'],
    [1.1e-3, '1.1\u00b5s'],
    [2.2, '2.2ms'],
    [3300, '3.3s'],
    [245000, '4m5s'],
    [245001, '4m5.001s'],
    [18367001, '5h6m7.001s'],
    [60000, '1m0s'],
    [300000, '5m0s'],
    [-1500, '-1.5s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});

describe('admission flags', () => {
  it('collects --enable/--disable-admission-plugins like pflag string slices and makes the config file absolute', () => {
    const config = parse('--enable-admission-plugins=EventRateLimit', '--enable-admission-plugins', 'ImagePolicyWebhook', '--disable-admission-plugins=ResourceQuota', '--admission-control-config-file=conf/admission.yaml');
    expect(config.enableAdmissionPlugins).toEqual(['EventRateLimit', 'ImagePolicyWebhook']);
    expect(config.disableAdmissionPlugins).toEqual(['ResourceQuota']);
    expect(config.admissionControlConfigFile).toBe('/srv/apiserver/conf/admission.yaml');
  });

  it('refuses a plugin both enabled and disabled, with kube\'s message', () => {
    expect(failure('--enable-admission-plugins=EventRateLimit,ResourceQuota', '--disable-admission-plugins=ResourceQuota')).toContain(
      '[ResourceQuota] in enable-admission-plugins and disable-admission-plugins overlapped',
    );
  });
});
