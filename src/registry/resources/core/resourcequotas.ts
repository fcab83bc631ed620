/** core/v1 ResourceQuota with its status subresource (seed 001). Enforcement arrives with the quota issue. */
import { FieldError, FieldPath, KubeObject, fieldErrors } from '../../../api';
import { QuantityParseError, parseQuantity } from '../../../api/quantity';
import { ResourceDefinition, Strategy, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, nameColumn } from './common';

type QuantityMap = Record<string, string | number>;

/** Parses every quantity of a map, collecting kube-style field errors. */
function validateQuantities(map: QuantityMap | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, q] of Object.entries(map ?? {})) {
    try {
      if (parseQuantity(q).sign() < 0) errs.push(fieldErrors.invalid(path.key(name), String(q), 'must be greater than or equal to 0'));
    } catch (e) {
      if (!(e instanceof QuantityParseError)) throw e;
      errs.push(fieldErrors.invalid(path.key(name), String(q), e.message));
    }
  }
  return errs;
}

function canonicalMap(map: QuantityMap | undefined): Record<string, string> | undefined {
  if (!map) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) out[k] = parseQuantity(v).toString();
  return out;
}

function spec(o: KubeObject): { hard?: QuantityMap } {
  return (o.spec as { hard?: QuantityMap } | undefined) ?? {};
}
function status(o: KubeObject): { hard?: QuantityMap; used?: QuantityMap } {
  return (o.status as { hard?: QuantityMap; used?: QuantityMap } | undefined) ?? {};
}

function validateQuota(o: KubeObject): FieldError[] {
  return [
    ...validateQuantities(spec(o).hard, FieldPath.root('spec').child('hard')),
    ...validateQuantities(status(o).hard, FieldPath.root('status').child('hard')),
    ...validateQuantities(status(o).used, FieldPath.root('status').child('used')),
  ];
}

function canonicalize(o: KubeObject): void {
  const s = o.spec as { hard?: QuantityMap } | undefined;
  if (s?.hard) s.hard = canonicalMap(s.hard);
  const st = o.status as { hard?: QuantityMap; used?: QuantityMap } | undefined;
  if (st?.hard) st.hard = canonicalMap(st.hard);
  if (st?.used) st.used = canonicalMap(st.used);
}

const statusStrategy: Strategy = {
  ...baseStrategy,
  prepareForUpdate: (_ctx, obj, old) => {
    // kube's status strategies for namespaces and resourcequotas reset only spec (metadata stays writable).
    obj.spec = structuredClone(old.spec);
  },
  validateUpdate: (_ctx, obj) => validateQuota(obj),
  canonicalize,
};

/** "<resource>: <used>/<hard>" entries of the Request or Limit column (kube's printer, 1.32). */
function usageSummary(o: KubeObject, limits: boolean): string {
  const st = status(o);
  const entries: string[] = [];
  for (const name of Object.keys(st.hard ?? {}).sort()) {
    const parts = name.split('.');
    const isLimit = parts.length >= 2 && parts[0] === 'limits';
    if (isLimit !== limits) continue;
    const used = st.used?.[name];
    entries.push(`${name}: ${used === undefined ? '0' : String(used)}/${String(st.hard?.[name])}`);
  }
  return entries.join(', ');
}

export const resourcequotas: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: 'resourcequotas',
  singularName: 'resourcequota',
  kind: 'ResourceQuota',
  listKind: 'ResourceQuotaList',
  namespaced: true,
  shortNames: ['quota'],
  categories: [],
  verbs: allVerbs,
  subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], strategy: statusStrategy }],
  schemaName: 'io.k8s.api.core.v1.ResourceQuota',
  nameValidation: 'subdomain',
  returnDeletedObject: false,
  strategy: {
    ...baseStrategy,
    prepareForCreate: (_ctx, obj) => {
      delete obj.status;
    },
    prepareForUpdate: (_ctx, obj, old) => {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    },
    validate: (_ctx, obj) => validateQuota(obj),
    validateUpdate: (_ctx, obj) => validateQuota(obj),
    canonicalize,
  },
  selectableFields: {},
  fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  tableColumns: [
    nameColumn,
    ageColumn,
    { name: 'Request', type: 'string', description: 'Used and hard quota of every non-limit resource.', cell: (o) => usageSummary(o, false) },
    { name: 'Limit', type: 'string', description: 'Used and hard quota of every limits.* resource.', cell: (o) => usageSummary(o, true) },
  ],
};
