/** core/v1 Secret (seed 001; kube-facts §4): stringData merge, size and key rules, per-type rules, immutability. */
import { FieldError, FieldPath, KubeObject, fieldErrors, goJsonMapError } from '../../../api';
import { ResourceDefinition, allVerbs, baseStrategy } from '../../resource';
import {
  ageColumn,
  base64Size,
  immutableDetail,
  isImmutable,
  mapsEqual,
  maxDataSize,
  nameColumn,
  validateDataKeys,
} from './common';
import { x509KeyPairError } from './tls-key-pair';

type DataMap = Record<string, string>;

const dataOf = (o: KubeObject): DataMap | undefined => o.data as DataMap | undefined;

/**
 * stringData is write-only: each entry overwrites data[key] and the field is dropped (kube merges it
 * while converting the request to the internal version, so it never reaches storage or a response).
 * Runs in prepareForCreate/prepareForUpdate, i.e. after any patch has been applied.
 */
export function mergeStringData(obj: KubeObject): void {
  const stringData = obj.stringData as DataMap | undefined;
  if (stringData && Object.keys(stringData).length) {
    const data: DataMap = { ...(dataOf(obj) ?? {}) };
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v, 'utf8').toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

/** kube's SetDefaults_Secret: an empty type is Opaque. */
function defaultType(obj: KubeObject): void {
  if (!obj.type) obj.type = 'Opaque';
}

const has = (data: DataMap | undefined, key: string) => !!data && Object.prototype.hasOwnProperty.call(data, key);
const decoded = (data: DataMap | undefined, key: string) => Buffer.from(data?.[key] ?? '', 'base64');

/** The requirements of each built-in type (kube's ValidateSecret switch; unknown types have none). */
function validateType(obj: KubeObject): FieldError[] {
  const data = dataOf(obj);
  const dataPath = FieldPath.root('data');
  const jsonKey = (key: string): FieldError[] => {
    if (!has(data, key)) return [fieldErrors.required(dataPath.key(key))];
    const err = goJsonMapError(decoded(data, key));
    return err ? [fieldErrors.invalid(dataPath.key(key), '<secret contents redacted>', err)] : [];
  };
  switch (obj.type) {
    case 'kubernetes.io/service-account-token':
      // Only the annotation is required; token, ca.crt and namespace are filled in by a controller.
      if (!obj.metadata.annotations?.['kubernetes.io/service-account.name']) {
        return [fieldErrors.required(FieldPath.root('metadata').child('annotations').key('kubernetes.io/service-account.name'))];
      }
      return [];
    case 'kubernetes.io/dockercfg':
      return jsonKey('.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return jsonKey('.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      // Either key may be empty, but one of them must be present.
      if (!has(data, 'username') && !has(data, 'password')) {
        return [fieldErrors.required(dataPath.key('username')), fieldErrors.required(dataPath.key('password'))];
      }
      return [];
    case 'kubernetes.io/ssh-auth':
      return decoded(data, 'ssh-privatekey').length === 0 ? [fieldErrors.required(dataPath.key('ssh-privatekey'))] : [];
    case 'kubernetes.io/tls': {
      const errs: FieldError[] = [];
      if (!has(data, 'tls.crt')) errs.push(fieldErrors.required(dataPath.key('tls.crt')));
      if (!has(data, 'tls.key')) errs.push(fieldErrors.required(dataPath.key('tls.key')));
      return errs;
    }
    default:
      return [];
  }
}

/** kube's ValidateSecret (object metadata is validated by the generic store). */
export function validateSecret(obj: KubeObject): FieldError[] {
  const data = dataOf(obj);
  const errs = validateDataKeys(data, 'data');
  if (base64Size(data) > maxDataSize) errs.push(fieldErrors.tooLong('data', maxDataSize));
  return [...errs, ...validateType(obj)];
}

/** kube's ValidateSecretUpdate: type immutable, then the `immutable` freeze, then ValidateSecret. */
export function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.type !== old.type) errs.push(fieldErrors.invalid('type', obj.type, 'field is immutable'));
  if (isImmutable(old)) {
    if (!isImmutable(obj)) errs.push(fieldErrors.forbidden('immutable', immutableDetail));
    if (!mapsEqual(dataOf(obj), dataOf(old))) errs.push(fieldErrors.forbidden('data', immutableDetail));
  }
  return [...errs, ...validateSecret(obj)];
}

/** kube's secret strategy warns when a TLS secret's certificate and key do not form a pair. */
function tlsWarnings(obj: KubeObject): string[] {
  if (obj.type !== 'kubernetes.io/tls') return [];
  const data = dataOf(obj);
  const err = x509KeyPairError(decoded(data, 'tls.crt'), decoded(data, 'tls.key'));
  return err ? [err] : [];
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
  protobufMessage: 'k8s.io.api.core.v1.Secret',
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
    validateUpdate: (_ctx, obj, old) => validateSecretUpdate(obj, old),
    warningsOnCreate: (_ctx, obj) => tlsWarnings(obj),
    warningsOnUpdate: (_ctx, obj) => tlsWarnings(obj),
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
