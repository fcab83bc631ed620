/** Admission webhook rules (kube's predicates/rules): operations, groups, versions, resources with subresources, scope; the exempt kinds. */
import { isExemptAdmissionConfigurationResource, ruleMatches, type RuleTarget } from '../../../src/admission/plugins/webhook/rules';

const target = (over: Partial<RuleTarget> = {}): RuleTarget => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'configmaps',
  subresource: '',
  namespace: 'ns',
  ...over,
});
const rule = (over: Record<string, unknown> = {}) => ({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*', ...over });

test.each([
  ['exact', rule(), target(), true],
  ['another operation', rule(), target({ operation: 'UPDATE' }), false],
  ['operation *', rule({ operations: ['*'] }), target({ operation: 'DELETE' }), true],
  ['another group', rule({ apiGroups: ['apps'] }), target(), false],
  ['group *', rule({ apiGroups: ['*'] }), target({ group: 'apps' }), true],
  ['another version', rule({ apiVersions: ['v2'] }), target(), false],
  ['resource *', rule({ resources: ['*'] }), target({ resource: 'secrets' }), true],
  ['resource * is not a subresource', rule({ resources: ['*'] }), target({ subresource: 'status' }), false],
  ['*/* covers subresources', rule({ resources: ['*/*'] }), target({ resource: 'pods', subresource: 'status' }), true],
  ['*/* covers main resources too', rule({ resources: ['*/*'] }), target(), true],
  ['x/* covers that resource’s subresources only', rule({ resources: ['pods/*'] }), target({ resource: 'pods', subresource: 'status' }), true],
  ['x/* another resource', rule({ resources: ['pods/*'] }), target({ resource: 'secrets', subresource: 'status' }), false],
  ['*/status', rule({ resources: ['*/status'] }), target({ resource: 'pods', subresource: 'status' }), true],
  ['*/status is not another subresource', rule({ resources: ['*/status'] }), target({ resource: 'pods', subresource: 'log' }), false],
  ['no operations', rule({ operations: null }), target(), false],
  ['Namespaced scope, namespaced object', rule({ scope: 'Namespaced' }), target(), true],
  ['Namespaced scope, cluster object', rule({ scope: 'Namespaced', resources: ['*'] }), target({ resource: 'clusterroles', namespace: '' }), false],
  ['Cluster scope, cluster object', rule({ scope: 'Cluster', apiGroups: ['*'], resources: ['*'] }), target({ resource: 'clusterroles', namespace: '' }), true],
  ['Cluster scope, namespaced object', rule({ scope: 'Cluster' }), target(), false],
  ['a Namespace is cluster-scoped whatever namespace it names', rule({ scope: 'Cluster', resources: ['namespaces'] }), target({ resource: 'namespaces', namespace: 'ns' }), true],
  ['and never Namespaced', rule({ scope: 'Namespaced', resources: ['namespaces'] }), target({ resource: 'namespaces', namespace: 'ns' }), false],
  ['scope unset is *', rule({ scope: undefined }), target(), true],
  ['an unknown scope matches nothing', rule({ scope: 'Galaxy' }), target(), false],
])('%s', (_name, r, t, expected) => {
  expect(ruleMatches(r, t)).toBe(expected);
});

test('the admission configuration kinds are exempt, nothing else', () => {
  for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']) {
    expect(isExemptAdmissionConfigurationResource('admissionregistration.k8s.io', kind)).toBe(true);
  }
  expect(isExemptAdmissionConfigurationResource('', 'MutatingWebhookConfiguration')).toBe(false);
  expect(isExemptAdmissionConfigurationResource('admissionregistration.k8s.io', 'ConfigMap')).toBe(false);
});
