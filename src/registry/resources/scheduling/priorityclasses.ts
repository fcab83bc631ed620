/**
 * scheduling.k8s.io/v1 PriorityClass (kube v1.32: pkg/registry/scheduling/priorityclass, its
 * storage, pkg/apis/scheduling/validation and v1 defaults): a cluster-scoped name for a pod
 * priority. preemptionPolicy defaults to PreemptLowerPriority; generation is 1 on create and never
 * moves. Validation: a `system-` name must be one of the two system classes with its value and no
 * global default, any other class at most 1e9; on update only metadata, an unchanged value and an
 * unchanged preemptionPolicy are checked (kube's update validation checks nothing else). The
 * system classes cannot be deleted one by one (kube's REST refuses; a collection delete goes
 * through, as kube's DeleteCollection calls the plain store). Whether one default exists is the
 * Priority admission plugin's check. kube's printer: NAME, VALUE, GLOBAL-DEFAULT, AGE, PREEMPTIONPOLICY.
 */
import {
  type FieldError,
  type KubeObject,
  HIGHEST_USER_DEFINABLE_PRIORITY,
  SCHEDULING_GROUP,
  SYSTEM_PRIORITY_CLASS_PREFIX,
  errors,
  fieldErrors,
  isSystemPriorityClassName,
  priorityClassShape,
  unknownSystemPriorityClassReason,
} from '../../../api';
import { validateObjectMetaUpdate } from '../../../api/object-meta-validation';
import { type ResourceDefinition, type TableColumn, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, nameColumn } from '../core/common';

const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

/** Go struct order of scheduling/v1 PriorityClass, the order kube serialises it in. */
const FIELD_ORDER = ['apiVersion', 'kind', 'metadata', 'value', 'globalDefault', 'description', 'preemptionPolicy'];

/**
 * SetDefaults_PriorityClass plus what decoding into the Go struct does: `value` (no omitempty) is
 * always there, a false globalDefault and an empty description (omitempty) are not, keys in Go order.
 */
export function defaultPriorityClass(obj: KubeObject): void {
  const o = obj as Record<string, unknown>;
  if (typeof o.value !== 'number') o.value = 0;
  if (!o.globalDefault) delete o.globalDefault;
  if (!o.description) delete o.description;
  if (o.preemptionPolicy === undefined || o.preemptionPolicy === null) o.preemptionPolicy = 'PreemptLowerPriority';
  const rest = Object.keys(o).filter((k) => !FIELD_ORDER.includes(k));
  for (const k of [...FIELD_ORDER, ...rest]) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
    const v = o[k];
    delete o[k];
    o[k] = v;
  }
}

/** kube's ValidatePriorityClass, without the metadata checks the store makes. */
export function validatePriorityClass(obj: KubeObject): FieldError[] {
  const pc = priorityClassShape(obj);
  const name = pc.metadata.name ?? '';
  const value = pc.value ?? 0;
  const errs: FieldError[] = [];
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const reason = unknownSystemPriorityClassReason(name, value, pc.globalDefault ?? false);
    if (reason) {
      errs.push(fieldErrors.forbidden('metadata.name', `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${reason}`));
    }
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = pc.preemptionPolicy;
  if (policy !== undefined && policy !== null) {
    if (policy === '') errs.push(fieldErrors.required('preemptionPolicy', ''));
    else if (!PREEMPTION_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  }
  return errs;
}

/**
 * kube's ValidatePriorityClassUpdate: metadata (again: the store checked it once already, and kube
 * reports its errors twice), value and preemptionPolicy unchanged.
 */
export function validatePriorityClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const pc = priorityClassShape(obj);
  const was = priorityClassShape(old);
  const errs = validateObjectMetaUpdate(obj.metadata, old.metadata);
  if ((pc.value ?? 0) !== (was.value ?? 0)) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
  if ((pc.preemptionPolicy ?? null) !== (was.preemptionPolicy ?? null)) {
    // Go prints the nil pointer kube compares as "null".
    errs.push(fieldErrors.invalid('preemptionPolicy', pc.preemptionPolicy ?? 'null', 'field is immutable'));
  }
  return errs;
}

const columns: TableColumn[] = [
  nameColumn,
  { name: 'Value', type: 'integer', description: 'The priority pods naming this class get.', cell: (o) => priorityClassShape(o).value ?? 0 },
  {
    name: 'Global-Default',
    type: 'boolean',
    description: 'Whether pods naming no class get this one.',
    cell: (o) => priorityClassShape(o).globalDefault ?? false,
  },
  ageColumn,
  {
    name: 'PreemptionPolicy',
    type: 'string',
    description: 'Whether pods of this class may preempt lower-priority pods: PreemptLowerPriority or Never.',
    cell: (o) => priorityClassShape(o).preemptionPolicy ?? '',
  },
];

export const priorityclasses: ResourceDefinition = {
  group: SCHEDULING_GROUP,
  version: 'v1',
  resource: 'priorityclasses',
  singularName: 'priorityclass',
  kind: 'PriorityClass',
  listKind: 'PriorityClassList',
  namespaced: false,
  shortNames: ['pc'],
  categories: [],
  verbs: allVerbs,
  subresources: [],
  schemaName: 'io.k8s.api.scheduling.v1.PriorityClass',
  protobufMessage: 'k8s.io.api.scheduling.v1.PriorityClass',
  nameValidation: 'subdomain',
  returnDeletedObject: false,
  strategy: {
    ...baseStrategy,
    defaults: defaultPriorityClass,
    prepareForCreate: (_ctx, obj) => {
      obj.metadata.generation = 1;
    },
    validate: (_ctx, obj) => validatePriorityClass(obj),
    validateUpdate: (_ctx, obj, old) => validatePriorityClassUpdate(obj, old),
  },
  refuseDelete: (name) =>
    isSystemPriorityClassName(name)
      ? errors.forbidden({ group: SCHEDULING_GROUP, resource: 'priorityclasses' }, name, 'this is a system priority class and cannot be deleted')
      : undefined,
  selectableFields: {},
  fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  tableColumns: columns,
};
