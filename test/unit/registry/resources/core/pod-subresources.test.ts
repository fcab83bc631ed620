/**
 * The pure parts of the pods' subresources: the Binding's validation, the eviction's dry-run and
 * delete options, the ephemeral containers strategy and its validation, the connect options
 * decoded from a query as kube's parameter codec decodes them, and the checks LogLocation,
 * streamLocation and ResourceLocation make, with kube's texts.
 */
import { ApiError, KubeObject, RequestContext, cloneJson, fieldErrorString } from '../../../../../src/api';
import { validateBinding } from '../../../../../src/registry/resources/core/pod-binding';
import { containerFor, isGlobalUnicast, joinPreservingTrailingSlash, splitSchemeNamePort, validatePodLogOptions } from '../../../../../src/registry/resources/core/pod-connect';
import { parseQueryTime, podExecOptions, podLogOptions, podPortForwardOptions } from '../../../../../src/registry/resources/core/pod-connect-options';
import { ephemeralContainersStrategy } from '../../../../../src/registry/resources/core/pod-ephemeral-containers';
import { propagateDryRun, validateEvictionDeleteOptions } from '../../../../../src/registry/resources/core/pod-eviction';
import { updatePodCondition } from '../../../../../src/registry/resources/core/pod-condition';
import { pods } from '../../../../../src/registry/resources/core/pods';
import type { Pod, PodStatus } from '../../../../../src/registry/resources/core/pod-types';

const now = new Date('2024-05-01T10:00:00Z');
const ctx = (): RequestContext => ({ namespace: 'ns', warnings: [], dryRun: false, now: () => now });

function thrown(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

const podOf = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '5', ...meta }, spec: cloneJson(spec), status: { phase: 'Pending' } }) as Pod;

describe('ValidatePodBinding', () => {
  const errs = (target: unknown) => validateBinding({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target } as KubeObject).map(fieldErrorString);
  test.each<[string, unknown, string[]]>([
    ['a node by name', { name: 'n1' }, []],
    ['kind Node', { kind: 'Node', name: 'n1' }, []],
    ['another kind and no name', { kind: 'Pod' }, ['target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"', 'target.name: Required value']],
    ['no target', undefined, ['target.name: Required value']],
  ])('%s', (_, target, expected) => expect(errs(target)).toEqual(expected));
});

