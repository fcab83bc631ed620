/** Admission webhooks' matchConditions: kube's environment, compile errors, and the matcher's rules. */
import {
  MATCH_CONDITIONS_OUT_OF_BUDGET,
  compileAdmissionMatchCondition,
  evaluateAdmissionMatchConditions,
  type AdmissionAuthorizerCheck,
  type AdmissionMatchInput,
} from '../../../src/api/admission-cel';
import { compileError as celCompileError } from '../../support/cel';

const compileError = (expression: string): string => celCompileError(expression, (e) => compileAdmissionMatchCondition('c', e));

/** An AdmissionRequest as AdmissionReview v1 carries it. */
const request = {
  uid: '6a3c0d7e-1111-2222-3333-444455556666',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  requestKind: { group: '', version: 'v1', kind: 'Pod' },
  requestResource: { group: '', version: 'v1', resource: 'pods' },
  name: 'web',
  namespace: 'team-a',
  operation: 'CREATE',
  userInfo: { username: 'alice', groups: ['devs', 'system:authenticated'] },
  object: { kind: 'Pod' },
  oldObject: null,
  dryRun: false,
  options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
};
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team-a', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const input = (extra: Partial<AdmissionMatchInput> = {}): AdmissionMatchInput => ({ object: pod, oldObject: null, request, ...extra });
const conditions = (...exprs: string[]) => exprs.map((e, i) => compileAdmissionMatchCondition(`c${i}`, e));
const match = (exprs: string[], extra: Partial<AdmissionMatchInput> = {}) => evaluateAdmissionMatchConditions(conditions(...exprs), input(extra));

describe('compileAdmissionMatchCondition', () => {
  it.each([
    'true',
    "object.metadata.labels['app'] == 'web'",
    "has(object.metadata.labels) && 'app' in object.metadata.labels",
    "request.operation == 'CREATE' && request.userInfo.username != ''",
    "!(request.userInfo.groups.exists(g, g == 'system:masters'))",
    'oldObject == null',
    "object.?metadata.?labels.?team.orValue('none') == 'none'",
    "request.resource.group == '' && request.kind.kind == 'Pod'",
    "authorizer.group('').resource('pods').namespace('team-a').check('create').allowed()",
    "authorizer.requestResource.check('patch').allowed()",
    "authorizer.path('/healthz').check('get').reason() == ''",
    "authorizer.serviceAccount('kube-system', 'replicaset-controller').group('apps').resource('replicasets').check('update').errored()",
    "namespaceObject == null || namespaceObject.metadata.name == 'team-a'",
    "request.userInfo != null",
    'request.dryRun',
  ])('compiles %s', (expression) => {
    expect(compileAdmissionMatchCondition('n', expression).expression).toBe(expression);
  });

  it('refuses with kube\'s messages: results that are not bool, undeclared variables, unknown fields, syntax', () => {
    expect(compileError("request.operation")).toBe('must evaluate to bool but got string');
    expect(compileError('object')).toBe('must evaluate to bool but got dyn');
    expect(compileError("authorizer.path('/x').check('get')")).toBe('must evaluate to bool but got kubernetes.authorization.Decision');
    // `params` is not declared for webhooks.
    expect(compileError('params.x == 1')).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^");
    expect(compileError("request.uid == ''")).toBe("compilation failed: ERROR: <input>:1:8: undefined field 'uid'\n | request.uid == ''\n | .......^");
    expect(compileError("request.userInfo.name == 'x'")).toContain("undefined field 'name'");
    expect(compileError("authorizer.path(1).check('get').allowed()")).toContain("found no matching overload for 'path' applied to 'kubernetes.authorization.Authorizer.(int)'");
    // kube's own validation test: the end of input's column.
    expect(compileError('object.x in [1, 2,')).toMatch(/^compilation failed: ERROR: <input>:1:19: Syntax error: /);
  });
});

