import * as path from 'node:path';
import { ApiError } from '../../../../src/api';
import { ProtobufCodec, PROTOBUF_MAGIC } from '../../../../src/storage/codec/protobuf-codec';
import { builtinResources, protobufKindsOf } from '../../../../src/registry';

// ---- a tiny independent protobuf writer, to build expected bytes by hand from the .proto ----
const varint = (n: number | bigint): number[] => {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
};
const bytesOf = (v: string | number[] | Buffer): number[] => (typeof v === 'string' ? [...Buffer.from(v)] : [...v]);
/** A length-delimited field (wire type 2). */
const ld = (id: number, v: string | number[] | Buffer): number[] => [...varint((id << 3) | 2), ...varint(bytesOf(v).length), ...bytesOf(v)];
/** A varint field (wire type 0). */
const vi = (id: number, n: number | bigint): number[] => [...varint(id << 3), ...varint(n)];
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const envelope = (apiVersion: string, kind: string, raw: number[]): Buffer =>
  Buffer.from([...PROTOBUF_MAGIC, ...ld(1, [...ld(1, apiVersion), ...ld(2, kind)]), ...ld(2, raw), ...ld(3, ''), ...ld(4, '')]);

/** An ObjectMeta with only name/namespace set, as Go writes it (every value field present). */
const objectMeta = (name: string, namespace = ''): number[] => [
  ...ld(1, name), ...ld(2, ''), ...ld(3, namespace), ...ld(4, ''), ...ld(5, ''), ...ld(6, ''), ...vi(7, 0), ...ld(8, []),
];

const KUBECTL_CREATE_NAMESPACE = hex(
  '6b 38 73 00 0a 0f 0a 02 76 31 12 09 4e 61 6d 65 73 70 61 63 65 12 1c 0a 14 0a 04 64 65 6d 6f 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 00 1a 02 0a 00 1a 00 22 00',
);

let codec: ProtobufCodec;
beforeAll(async () => {
  codec = await ProtobufCodec.load(undefined, builtinResources.flatMap(protobufKindsOf));
});

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.status.code).toBe(400);
    expect(err.status.reason).toBe('BadRequest');
    return err.status.message ?? '';
  }
  throw new Error('expected a BadRequest');
}

describe('kubectl create namespace body', () => {
  test('decodes to the JSON kubectl would have sent', () => {
    expect(codec.decode(KUBECTL_CREATE_NAMESPACE)).toStrictEqual({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'demo' },
      spec: {},
      status: {},
    });
  });

  test('encodes back to the exact bytes kubectl sent', () => {
    const obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' }, spec: {}, status: {} };
    expect(codec.encode(obj).toString('hex')).toBe(KUBECTL_CREATE_NAMESPACE.toString('hex'));
  });
});


const richMeta = {
  name: 'rich',
  generateName: 'ri-',
  namespace: 'ns1',
  uid: '6f3c1c0a-0000-4000-8000-000000000001',
  resourceVersion: '12345',
  generation: 2 ** 40,
  creationTimestamp: '2024-02-29T23:59:59Z',
  deletionTimestamp: '2025-01-01T00:00:00Z',
  deletionGracePeriodSeconds: 0,
  labels: { 'app.kubernetes.io/name': 'x', b: '', a: 'y' },
  annotations: { 'note/é': 'ünïcødé ✓', empty: '' },
  ownerReferences: [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1', controller: false, blockOwnerDeletion: true },
    { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: '' },
  ],
  finalizers: ['kubernetes', 'example.com/x'],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: '2024-03-01T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:data': { 'f:k': {} } },
    },
    { manager: 'ctrl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {}, subresource: 'status' },
  ],
};

