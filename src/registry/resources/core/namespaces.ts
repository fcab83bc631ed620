/** core/v1 Namespace with status and finalize subresources (kube-facts §7). */
import { FieldError, KubeObject, fieldErrors, cloneJson } from '../../../api';
import { isQualifiedName } from '../../../api/labels';
import { ResourceDefinition, Strategy, baseStrategy } from '../../resource';
import { ageColumn, nameColumn } from './common';

const standardFinalizers = ['kubernetes', 'orphan', 'foregroundDeletion'];

interface NamespaceSpec {
  finalizers?: string[];
}

function nsSpec(o: KubeObject): NamespaceSpec {
  return (o.spec as NamespaceSpec | undefined) ?? {};
}

function validateFinalizers(o: KubeObject, indexed: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (nsSpec(o).finalizers ?? []).forEach((f, i) => {
    const path = indexed ? `spec.finalizers[${i}]` : 'spec.finalizers';
    if (!f.includes('/')) {
      if (!standardFinalizers.includes(f)) {
        errs.push(fieldErrors.invalid(path, f, 'name is neither a standard finalizer name nor is it fully qualified'));
      }
      return;
    }
    for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  });
  return errs;
}

function validatePhase(o: KubeObject): FieldError[] {
  const phase = (o.status as { phase?: string } | undefined)?.phase;
  if (!o.metadata.deletionTimestamp && phase !== 'Active') {
    return [fieldErrors.invalid('status.Phase', phase ?? '', "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  if (o.metadata.deletionTimestamp && phase !== 'Terminating') {
    return [fieldErrors.invalid('status.Phase', phase ?? '', "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  }
  return [];
}

/** Every namespace carries its own name as a label (kube: kubernetes.io/metadata.name). */
function nameLabel(o: KubeObject): void {
  if (o.metadata.name) o.metadata.labels = { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': o.metadata.name };
}

const statusStrategy: Strategy = {
  ...baseStrategy,
  prepareForUpdate: (_ctx, obj, old) => {
    // kube's status strategies for namespaces and resourcequotas reset only spec (metadata stays writable).
    obj.spec = cloneJson(old.spec);
  },
  validateUpdate: (_ctx, obj) => validatePhase(obj),
};

const finalizeStrategy: Strategy = {
  ...baseStrategy,
  prepareForUpdate: (_ctx, obj, old) => {
    const finalizers = nsSpec(obj).finalizers;
    obj.spec = { ...cloneJson(old.spec as object), finalizers };
    obj.status = cloneJson(old.status);
  },
  validateUpdate: (_ctx, obj) => validateFinalizers(obj, true),
};

export const namespaces: ResourceDefinition = {
  group: '',
  version: 'v1',
  store: 'namespace',
  resource: 'namespaces',
  singularName: 'namespace',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  namespaced: false,
  shortNames: ['ns'],
  categories: [],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: [
    { name: 'finalize', verbs: ['update'], strategy: finalizeStrategy, resetFields: [['status']] },
    { name: 'status', verbs: ['get', 'patch', 'update'], strategy: statusStrategy, resetFields: [['spec']] },
  ],
  resetFields: [['status'], ['spec', 'finalizers']],
  schemaName: 'io.k8s.api.core.v1.Namespace',
  protobufMessage: 'k8s.io.api.core.v1.Namespace',
  nameValidation: 'label',
  returnDeletedObject: true,
  strategy: {
    ...baseStrategy,
    prepareForCreate: (_ctx, obj) => {
      const finalizers = nsSpec(obj).finalizers ?? [];
      obj.spec = { ...nsSpec(obj), finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'] };
      obj.status = { phase: 'Active' };
      nameLabel(obj);
    },
    prepareForUpdate: (_ctx, obj, old) => {
      obj.spec = { ...nsSpec(obj), finalizers: nsSpec(old).finalizers };
      if (!nsSpec(old).finalizers) delete (obj.spec as NamespaceSpec).finalizers;
      obj.status = cloneJson(old.status);
      nameLabel(obj);
    },
    validate: (_ctx, obj) => validateFinalizers(obj, false),
    validateUpdate: (_ctx, obj) => validateFinalizers(obj, false),
    // kube's namespace Canonicalize forces the name label after the name is known (generateName too).
    canonicalize: nameLabel,
  },
  selectableFields: { 'status.phase': (o) => String((o.status as { phase?: string } | undefined)?.phase ?? '') },
  fieldSelectorError: (label) => `field label not supported: ${label}`,
  tableColumns: [
    nameColumn,
    {
      name: 'Status',
      type: 'string',
      description: 'The status of the namespace',
      cell: (o) => (o.status as { phase?: string } | undefined)?.phase ?? '',
    },
    ageColumn,
  ],
};
