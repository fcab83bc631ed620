/** ResourceQuota strategy: validation messages and canonical quantities (kube-facts §5, §6). */
import { fieldErrorString, KubeObject, RequestContext } from '../../../../../src/api';
import { resourcequotas } from '../../../../../src/registry/resources/core/resourcequotas';
import { QuotaSpec, isIntegerResourceName, validateQuota, validateQuotaUpdate } from '../../../../../src/registry/resources/core/quota-validation';

const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };
const quota = (spec: QuotaSpec, status?: unknown): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec, ...(status ? { status } : {}) }) as KubeObject;
const errs = (spec: QuotaSpec) => validateQuota(quota(spec)).map(fieldErrorString);

const existsOnly =
  "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";

test.each<[string, QuotaSpec, string[]]>([
  ['standard names', { hard: { cpu: '1', 'requests.memory': '1Gi', pods: '3', 'hugepages-2Mi': '1Gi', 'requests.hugepages-1Gi': '2Gi', 'count/deployments.apps': '2' } }, []],
  ['an unknown bare name', { hard: { foo: '1' } }, ['spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified', 'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota']],
  ['storage is standard but not a quota name', { hard: { storage: '1' } }, ['spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota']],
  ['an unqualified name with a bad character', { hard: { 'a b': '1' } }, [
    `spec.hard[a b]: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    'spec.hard[a b]: Invalid value: "a b": must be a standard resource for quota',
  ]],
  ['negative', { hard: { 'limits.cpu': '-500m' } }, ['spec.hard[limits.cpu]: Invalid value: "-500m": must be greater than or equal to 0']],
  ['fractional count', { hard: { 'count/secrets': '0.5' } }, [
    'spec.hard[count/secrets]: Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer',
  ]],
  ['fractional cpu is fine', { hard: { cpu: '0.5' } }, []],
  ['unknown scope', { hard: { pods: '1' }, scopes: ['Sometimes'] }, ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope']],
  ['BestEffort with cpu', { hard: { cpu: '1', pods: '1' }, scopes: ['BestEffort'] }, ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource']],
  ['a scope with a non-standard name is allowed', { hard: { 'count/secrets': '1' }, scopes: ['BestEffort'] }, []],
  ['conflicting Terminating scopes', { hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] }, ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes']],
  ['PriorityClass In', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }, []],
  ['BestEffort In', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'In', values: ['x'] }] } }, [`spec.scopeSelector.matchExpressions.operator: Invalid value: "In": ${existsOnly}`]],
  ['NotIn without values', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'NotIn' }] } }, [
    "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
  ]],
  ['DoesNotExist with values', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'DoesNotExist', values: ['a', 'b'] }] } }, [
    "spec.scopeSelector.matchExpressions.values: Invalid value: []string{\"a\", \"b\"}: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
  ]],
  ['unknown scopeName and operator', { scopeSelector: { matchExpressions: [{ scopeName: 'X', operator: 'Y' }] } }, [
    'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "X": unsupported scope',
    'spec.scopeSelector.matchExpressions.operator: Invalid value: "Y": not a valid selector operator',
  ]],
  ['selector scope applied to cpu', { hard: { 'requests.storage': '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }] } }, [
    'spec.scopeSelector.matchExpressions: Invalid value: core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{ScopeName:"BestEffort", Operator:"Exists", Values:[]string(nil)}}}: unsupported scope applied to resource',
  ]],
])('validate: %s', (_name, spec, expected) => {
  expect(errs(spec)).toEqual(expected);
});

test.each([
  ['pods', true],
  ['secrets', true],
  ['count/secrets', true],
  ['requests.example.com/gpu', false],
  ['example.com/gpu', true],
  ['cpu', false],
  ['kubernetes.io/x', false],
])('isIntegerResourceName(%s) = %s', (name, expected) => {
  expect(isIntegerResourceName(name)).toBe(expected);
});

test('spec.scopes is immutable (compared as sets)', () => {
  const old = quota({ hard: { pods: '1' }, scopes: ['BestEffort'] });
  expect(validateQuotaUpdate(quota({ hard: { pods: '2' }, scopes: ['BestEffort', 'BestEffort'] }), old)).toEqual([]);
  expect(validateQuotaUpdate(quota({ hard: { pods: '2' } }), old).map(fieldErrorString)).toEqual([
    'spec.scopes: Invalid value: []core.ResourceQuotaScope(nil): field is immutable',
  ]);
});

test('create clears status; update keeps the old status; status writes keep the old spec; quantities are canonical', () => {
  const created = quota({ hard: { 'requests.memory': '1024Mi', cpu: '0.5', pods: '1e3' } }, { used: { pods: '1' } });
  resourcequotas.strategy.prepareForCreate(ctx, created);
  resourcequotas.strategy.canonicalize(created);
  // Go serialises the empty status struct as {}.
  expect(created).toEqual({ ...quota({ hard: { 'requests.memory': '1Gi', cpu: '500m', pods: '1e3' } }), status: {} });

  const old = quota({ hard: { pods: '1' } }, { hard: { pods: '1' }, used: { pods: '0' } });
  const upd = quota({ hard: { pods: '2' } }, { used: { pods: '9' } });
  resourcequotas.strategy.prepareForUpdate(ctx, upd, old);
  expect(upd.status).toEqual({ hard: { pods: '1' }, used: { pods: '0' } });

  const statusStrategy = resourcequotas.subresources.find((s) => s.name === 'status')?.strategy;
  const st = quota({ hard: { pods: '5' } }, { hard: { pods: '1' }, used: { pods: '1000m' } });
  statusStrategy?.prepareForUpdate(ctx, st, old);
  statusStrategy?.canonicalize(st);
  expect(st).toEqual(quota({ hard: { pods: '1' } }, { hard: { pods: '1' }, used: { pods: '1' } }));
  expect(statusStrategy?.validateUpdate(ctx, quota({}, { used: { foo: '1' } }), old).map(fieldErrorString)).toEqual([
    'status.used[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
    'status.used[foo]: Invalid value: "foo": must be a standard resource for quota',
  ]);
});
