import { fieldErrorString } from '../../../src/api/field-errors';
import {
  ObjectMetaValidationOptions,
  goTimeString,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../../../src/api/object-meta-validation';
import { ObjectMeta } from '../../../src/api/types';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const ns: ObjectMetaValidationOptions = { namespaced: true, nameValidation: 'subdomain' };
const cluster: ObjectMetaValidationOptions = { namespaced: false, nameValidation: 'label' };
const render = (m: ObjectMeta, o: ObjectMetaValidationOptions = ns): string[] => validateObjectMeta(m, o).map(fieldErrorString);

describe('validateObjectMeta (create)', () => {
  test('valid metadata', () => {
    expect(render({ name: 'a.b-c', namespace: 'default', labels: { app: 'x' }, annotations: { 'a.io/b': 'c' } })).toEqual([]);
    // kube generates the name before validating, so a generateName alone still lacks a name.
    expect(render({ generateName: 'prefix-', name: 'prefix-x7k2p', namespace: 'ns' })).toEqual([]);
    expect(render({ generateName: 'prefix-', namespace: 'ns' })).toEqual([
      'metadata.name: Required value: name or generateName is required',
    ]);
    expect(render({ name: 'team-a' }, cluster)).toEqual([]);
  });

  test('name or generateName required; namespace required on namespaced types', () => {
    expect(render({})).toEqual([
      'metadata.name: Required value: name or generateName is required',
      'metadata.namespace: Required value',
    ]);
  });

  test('name rules per type', () => {
    expect(render({ name: 'Bad_Name', namespace: 'ns' })).toEqual([`metadata.name: Invalid value: "Bad_Name": ${subdomainMsg}`]);
    expect(render({ name: 'a.b' }, cluster)).toEqual(['metadata.name: Invalid value: "a.b": must not contain dots']);
    expect(render({ name: 'x'.repeat(254), namespace: 'ns' })).toEqual([
      `metadata.name: Invalid value: "${'x'.repeat(254)}": must be no more than 253 characters`,
    ]);
    expect(render({ generateName: 'Bad-', namespace: 'ns', name: 'ok' })).toEqual([
      `metadata.generateName: Invalid value: "Bad-": ${subdomainMsg}`,
    ]);
  });

  test('namespace must be a DNS label; forbidden on cluster-scoped types', () => {
    expect(render({ name: 'a', namespace: 'a.b' })).toEqual(['metadata.namespace: Invalid value: "a.b": must not contain dots']);
    expect(render({ name: 'a', namespace: 'ns' }, cluster)).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
  });

  test('path-segment pass runs only after the type pass is clean', () => {
    const any = { namespaced: true, nameValidation: () => [] as string[] };
    expect(validateObjectMeta({ name: '..', namespace: 'ns' }, any).map(fieldErrorString)).toEqual([
      `metadata.name: Invalid value: "..": may not be '..'`,
    ]);
    expect(validateObjectMeta({ name: 'a/b%', generateName: 'x/', namespace: 'ns' }, any).map(fieldErrorString)).toEqual([
      `metadata.generateName: Invalid value: "x/": may not contain '/'`,
      `metadata.name: Invalid value: "a/b%": may not contain '/'`,
      `metadata.name: Invalid value: "a/b%": may not contain '%'`,
    ]);
  });

  test('generation, labels, annotations', () => {
    expect(render({ name: 'a', namespace: 'n', generation: -1 })).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
    expect(render({ name: 'a', namespace: 'n', labels: { 'a/b/c': 'v' } })[0]).toMatch(/^metadata\.labels: Invalid value: "a\/b\/c": a qualified name/);
    expect(render({ name: 'a', namespace: 'n', annotations: { k: 'v'.repeat(262144) } })).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  test('finalizers', () => {
    expect(render({ name: 'a', namespace: 'n', finalizers: ['kubernetes', 'example.com/x'] })).toEqual([]);
    expect(render({ name: 'a', namespace: 'n', finalizers: ['orphan', 'foregroundDeletion'] })).toEqual([
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
    expect(render({ name: 'a', namespace: 'n', finalizers: ['a/b/c'] })[0]).toMatch(/^metadata\.finalizers: Invalid value: "a\/b\/c": a qualified name/);
  });

  test('ownerReferences', () => {
    expect(render({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] })).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    expect(render({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'a/b/c', kind: 'K', name: 'n', uid: 'u' }] })).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
    ]);
    expect(render({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] })).toEqual([
      'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    ]);
    const two = [
      { apiVersion: 'apps/v1', kind: 'A', name: 'x', uid: '1', controller: true },
      { apiVersion: 'apps/v1', kind: 'B', name: 'y', uid: '2', controller: true },
    ];
    const errs = render({ name: 'a', namespace: 'n', ownerReferences: two });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^metadata\.ownerReferences: Invalid value: \[\]v1\.OwnerReference\{v1\.OwnerReference\{APIVersion:"apps\/v1"/);
    expect(errs[0]).toMatch(/: Only one reference can have Controller set to true\. Found "true" in references for A\/x and B\/y$/);
  });

  test('managedFields', () => {
    const errs = render({
      name: 'a',
      namespace: 'n',
      managedFields: [
        { manager: 'ok', operation: 'Apply', fieldsType: 'FieldsV1' },
        { manager: 'bad\u0007', operation: 'Patch' as 'Apply', fieldsType: 'FieldsV2', subresource: 's'.repeat(257) },
        { manager: 'm'.repeat(129), operation: 'Update' },
      ],
    });
    expect(errs).toEqual([
      'metadata.managedFields[1].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.managedFields[1].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      'metadata.managedFields[1].manager: Invalid value: "bad\\x07": invalid character U+0007 (at position 3)',
      'metadata.managedFields[1].subresource: Too long: may not be more than 256 bytes',
      'metadata.managedFields[2].manager: Too long: may not be more than 128 bytes',
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'n',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2024-05-01T10:20:30Z',
  };
  const upd = (m: ObjectMeta, o: ObjectMeta = old): string[] => validateObjectMetaUpdate(m, o).map(fieldErrorString);

  test('unchanged metadata is valid', () => {
    expect(upd({ ...old })).toEqual([]);
    expect(upd({ ...old, creationTimestamp: '2024-05-01T12:20:30+02:00' })).toEqual([]);
  });

  test('immutable fields', () => {
    expect(
      upd({ ...old, name: 'b', namespace: 'm', uid: 'u2', creationTimestamp: '2024-05-02T00:00:00Z', deletionTimestamp: '2024-05-03T00:00:00Z', deletionGracePeriodSeconds: 0 }),
    ).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "m": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: 2024-05-02 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionTimestamp: Invalid value: 2024-05-03 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 0: field is immutable',
    ]);
    const deleting = { ...old, deletionTimestamp: '2024-05-03T00:00:00Z', deletionGracePeriodSeconds: 0 };
    expect(upd({ ...old, creationTimestamp: undefined }, deleting)).toEqual([
      'metadata.creationTimestamp: Invalid value: 0001-01-01 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionTimestamp: Invalid value: null: field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: null: field is immutable',
    ]);
  });

  test('resourceVersion required, generation may not decrease', () => {
    expect(upd({ ...old, resourceVersion: '', generation: 1 })).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
  });

  test('no new finalizers while deleting', () => {
    const deleting = { ...old, deletionTimestamp: '2024-05-03T00:00:00Z', finalizers: ['a'] };
    expect(upd({ ...deleting, finalizers: ['a'] }, deleting)).toEqual([]);
    expect(upd({ ...deleting, finalizers: [] }, deleting)).toEqual([]);
    expect(upd({ ...deleting, finalizers: ['z', 'a', 'b'] }, deleting)).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "z"}',
    ]);
    expect(upd({ ...old, finalizers: ['new'] })).toEqual([]);
  });

  test('labels and annotations of the new object are validated', () => {
    expect(upd({ ...old, labels: { k: '-v' } })[0]).toMatch(/^metadata\.labels: Invalid value: "-v": a valid label/);
  });
});

test('goTimeString renders Go time.String in UTC', () => {
  expect(goTimeString('2024-05-01T10:20:30Z')).toBe('2024-05-01 10:20:30 +0000 UTC');
  expect(goTimeString('2024-05-01T10:20:30.5Z')).toBe('2024-05-01 10:20:30.5 +0000 UTC');
  expect(goTimeString(undefined)).toBeUndefined();
});
