/** core/v1 ConfigMap: data, binaryData, immutable. */
import { FieldError, FieldPath, KubeObject, fieldErrors } from '../../../api';
import { ResourceDefinition, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, immutableDetail, isImmutable, mapsEqual, maxDataSize, nameColumn, validateDataKey } from './common';

type DataMap = Record<string, string>;

/** kube's ValidateConfigMap: valid keys, no key in both maps, total size ≤ 1 MiB (reported at path ""). */
export function validateConfigMap(obj: KubeObject): FieldError[] {
  const data = (obj.data as DataMap | undefined) ?? {};
  const binary = (obj.binaryData as DataMap | undefined) ?? {};
  const errs: FieldError[] = [];
  let size = 0;
  for (const k of Object.keys(data)) {
    validateDataKey(k, 'data', errs);
    if (Object.hasOwn(binary, k)) errs.push(fieldErrors.invalid(FieldPath.root('data').key(k), k, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(data[k] as string, 'utf8');
  }
  for (const k of Object.keys(binary)) {
    validateDataKey(k, 'binaryData', errs);
    if (Object.hasOwn(data, k)) errs.push(fieldErrors.invalid(FieldPath.root('binaryData').key(k), k, 'duplicate of key present in data'));
    size += Buffer.byteLength(binary[k] as string, 'base64');
  }
  // kube passes the empty path to say the error refers to the whole object.
  if (size > maxDataSize) errs.push(fieldErrors.tooLong('', maxDataSize));
  return errs;
}

/** kube's ValidateConfigMapUpdate: the `immutable` freeze (immutable, data, binaryData), then ValidateConfigMap. */
export function validateConfigMapUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (isImmutable(old)) {
    if (!isImmutable(obj)) errs.push(fieldErrors.forbidden('immutable', immutableDetail));
    if (!mapsEqual(obj.data as DataMap | undefined, old.data as DataMap | undefined)) errs.push(fieldErrors.forbidden('data', immutableDetail));
    if (!mapsEqual(obj.binaryData as DataMap | undefined, old.binaryData as DataMap | undefined)) {
      errs.push(fieldErrors.forbidden('binaryData', immutableDetail));
    }
  }
  return [...errs, ...validateConfigMap(obj)];
}

export const configmaps: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  singularName: 'configmap',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  namespaced: true,
  shortNames: ['cm'],
  categories: [],
  verbs: allVerbs,
  subresources: [],
  schemaName: 'io.k8s.api.core.v1.ConfigMap',
  protobufMessage: 'k8s.io.api.core.v1.ConfigMap',
  nameValidation: 'subdomain',
  returnDeletedObject: false,
  strategy: {
    ...baseStrategy,
    validate: (_ctx, obj) => validateConfigMap(obj),
    validateUpdate: (_ctx, obj, old) => validateConfigMapUpdate(obj, old),
  },
  selectableFields: {},
  fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  tableColumns: [
    nameColumn,
    {
      name: 'Data',
      type: 'string',
      description: 'The number of entries in data and binaryData.',
      cell: (o) => Object.keys((o.data as object | undefined) ?? {}).length + Object.keys((o.binaryData as object | undefined) ?? {}).length,
    },
    ageColumn,
  ],
};
