/** Server-side apply: field paths and sets, FieldsV1, managed fields, merge and conflicts. */
export * from './json-value';
export * from './path-element';
export * from './field-set';
export * from './fields-v1';
export * from './apply-type';
export { fieldSetOf, fieldSetOfValue, ensureNamedFieldsAreMembers } from './field-set-of';
export { compareObjects, excludeFields, isSame, type Comparison } from './compare-objects';
export { mergeValues } from './merge-objects';
export { removeItems } from './remove-items';
export { validateValue, typeErrorsMessage, type TypeError as ApplyTypeError } from './validate-config';
export * from './updater';
export * from './managed-fields';
export * from './conflict-error';
export * from './last-applied';
export * from './field-manager';
export { zeroValue } from './zero-value';
