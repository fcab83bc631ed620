/** The namespace deleter's status conditions (kube-facts §7, k/k status_condition_utils.go). */
import { namespaceConditions } from '../../../src/controllers/namespace-controller';

const okAll = [
  { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: 't0', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', lastTransitionTime: 't0', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  { type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: 't0', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  { type: 'NamespaceContentRemaining', status: 'False', lastTransitionTime: 't0', reason: 'ContentRemoved', message: 'All content successfully removed' },
  { type: 'NamespaceFinalizersRemaining', status: 'False', lastTransitionTime: 't0', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
];
const none = () => ({ remaining: new Map<string, number>(), finalizers: new Map<string, number>(), errors: [] as string[] });

test('a clean pass adds the five OK conditions', () => {
  expect(namespaceConditions(none(), [], 't0')).toEqual({ list: okAll, changed: true });
  expect(namespaceConditions(none(), okAll, 't1')).toEqual({ list: okAll, changed: false });
});

test('remaining content, finalizers and errors; lastTransitionTime moves only on a status flip', () => {
  const totals = {
    remaining: new Map([['widgets.example.com', 1], ['secrets.', 2]]),
    finalizers: new Map([['b.io/x', 1], ['a.io/y', 2]]),
    errors: ['z failed', 'a failed'],
  };
  const { list, changed } = namespaceConditions(totals, okAll, 't1');
  expect(changed).toBe(true);
  expect(list.slice(2)).toEqual([
    { type: 'NamespaceDeletionContentFailure', status: 'True', lastTransitionTime: 't1', reason: 'ContentDeletionFailed', message: 'Failed to delete all resource types, 2 remaining: a failed, z failed' },
    { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: 't1', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: secrets. has 2 resource instances, widgets.example.com has 1 resource instances' },
    { type: 'NamespaceFinalizersRemaining', status: 'True', lastTransitionTime: 't1', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: a.io/y in 2 resource instances, b.io/x in 1 resource instances' },
  ]);
  const again = namespaceConditions({ ...totals, remaining: new Map([['secrets.', 1]]) }, list, 't2');
  expect(again.list[3]).toEqual({ ...list[3], message: 'Some resources are remaining: secrets. has 1 resource instances' });
});
