/** kube's ResetObjectMetaForStatus: a status write cannot change metadata (except resourceVersion). */
import { KubeObject } from '../../../api';

export function resetObjectMetaForStatus(obj: KubeObject, old: KubeObject): void {
  const rv = obj.metadata.resourceVersion;
  const managedFields = obj.metadata.managedFields;
  obj.metadata = { ...structuredClone(old.metadata), resourceVersion: rv };
  if (managedFields !== undefined) obj.metadata.managedFields = managedFields;
}
