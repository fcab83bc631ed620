import { FieldPath as ErrorPath, ManagedFieldsEntry } from '../../../src/api';
import {
  FieldSet,
  ManagedFieldsError,
  apply,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetRequest,
  managerIdentity,
  pathOf,
  printManager,
  validateManagedFields,
} from '../../../src/apply';
import { kinds, resolve, schemaOf, types } from './schemas';

const entry = (e: Partial<ManagedFieldsEntry>): ManagedFieldsEntry => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {}, ...e });

describe('manager identity (BuildManagerIdentifier)', () => {
  it('drops apiVersion for Apply and keeps the subresource', () => {
    expect(managerIdentity({ manager: 'm', operation: 'Apply', apiVersion: 'v1' })).toBe('{"manager":"m","operation":"Apply"}');
    expect(managerIdentity({ manager: 'm', operation: 'Update', apiVersion: 'v1', subresource: 'status' })).toBe(
      '{"manager":"m","operation":"Update","apiVersion":"v1","subresource":"status"}',
    );
  });
  it('answers each input its own identity when the same inputs repeat or alternate (the last one is kept)', () => {
    const inputs = [
      { manager: 'm', operation: 'Update' as const, apiVersion: 'v1' },
      { manager: 'm', operation: 'Update' as const, apiVersion: 'v1' },
      { manager: 'm', operation: 'Update' as const, apiVersion: 'v2' },
      { manager: 'm', operation: 'Update' as const, apiVersion: 'v2', subresource: 'status' },
      { manager: 'n', operation: 'Update' as const, apiVersion: 'v2', subresource: 'status' },
      { manager: 'n', operation: 'Apply' as const, apiVersion: 'v2', subresource: 'status' },
      { manager: 'm', operation: 'Update' as const, apiVersion: 'v1' },
    ];
    expect(inputs.map((i) => managerIdentity(i))).toEqual([
      '{"manager":"m","operation":"Update","apiVersion":"v1"}',
      '{"manager":"m","operation":"Update","apiVersion":"v1"}',
      '{"manager":"m","operation":"Update","apiVersion":"v2"}',
      '{"manager":"m","operation":"Update","apiVersion":"v2","subresource":"status"}',
      '{"manager":"n","operation":"Update","apiVersion":"v2","subresource":"status"}',
      '{"manager":"n","operation":"Apply","subresource":"status"}',
      '{"manager":"m","operation":"Update","apiVersion":"v1"}',
    ]);
  });
  it.each([
    ['{"manager":"m","operation":"Apply"}', '"m"'],
    ['{"manager":"m","operation":"Update","apiVersion":"v1"}', '"m" using v1'],
    ['{"manager":"m","operation":"Update","apiVersion":"v1","subresource":"status"}', '"m" with subresource "status" using v1'],
  ])('prints %s as %s', (id, text) => expect(printManager(id)).toBe(text));
});

describe('decodeManagedFields', () => {
  it.each([
    [entry({ operation: 'Patch' as 'Update' }), 'operation must be `Apply` or `Update`'],
    [entry({ apiVersion: '' }), 'apiVersion must not be empty'],
    [entry({ fieldsType: '' }), 'missing fieldsType in managed fields entry 0'],
    [entry({ fieldsType: 'FieldsV2' }), 'invalid fieldsType "FieldsV2" in managed fields entry 0'],
    [entry({ fieldsV1: { ab: {} } }), 'error decoding set: parsing key as path element: missing colon: ab'],
  ])('%j', (e, message) => {
    expect(() => decodeManagedFields([e])).toThrow(ManagedFieldsError);
    expect(() => decodeManagedFields([e])).toThrow(message);
  });

  it('round-trips and sorts: Apply before Update, then time, manager, apiVersion, subresource', () => {
    const entries = [
      entry({ manager: 'b', time: '2024-01-01T00:00:02Z', fieldsV1: { 'f:data': { 'f:x': {} } } }),
      entry({ manager: 'a', time: '2024-01-01T00:00:02Z', fieldsV1: { 'f:data': { 'f:y': {} } } }),
      entry({ manager: 'z', operation: 'Apply', time: '2024-01-01T00:00:09Z', fieldsV1: { 'f:data': { 'f:z': {} } } }),
      entry({ manager: 'c', time: '2024-01-01T00:00:01Z', fieldsV1: { 'f:data': { 'f:w': {} } }, subresource: 'status' }),
    ];
    expect(encodeManagedFields(decodeManagedFields(entries))?.map((e) => e.manager)).toEqual(['z', 'c', 'a', 'b']);
  });

  it('drops nothing but empty input: no entries encode as undefined', () => {
    expect(encodeManagedFields(decodeManagedFields([]))).toBeUndefined();
  });
});

