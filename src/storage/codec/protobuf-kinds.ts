/**
 * kube's protobuf messages by apiVersion + kind (full name, no leading dot): the rows every server
 * knows. Resources bring their own (registry/resource.ts protobufKindsOf), their messages in proto/.
 */

/** One row of the table. `apiVersion: '*'` matches every group version (kube's option kinds). */
export interface ProtobufKind {
  apiVersion: string;
  kind: string;
  message: string;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/**
 * The kinds every server has whatever it serves (kube's unversioned and meta kinds). A served
 * resource's own kinds come from its declaration (ResourceDefinition.protobufMessage).
 */
export const PROTOBUF_KINDS: readonly ProtobufKind[] = [
  // Status is an unversioned kind: always apiVersion v1 (metav1.Unversioned).
  { apiVersion: 'v1', kind: 'Status', message: `${META}.Status` },
  // DeleteOptions is registered in every group version (metav1.AddToGroupVersion).
  { apiVersion: '*', kind: 'DeleteOptions', message: `${META}.DeleteOptions` },
  { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', message: `${META}.PartialObjectMetadata` },
  { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList', message: `${META}.PartialObjectMetadataList` },
];
