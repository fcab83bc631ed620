/**
 * The quota name rules the admission plugin and the quota controller share (kube v1.32's generic
 * object-count evaluator, legacy aliases, the pod/service/PVC evaluators and DefaultIgnoredResources).
 */
import {
  countedGroupResource,
  isQuotaIgnoredResource,
  matchedByBuiltinEvaluator,
  objectCountQuotaResourceName,
  objectCountResourceNames,
} from '../../../src/api/resource-quota-names';
import { objectCountResourceNames as fromAdmission } from '../../../src/admission';

test.each([
  ['', 'secrets', ['count/secrets', 'secrets']],
  ['', 'configmaps', ['count/configmaps', 'configmaps']],
  ['', 'resourcequotas', ['count/resourcequotas', 'resourcequotas']],
  ['', 'replicationcontrollers', ['count/replicationcontrollers', 'replicationcontrollers']],
  ['', 'pods', ['count/pods']],
  ['apps', 'deployments', ['count/deployments.apps']],
  ['example.com', 'widgets', ['count/widgets.example.com']],
  // An alias exists only in the core group.
  ['example.com', 'secrets', ['count/secrets.example.com']],
])('objectCountResourceNames(%j, %s)', (group, resource, names) => {
  expect(objectCountResourceNames(group, resource)).toEqual(names);
  expect(objectCountQuotaResourceName(group, resource)).toBe(names[0]);
  // Every name one object consumes maps back to its (group, resource).
  for (const n of names) expect(countedGroupResource(n)).toEqual({ group, resource });
});

test('the admission plugin uses the shared rule', () => {
  expect(fromAdmission).toBe(objectCountResourceNames);
});

test.each([
  ['count/secrets', { group: '', resource: 'secrets' }],
  ['count/widgets.stable.example.com', { group: 'stable.example.com', resource: 'widgets' }],
  ['secrets', { group: '', resource: 'secrets' }],
  ['pods', undefined],
  ['services', undefined],
  ['requests.cpu', undefined],
  ['countsecrets', undefined],
])('countedGroupResource(%s)', (name, expected) => {
  expect(countedGroupResource(name)).toEqual(expected);
});

test.each([
  // pod evaluator
  ['pods', true],
  ['count/pods', true],
  ['cpu', true],
  ['requests.memory', true],
  ['limits.ephemeral-storage', true],
  ['hugepages-2Mi', true],
  ['requests.hugepages-1Gi', true],
  ['requests.example.com/gpu', true],
  ['requests.kubernetes.io/foo', false],
  ['limits.example.com/gpu', false],
  // service evaluator
  ['services', true],
  ['count/services', true],
  ['services.nodeports', true],
  ['services.loadbalancers', true],
  // PVC evaluator, also per storage class
  ['persistentvolumeclaims', true],
  ['count/persistentvolumeclaims', true],
  ['requests.storage', true],
  ['gold.storageclass.storage.k8s.io/requests.storage', true],
  ['gold.storageclass.storage.k8s.io/persistentvolumeclaims', true],
  ['gold.storageclass.storage.k8s.io/limits.storage', false],
  // the legacy replicationcontrollers count is always registered
  ['replicationcontrollers', true],
  ['count/replicationcontrollers', true],
  // object counts of other kinds depend on what is served
  ['secrets', true],
  ['count/widgets.example.com', false],
  ['count/events', false],
  ['storage', false],
])('matchedByBuiltinEvaluator(%s) = %s', (name, expected) => {
  expect(matchedByBuiltinEvaluator(name)).toBe(expected);
});

test.each([
  ['', 'events', true],
  ['events.k8s.io', 'events', true],
  ['', 'bindings', true],
  ['authorization.k8s.io', 'selfsubjectaccessreviews', true],
  ['authentication.k8s.io', 'tokenreviews', true],
  ['', 'secrets', false],
  ['example.com', 'events', false],
])('isQuotaIgnoredResource(%j, %s) = %s', (group, resource, expected) => {
  expect(isQuotaIgnoredResource(group, resource)).toBe(expected);
});