const roundTrips: Array<[string, Record<string, unknown>]> = [
  [
    'Namespace',
    {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { ...richMeta, namespace: undefined },
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [
          { type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-03-01T10:00:00Z', reason: 'ContentDeleted', message: 'All content successfully deleted' },
          { type: 'NamespaceFinalizersRemaining', status: '' },
        ],
      },
    },
  ],
  [
    'Secret',
    {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: richMeta,
      immutable: false,
      data: { 'bin.dat': Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]).toString('base64'), empty: '', text: Buffer.from('hello').toString('base64') },
      stringData: { s: 'plain' },
      type: 'kubernetes.io/tls',
    },
  ],
  [
    'ConfigMap',
    {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cm', namespace: 'default' },
      immutable: true,
      data: { 'config.yaml': 'a: 1\nb: 2\n', z: '' },
      binaryData: { raw: Buffer.from([0, 1, 2, 250]).toString('base64') },
    },
  ],
  [
    'ResourceQuota',
    {
      kind: 'ResourceQuota',
      apiVersion: 'v1',
      metadata: { name: 'q', namespace: 'ns1', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: {
        hard: { cpu: '500m', memory: '1Gi', pods: '10', 'requests.storage': '100G', 'count/secrets': '0' },
        scopes: ['NotTerminating'],
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high', 'low'] }, { scopeName: 'BestEffort', operator: 'Exists' }] },
      },
      status: { hard: { cpu: '500m', memory: '1Gi' }, used: { cpu: '250m', memory: '512Mi' } },
    },
  ],
  [
    'NamespaceList',
    {
      kind: 'NamespaceList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '99', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTksInN0YXJ0IjoiYlx1MDAwMCJ9', remainingItemCount: 0 },
      items: [
        { metadata: { name: 'a', creationTimestamp: '2024-01-01T00:00:00Z' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
        { metadata: { name: 'b' }, spec: {}, status: {} },
      ],
    },
  ],
  ['SecretList', { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '7', remainingItemCount: 42 }, items: [{ metadata: { name: 's', namespace: 'n' }, data: { k: 'dg==' }, type: 'Opaque' }] }],
  ['ConfigMapList', { kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [] }],
  ['ResourceQuotaList', { kind: 'ResourceQuotaList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [{ metadata: { name: 'q' }, spec: { hard: { pods: '1' } }, status: {} }] }],
  [
    'Status',
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Secret "s" is invalid: data[tls.key]: Required value',
      reason: 'Invalid',
      details: {
        name: 's',
        kind: 'Secret',
        uid: 'u',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data[tls.key]' }, { message: 'bare' }],
        retryAfterSeconds: 3,
      },
      code: 422,
    },
  ],
  [
    'DeleteOptions',
    {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'abc', resourceVersion: '' },
      orphanDependents: false,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    },
  ],
  ['DeleteOptions (meta.k8s.io/v1)', { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' }],
  ['PartialObjectMetadata', { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: richMeta }],
  [
    'PartialObjectMetadataList',
    { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '5', continue: 'c' }, items: [{ metadata: { name: 'x' } }] },
  ],
];

describe('round trips (encode → decode returns the same JSON)', () => {
  test.each(roundTrips)('%s', (_name, obj) => {
    const expected = JSON.parse(JSON.stringify(obj)) as unknown; // drops undefined keys
    expect(codec.decode(codec.encode(obj))).toEqual(expected);
  });

  test('pointer fields keep their zero values; value fields drop them (omitempty)', () => {
    const out = codec.decode(codec.encode(roundTrips.find(([n]) => n === 'DeleteOptions')![1]));
    expect(out).toMatchObject({ gracePeriodSeconds: 0, orphanDependents: false, preconditions: { uid: 'abc', resourceVersion: '' } });
    const ns = codec.decode(codec.encode({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n', generation: 0, namespace: '' }, status: { phase: '' } }));
    expect(ns).toStrictEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n' }, spec: {}, status: {} });
  });

  test('non-omitempty fields appear even when empty', () => {
    const list = codec.decode(codec.encode({ kind: 'SecretList', apiVersion: 'v1', metadata: {} }));
    expect(list).toStrictEqual({ kind: 'SecretList', apiVersion: 'v1', metadata: {}, items: [] });
    const ns = codec.decode(
      codec.encode({ kind: 'Namespace', apiVersion: 'v1', metadata: { ownerReferences: [{}] }, status: { conditions: [{}] } }),
    );
    expect(ns).toStrictEqual({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
      spec: {},
      status: { conditions: [{ type: '', status: '' }] },
    });
  });

  test('scheduling/v1 PriorityClass: value always there, a false globalDefault and an empty description left out', () => {
    const full = {
      kind: 'PriorityClass',
      apiVersion: 'scheduling.k8s.io/v1',
      metadata: { name: 'high', generation: 1 },
      value: 1000,
      globalDefault: true,
      description: 'd',
      preemptionPolicy: 'Never',
    };
    expect(codec.decode(codec.encode(full))).toStrictEqual(full);
    const zero = codec.decode(codec.encode({ kind: 'PriorityClass', apiVersion: 'scheduling.k8s.io/v1', metadata: { name: 'z' }, value: 0, globalDefault: false, description: '' }));
    expect(zero).toStrictEqual({ kind: 'PriorityClass', apiVersion: 'scheduling.k8s.io/v1', metadata: { name: 'z' }, value: 0 });
    const list = codec.decode(codec.encode({ kind: 'PriorityClassList', apiVersion: 'scheduling.k8s.io/v1', metadata: {} }));
    expect(list).toStrictEqual({ kind: 'PriorityClassList', apiVersion: 'scheduling.k8s.io/v1', metadata: {}, items: [] });
  });

  test('Status metadata is always {} and an absent details is omitted', () => {
    const s = codec.decode(codec.encode({ kind: 'Status', apiVersion: 'v1', status: 'Success' }));
    expect(s).toStrictEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
  });

  test('list items lose their own kind/apiVersion (not part of the wire form)', () => {
    const out = codec.decode(
      codec.encode({ kind: 'SecretList', apiVersion: 'v1', metadata: {}, items: [{ kind: 'Secret', apiVersion: 'v1', metadata: { name: 'a' } }] }),
    );
    expect(out.items).toStrictEqual([{ metadata: { name: 'a' } }]);
  });

  test('a Secret key named __proto__ survives as an own property', () => {
    const out = codec.decode(codec.encode({ kind: 'Secret', apiVersion: 'v1', metadata: {}, data: JSON.parse('{"__proto__":"eA=="}') as object }));
    expect(Object.prototype.hasOwnProperty.call(out.data, '__proto__')).toBe(true);
    expect(JSON.stringify(out.data)).toBe('{"__proto__":"eA=="}');
  });
});

describe('value mapping', () => {
  const roundTripMeta = (meta: Record<string, unknown>): Record<string, unknown> =>
    codec.decode(codec.encode({ kind: 'ConfigMap', apiVersion: 'v1', metadata: meta })).metadata as Record<string, unknown>;

  test.each([
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z'],
    ['2024-01-02T03:04:05.999Z', '2024-01-02T03:04:05Z'], // Time keeps whole seconds only
    ['2024-01-02T03:04:05+02:00', '2024-01-02T01:04:05Z'], // JSON is always UTC
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'], // the Unix epoch is a real time
  ])('Time %s → %s', (input, output) => {
    expect(roundTripMeta({ creationTimestamp: input }).creationTimestamp).toBe(output);
  });

  test("Go's zero time and null are 'no time': written as an empty message, left out of JSON", () => {
    const expected = envelope('v1', 'ConfigMap', ld(1, objectMeta('')));
    expect(codec.encode({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { creationTimestamp: '0001-01-01T00:00:00Z' } })).toEqual(expected);
    expect(codec.encode({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { creationTimestamp: null } })).toEqual(expected);
    expect(roundTripMeta({ creationTimestamp: null })).toStrictEqual({});
  });

  test('Time is written as seconds plus an explicit zero nanos (Timestamp marshal)', () => {
    const bytes = codec.encode({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { creationTimestamp: '2008-01-01T01:01:01Z' } });
    const seconds = Date.UTC(2008, 0, 1, 1, 1, 1) / 1000;
    const meta = [...objectMeta('').slice(0, -2), ...ld(8, [...vi(1, seconds), ...vi(2, 0)])];
    expect(bytes).toEqual(envelope('v1', 'ConfigMap', ld(1, meta)));
  });

  test.each([
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1Gi', '1Gi'],
    ['1e3', '1e3'],
    ['100M', '100M'],
  ])('Quantity %s → %s (canonical form)', (input, output) => {
    const out = codec.decode(codec.encode({ kind: 'ResourceQuota', apiVersion: 'v1', metadata: {}, spec: { hard: { x: input } } }));
    expect((out.spec as { hard: Record<string, string> }).hard.x).toBe(output);
  });

  test('int64 beyond 32 bits and negative int32 survive', () => {
    expect(roundTripMeta({ generation: 2 ** 53 - 1 }).generation).toBe(2 ** 53 - 1);
    const s = codec.decode(codec.encode({ kind: 'Status', apiVersion: 'v1', code: -1 }));
    expect(s.code).toBe(-1);
  });

  test('FieldsV1 is carried as its raw JSON text, key order kept', () => {
    const fieldsV1 = { 'f:metadata': { 'f:labels': { 'f:b': {}, 'f:a': {} } }, 'k:{"name":"c"}': { '.': {} } };
    const bytes = codec.encode({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { managedFields: [{ manager: 'm', fieldsV1 }] } });
    expect(bytes.includes(Buffer.from(JSON.stringify(fieldsV1)))).toBe(true);
    const mf = (roundTripMeta({ managedFields: [{ manager: 'm', fieldsV1 }] }).managedFields as Array<Record<string, unknown>>)[0];
    expect(JSON.stringify(mf?.fieldsV1)).toBe(JSON.stringify(fieldsV1));
  });

  test('hand-built ConfigMap bytes: sorted map entries, value fields always, pointer only when set', () => {
    const obj = {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c', namespace: 'ns' },
      data: { b: '2', '9': 'nine', '10': 'ten', a: '' },
      binaryData: { bin: Buffer.from([0xff, 0x00]).toString('base64') },
      immutable: false,
    };
    const entry = (id: number, k: string, v: number[]): number[] => ld(id, [...ld(1, k), ...v]);
    const raw = [
      ...ld(1, objectMeta('c', 'ns')),
      // Go sorts keys as strings: "10" < "9" < "a" < "b"; string values are written even when empty.
      ...entry(2, '10', ld(2, 'ten')),
      ...entry(2, '9', ld(2, 'nine')),
      ...entry(2, 'a', ld(2, '')),
      ...entry(2, 'b', ld(2, '2')),
      ...entry(3, 'bin', ld(2, [0xff, 0x00])),
      ...vi(4, 0),
    ];
    expect(codec.encode(obj).toString('hex')).toBe(envelope('v1', 'ConfigMap', raw).toString('hex'));
    expect(codec.decode(envelope('v1', 'ConfigMap', raw))).toEqual(obj);
  });

  test('ListMeta: remainingItemCount is a pointer (written when 0), continue is field 3', () => {
    const raw = [...ld(1, [...ld(1, ''), ...ld(2, '10'), ...ld(3, 'tok'), ...vi(4, 0)])];
    const obj = { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '10', continue: 'tok', remainingItemCount: 0 }, items: [] };
    expect(codec.encode(obj)).toEqual(envelope('v1', 'SecretList', raw));
    expect(codec.decode(envelope('v1', 'SecretList', raw))).toStrictEqual(obj);
  });

  test('unknown fields are skipped, as Go does', () => {
    const raw = [...ld(1, objectMeta('n')), ...vi(99, 7), ...ld(100, 'future'), ...ld(2, [])];
    expect(codec.decode(envelope('v1', 'Namespace', raw))).toStrictEqual({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'n' },
      spec: {},
      status: {},
    });
  });

  test('a map entry without a value decodes to the zero value', () => {
    const raw = [...ld(1, []), ...ld(2, ld(1, 'k'))];
    expect(codec.decode(envelope('v1', 'Secret', raw)).data).toStrictEqual({ k: '' });
    // Go's zero Quantity prints "0".
    const quota = [...ld(1, []), ...ld(2, ld(1, ld(1, 'cpu')))];
    expect(codec.decode(envelope('v1', 'ResourceQuota', quota)).spec).toStrictEqual({ hard: { cpu: '0' } });
  });
});

describe('watch frames', () => {
  test('length-prefixed bare WatchEvent whose object.raw is the full encoding', () => {
    const objectBytes = codec.encode({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'demo' }, spec: {}, status: {} });
    const frame = codec.encodeWatchEvent('ADDED', objectBytes);
    const event = [...ld(1, 'ADDED'), ...ld(2, ld(1, objectBytes))];
    const expected = Buffer.alloc(4 + event.length);
    expected.writeUInt32BE(event.length, 0);
    Buffer.from(event).copy(expected, 4);
    expect(frame.toString('hex')).toBe(expected.toString('hex'));
    expect(frame.subarray(4, 8)).not.toEqual(PROTOBUF_MAGIC);
    expect(codec.decodeWatchEvent(frame)).toStrictEqual({
      type: 'ADDED',
      object: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'demo' }, spec: {}, status: {} },
    });
  });

  test('ERROR events carry a Status', () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 };
    const frame = codec.encodeWatchEvent('ERROR', codec.encode(status));
    expect(codec.decodeWatchEvent(frame)).toStrictEqual({ type: 'ERROR', object: status });
  });

  test('a frame whose length prefix does not match is refused', () => {
    const frame = codec.encodeWatchEvent('ADDED', codec.encode({ kind: 'Status', apiVersion: 'v1' }));
    expect(badRequest(() => codec.decodeWatchEvent(frame.subarray(0, frame.length - 1)))).toMatch(/length/);
  });
});

