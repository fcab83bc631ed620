import { ApiError } from '../../../../src/api';
import { SchemaRegistry } from '../../../../src/registry/schema';

const SECRET = 'io.k8s.api.core.v1.Secret';
const CONFIGMAP = 'io.k8s.api.core.v1.ConfigMap';
const NAMESPACE = 'io.k8s.api.core.v1.Namespace';
const QUOTA = 'io.k8s.api.core.v1.ResourceQuota';

let reg: SchemaRegistry;
beforeAll(async () => {
  reg = await SchemaRegistry.load();
});

function decodeError(schema: string, body: unknown): ApiError {
  try {
    reg.decode(schema, body);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected decode to fail');
}

const prefix = (kind: string) => `${kind} in version "v1" cannot be handled as a ${kind}: `;
const QUANTITY_RE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

describe('decode type errors (encoding/json UnmarshalTypeError text, kube 400 wrapping)', () => {
  const cases: [string, string, unknown, string][] = [
    ['label value not a string', SECRET, { metadata: { name: 's', labels: { a: 1 } } },
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
    ['labels not a map', SECRET, { metadata: { labels: ['a'] } },
      'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string'],
    ['data not a map', SECRET, { metadata: {}, data: 'x' },
      'json: cannot unmarshal string into Go struct field Secret.data of type map[string][]uint8'],
    ['data value a number', SECRET, { metadata: {}, data: { a: 5 } },
      'json: cannot unmarshal number into Go struct field Secret.data of type []uint8'],
    ['stringData value a bool', SECRET, { metadata: {}, stringData: { a: true } },
      'json: cannot unmarshal bool into Go struct field Secret.stringData of type string'],
    ['immutable a string', SECRET, { metadata: {}, immutable: 'yes' },
      'json: cannot unmarshal string into Go struct field Secret.immutable of type bool'],
    ['type a number (named Go type)', SECRET, { metadata: {}, type: 5 },
      'json: cannot unmarshal number into Go struct field Secret.type of type v1.SecretType'],
    ['metadata a string', SECRET, { metadata: 'x' },
      'json: cannot unmarshal string into Go struct field Secret.metadata of type v1.ObjectMeta'],
    ['kind a number (TypeMeta is inline)', SECRET, { kind: 1, metadata: {} },
      'json: cannot unmarshal number into Go struct field Secret.kind of type string'],
    ['generation not an integer', SECRET, { metadata: { generation: 1.5 } },
      'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64'],
    ['finalizer element a number', SECRET, { metadata: { finalizers: [1] } },
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string'],
    ['owner reference field in a list element', SECRET, { metadata: { ownerReferences: [{ name: 5 }] } },
      'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.name of type string'],
    ['owner reference element not an object', SECRET, { metadata: { ownerReferences: ['x'] } },
      'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference'],
    ['namespace finalizers element', NAMESPACE, { metadata: {}, spec: { finalizers: [true] } },
      'json: cannot unmarshal bool into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName'],
    ['namespace spec an array', NAMESPACE, { metadata: {}, spec: [] },
      'json: cannot unmarshal array into Go struct field Namespace.spec of type v1.NamespaceSpec'],
    ['quota scopes not a list', QUOTA, { metadata: {}, spec: { scopes: 'BestEffort' } },
      'json: cannot unmarshal string into Go struct field ResourceQuotaSpec.spec.scopes of type []v1.ResourceQuotaScope'],
    ['quota hard not a map', QUOTA, { metadata: {}, spec: { hard: [] } },
      'json: cannot unmarshal array into Go struct field ResourceQuotaSpec.spec.hard of type v1.ResourceList'],
    ['scope selector requirement values', QUOTA, { metadata: {}, spec: { scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'In', values: [1] }] } } },
      'json: cannot unmarshal number into Go struct field ScopedResourceSelectorRequirement.spec.scopeSelector.matchExpressions.values of type string'],
    ['configmap data value', CONFIGMAP, { metadata: {}, data: { a: 1 } },
      'json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    ['first error wins', SECRET, { metadata: { labels: { a: 1 }, annotations: { b: 2 } }, immutable: 'x' },
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
    ['type error reported even with unknown fields', SECRET, { foo: 1, metadata: { name: 5 } },
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'],
  ];
  test.each(cases)('%s', (_name, schema, body, message) => {
    const e = decodeError(schema, body);
    const kind = schema.split('.').pop() as string;
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    expect(e.status.message).toBe(prefix(kind) + message);
  });
});

describe('base64 fields (Go StdEncoding errors carry no field context)', () => {
  const cases: [string, unknown, string][] = [
    ['missing padding', { a: 'abc' }, 'illegal base64 data at input byte 0'],
    ['missing padding after a full quantum', { a: 'aGVsbG8' }, 'illegal base64 data at input byte 4'],
    ['bad character', { a: 'a!==' }, 'illegal base64 data at input byte 1'],
    ['padding too early', { a: 'a===' }, 'illegal base64 data at input byte 1'],
    ['trailing garbage', { a: 'YQ==YQ==' }, 'illegal base64 data at input byte 4'],
    ['non-ASCII counted in bytes', { a: 'YWJj\u00e9' }, 'illegal base64 data at input byte 4'],
  ];
  test.each(cases)('Secret.data %s', (_n, data, message) => {
    expect(decodeError(SECRET, { metadata: {}, data }).status.message).toBe(prefix('Secret') + message);
  });
  test('ConfigMap.binaryData is checked too', () => {
    expect(decodeError(CONFIGMAP, { metadata: {}, binaryData: { a: '!' } }).status.message).toBe(
      prefix('ConfigMap') + 'illegal base64 data at input byte 0',
    );
  });
  test('CR/LF are ignored and the value re-encoded canonically', () => {
    const r = reg.decode(SECRET, { metadata: {}, data: { a: 'aGVs\nbG8=', b: 'YR==' } });
    expect(r.object.data).toEqual({ a: 'aGVsbG8=', b: 'YQ==' });
  });
  test('canonical values pass unchanged', () => {
    const body = { metadata: {}, data: { a: 'aGVsbG8=', empty: '' } };
    expect(reg.decode(SECRET, body).object).toBe(body);
  });
});

describe('quantities', () => {
  test.each([
    ['a bool', true, QUANTITY_RE],
    ['an object', {}, QUANTITY_RE],
    ['a string off the grammar', 'abc', QUANTITY_RE],
    ['a bad suffix', '1kk', "unable to parse quantity's suffix"],
    ['an empty string', '', QUANTITY_RE],
  ])('spec.hard value %s is rejected', (_n, value, message) => {
    expect(decodeError(QUOTA, { metadata: {}, spec: { hard: { pods: value } } }).status.message).toBe(prefix('ResourceQuota') + message);
  });
  test('strings and numbers are accepted; strings are trimmed', () => {
    const r = reg.decode(QUOTA, { metadata: {}, spec: { hard: { pods: 10, 'requests.cpu': ' 1500m ', memory: '1Gi' } } });
    expect(r.object.spec).toEqual({ hard: { pods: 10, 'requests.cpu': '1500m', memory: '1Gi' } });
  });
  test('a quantity error wins over an earlier type error (UnmarshalJSON errors are returned at once)', () => {
    const e = decodeError(QUOTA, { metadata: { name: 1 }, spec: { hard: { pods: 'x' } } });
    expect(e.status.message).toBe(prefix('ResourceQuota') + QUANTITY_RE);
  });
});

describe('times', () => {
  test.each([
    ['abc', 'parsing time "abc" as "2006-01-02T15:04:05Z07:00": cannot parse "abc" as "2006"'],
    ['2024-01-01', 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    ['2024-13-01T00:00:00Z', 'parsing time "2024-13-01T00:00:00Z": month out of range'],
    ['2024-01-01T00:00:00Zjunk', 'parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"'],
  ])('creationTimestamp %s', (value, message) => {
    expect(decodeError(SECRET, { metadata: { creationTimestamp: value } }).status.message).toBe(prefix('Secret') + message);
  });
  test('a non-string time', () => {
    expect(decodeError(SECRET, { metadata: { creationTimestamp: 5 } }).status.message).toBe(
      prefix('Secret') + 'json: cannot unmarshal number into Go value of type string',
    );
  });
  test('valid times, with fraction and offset', () => {
    const body = { metadata: { creationTimestamp: '2024-02-29T10:00:00.5+02:00', deletionTimestamp: '2024-01-01T00:00:00Z' } };
    expect(reg.decode(SECRET, body).object).toBe(body);
  });
});

describe('unknown fields and pruning', () => {
  test('top-level and nested unknown fields are listed as strict paths and dropped', () => {
    const body = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q', labels: { 'any.key/x': 'v' }, bogus: 1 },
      spec: {
        x: 1,
        hard: { pods: '1' },
        scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }, { scopeName: 'Terminating', operator: 'Exists', foo: 'bar' }] },
      },
      Status: {},
    };
    const copy = JSON.parse(JSON.stringify(body)) as unknown;
    const r = reg.decode(QUOTA, body);
    expect(r.unknownFields).toEqual(['metadata.bogus', 'spec.x', 'spec.scopeSelector.matchExpressions[1].foo', 'Status']);
    expect(r.object).toEqual({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q', labels: { 'any.key/x': 'v' } },
      spec: {
        hard: { pods: '1' },
        scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }, { scopeName: 'Terminating', operator: 'Exists' }] },
      },
    });
    expect(body).toEqual(copy); // input untouched
  });
  test('Secret with a spec', () => {
    const r = reg.decode(SECRET, { metadata: { name: 's' }, spec: { a: 1 }, foo: 'x' });
    expect(r.unknownFields).toEqual(['spec', 'foo']);
    expect(r.object).toEqual({ metadata: { name: 's' } });
  });
  test('map keys are never unknown; field names are case-sensitive', () => {
    const r = reg.decode(SECRET, { metadata: { annotations: { Data: 'x' } }, Data: {}, data: { Foo: 'YQ==' } });
    expect(r.unknownFields).toEqual(['Data']);
  });
  test('opaque fieldsV1 content is kept as is', () => {
    const fieldsV1 = { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } };
    const body = { metadata: { managedFields: [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1, whatever: 1 }] } };
    const r = reg.decode(SECRET, body);
    expect(r.unknownFields).toEqual(['metadata.managedFields[0].whatever']);
    expect((r.object.metadata.managedFields?.[0] as { fieldsV1: unknown }).fieldsV1).toEqual(fieldsV1);
  });
});

