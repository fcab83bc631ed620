/** The empty object a create is compared with: built once per kind, frozen, equal to a fresh one. */
import { sharedZeroValue, zeroValue } from '../../../src/apply/zero-value';
import { typeOf } from './schemas';

test.each(['Secret', 'ResourceQuota', 'Widget'] as const)('%s: the shared zero value is the fresh one, frozen all the way down, and made once', (kind) => {
  const type = typeOf(kind);
  const shared = sharedZeroValue(type);
  expect(shared).toEqual(zeroValue(type));
  expect(sharedZeroValue(typeOf(kind))).toBe(shared);
  const frozen = (v: unknown): boolean => typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(frozen));
  expect(frozen(shared)).toBe(true);
});
