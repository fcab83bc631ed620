/** core/v1 ConfigMap: data, binaryData, immutable. */
import { FieldError, KubeObject, fieldErrors } from '../../../api';
import { ResourceDefinition, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, base64Size, immutableDetail, isImmutable, maxDataSize, nameColumn, validateDataKeys } from './common';

function validateConfigMap(obj: KubeObject): FieldError[] {
  const data = (obj.data as Record<string, string> | undefined) ?? {};
  const binary = (obj.binaryData as Record<string, string> | undefined) ?? {};
  const errs = [...validateDataKeys(data, 'data'), ...validateDataKeys(binary, 'binaryData')];
  for (const k of Object.keys(binary)) {
    if (k in data) errs.push(fieldErrors.invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
  }
  let size = base64Size(binary);
  for (const v of Object.values(data)) size += Buffer.byteLength(v, 'utf8');
  if (size > maxDataSize) errs.push(fieldErrors.tooLong('', maxDataSize));
  return errs;
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
  nameValidation: 'subdomain',
  returnDeletedObject: false,
  strategy: {
    ...baseStrategy,
    validate: (_ctx, obj) => validateConfigMap(obj),
    validateUpdate: (_ctx, obj, old) => {
      const errs = validateConfigMap(obj);
      if (isImmutable(old)) {
        if (JSON.stringify(obj.data ?? {}) !== JSON.stringify(old.data ?? {})) errs.push(fieldErrors.forbidden('data', immutableDetail));
        if (JSON.stringify(obj.binaryData ?? {}) !== JSON.stringify(old.binaryData ?? {})) {
          errs.push(fieldErrors.forbidden('binaryData', immutableDetail));
        }
        if (!isImmutable(obj)) errs.push(fieldErrors.forbidden('immutable', immutableDetail));
      }
      return errs;
    },
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
