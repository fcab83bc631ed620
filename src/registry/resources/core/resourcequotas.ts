/** core/v1 ResourceQuota with its status subresource (seed 001; kube-facts §6). Enforcement: admission/plugins/resource-quota.ts; usage: controllers/quota-controller.ts. */
import type { KubeObject } from '../../../api';
import { cloneJson } from '../../../api';
import { ResourceDefinition, Strategy, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, nameColumn } from './common';
import { canonicalQuantities, quotaStatus as status, validateQuota, validateQuotaStatus, validateQuotaUpdate } from './quota-validation';

function canonicalize(o: KubeObject): void {
  const s = o.spec as { hard?: Record<string, string | number> } | undefined;
  if (s?.hard) s.hard = canonicalQuantities(s.hard);
  const st = o.status as { hard?: Record<string, string | number>; used?: Record<string, string | number> } | undefined;
  if (st?.hard) st.hard = canonicalQuantities(st.hard);
  if (st?.used) st.used = canonicalQuantities(st.used);
}

const statusStrategy: Strategy = {
  ...baseStrategy,
  prepareForUpdate: (_ctx, obj, old) => {
    // kube's status strategies for namespaces and resourcequotas reset only spec (metadata stays writable).
    obj.spec = cloneJson(old.spec);
  },
  validateUpdate: (_ctx, obj) => validateQuotaStatus(status(obj)),
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
  subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], strategy: statusStrategy, resetFields: [['spec']] }],
  resetFields: [['status']],
  schemaName: 'io.k8s.api.core.v1.ResourceQuota',
  protobufMessage: 'k8s.io.api.core.v1.ResourceQuota',
  nameValidation: 'subdomain',
  // kube's resourcequota storage sets ReturnDeletedObject: DELETE answers the ResourceQuota, and its
  // REST embeds the generic Store (rest.MayReturnFullObjectDeleter), so the OpenAPI documents it.
  returnDeletedObject: true,
  documentsDeletedObject: true,
  strategy: {
    ...baseStrategy,
    // spec and status are Go struct values: kube always serialises them, as {} when empty.
    prepareForCreate: (_ctx, obj) => {
      obj.spec ??= {};
      obj.status = {};
    },
    prepareForUpdate: (_ctx, obj, old) => {
      obj.spec ??= {};
      obj.status = cloneJson(old.status ?? {});
    },
    validate: (_ctx, obj) => validateQuota(obj),
    validateUpdate: (_ctx, obj, old) => validateQuotaUpdate(obj, old),
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
