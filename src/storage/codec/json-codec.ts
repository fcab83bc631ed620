/** The storage codec: objects are stored as JSON without metadata.resourceVersion (etcd's revision is the truth). */
import { KubeObject, orderObjectMeta } from '../../api';

export interface StorageCodec {
  encode(obj: KubeObject): Buffer;
  /** Decodes stored bytes and stamps metadata.resourceVersion with the etcd revision. */
  decode(data: Buffer, revision: bigint): KubeObject;
}

export const jsonCodec: StorageCodec = {
  encode(obj) {
    const { resourceVersion: _rv, ...meta } = obj.metadata ?? {};
    // kind, apiVersion, metadata first and ObjectMeta in Go order, so every read serialises as kube does.
    const { kind, apiVersion, metadata: _m, ...rest } = obj;
    return Buffer.from(JSON.stringify({ kind, apiVersion, metadata: orderObjectMeta(meta), ...rest }));
  },
  decode(data, revision) {
    const obj = JSON.parse(data.toString('utf8')) as KubeObject;
    obj.metadata = orderObjectMeta({ ...(obj.metadata ?? {}), resourceVersion: revision.toString() });
    return obj;
  },
};
