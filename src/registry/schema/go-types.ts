/**
 * The Go types kube decodes each schema into, as reflect's Type.String() prints them in decode
 * errors ("json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type
 * map[string]string"). OpenAPI loses Go's named types (v1.SecretType, types.UID, v1.ResourceList),
 * so fields whose Go type is not derivable from the schema are listed here, taken from
 * k8s.io/api core/v1 types.go and k8s.io/apimachinery meta/v1 types.go (v0.32).
 */

/** A Go type name for one field; `elem` is the element type of a named slice or map type. */
export interface GoFieldType {
  type: string;
  elem?: string;
}

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** `<schema name>.<json field>` → the field's Go type, where the schema alone does not tell it. */
export const goFieldTypes: ReadonlyMap<string, GoFieldType> = new Map([
  [`${CORE}Secret.type`, { type: 'v1.SecretType' }],
  [`${CORE}NamespaceSpec.finalizers`, { type: '[]v1.FinalizerName', elem: 'v1.FinalizerName' }],
  [`${CORE}NamespaceStatus.phase`, { type: 'v1.NamespacePhase' }],
  [`${CORE}NamespaceCondition.type`, { type: 'v1.NamespaceConditionType' }],
  [`${CORE}NamespaceCondition.status`, { type: 'v1.ConditionStatus' }],
  [`${CORE}ResourceQuotaSpec.hard`, { type: 'v1.ResourceList' }],
  [`${CORE}ResourceQuotaSpec.scopes`, { type: '[]v1.ResourceQuotaScope', elem: 'v1.ResourceQuotaScope' }],
  [`${CORE}ResourceQuotaStatus.hard`, { type: 'v1.ResourceList' }],
  [`${CORE}ResourceQuotaStatus.used`, { type: 'v1.ResourceList' }],
  [`${CORE}ScopedResourceSelectorRequirement.scopeName`, { type: 'v1.ResourceQuotaScope' }],
  [`${CORE}ScopedResourceSelectorRequirement.operator`, { type: 'v1.ScopeSelectorOperator' }],
  [`${META}ObjectMeta.uid`, { type: 'types.UID' }],
  [`${META}OwnerReference.uid`, { type: 'types.UID' }],
  [`${META}ManagedFieldsEntry.operation`, { type: 'v1.ManagedFieldsOperationType' }],
  [`${META}Status.reason`, { type: 'v1.StatusReason' }],
  [`${META}StatusDetails.uid`, { type: 'types.UID' }],
  [`${META}StatusCause.reason`, { type: 'v1.CauseType' }],
  [`${META}DeleteOptions.propagationPolicy`, { type: 'v1.DeletionPropagation' }],
  [`${META}Preconditions.uid`, { type: 'types.UID' }],
  [`${META}APIResource.verbs`, { type: 'v1.Verbs', elem: 'string' }],
]);

/** Go's qualified name of a named schema's type: io.k8s.api.core.v1.Secret → "v1.Secret". */
export function goTypeOfSchemaName(name: string): string {
  const parts = name.split('.');
  const typeName = parts[parts.length - 1] ?? name;
  const pkg = parts[parts.length - 2];
  return pkg ? `${pkg}.${typeName}` : typeName;
}

/** The bare struct name Go puts in decode errors: io.k8s.api.core.v1.Secret → "Secret". */
export function goStructName(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? name : name.slice(i + 1);
}