describe('nulls and defaults', () => {
  test('null struct fields are dropped; null map values become zero values', () => {
    const r = reg.decode(SECRET, { metadata: { name: null, labels: { a: null } }, immutable: null, type: 'Opaque' });
    expect(r.object).toEqual({ metadata: { labels: { a: '' } }, type: 'Opaque' });
    expect(r.unknownFields).toEqual([]);
  });
  test('null quantity is zero', () => {
    expect(reg.decode(QUOTA, { metadata: {}, spec: { hard: { pods: null } } }).object.spec).toEqual({ hard: { pods: '0' } });
  });
  test('missing metadata becomes {}', () => {
    expect(reg.decode(CONFIGMAP, { data: { a: 'b' } }).object).toEqual({ metadata: {}, data: { a: 'b' } });
  });
  test('a body that is not an object', () => {
    expect(decodeError(SECRET, ['x']).status.message).toBe(prefix('Secret') + 'json: cannot unmarshal array into Go value of type v1.Secret');
  });
});

describe('fast path', () => {
  test('a clean body is returned as the same object with no unknown fields', () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n', labels: { a: 'b' }, finalizers: ['x'], ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'o', uid: 'u' }] },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active', conditions: [{ type: 'T', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }] },
    };
    const r = reg.decode(NAMESPACE, body);
    expect(r.object).toBe(body);
    expect(r.unknownFields).toEqual([]);
  });
  test('int32 overflow is caught (Status.code)', () => {
    expect(() => reg.decode('io.k8s.apimachinery.pkg.apis.meta.v1.Status', { metadata: {}, code: 3000000000 })).toThrow(
      'Status in version "v1" cannot be handled as a Status: json: cannot unmarshal number 3000000000 into Go struct field Status.code of type int32',
    );
  });
  test('decode of a schema that is not a kind is a programmer error', () => {
    expect(() => reg.decode('io.k8s.api.core.v1.NamespaceSpec', {})).toThrow(Error);
  });
});

