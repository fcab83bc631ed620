/** Field sets, managedFields and apply over values nested up to 10000 levels. */
import { ManagedFieldsEntry, cloneJson } from '../../../src/api';
import { FieldsV1Error, MAX_FIELDS_V1_DEPTH, apply, decodeManagedFields, encodeManagedFields, fieldsV1ToFieldSet, update } from '../../../src/apply';
import { kinds, resolve, schemaOf, types } from './schemas';

const chain = (d: number): Record<string, unknown> => JSON.parse('{"f:a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1)) as Record<string, unknown>;
const entry = (fieldsV1: unknown): ManagedFieldsEntry => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: fieldsV1 as Record<string, unknown> });
const ctx = { schema: schemaOf(kinds.ConfigMap), resolve, types, apiVersion: 'v1', time: '2024-01-01T00:00:00Z' };

describe('fieldsV1 nesting', () => {
  test(`up to ${MAX_FIELDS_V1_DEPTH} levels is read and written back unchanged`, () => {
    const f = chain(MAX_FIELDS_V1_DEPTH);
    const m = decodeManagedFields([entry(f)]);
    expect(encodeManagedFields(m)?.[0]?.fieldsV1).toEqual(f);
  });

  test.each([MAX_FIELDS_V1_DEPTH + 1, 9996, 100000])('%i levels is unreadable (as kube treats fieldsV1 it cannot decode)', (d) => {
    expect(() => fieldsV1ToFieldSet(chain(d))).toThrow(FieldsV1Error);
    expect(() => fieldsV1ToFieldSet('['.repeat(d) + ']'.repeat(d))).toThrow(FieldsV1Error);
  });

  test('a v: key holding deeply nested JSON is unreadable, not a crash', () => {
    expect(() => fieldsV1ToFieldSet({ [`v:${'['.repeat(9000)}${']'.repeat(9000)}`]: {} })).toThrow(FieldsV1Error);
  });

  test('an update whose managedFields are too deep keeps the live ones', () => {
    const live = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } };
    const first = update({ ...ctx, live: null, updated: cloneJson(live), manager: 'first' });
    const stored = first.object;
    const updated = cloneJson(stored);
    updated.metadata.managedFields = [entry(chain(9996))];
    const r = update({ ...ctx, live: stored, updated, manager: 'second' });
    expect(r.managedFields?.map((e) => e.manager)).toEqual(['first']);
  });
});

describe('apply configurations nested 10000 levels', () => {
  const deep = (d: number): unknown => JSON.parse('{"a":'.repeat(d) + '1' + '}'.repeat(d));
  test('deep in an undeclared field: kube\'s typed-patch error, no overflow', () => {
    expect(() => apply({ ...ctx, live: null, config: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, zz: deep(9998) }, manager: 'm', force: false })).toThrow(
      'field not declared in schema',
    );
  });
  test('deep in data: a type error, no overflow', () => {
    expect(() => apply({ ...ctx, live: null, config: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: deep(9998) }, manager: 'm', force: false })).toThrow(
      'failed to create typed patch object',
    );
  });
});
