/** Stamping a stored object with the etcd revision it is read at. */
import { KubeObject, copyWith, orderObjectMeta } from '../api';

/**
 * A copy of `obj` whose metadata.resourceVersion is `revision` (in Go's ObjectMeta key order): the
 * state written at that revision, or a deleted object's last state at its delete's revision.
 */
export function withRevision(obj: KubeObject, revision: bigint): KubeObject {
  return copyWith(obj, 'metadata', orderObjectMeta(obj.metadata, { resourceVersion: revision.toString() }));
}
