/** --runtime-config resolved as kube-apiserver 1.32 resolves it: keys, precedence, defaults, messages. */
import { resolveRuntimeConfig, RuntimeConfigError } from '../../../src/registry/runtime-config';
import { builtinResources } from '../../../src/registry/resources';
import type { ResourceDefinition } from '../../../src/registry/resource';

const base = builtinResources.find((d) => d.resource === 'configmaps')!;
const gvr = (group: string, version: string, resource: string): ResourceDefinition => ({ ...base, group, version, resource });
const defs = [
  gvr('', 'v1', 'configmaps'),
  gvr('', 'v1', 'secrets'),
  gvr('example.com', 'v1', 'widgets'),
  gvr('example.com', 'v1beta1', 'widgets'),
  gvr('example.com', 'v2alpha1', 'gadgets'),
];

function served(pairs: Record<string, string>): string[] {
  const config = resolveRuntimeConfig(new Map(Object.entries(pairs)), defs);
  return defs.filter((d) => config.enabled(d)).map((d) => `${d.group}/${d.version}/${d.resource}`);
}

const refused = (pairs: Record<string, string>) => () => resolveRuntimeConfig(new Map(Object.entries(pairs)), defs);

test('by default GA versions are served, beta and alpha ones are not', () => {
  expect(served({})).toEqual(['/v1/configmaps', '/v1/secrets', 'example.com/v1/widgets']);
});

test('the matchers: api/all, api/ga, api/beta, api/alpha', () => {
  expect(served({ 'api/all': 'true' })).toHaveLength(5);
  expect(served({ 'api/beta': 'true' })).toContain('example.com/v1beta1/widgets');
  expect(served({ 'api/alpha': 'true', 'api/ga': 'false' })).toEqual(['example.com/v2alpha1/gadgets']);
  expect(served({ 'api/all': 'false', 'api/ga': 'true' })).toEqual(['/v1/configmaps', '/v1/secrets', 'example.com/v1/widgets']);
});

test('the core group by v1 or api/v1; kube turns v1/<resource> and api/v1/<resource> into the whole core group; api/legacy is ignored', () => {
  expect(served({ v1: 'false' })).toEqual(['example.com/v1/widgets']);
  expect(served({ 'api/v1': 'false' })).toEqual(['example.com/v1/widgets']);
  expect(served({ 'v1/configmaps': 'false' })).toEqual(['example.com/v1/widgets']);
  expect(served({ 'api/v1/secrets': 'false', 'api/legacy': 'false' })).toEqual(['example.com/v1/widgets']);
  expect(served({ 'api/all': 'false', 'v1/secrets': 'true' })).toEqual(['/v1/configmaps', '/v1/secrets']);
  expect(refused({ 'v1/Secrets': 'x' })).toThrow('invalid value of /v1: x, err: strconv.ParseBool: parsing "x": invalid syntax');
});

test("a version's setting beats a matcher's, a resource's beats its version's; a bare key means true", () => {
  expect(served({ 'api/all': 'false', 'example.com/v1beta1': '' })).toEqual(['example.com/v1beta1/widgets']);
  expect(served({ 'api/all': 'false', 'example.com/v1': 'true', 'example.com/v1/widgets': 'false' })).toEqual([]);
  expect(served({ 'example.com/v1': 'false', 'example.com/v1/widgets': 'true' })).toContain('example.com/v1/widgets');
  expect(served({ 'example.com/v2alpha1/gadgets': 'true' })).toContain('example.com/v2alpha1/gadgets');
});

test("groups kube has built in but this server does not serve are accepted and change nothing", () => {
  expect(served({ 'apps/v1': 'false', 'batch/v1/jobs': 'true', 'rbac.authorization.k8s.io/v1alpha1': 'true', 'admission.k8s.io/v1': '' })).toEqual(served({}));
});

test("kube's refusals, word for word", () => {
  expect(refused({ 'api/all': 'false' })).toThrow(new RuntimeConfigError('invalid key with only api/all=false'));
  expect(refused({ 'api/all': '' })).toThrow('invalid value api/all=');
  expect(refused({ 'api/beta': 'yes' })).toThrow('invalid value api/beta=yes');
  expect(refused({ 'foo.io/v1': 'true' })).toThrow('unknown api groups foo.io');
  expect(refused({ 'a/b/c/d': 'true' })).toThrow('runtime-config invalid key a/b/c/d');
  expect(refused({ secrets: 'false' })).toThrow('runtime-config invalid key secrets');
  expect(refused({ 'example.com/v3': 'true' })).toThrow('group version example.com/v3 that has not been registered');
  expect(refused({ v2: 'true' })).toThrow('runtime-config invalid key v2');
  expect(refused({ 'api/v2': 'true' })).toThrow('unknown api groups api');
  expect(refused({ '/v2': 'true' })).toThrow('group version v2 that has not been registered');
  expect(refused({ 'example.com/v1/Widgets': 'false' })).toThrow('invalid key example.com/v1/Widgets: group/version/resource and resource is always lowercase plural, not "Widgets"');
  expect(refused({ 'batch/v1': 'maybe' })).toThrow('invalid value of batch/v1: maybe, err: strconv.ParseBool');
  expect(refused({ 'example.com/v1': 'maybe' })).toThrow('invalid value of example.com/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
});