describe('registry lookups', () => {
  test('get, resolve (#/components/schemas/ refs and bare names), gvkOf', () => {
    expect(reg.get(SECRET)?.type).toBe('object');
    expect(reg.resolve('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')).toBe(reg.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
    expect(reg.resolve('#/components/schemas/nope')).toBeUndefined();
    expect(reg.gvkOf(QUOTA)).toEqual({ group: '', kind: 'ResourceQuota', version: 'v1' });
    expect(reg.names()).toContain('io.k8s.apimachinery.pkg.api.resource.Quantity');
  });
  test('the resolver is usable where the patch module expects its SchemaResolver', () => {
    const r: import('../../../../src/patch/schema').SchemaResolver = reg.resolve;
    expect(r('#/components/schemas/' + SECRET)?.properties?.data).toBeDefined();
  });
  test('a dangling $ref or a duplicate schema is rejected at load', () => {
    expect(() => SchemaRegistry.fromDocuments([{ components: { schemas: { A: { type: 'object', properties: { b: { allOf: [{ $ref: '#/components/schemas/B' }] } } } } } }])).toThrow('unknown schema');
    const doc = { components: { schemas: { A: { type: 'string' as const } } } };
    expect(() => SchemaRegistry.fromDocuments([doc, doc])).toThrow('defined twice');
  });
  test('load fails for a missing directory', async () => {
    await expect(SchemaRegistry.load('/nonexistent-openapi-dir')).rejects.toThrow();
  });
});

describe('fast path agrees with the walk', () => {
  // Bodies the ajv fast path accepts must come back unchanged from the full walk too.
  const bodies: [string, Record<string, unknown>][] = [
    [SECRET, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', generation: 3, deletionGracePeriodSeconds: 0 }, data: { k: 'YWJj' }, stringData: { s: 'x' }, immutable: true, type: 'Opaque' }],
    [CONFIGMAP, { metadata: { name: 'c', annotations: { a: '' } }, data: { a: 'b' }, binaryData: { b: 'AAEC' } }],
    [QUOTA, { metadata: { name: 'q' }, spec: { hard: { pods: '10', cpu: 1.5 }, scopes: ['BestEffort'] }, status: { hard: { pods: '10' }, used: { pods: '0' } } }],
    [NAMESPACE, { metadata: { name: 'n', managedFields: [{ manager: 'm', operation: 'Update', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:x': {} } }] }, spec: {} }],
  ];
  test.each(bodies)('%s', (schema, body) => {
    const snapshot = JSON.parse(JSON.stringify(body)) as unknown;
    const fast = reg.decode(schema, body);
    expect(fast.object).toBe(body);
    // Force the walk with an unknown field and compare the pruned result to the original.
    const walked = reg.decode(schema, { ...body, zzUnknown: 1 });
    expect(walked.unknownFields).toEqual(['zzUnknown']);
    expect(walked.object).toEqual(snapshot);
  });
});
