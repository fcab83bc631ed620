/** matchConditions CEL: kube's `request` variable, the static checks, and CELMatcher's evaluation rules. */
import { compileMatchCondition, evaluateMatchConditions, type SubjectAccessReviewSpec } from '../../../src/api/authorization-cel';
import { compileError as celCompileError } from '../../support/cel';

const compileError = (expr: string): string => celCompileError(expr, compileMatchCondition);

const resource: SubjectAccessReviewSpec = {
  resourceAttributes: { namespace: 'team-a', verb: 'get', version: 'v1', resource: 'configmaps', name: 'cm' },
  user: 'alice',
  groups: ['devs', 'system:authenticated'],
  extra: { 'example.com/scope': ['read'] },
  uid: 'u1',
};
const nonResource: SubjectAccessReviewSpec = { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'bob' };

const run = (spec: SubjectAccessReviewSpec, ...exprs: string[]) => evaluateMatchConditions(exprs.map(compileMatchCondition), spec);

describe('compileMatchCondition', () => {
  it.each([
    'has(request.resourceAttributes)',
    "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'",
    "'devs' in request.groups",
    'request.groups.exists(g, g.startsWith("sys"))',
    "request.extra['example.com/scope'].exists(s, s == 'read')",
    'size(request.groups) > 1',
    'request.user != "" ? true : false',
    'request.resourceAttributes.fieldSelector.requirements.all(r, r.key != "")',
    "request.uid.matches('^u[0-9]+$')",
  ])('compiles %s', (expr) => {
    expect(compileMatchCondition(expr).expression).toBe(expr);
  });

  it('refuses what kube\'s type checker refuses: unknown fields, non-bool results', () => {
    expect(compileError('request.resourceAttributes.nmespace == "x"')).toBe(
      "compilation failed: ERROR: <input>:1:27: undefined field 'nmespace'\n | request.resourceAttributes.nmespace == \"x\"\n | ..........................^",
    );
    expect(compileError('request.user')).toBe('must evaluate to bool but got string');
    expect(compileError('request.extra')).toBe('must evaluate to bool but got map(string, list(string))');
    expect(compileError('request.resourceAttributes')).toBe('must evaluate to bool but got kubernetes.ResourceAttributes');
    expect(compileError('size(request.groups)')).toBe('must evaluate to bool but got int');
    expect(compileError('user == "x"')).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'user' (in container '')\n | user == \"x\"\n | ^");
  });
});

describe('evaluateMatchConditions (kube\'s CELMatcher)', () => {
  it('no conditions, or all true: match', () => {
    expect(run(resource)).toEqual({ match: true });
    expect(run(resource, 'has(request.resourceAttributes)', "request.resourceAttributes.namespace == 'team-a'", "'devs' in request.groups", "request.extra['example.com/scope'][0] == 'read'")).toEqual({ match: true });
  });

  it('sees every string attribute, empty ones included, and groups/extra even when unset', () => {
    expect(run(resource, "request.resourceAttributes.group == ''", "request.resourceAttributes.subresource == ''")).toEqual({ match: true });
    expect(run(nonResource, 'request.groups == []', 'request.extra == {}', "request.uid == ''", "request.nonResourceAttributes.path == '/healthz'")).toEqual({ match: true });
  });

  it('a false condition: no match, whatever the others do', () => {
    expect(run(resource, "request.user == 'bob'")).toEqual({ match: false });
    // An error before a false one does not count: the false one decides.
    expect(run(nonResource, "request.resourceAttributes.namespace == 'x'", "request.user == 'nobody'")).toEqual({ match: false });
  });

  it('errors (none false): kube\'s messages, aggregated', () => {
    expect(run(nonResource, "request.resourceAttributes.namespace == 'x'")).toEqual({
      error: "cel evaluation error: expression 'request.resourceAttributes.namespace == 'x'' resulted in error: no such key: resourceAttributes",
    });
    expect(run(nonResource, "request.resourceAttributes.namespace == 'x'", "request.resourceAttributes.name == 'y'", 'true')).toEqual({
      error:
        "[cel evaluation error: expression 'request.resourceAttributes.namespace == 'x'' resulted in error: no such key: resourceAttributes, " +
        "cel evaluation error: expression 'request.resourceAttributes.name == 'y'' resulted in error: no such key: resourceAttributes]",
    });
  });
});