describe('capUpdateManagers', () => {
  it('merges the oldest Update entries beyond 10 into ancient-changes, per apiVersion', () => {
    const entries = Array.from({ length: 12 }, (_, i) =>
      entry({ manager: `m${String(i).padStart(2, '0')}`, time: `2024-01-01T00:00:${String(10 + i)}Z`, fieldsV1: { [`f:k${i}`]: {} } }),
    );
    const out = encodeManagedFields(capUpdateManagers(decodeManagedFields(entries))) ?? [];
    expect(out).toHaveLength(10);
    const ancient = out.find((e) => e.manager === 'ancient-changes');
    expect(ancient).toMatchObject({ operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:12Z' });
    expect(JSON.stringify(ancient?.fieldsV1)).toBe('{"f:k0":{},"f:k1":{},"f:k2":{}}');
  });
});

describe('isResetRequest', () => {
  it.each([
    [[{}], true],
    [[], false],
    [undefined, false],
    [[{ manager: 'x' }], false],
    [[{}, {}], false],
  ])('%j → %s', (mf, expected) => expect(isResetRequest(mf)).toBe(expected));
});

describe('validateManagedFields (metav1 validation)', () => {
  it('reports operation, fieldsType and manager problems', () => {
    const errs = validateManagedFields(
      [entry({ operation: '' as 'Update', fieldsType: 'X', manager: 'x'.repeat(129) })],
      ErrorPath.root('metadata').child('managedFields'),
    );
    expect(errs.map((e) => [e.type, e.field])).toEqual([
      ['FieldValueInvalid', 'metadata.managedFields[0].operation'],
      ['FieldValueInvalid', 'metadata.managedFields[0].fieldsType'],
      ['FieldValueTooLong', 'metadata.managedFields[0].manager'],
    ]);
  });
});

describe('kubectl takes over fields its client-side apply set (lastAppliedManager)', () => {
  const ctx = { schema: schemaOf(kinds.ConfigMap), resolve, types, apiVersion: 'v1', time: '2024-01-01T00:00:00Z' };
  const lastApplied = '{"apiVersion":"v1","data":{"key":"a"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"d"}}\n';
  const live = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'd',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      managedFields: [entry({ manager: 'kubectl-client-side-apply', fieldsV1: { 'f:data': { '.': {}, 'f:key': {} } } })],
    },
    data: { key: 'a' },
  };
  const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd' }, data: { key: 'b' } };

  it('without conflict for manager "kubectl", and rewrites the annotation', () => {
    const r = apply({ ...ctx, live, config, manager: 'kubectl', force: false });
    expect(r.object.data).toEqual({ key: 'b' });
    expect(r.object.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBe(
      '{"apiVersion":"v1","data":{"key":"b"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"d"}}\n',
    );
    expect(r.managedFields?.map((e) => e.manager)).toEqual(['kubectl', 'kubectl-client-side-apply']);
  });

  it('other managers still conflict', () => {
    expect(() => apply({ ...ctx, live, config, manager: 'other', force: false })).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key',
    );
  });

  it('a kind mismatch is a bad request', () => {
    expect(() => apply({ ...ctx, live, config: { ...config, kind: 'Secret' }, manager: 'm', force: false, kind: 'ConfigMap' })).toThrow(
      'invalid object type: /v1, Kind=Secret',
    );
  });
});

describe('reset fields', () => {
  it('are neither owned nor conflicting', () => {
    const ctx = { schema: schemaOf(kinds.ResourceQuota), resolve, types, apiVersion: 'v1', time: '2024-01-01T00:00:00Z', resetFields: FieldSet.of(pathOf('status')) };
    const r = apply({ ...ctx, live: null, config: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '1' } }, status: { used: { pods: '1' } } }, manager: 'm', force: false });
    expect(JSON.stringify(r.managedFields?.[0]?.fieldsV1)).toBe('{"f:spec":{"f:hard":{"f:pods":{}}}}');
  });
});
