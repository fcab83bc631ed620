/** The storage codec: objects are stored as JSON without metadata.resourceVersion (etcd's revision is the truth). */
import { KubeObject, goJsonScan, isObject, orderObjectMeta } from '../../api';

export interface StorageCodec {
  encode(obj: KubeObject): Buffer;
  /** Decodes stored bytes and stamps metadata.resourceVersion with the etcd revision; throws on bytes that are no object. */
  decode(data: Buffer, revision: bigint): KubeObject;
  /** The words kube's codec would use for bytes `decode` refused (else the thrown error's message is used). */
  decodeErrorText?(data: Buffer, err: unknown): string;
}

/** Go's type of the struct kube's json serializer first unmarshals into (SimpleMetaFactory's findKind). */
const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

export const jsonCodec: StorageCodec = {
  encode(obj) {
    // kind, apiVersion, metadata first and ObjectMeta in Go order, so every read serialises as kube does.
    const { kind, apiVersion, metadata, ...rest } = obj;
    return Buffer.from(JSON.stringify({ kind, apiVersion, metadata: orderObjectMeta(metadata ?? {}, { resourceVersion: undefined }), ...rest }));
  },
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
