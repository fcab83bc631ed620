/**
 * core/v1 `bindings` (kube's LegacyBindingREST, pkg/registry/core/pod/storage/storage.go): the
 * collection schedulers posted Bindings to before pods/binding existed, which kube 1.32 still
 * serves, create only. The Binding's own name names the pod; the rest is pods/binding's
 * (pod-binding.ts). Nothing is stored under `bindings`.
 */
import { errors } from '../../../api';
import { ResourceDefinition, baseStrategy } from '../../resource';
import { bindPod } from './pod-binding';

export const bindings: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: 'bindings',
  singularName: 'binding',
  kind: 'Binding',
  listKind: 'BindingList',
  namespaced: true,
  shortNames: [],
  categories: [],
  verbs: ['create'],
  subresources: [],
  schemaName: 'io.k8s.api.core.v1.Binding',
  protobufMessage: 'k8s.io.api.core.v1.Binding',
  nameValidation: 'subdomain',
  strategy: baseStrategy,
  selectableFields: {},
  fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  returnDeletedObject: false,
  store: 'review',
  reviewOwnsValidation: true,
  review: (ctx, obj, _settings, extras) => {
    if (!extras) throw errors.internal(new Error('bindings: no access to pods'));
    return bindPod(ctx, obj.metadata.name ?? '', obj, extras.env, extras.validate);
  },
};