describe('evaluateAdmissionMatchConditions (kube\'s matcher)', () => {
  it('no conditions, or every condition true: a match', async () => {
    await expect(match([])).resolves.toEqual({ match: true });
    await expect(
      match(["object.metadata.labels.app == 'web'", "request.namespace == 'team-a'", "'devs' in request.userInfo.groups", 'oldObject == null', '!request.dryRun']),
    ).resolves.toEqual({ match: true });
  });

  it('request has no uid, object or oldObject (kube leaves them out); object is the object', async () => {
    await expect(match(["object.spec.containers[0].image == 'nginx'", "request.options.kind == 'CreateOptions'"])).resolves.toEqual({ match: true });
    await expect(match(['has(request.name) && !has(request.subResource)'])).resolves.toEqual({ match: true });
  });

  it('the first false condition answers with its name, even after an error', async () => {
    await expect(match(['true', "request.operation == 'DELETE'", 'false'])).resolves.toEqual({ match: false, name: 'c1' });
    await expect(match(['object.metadata.missing == 1', "request.operation == 'DELETE'"])).resolves.toEqual({ match: false, name: 'c1' });
  });

  it('errors with no false: kube\'s message, aggregated, with the first failing condition\'s name', async () => {
    await expect(match(['true', 'object.metadata.missing == 1'])).resolves.toEqual({
      error: "expression 'object.metadata.missing == 1' resulted in error: no such key: missing",
      name: 'c1',
    });
    await expect(match(['object.metadata.missing == 1', 'oldObject.metadata.name == "x"', 'true'])).resolves.toEqual({
      error:
        "[expression 'object.metadata.missing == 1' resulted in error: no such key: missing, " +
        "expression 'oldObject.metadata.name == \"x\"' resulted in error: no such key: metadata]",
      name: 'c0',
    });
    // A DELETE: object is null.
    await expect(match(['object.metadata.name == "web"'], { object: null, oldObject: pod })).resolves.toEqual({
      error: "expression 'object.metadata.name == \"web\"' resulted in error: no such key: metadata",
      name: 'c0',
    });
    // namespaceObject is declared, but the webhook matcher passes none.
    await expect(match(["namespaceObject.metadata.name == 'team-a'"])).resolves.toMatchObject({ name: 'c0' });
  });

  it('the per-expression cost limit, and the per-webhook budget of 2,500,000', async () => {
    const big = { ...pod, items: Array.from({ length: 1500 }, (_, i) => i) };
    const runaway = 'object.items.all(a, object.items.all(b, a + b >= 0))';
    await expect(match([runaway], { object: big })).resolves.toEqual({
      error: `expression '${runaway}' resulted in error: operation cancelled: actual cost limit exceeded`,
      name: 'c0',
    });
    // Each of these costs about 900,000 (five units per element), under the per-call limit;
    // three of them exceed the budget, which fails the match even though a later one is false.
    const items = Array.from({ length: 180_000 }, (_, i) => i);
    const heavy = 'object.items.all(a, a >= 0)';
    await expect(match([heavy], { object: { items } })).resolves.toEqual({ match: true });
    await expect(match([heavy, heavy, 'false'], { object: { items } })).resolves.toEqual({ match: false, name: 'c2' });
    await expect(match([heavy, heavy, heavy, 'false'], { object: { items } })).resolves.toEqual({ error: MATCH_CONDITIONS_OUT_OF_BUDGET, name: 'c2' });
  });
});

describe('the authorizer library', () => {
  const asked: AdmissionAuthorizerCheck[] = [];
  const authorize = async (check: AdmissionAuthorizerCheck) => {
    asked.push(check);
    if (check.resource === 'boom') throw new Error('webhook authorizer failed');
    const allowed = (check.path === '/healthz' && check.verb === 'get') || (check.resource === 'pods' && check.verb !== 'delete') || check.serviceAccount?.name === 'builder';
    return { decision: allowed ? ('allow' as const) : ('no-opinion' as const), reason: allowed ? 'rbac says yes' : 'nobody said yes' };
  };
  beforeEach(() => (asked.length = 0));

  it('checks are answered by the caller, for the request resource or any resource, path or service account', async () => {
    await expect(match(["authorizer.requestResource.check('create').allowed()"], { authorize })).resolves.toEqual({ match: true });
    expect(asked).toEqual([{ group: '', resource: 'pods', subresource: '', namespace: 'team-a', name: 'web', verb: 'create' }]);
    await expect(match(["authorizer.requestResource.check('delete').allowed()"], { authorize })).resolves.toEqual({ match: false, name: 'c0' });
    await expect(match(["authorizer.path('/healthz').check('get').reason() == 'rbac says yes'"], { authorize })).resolves.toEqual({ match: true });
    await expect(
      match(["authorizer.serviceAccount('ci', 'builder').group('apps').resource('deployments').subresource('scale').namespace('ci').name('d').check('update').allowed()"], {
        authorize,
      }),
    ).resolves.toEqual({ match: true });
    expect(asked.at(-1)).toEqual({ group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ci', name: 'd', verb: 'update', serviceAccount: { namespace: 'ci', name: 'builder' } });
  });

  it('two checks in one expression, the second depending on the first, and answers shared between conditions', async () => {
    const both = "authorizer.requestResource.check('create').allowed() && authorizer.group('').resource('secrets').check('get').allowed()";
    await expect(match([both, "authorizer.requestResource.check('create').allowed()"], { authorize })).resolves.toEqual({ match: false, name: 'c0' });
    expect(asked.map((c) => `${c.resource}/${c.verb}`)).toEqual(['pods/create', 'secrets/get']);
  });

  it('a failing authorizer is a decision that errored; without an authorizer every check errors', async () => {
    await expect(
      match(["authorizer.group('').resource('boom').check('get').errored() && authorizer.group('').resource('boom').check('get').error() == 'webhook authorizer failed'"], { authorize }),
    ).resolves.toEqual({ match: true });
    await expect(match(["authorizer.requestResource.check('get').errored()"])).resolves.toEqual({ match: true });
  });

  it('kube\'s argument checks and cost: an empty path or resource, a bad service account, three checks', async () => {
    await expect(match(["authorizer.path(' ').check('get').allowed()"], { authorize })).resolves.toEqual({
      error: "expression 'authorizer.path(' ').check('get').allowed()' resulted in error: path must not be empty",
      name: 'c0',
    });
    await expect(match(["authorizer.group('').resource('').check('get').allowed()"], { authorize })).resolves.toMatchObject({
      error: expect.stringContaining('resource must not be empty'),
    });
    await expect(match(["authorizer.serviceAccount('Bad NS', 'x').path('/').check('get').allowed()"], { authorize })).resolves.toMatchObject({
      error: expect.stringContaining('Invalid service account namespace'),
    });
    const three = ['create', 'get', 'list'].map((v) => `authorizer.requestResource.check('${v}').allowed()`).join(' && ');
    await expect(match([three], { authorize })).resolves.toMatchObject({ error: expect.stringContaining('operation cancelled: actual cost limit exceeded') });
  });
});
