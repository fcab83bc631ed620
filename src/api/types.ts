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

/**
 * A copy of metadata with kube's key order (unknown keys keep their place after the known ones).
 * With `override`, resourceVersion is the override's (undefined: none) instead of the metadata's:
 * the same as ordering `{ ...meta, resourceVersion }`, without making that intermediate object
 * (V8 gives an object made by spread, then extended, a hidden class of its own).
 */
export function orderObjectMeta(meta: ObjectMeta, override?: { resourceVersion: string | undefined }): ObjectMeta {
  const src = meta as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // The metadata's own keys placed so far (to skip the second walk when there is no other key).
  let taken = 0;
  for (const k of objectMetaOrder) {
    if (override && k === 'resourceVersion') {
      if (src[k] !== undefined) taken++;
      if (override.resourceVersion !== undefined) out[k] = override.resourceVersion;
      continue;
    }
    const v = src[k];
    if (v !== undefined) {
      out[k] = v;
      taken++;
    }
  }
  // Keys beyond the known ones are rare: only then are the keys walked again.
  const keys = Object.keys(src);
  if (keys.length === taken) return out as ObjectMeta;
  for (const k of keys) {
    if (override && k === 'resourceVersion') continue;
    if (!(k in out) && src[k] !== undefined) out[k] = src[k];
  }
  return out as ObjectMeta;
}

/**
 * A shallow copy of `obj` with `key` set to `value` (where obj has it, else last): `{ ...obj, [key]: value }`
 * built key by key, so that the copy keeps a shared hidden class when properties are added to it later.
 */
export function copyWith<T extends object>(obj: T, key: string, value: unknown): T {
  const src = obj as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let had = false;
  for (const k of Object.keys(src)) {
    if (k === key) had = true;
    setOwn(out, k, k === key ? value : src[k]);
  }
  if (!had) setOwn(out, key, value);
  return out as T;
}

/** A shallow copy of `obj` without `key`, built key by key (see copyWith). */
export function copyWithout<T extends object>(obj: T, key: string): T {
  const src = obj as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) if (k !== key) setOwn(out, k, src[k]);
  return out as T;
}

// As spread defines it: an own `__proto__` stays a property (an assignment would set the prototype).
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}
