/** core/v1 Secret (seed 001). Deeper type rules arrive with the Secret semantics issue. */
import { FieldError, KubeObject, fieldErrors } from '../../../api';
import { ResourceDefinition, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, base64Size, immutableDetail, isImmutable, maxDataSize, nameColumn, validateDataKeys } from './common';

/** stringData is write-only: merged into data on every write, never stored (kube: secret conversion). */
function mergeStringData(obj: KubeObject): void {
  const stringData = obj.stringData as Record<string, string> | undefined;
  if (stringData) {
    const data = { ...((obj.data as Record<string, string> | undefined) ?? {}) };
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v, 'utf8').toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

function defaultType(obj: KubeObject): void {
  if (!obj.type) obj.type = 'Opaque';
}

function validateSecret(obj: KubeObject): FieldError[] {
  const data = obj.data as Record<string, string> | undefined;
  const errs = validateDataKeys(data, 'data');
  if (base64Size(data) > maxDataSize) errs.push(fieldErrors.tooLong('data', maxDataSize));
  return errs;
}

export const secrets: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  singularName: 'secret',
  kind: 'Secret',
  listKind: 'SecretList',
  namespaced: true,
  shortNames: [],
  categories: [],
  verbs: allVerbs,
  subresources: [],
  schemaName: 'io.k8s.api.core.v1.Secret',
  nameValidation: 'subdomain',
  returnDeletedObject: false,
  strategy: {
    ...baseStrategy,
    prepareForCreate: (_ctx, obj) => {
      mergeStringData(obj);
      defaultType(obj);
    },
    prepareForUpdate: (_ctx, obj) => {
      mergeStringData(obj);
      defaultType(obj);
    },
    validate: (_ctx, obj) => validateSecret(obj),
    validateUpdate: (_ctx, obj, old) => {
      const errs = validateSecret(obj);
      if (obj.type !== old.type) errs.push(fieldErrors.invalid('type', obj.type, 'field is immutable'));
      if (isImmutable(old)) {
        if (JSON.stringify(obj.data ?? {}) !== JSON.stringify(old.data ?? {})) errs.push(fieldErrors.forbidden('data', immutableDetail));
        if (!isImmutable(obj)) errs.push(fieldErrors.forbidden('immutable', immutableDetail));
      }
      return errs;
    },
  },
  selectableFields: { type: (o) => String(o.type ?? '') },
  fieldSelectorError: (label) => `field label not supported: ${label}`,
  tableColumns: [
    nameColumn,
    { name: 'Type', type: 'string', description: 'The type of the secret, used to handle its data programmatically.', cell: (o) => o.type ?? '' },
    { name: 'Data', type: 'string', description: 'The number of entries in data.', cell: (o) => Object.keys((o.data as object | undefined) ?? {}).length },
    ageColumn,
  ],
};
