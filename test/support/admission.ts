/** Admission attributes many admission plugin tests build. */
import type { KubeObject } from '../../src/api';
import type { AdmissionAttributes } from '../../src/admission';

/** A CREATE of `object` in core v1 pods of namespace `ns`, named as the object is; `over` replaces any field. */
export const podAttributes = (object: KubeObject | undefined, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'pods',
  subresource: '',
  kind: 'Pod',
  namespace: 'ns',
  name: object?.metadata.name ?? '',
  namespaced: true,
  dryRun: false,
  object,
  ...over,
});
