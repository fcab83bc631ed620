/** The storage codec: objects are stored as JSON without metadata.resourceVersion (etcd's revision is the truth). */
import { KubeObject, RevisionSlot, goJsonScan, isObject, orderObjectMeta } from '../../api';

export interface StorageCodec {
  encode(obj: KubeObject): Buffer;
  /**
   * encode's bytes and where metadata.resourceVersion would go in them (see api/stored-json.ts);
   * no slot when it cannot be told for sure.
   */
  encodeWithSlot?(obj: KubeObject): { bytes: Buffer; slot?: RevisionSlot };
  /** Decodes stored bytes and stamps metadata.resourceVersion with the etcd revision; throws on bytes that are no object. */
  decode(data: Buffer, revision: bigint): KubeObject;
  /** The words kube's codec would use for bytes `decode` refused (else the thrown error's message is used). */
  decodeErrorText?(data: Buffer, err: unknown): string;
}

/** Go's type of the struct kube's json serializer first unmarshals into (SimpleMetaFactory's findKind). */
const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * A resourceVersion JSON.stringify can only write as `"resourceVersion":"\u0000"` (it escapes every
 * control character), text no JSON string can contain unescaped (its quotes would be `\"`).
 */
const MARK = '\u0000';
const MARKED = '"resourceVersion":"\\u0000"';

/** The ObjectMeta fields Go writes before resourceVersion: when each is a string (or absent), the first MARKED is the slot. */
const beforeResourceVersion = ['name', 'generateName', 'namespace', 'selfLink', 'uid'] as const;

const encodeText = (obj: KubeObject, resourceVersion: string | undefined): string => {
  // kind, apiVersion, metadata first and ObjectMeta in Go order, so every read serialises as kube does.
  const { kind, apiVersion, metadata, ...rest } = obj;
  return JSON.stringify({ kind, apiVersion, metadata: orderObjectMeta(metadata ?? {}, { resourceVersion }), ...rest });
};

const maybeString = (v: unknown) => v === undefined || typeof v === 'string';

/** jsonCodec.encodeWithSlot. */
export function encodeJsonWithSlot(obj: KubeObject): { bytes: Buffer; slot?: RevisionSlot } {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  // Only strings before the slot: the first MARKED is the slot itself (keys are fixed names).
  let plain = !isObject(meta) || !maybeString(obj.kind) || !maybeString(obj.apiVersion);
  for (let k = 0; !plain && k < beforeResourceVersion.length; k++) plain = !maybeString((meta as Record<string, unknown>)[beforeResourceVersion[k] as string]);
  if (plain) return { bytes: Buffer.from(encodeText(obj, undefined)) };
  const text = encodeText(obj, MARK);
  const i = text.indexOf(MARKED);
  if (i < 0) return { bytes: Buffer.from(encodeText(obj, undefined)) };
  let from = i;
  let to = i + MARKED.length;
  let comma: RevisionSlot['comma'] = 'none';
  if (text.charCodeAt(to) === 0x2c) {
    to++;
    comma = 'after';
  } else if (text.charCodeAt(from - 1) === 0x2c) {
    from--;
    comma = 'before';
  }
  const head = text.slice(0, from);
  return { bytes: Buffer.from(head + text.slice(to)), slot: { at: Buffer.byteLength(head), comma } };
}

export const jsonCodec: StorageCodec = {
  encode(obj) {
    return Buffer.from(encodeText(obj, undefined));
  },
  encodeWithSlot: (obj) => encodeJsonWithSlot(obj),
  decode(data, revision) {
    const obj = JSON.parse(data.toString('utf8')) as unknown;
    if (!isObject(obj)) throw new Error('stored value is not a JSON object');
    return stampRevision(obj as unknown as KubeObject, revision);
  },
  decodeErrorText(data, err) {
    // kube's json serializer: the type meta is read first, so its error is what a client sees.
    const scan = goJsonScan(data);
    if ('error' in scan) return `couldn't get version/kind; json parse error: ${scan.error}`;
    if (scan.kind === 'null') return `Object 'Kind' is missing in 'null'`;
    if (scan.kind !== 'object') return `couldn't get version/kind; json parse error: json: cannot unmarshal ${scan.kind} into Go value of type ${findKindType}`;
    return (err as Error).message;
  },
};

/** Sets metadata.resourceVersion to the etcd revision (stored objects carry none), ObjectMeta in Go's order. */
export function stampRevision(obj: KubeObject, revision: bigint): KubeObject {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  obj.metadata = orderObjectMeta(meta, { resourceVersion: revision.toString() });
  return obj;
}
