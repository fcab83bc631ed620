/**
 * The kinds with a protobuf form: apiVersion + kind → kube's protobuf message (full name, no
 * leading dot). Adding a kind is one line here (plus its messages in proto/).
 */

/** One row of the table. `apiVersion: '*'` matches every group version (kube's option kinds). */
export interface ProtobufKind {
  apiVersion: string;
  kind: string;
  message: string;
}

const CORE = 'k8s.io.api.core.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

export const PROTOBUF_KINDS: readonly ProtobufKind[] = [
  { apiVersion: 'v1', kind: 'Namespace', message: `${CORE}.Namespace` },
  { apiVersion: 'v1', kind: 'NamespaceList', message: `${CORE}.NamespaceList` },
  { apiVersion: 'v1', kind: 'Secret', message: `${CORE}.Secret` },
  { apiVersion: 'v1', kind: 'SecretList', message: `${CORE}.SecretList` },
  { apiVersion: 'v1', kind: 'ConfigMap', message: `${CORE}.ConfigMap` },
  { apiVersion: 'v1', kind: 'ConfigMapList', message: `${CORE}.ConfigMapList` },
  { apiVersion: 'v1', kind: 'ResourceQuota', message: `${CORE}.ResourceQuota` },
  { apiVersion: 'v1', kind: 'ResourceQuotaList', message: `${CORE}.ResourceQuotaList` },
  { apiVersion: 'v1', kind: 'Event', message: `${CORE}.Event` },
  { apiVersion: 'v1', kind: 'EventList', message: `${CORE}.EventList` },
  // Status is an unversioned kind: always apiVersion v1 (metav1.Unversioned).
  { apiVersion: 'v1', kind: 'Status', message: `${META}.Status` },
  // DeleteOptions is registered in every group version (metav1.AddToGroupVersion).
  { apiVersion: '*', kind: 'DeleteOptions', message: `${META}.DeleteOptions` },
  { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', message: `${META}.PartialObjectMetadata` },
  { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList', message: `${META}.PartialObjectMetadataList` },
];