describe('supports', () => {
  test.each([
    ['v1', 'Namespace', true],
    ['v1', 'SecretList', true],
    ['v1', 'Status', true],
    ['v1', 'DeleteOptions', true],
    ['apps/v1', 'DeleteOptions', true],
    ['meta.k8s.io/v1', 'PartialObjectMetadataList', true],
    ['meta.k8s.io/v1', 'Table', false],
    ['v1', 'Widget', false],
    ['v2', 'Namespace', false],
  ])('%s %s → %s', (apiVersion, kind, expected) => {
    expect(codec.supports(apiVersion, kind)).toBe(expected);
  });
});

describe('decode errors (BadRequest, worded as kube)', () => {
  const EXPECTED_PREFIX = 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]';
  test.each<[string, Buffer, string]>([
    ['empty body', Buffer.alloc(0), 'empty data'],
    ['JSON body', Buffer.from('{"kind":"Namespace"}'), EXPECTED_PREFIX],
    ['short body', Buffer.from([0x6b, 0x38]), EXPECTED_PREFIX],
    ['wrong magic', hex('6b387301 0a00'), EXPECTED_PREFIX],
    ['magic only', PROTOBUF_MAGIC, 'empty body'],
    ['truncated envelope', KUBECTL_CREATE_NAMESPACE.subarray(0, 12), 'unexpected EOF'],
    ['truncated typeMeta string', Buffer.from([...PROTOBUF_MAGIC, ...ld(1, [0x0a, 0x05, 0x76, 0x31]), ...ld(2, [])]), 'unexpected EOF'],
    ['truncated object', envelope('v1', 'Namespace', ld(1, objectMeta('n')).slice(0, -3)), 'unexpected EOF'],
    ['unknown kind', envelope('v1', 'Widget', []), 'no kind "Widget" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'],
    ['known kind, other version', envelope('apps/v1', 'Secret', []), 'no kind "Secret" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'],
    ['missing kind', envelope('v1', '', []), `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'`],
    ['missing apiVersion', envelope('', 'Namespace', []), `Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:"Namespace"}'`],
    ['wrong wire type', envelope('v1', 'Namespace', ld(1, vi(1, 5))), 'proto: wrong wireType = 0 for field Name'],
    ['illegal tag 0', envelope('v1', 'Namespace', [0x02, 0x00]), 'proto: Namespace: illegal tag 0 (wire type 2)'],
    ['end group', envelope('v1', 'Namespace', [0x0c]), 'proto: Namespace: wiretype end group for non-group'],
    ['bad varint', envelope('v1', 'Namespace', ld(1, [0x38, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])), 'proto: integer overflow'],
    [
      'invalid quantity',
      envelope('v1', 'ResourceQuota', ld(2, ld(1, [...ld(1, 'cpu'), ...ld(2, ld(1, 'lots'))]))),
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    ['empty quantity string', envelope('v1', 'ResourceQuota', ld(2, ld(1, [...ld(1, 'cpu'), ...ld(2, ld(1, ''))]))), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    // The name's length runs past the end of ObjectMeta (but not past the whole buffer).
    ['field overruns its message', envelope('v1', 'Namespace', [...ld(1, [0x0a, 0x05, 0x61]), ...ld(2, 'xxxxxxxx')]), 'unexpected EOF'],
    ['map entry overruns its field', envelope('v1', 'Secret', [...ld(2, [0x0a, 0x09, 0x6b]), ...ld(3, 'xxxxxxxxxx')]), 'unexpected EOF'],
    ['invalid FieldsV1 JSON', envelope('v1', 'Secret', ld(1, ld(17, ld(7, ld(1, '{not json'))))), 'proto: FieldsV1: Raw is not valid JSON'],
  ])('%s', (_name, body, message) => {
    expect(badRequest(() => codec.decode(body))).toBe(message);
  });

  describe('with the endpoint kind (into), as the apiserver words decode errors', () => {
    const into = { apiVersion: 'v1', kind: 'Namespace' };
    test('kind known: "<Kind> in version ... cannot be handled as a <Into>"', () => {
      const body = envelope('v1', 'Namespace', ld(1, objectMeta('n')).slice(0, -3));
      expect(badRequest(() => codec.decode(body, { into }))).toBe('Namespace in version "v1" cannot be handled as a Namespace: unexpected EOF');
      expect(badRequest(() => codec.decode(envelope('v1', 'namespace', []), { into }))).toBe(
        'namespace in version "v1" cannot be handled as a Namespace: no kind "namespace" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
      );
    });

    test('kind unknown: "the object provided is unrecognized" with a data summary', () => {
      const json = Buffer.from('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x"}}');
      expect(badRequest(() => codec.decode(json, { into }))).toBe(
        `the object provided is unrecognized (must be of type Namespace): ${EXPECTED_PREFIX} ({"kind":"Namespace","apiVersio ...)` // the first 30 bytes,
      );
      expect(badRequest(() => codec.decode(KUBECTL_CREATE_NAMESPACE.subarray(0, 12), { into }))).toBe(
        'the object provided is unrecognized (must be of type Namespace): unexpected EOF (6b3873000a0f0a0276311209)',
      );
    });

    test('a missing kind/version in the envelope is defaulted from the endpoint (copyKindDefaults)', () => {
      const body = envelope('', '', ld(1, objectMeta('demo')));
      expect(codec.decode(body, { into })).toStrictEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'demo' }, spec: {}, status: {} });
    });
  });
});

