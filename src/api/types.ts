/** Shared object shapes of the Kubernetes API (a JSON view; no I/O). */

export interface GroupVersion {
  group: string; // "" for the core group
  version: string;
}
export interface GroupVersionKind extends GroupVersion {
  kind: string;
}
export interface GroupVersionResource extends GroupVersion {
  resource: string;
}
export interface GroupResource {
  group: string;
  resource: string;
}
export interface GroupKind {
  group: string;
  kind: string;
}

/** `apiVersion` string for a group-version: "v1" for core, "<group>/<version>" otherwise. */
export function apiVersionOf(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** Parses "v1" or "group/version". */
export function parseApiVersion(apiVersion: string): GroupVersion {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** kube's GroupResource.String(): "secrets" for core, "deployments.apps" otherwise. */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** kube's GroupKind.String(): "Secret" for core, "Deployment.apps" otherwise. */
export function groupKindString(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** Any API object as JSON. Fields beyond TypeMeta/ObjectMeta are type-specific. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  selfLink?: string;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.Status. Key order here is the wire order (Go struct order). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  /** 'Success' or 'Failure'; an admission webhook's denial keeps any other word its webhook gave (kube's ToStatusErr). */
  status: 'Success' | 'Failure' | (string & {});
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** ObjectMeta's fields in Go struct order (the order kube serialises them). */
const objectMetaOrder = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** A copy of metadata with kube's key order (unknown keys keep their place after the known ones). */
export function orderObjectMeta(meta: ObjectMeta): ObjectMeta {
  const src = meta as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let placed = 0;
  for (const k of objectMetaOrder) {
    const v = src[k];
    if (v !== undefined) {
      out[k] = v;
      placed++;
    }
  }
  // Keys beyond the known ones are rare: only then are the keys walked again.
  const keys = Object.keys(src);
  if (keys.length === placed) return out as ObjectMeta;
  for (const k of keys) if (!(k in out) && src[k] !== undefined) out[k] = src[k];
  return out as ObjectMeta;
}
