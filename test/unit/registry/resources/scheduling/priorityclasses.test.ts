/** scheduling.k8s.io/v1 PriorityClass: kube's defaults, validation, update rules, columns and delete guard. */
import { KubeObject, RequestContext, fieldErrorString } from '../../../../../src/api';
import { builtinResources } from '../../../../../src/registry';
import { defaultPriorityClass, validatePriorityClass, validatePriorityClassUpdate } from '../../../../../src/registry/resources/scheduling/priorityclasses';

const ctx: RequestContext = { namespace: '', warnings: [], dryRun: false, now: () => new Date() };
const pc = (name: string, fields: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, ...fields }) as KubeObject;
const def = builtinResources.find((d) => d.group === 'scheduling.k8s.io' && d.resource === 'priorityclasses');
const texts = (errs: ReturnType<typeof validatePriorityClass>) => errs.map(fieldErrorString);

test('the declaration: cluster-scoped, short name pc, protobuf, every verb', () => {
  expect(def).toMatchObject({ version: 'v1', kind: 'PriorityClass', namespaced: false, shortNames: ['pc'], protobufMessage: 'k8s.io.api.scheduling.v1.PriorityClass' });
  expect(def?.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
});

test('defaults: value always, PreemptLowerPriority, empty omitempty fields dropped, Go key order', () => {
  const o = pc('x', { preemptionPolicy: null, description: '', globalDefault: false, extra: 1 });
  defaultPriorityClass(o);
  expect(o).toEqual({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'x' }, value: 0, preemptionPolicy: 'PreemptLowerPriority', extra: 1 });
  const full = { preemptionPolicy: 'Never', description: 'd', globalDefault: true, value: 5, metadata: { name: 'y' } } as unknown as KubeObject;
  defaultPriorityClass(full);
  expect(Object.keys(full)).toEqual(['metadata', 'value', 'globalDefault', 'description', 'preemptionPolicy']);
  // Idempotent.
  const again = structuredClone(full);
  defaultPriorityClass(again);
  expect(again).toEqual(full);
});

test.each([
  ['a user class at the limit', pc('high', { value: 1_000_000_000 }), []],
  ['a user class past it', pc('huge', { value: 1_000_000_001 }), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']],
  ['a negative value', pc('low', { value: -5 }), []],
  ['a system class as kube makes it', pc('system-node-critical', { value: 2_000_001_000 }), []],
  [
    'a system class with another value',
    pc('system-cluster-critical', { value: 5 }),
    ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000"],
  ],
  [
    'a system class as the default',
    pc('system-cluster-critical', { value: 2_000_000_000, globalDefault: true }),
    ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"],
  ],
  [
    'another system- name (whatever its value)',
    pc('system-mine', { value: 2_000_000_000 }),
    ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"],
  ],
  ['an empty policy', pc('p', { value: 1, preemptionPolicy: '' }), ['preemptionPolicy: Required value']],
  ['an unknown policy', pc('p', { value: 1, preemptionPolicy: 'Sometimes' }), ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']],
])('validation: %s', (_what, obj, expected) => {
  expect(texts(validatePriorityClass(obj))).toEqual(expected);
  expect(def?.strategy.validate(ctx, obj).map(fieldErrorString)).toEqual(expected);
});

test('update: value and preemptionPolicy are immutable; nothing else is checked again (kube)', () => {
  const meta = { name: 'p', uid: 'u', resourceVersion: '1', creationTimestamp: '2024-01-01T00:00:00Z' };
  const old = { ...pc('p', { value: 1, preemptionPolicy: 'Never' }), metadata: meta } as KubeObject;
  expect(texts(validatePriorityClassUpdate({ ...old, description: 'new', globalDefault: true } as KubeObject, old))).toEqual([]);
  expect(texts(validatePriorityClassUpdate({ ...old, value: 2, preemptionPolicy: 'PreemptLowerPriority' } as KubeObject, old))).toEqual([
    'value: Forbidden: may not be changed in an update.',
    'preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable',
  ]);
  // A system class's default flag is not looked at again on update, as in kube.
  const sys = { ...pc('system-node-critical', { value: 2_000_001_000, preemptionPolicy: 'PreemptLowerPriority' }), metadata: { ...meta, name: 'system-node-critical' } } as KubeObject;
  expect(texts(validatePriorityClassUpdate({ ...sys, globalDefault: true } as KubeObject, sys))).toEqual([]);
});

test('generation 1 on create; the table cells', () => {
  const o = pc('p', { value: 7, globalDefault: true, preemptionPolicy: 'Never' });
  def?.strategy.prepareForCreate(ctx, o);
  expect(o.metadata.generation).toBe(1);
  const now = new Date('2024-01-01T00:01:00Z');
  o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
  expect(def?.tableColumns?.map((c) => [c.name, c.type, c.cell(o, now)])).toEqual([
    ['Name', 'string', 'p'],
    ['Value', 'integer', 7],
    ['Global-Default', 'boolean', true],
    ['Age', 'string', '60s'],
    ['PreemptionPolicy', 'string', 'Never'],
  ]);
});

test('the system classes may not be deleted one by one: kube’s 403', () => {
  expect(def?.refuseDelete?.('system-node-critical')?.status).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    reason: 'Forbidden',
    details: { name: 'system-node-critical', group: 'scheduling.k8s.io', kind: 'priorityclasses' },
    code: 403,
  });
  expect(def?.refuseDelete?.('system-cluster-critical')?.status.code).toBe(403);
  expect(def?.refuseDelete?.('high')).toBeUndefined();
});