describe('encode errors', () => {
  test('a kind without a protobuf form is 406 NotAcceptable (errNotMarshalable)', () => {
    let err: unknown;
    try {
      codec.encode({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toMatchObject({
      code: 406,
      reason: 'NotAcceptable',
      message: 'object *v1.Table does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message',
    });
  });

  test.each([
    ['no kind', { apiVersion: 'v1', metadata: {} }, /apiVersion\/kind/],
    ['labels not an object', { kind: 'Secret', apiVersion: 'v1', metadata: { labels: 'x' } }, /Secret\.metadata\.labels: expected an object/],
    ['bad time', { kind: 'Secret', apiVersion: 'v1', metadata: { creationTimestamp: 'yesterday' } }, /not an RFC3339 time/],
    ['bad quantity', { kind: 'ResourceQuota', apiVersion: 'v1', spec: { hard: { cpu: 'lots' } } }, /spec\.hard\[cpu\]: quantities must match/],
  ])('%s is a programmer error (plain Error)', (_name, obj, message) => {
    expect(() => codec.encode(obj)).toThrow(message);
    try {
      codec.encode(obj);
    } catch (e) {
      expect(e).not.toBeInstanceOf(ApiError);
    }
  });
});

describe('load', () => {
  test('an explicit proto directory works; a missing one rejects', async () => {
    const dir = path.join(__dirname, '..', '..', '..', '..', 'proto');
    const c = await ProtobufCodec.load(dir, builtinResources.flatMap(protobufKindsOf));
    expect(c.decode(KUBECTL_CREATE_NAMESPACE).kind).toBe('Namespace');
    await expect(ProtobufCodec.load(path.join(dir, 'does-not-exist'))).rejects.toThrow();
  });

  test('a kind is known once added; a message proto/ lacks is refused', async () => {
    const c = await ProtobufCodec.load();
    expect(c.supports('v1', 'Namespace')).toBe(false);
    expect(c.supports('v1', 'Status')).toBe(true);
    expect(() => c.decode(KUBECTL_CREATE_NAMESPACE)).toThrow(/no kind "Namespace" is registered for version "v1"/);
    const [row, listRow] = protobufKindsOf(builtinResources.find((d) => d.kind === 'Namespace')!);
    expect(listRow).toEqual({ apiVersion: 'v1', kind: 'NamespaceList', message: 'k8s.io.api.core.v1.NamespaceList' });
    c.addKind(row!);
    expect(c.decode(KUBECTL_CREATE_NAMESPACE).kind).toBe('Namespace');
    expect(c.declares('k8s.io.api.core.v1.Namespace')).toBe(true);
    expect(c.declares('com.example.v1.Widget')).toBe(false);
    expect(() => c.addKind({ apiVersion: 'example.com/v1', kind: 'Widget', message: 'com.example.v1.Widget' })).toThrow();
    expect(c.supports('example.com/v1', 'Widget')).toBe(false);
  });
});
