/**
 * Marks a list's items array as holding shared, immutable values (the watch cache hands the same
 * object to every reader), so encoders may memoise per item. A mark on the array, invisible to
 * JSON and to iteration; arrays built anywhere else are unmarked and get encoded afresh.
 */
const sharedItemsMark = Symbol('sharedItems');

/** Marks `items` (in place) as shared immutable values; returns the same array. */
export function markSharedItems<T>(items: T[]): T[] {
  Object.defineProperty(items, sharedItemsMark, { value: true, enumerable: false });
  return items;
}

/** True only for an array marked by {@link markSharedItems}. */
export function hasSharedItems(items: readonly unknown[]): boolean {
  return (items as unknown as Record<symbol, unknown>)[sharedItemsMark] === true;
}