describe('updatePodCondition', () => {
  test('appends a new condition; replaces one whose status changed; keeps the transition time of one that did not', () => {
    const status: PodStatus = {};
    updatePodCondition(status, { type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }, new Date('2024-01-01T00:00:00Z'));
    expect(status.conditions).toEqual([{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'SchedulingGated' }]);
    updatePodCondition(status, { type: 'PodScheduled', status: 'True' }, now);
    expect(status.conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-01T10:00:00Z' }]);
    updatePodCondition(status, { type: 'PodScheduled', status: 'True', message: 'again' }, new Date('2025-01-01T00:00:00Z'));
    expect(status.conditions?.[0]).toMatchObject({ lastTransitionTime: '2024-05-01T10:00:00Z', message: 'again' });
  });
});

describe('eviction options', () => {
  const ev = (deleteOptions?: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' }, ...(deleteOptions ? { deleteOptions } : {}) }) as KubeObject;
  test("propagateDryRun: the request's fills the Eviction's; equal ones pass; different ones are kube's plain 500", () => {
    expect(propagateDryRun(ev(), ['All'])).toEqual({ dryRun: ['All'] });
    expect(propagateDryRun(ev({ gracePeriodSeconds: 3 }), ['All'])).toEqual({ gracePeriodSeconds: 3, dryRun: ['All'] });
    expect(propagateDryRun(ev({ dryRun: ['All'] }), [])).toEqual({ dryRun: ['All'] });
    expect(propagateDryRun(ev({ dryRun: ['All'] }), ['All'])).toEqual({ dryRun: ['All'] });
    const e = thrown(() => propagateDryRun(ev({ dryRun: ['All', 'X'] }), ['All']));
    expect(e.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Non-matching dry-run options in request and content: [All] and [All X]', code: 500 });
  });
  test("ValidateDeleteOptions, as kube's store runs it on the eviction's options", () => {
    expect(validateEvictionDeleteOptions({ propagationPolicy: 'Background' })).toEqual([]);
    expect(validateEvictionDeleteOptions({ propagationPolicy: 'Foreground', orphanDependents: true, dryRun: ['Some'] }).map(fieldErrorString)).toEqual([
      'propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set',
      'dryRun: Unsupported value: "Some": supported values: "All"',
    ]);
  });
});

describe('pods/ephemeralcontainers strategy', () => {
  const old = podOf({ containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] }, { labels: { a: 'b' }, managedFields: [{ manager: 'kubectl' }] });

  test('keeps everything of the stored pod but its ephemeral containers (and the written identity fields)', () => {
    const written = cloneJson(old);
    written.metadata.labels = { changed: 'yes' };
    written.metadata.managedFields = [{ manager: 'debugger' }];
    written.metadata.resourceVersion = '6';
    written.spec = { containers: [{ name: 'app', image: 'other' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }, { name: 'two', image: 'busybox' }] };
    written.status = { phase: 'Running' };
    const metadata = written.metadata;
    ephemeralContainersStrategy.prepareForUpdate(ctx(), written, old);
    expect(written.metadata).toBe(metadata);
    expect(Object.keys(written)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(written.metadata).toEqual({ ...old.metadata, resourceVersion: '6' });
    expect(written.spec).toEqual({ containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }, { name: 'two', image: 'busybox' }] });
    expect(written.status).toEqual({ phase: 'Pending' });
  });

  /** The decoder's defaults, as both pods have them in the store. */
  const defaulted = (p: Pod): Pod => {
    const c = cloneJson(p);
    pods.strategy.defaults?.(c);
    return c;
  };
  const validate = (ephemeral: unknown[], stored = old) => {
    const oldPod = defaulted(stored);
    const pod = defaulted({ ...stored, spec: { ...stored.spec, ephemeralContainers: ephemeral as never } });
    return ephemeralContainersStrategy.validateUpdate(ctx(), pod, oldPod).map(fieldErrorString);
  };
  test('ValidatePodEphemeralContainersUpdate', () => {
    expect(validate([{ name: 'dbg', image: 'busybox' }, { name: 'new', image: 'busybox' }])).toEqual([]);
    expect(validate([])).toEqual(['spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n']);
    expect(validate([{ name: 'dbg', image: 'alpine' }])[0]).toMatch(/^spec\.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n {2}core\.EphemeralContainer\{\n/);
    expect(validate([{ name: 'dbg', image: 'busybox' }, { name: 'app', image: 'busybox' }])).toEqual(['spec.ephemeralContainers[1].name: Duplicate value: "app"']);
    expect(validate([{ name: 'dbg', image: 'busybox' }, { name: 'x', image: 'busybox', targetContainerName: 'nope' }])).toEqual(['spec.ephemeralContainers[1].targetContainerName: Not found: "nope"']);
    const mirror = podOf({ nodeName: 'n', containers: [{ name: 'app', image: 'nginx' }] }, { annotations: { 'kubernetes.io/config.mirror': 'x' } });
    expect(validate([{ name: 'x', image: 'busybox' }], mirror)).toEqual([': Forbidden: static pods do not support ephemeral containers']);
  });
});

describe('connect options from the query (kube parameter codec)', () => {
  test('PodLogOptions: booleans as kube reads them, int64s and times with Go errors', () => {
    expect(podLogOptions({ container: ['a'], follow: [''], previous: ['false'], timestamps: ['0'], tailLines: ['10'], sinceTime: ['2024-01-02T03:04:05+01:00'] })).toEqual({
      kind: 'PodLogOptions',
      apiVersion: 'v1',
      container: 'a',
      follow: true,
      sinceTime: '2024-01-02T02:04:05Z',
      tailLines: 10,
    });
    expect(thrown(() => podLogOptions({ tailLines: ['1.5'] })).message).toBe('strconv.ParseInt: parsing "1.5": invalid syntax');
    expect(thrown(() => podLogOptions({ sinceSeconds: ['99999999999999999999'] })).message).toBe('strconv.ParseInt: parsing "99999999999999999999": value out of range');
  });
  test.each<[string, string | undefined | Error]>([
    ['', undefined],
    ['null', undefined],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59Z'],
    ['2024-01-01T00:00:00.123Z', '2024-01-01T00:00:00Z'],
    ['yesterday', new Error('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"')],
    ['2024/01/01', new Error('parsing time "2024/01/01" as "2006-01-02T15:04:05Z07:00": cannot parse "/01/01" as "-"')],
    ['2024-01-01T00:00:00', new Error('parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"')],
    ['2024-13-01T00:00:00Z', new Error('parsing time "2024-13-01T00:00:00Z": month out of range')],
    ['2023-02-29T00:00:00Z', new Error('parsing time "2023-02-29T00:00:00Z": day out of range')],
    ['2024-01-01T00:00:00Zjunk', new Error('parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"')],
  ])('sinceTime %j', (value, expected) => {
    if (expected instanceof Error) expect(thrown(() => parseQueryTime(value)).message).toBe(expected.message);
    else expect(parseQueryTime(value)).toBe(expected);
  });
  test('PodExecOptions keeps every command value; PodPortForwardOptions splits ports on commas', () => {
    expect(podExecOptions({ command: ['sh', '-c', 'ls'], stdin: ['1'], tty: ['true'] })).toEqual({ kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, tty: true, command: ['sh', '-c', 'ls'] });
    expect(podExecOptions({})).toEqual({ kind: 'PodExecOptions', apiVersion: 'v1', command: null });
    expect(podPortForwardOptions({ ports: ['80,443', '8080'] })).toEqual({ kind: 'PodPortForwardOptions', apiVersion: 'v1', ports: [80, 443, 8080] });
    expect(thrown(() => podPortForwardOptions({ ports: ['70000'] })).message).toBe('cannot convert to []int32: strconv.ParseUint: parsing "70000": value out of range');
  });
});

describe('the locations kube works out', () => {
  const two = podOf({ initContainers: [{ name: 'init' }], containers: [{ name: 'a' }, { name: 'b' }], ephemeralContainers: [{ name: 'dbg' }] });
  test('validateContainer', () => {
    expect(containerFor(podOf({ containers: [{ name: 'only' }] }), '')).toBe('only');
    expect(containerFor(two, 'dbg')).toBe('dbg');
    expect(containerFor(two, 'init')).toBe('init');
    expect(thrown(() => containerFor(two, '')).message).toBe('a container name must be specified for pod p, choose one of: [init a b dbg]');
    expect(thrown(() => containerFor(podOf({}), '')).message).toBe('a container name must be specified for pod p');
    expect(thrown(() => containerFor(two, 'zz')).status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'container zz is not valid for pod p' });
  });
  test('ValidatePodLogOptions', () => {
    const errs = (o: Record<string, unknown>) => validatePodLogOptions({ kind: 'PodLogOptions', apiVersion: 'v1', ...o } as KubeObject).map(fieldErrorString);
    expect(errs({ tailLines: 0, limitBytes: 1, sinceSeconds: 1 })).toEqual([]);
    expect(errs({ tailLines: -1, limitBytes: 0, sinceSeconds: 0 })).toEqual([
      'tailLines: Invalid value: -1: must be greater than or equal to 0',
      'limitBytes: Invalid value: 0: must be greater than 0',
      'sinceSeconds: Invalid value: 0: must be greater than 0',
    ]);
    expect(errs({ sinceSeconds: 0, sinceTime: '2024-01-01T00:00:00Z' })).toEqual([': Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified']);
  });
  test('SplitSchemeNamePort', () => {
    expect(splitSchemeNamePort('p')).toEqual({ scheme: '', name: 'p', port: '' });
    expect(splitSchemeNamePort('p:http')).toEqual({ scheme: '', name: 'p', port: 'http' });
    expect(splitSchemeNamePort('https:p:443')).toEqual({ scheme: 'https', name: 'p', port: '443' });
    expect(splitSchemeNamePort('ftp:p:21')).toBeUndefined();
    expect(splitSchemeNamePort(':80')).toBeUndefined();
    expect(splitSchemeNamePort('a:b:c:d')).toBeUndefined();
  });
  test.each<[string, string]>([
    ['', ''],
    ['/', '/'],
    ['/a/b', '/a/b'],
    ['/a//b/', '/a/b/'],
    ['/a/../../b', '/b'],
    ['/./x/.', '/x'],
  ])('JoinPreservingTrailingSlash("", %j) is %j', (p, expected) => expect(joinPreservingTrailingSlash(p)).toBe(expected));
  test.each<[string, boolean]>([
    ['', false],
    ['10.1.2.3', true],
    ['010.001.002.003', true],
    ['0.0.0.0', false],
    ['127.0.0.1', false],
    ['169.254.1.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['240.0.0.1', true],
    ['256.1.1.1', false],
    ['2001:db8::1', true],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', true],
    ['fe80::1%eth0', false],
  ])('IsGlobalUnicast(%j) is %s', (ip, expected) => expect(isGlobalUnicast(ip)).toBe(expected));
});
