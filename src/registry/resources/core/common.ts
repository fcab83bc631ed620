/** Pieces several core resources share: the age column, data-map validation, immutability. */
import { FieldError, FieldPath, KubeObject, fieldErrors } from '../../../api';
import { ageString } from '../../../api/duration';
import { isConfigMapKey } from '../../../api/names';
import type { TableColumn } from '../../resource';
import { objectMetaCreationTimestampDescription, objectMetaNameDescription } from '../../table';

/** kube's printers' Name column. */
export const nameColumn: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: objectMetaNameDescription,
  cell: (o) => o.metadata.name ?? '',
};

/** kube's printers' Age column (metadata.creationTimestamp). */
export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description: objectMetaCreationTimestampDescription,
  cell: (o, now) => ageString(o.metadata.creationTimestamp, now),
};

/** kube: MaxSecretSize, also the ConfigMap limit. */
export const maxDataSize = 1024 * 1024;

/** Validates the keys of a data map (kube: IsConfigMapKey), collecting errors at `path[key]`. */
export function validateDataKeys(data: Record<string, unknown> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(data ?? {})) validateDataKey(key, path, errs);
  return errs;
}

/** Validates one data-map key (kube: IsConfigMapKey), appending its errors at `path[key]` to errs. */
export function validateDataKey(key: string, path: string, errs: FieldError[]): void {
  for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(FieldPath.root(path).key(key), key, msg));
}

/** Decoded size of base64 values. */
export function base64Size(data: Record<string, string> | undefined): number {
  let n = 0;
  for (const v of Object.values(data ?? {})) n += Buffer.byteLength(v, 'base64');
  return n;
}

export function isImmutable(obj: KubeObject): boolean {
  return obj.immutable === true;
}

export const immutableDetail = 'field is immutable when `immutable` is set';

/** reflect.DeepEqual of two string maps, treating absent and empty alike (key order is irrelevant). */
export function mapsEqual(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(b ?? {}, k) && (a ?? {})[k] === (b ?? {})[k]);
}
