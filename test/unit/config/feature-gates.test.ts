/**
 * --feature-gates resolution. Expected stages/defaults are kube 1.32's (k8s.io/apiserver
 * pkg/features/kube_features.go v0.32.13, k8s.io/kubernetes pkg/features v1.32.10); messages are component-base featuregate's
 * (feature_gate.go unsafeSetFromMap) word for word.
 */
import { FeatureGateError, FeatureGates, FeatureSpec, knownFeatureGates, parseFlags } from '../../../src/config';

const gates = (flags: Record<string, boolean>, onWarning?: (w: string) => void) =>
  FeatureGates.fromFlags(new Map(Object.entries(flags)), { onWarning });

describe('kube 1.32 defaults', () => {
  test.each<[string, FeatureSpec['stage'], boolean, boolean]>([
    ['APIResponseCompression', 'BETA', true, false],
    ['CBORServingAndStorage', 'ALPHA', false, false],
    ['WatchList', 'BETA', true, false],
    ['ConsistentListFromCache', 'BETA', true, false],
    ['RetryGenerateName', 'GA', true, true],
    ['AllowUnsafeMalformedObjectDeletion', 'ALPHA', false, false],
    ['WatchCacheInitializationPostStartHook', 'BETA', false, false],
    ['StorageVersionHash', 'BETA', true, false],
    ['APIListChunking', 'GA', true, true],
    ['WatchBookmark', 'GA', true, true],
    ['KMSv1', 'DEPRECATED', false, false],
    ['BtreeWatchCache', 'BETA', true, false],
    // Gates of k8s.io/kubernetes pkg/features (kubelet, scheduler, controllers), client-go and
    // apiextensions, which kube-apiserver registers too: accepted though this server has no use for them.
    ['InPlacePodVerticalScaling', 'ALPHA', false, false],
    ['SidecarContainers', 'BETA', true, false],
    ['JobPodFailurePolicy', 'GA', true, true],
    ['ExecProbeTimeout', 'GA', true, false],
    ['WindowsHostNetwork', 'ALPHA', true, false],
    ['AllowServiceLBStatusOnNonLB', 'DEPRECATED', false, true],
    ['WatchListClient', 'BETA', false, false],
    ['CRDValidationRatcheting', 'BETA', true, false],
  ])('%s is %s, default %s, locked %s', (name, stage, def, locked) => {
    const spec = knownFeatureGates.get(name);
    expect(spec).toEqual(expect.objectContaining({ stage, default: def }));
    expect(!!spec?.lockToDefault).toBe(locked);
    expect(FeatureGates.defaults().enabled(name)).toBe(def);
  });
});

describe('setting gates', () => {
  test('alpha and beta gates can be switched either way', () => {
    const g = gates({ CBORServingAndStorage: true, APIResponseCompression: false });
    expect(g.enabled('CBORServingAndStorage')).toBe(true);
    expect(g.enabled('APIResponseCompression')).toBe(false);
    expect(g.enabled('WatchList')).toBe(true);
    expect(g.toString()).toBe('APIResponseCompression=false,CBORServingAndStorage=true');
  });

  test('an unknown gate', () => {
    expect(() => gates({ NoSuchGate: true })).toThrow(new FeatureGateError('unrecognized feature gate: NoSuchGate'));
  });

  test('gate names are case-sensitive', () => {
    expect(() => gates({ apiresponsecompression: false })).toThrow('unrecognized feature gate: apiresponsecompression');
  });

  test('the first unknown gate stops the check (kube returns early)', () => {
    expect(() => gates({ RetryGenerateName: false, Nope: true })).toThrow('unrecognized feature gate: Nope');
  });

  test('a locked GA gate set to false', () => {
    expect(() => gates({ RetryGenerateName: false })).toThrow(
      new FeatureGateError('cannot set feature gate RetryGenerateName to false, feature is locked to true'),
    );
  });

  test('several locked gates: an aggregate error', () => {
    expect(() => gates({ RetryGenerateName: false, WatchBookmark: false })).toThrow(
      '[cannot set feature gate RetryGenerateName to false, feature is locked to true, cannot set feature gate WatchBookmark to false, feature is locked to true]',
    );
  });

  test('a GA gate set to its locked value warns', () => {
    const warnings: string[] = [];
    const g = gates({ RetryGenerateName: true }, (w) => warnings.push(w));
    expect(g.enabled('RetryGenerateName')).toBe(true);
    expect(warnings).toEqual(['Setting GA feature gate RetryGenerateName=true. It will be removed in a future release.']);
  });

  test('a deprecated gate warns', () => {
    const warnings: string[] = [];
    const g = gates({ KMSv1: true }, (w) => warnings.push(w));
    expect(g.enabled('KMSv1')).toBe(true);
    expect(warnings).toEqual(['Setting deprecated feature gate KMSv1=true. It will be removed in a future release.']);
  });

  test('no warnings for alpha or beta gates', () => {
    const warnings: string[] = [];
    gates({ CBORServingAndStorage: true, WatchList: false }, (w) => warnings.push(w));
    expect(warnings).toEqual([]);
  });

  test('AllAlpha / AllBeta switch the gates not named explicitly', () => {
    const g = gates({ AllAlpha: true, CBORServingAndStorage: false, AllBeta: false, WatchList: true });
    expect(g.enabled('AllowUnsafeMalformedObjectDeletion')).toBe(true);
    expect(g.enabled('CBORServingAndStorage')).toBe(false);
    expect(g.enabled('APIResponseCompression')).toBe(false);
    expect(g.enabled('WatchList')).toBe(true);
    // GA gates are neither alpha nor beta.
    expect(g.enabled('RetryGenerateName')).toBe(true);
  });

  test('asking for an unregistered gate is a programming error', () => {
    expect(() => FeatureGates.defaults().enabled('Nope')).toThrow('feature "Nope" is not registered in FeatureGate');
  });

  test('from the parsed --feature-gates flag', () => {
    const config = parseFlags(['--feature-gates=APIResponseCompression=false, CBORServingAndStorage=true']);
    const g = FeatureGates.fromFlags(config.featureGates);
    expect(g.enabled('APIResponseCompression')).toBe(false);
    expect(g.enabled('CBORServingAndStorage')).toBe(true);
  });
});
