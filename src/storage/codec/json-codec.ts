/** The storage codec: objects are stored as JSON without metadata.resourceVersion (etcd's revision is the truth). */
import { KubeObject } from '../../api';

export interface StorageCodec {
  encode(obj: KubeObject): Buffer;
  /** Decodes stored bytes and stamps metadata.resourceVersion with the etcd revision. */
  decode(data: Buffer, revision: bigint): KubeObject;
}

export const jsonCodec: StorageCodec = {
  encode(obj) {
    const { resourceVersion: _rv, ...meta } = obj.metadata ?? {};
    return Buffer.from(JSON.stringify({ ...obj, metadata: meta }));
  },
  decode(data, revision) {
    const obj = JSON.parse(data.toString('utf8')) as KubeObject;
    obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: revision.toString() };
    return obj;
  },
};
