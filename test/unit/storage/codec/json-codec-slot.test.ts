/**
 * A create's answer from the bytes it was stored as: the storage encoding with its resourceVersion
 * spliced in must be byte for byte the response encoding of the object the create returns.
 */
import { CallContext, KubeObject, rememberStoredJson, storedJsonOf } from '../../../../src/api';
import { encodeBody } from '../../../../src/endpoints/codec';
import { encodeJsonWithSlot, jsonCodec } from '../../../../src/storage/codec/json-codec';
import { withRevision } from '../../../../src/storage/revision';

/** What etcd-store's create does with an object, then what the response writer sends. */
function answered(obj: KubeObject, revision = 12345n): { spliced: Buffer | undefined; encoded: Buffer; stored: Buffer } {
  const { bytes, slot } = encodeJsonWithSlot(obj);
  const created = withRevision(obj, revision);
  const ctx: CallContext = {};
  if (slot) rememberStoredJson(ctx, created, bytes, slot);
  return { spliced: storedJsonOf(ctx, created), encoded: encodeBody(created, 'json', false), stored: bytes };
}

const secret = (meta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ type: 'Opaque', data: { k: 'dmFsdWU=' }, apiVersion: 'v1', kind: 'Secret', metadata: meta, ...extra }) as unknown as KubeObject;

test.each<[string, KubeObject]>([
  ['a created secret (fields before and after the slot)', secret({ name: 's', namespace: 'ns', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' } })],
  ['nothing after the slot in metadata', secret({ name: 's', namespace: 'ns', uid: 'u-1' })],
  ['nothing before it', secret({ creationTimestamp: '2026-01-01T00:00:00Z' })],
  ['an empty metadata', secret({})],
  ['metadata keys in another order, and one unknown to ObjectMeta', secret({ labels: { x: 'y' }, uid: 'u', name: 'n', zzz: 1 })],
  ['no kind or apiVersion', { metadata: { name: 'n' }, spec: {} } as unknown as KubeObject],
  ['non-ASCII text before and after the slot', secret({ name: 'é✓', namespace: 'ns', uid: 'u', annotations: { note: '日本 "q" \\ \u0000' } })],
  ['user text imitating the marker', secret({ name: 'n', uid: 'u', annotations: { a: '"resourceVersion":"\\u0000"', '"resourceVersion":"\u0000"': '' } })],
  ['a stale resourceVersion in the request', secret({ name: 'n', uid: 'u', resourceVersion: '7', creationTimestamp: 't' })],
])('%s: the spliced answer is the encoded one', (_, obj) => {
  const { spliced, encoded, stored } = answered(obj);
  expect(stored.equals(jsonCodec.encode(obj))).toBe(true);
  expect(spliced?.toString('utf8')).toBe(encoded.toString('utf8'));
  expect(spliced?.equals(encoded)).toBe(true);
});

test('no slot when a field before it is not a string: the answer is encoded as usual', () => {
  const obj = secret({ name: { '"resourceVersion":"\u0000"': 1 } as unknown as string, uid: 'u' });
  const { bytes, slot } = encodeJsonWithSlot(obj);
  expect(slot).toBeUndefined();
  expect(bytes.equals(jsonCodec.encode(obj))).toBe(true);
});

test('an object the request did not store, or copied since, has no stored bytes', () => {
  const obj = withRevision(secret({ name: 'n' }), 3n);
  const ctx: CallContext = {};
  expect(storedJsonOf(ctx, obj)).toBeUndefined();
  const { bytes, slot } = encodeJsonWithSlot(secret({ name: 'n' }));
  rememberStoredJson(ctx, obj, bytes, slot ?? { at: 0, comma: 'none' });
  expect(storedJsonOf(ctx, obj)).toBeDefined();
  expect(storedJsonOf(ctx, { ...obj })).toBeUndefined();
  expect(storedJsonOf({}, obj)).toBeUndefined();
});
