/**
 * authentication.k8s.io/v1 SelfSubjectReview (kubernetes pkg/registry/authentication/selfsubjectreview):
 * who the caller is, as the server authenticated it (`kubectl auth whoami`). Cluster-scoped, create
 * only, never stored; the answer is a new object, nothing of the request's kept.
 */
import { KubeObject, errors, timestamp } from '../../../api';
import { ResourceDefinition, baseStrategy } from '../../resource';
import type { RequestContext } from '../../context';
import { userInfoObject } from './user-info';

function reviewSelf(ctx: RequestContext, obj: KubeObject): KubeObject {
  if (!ctx.user) throw errors.badRequest('no user present on request');
  return {
    apiVersion: obj.apiVersion ?? 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: { creationTimestamp: timestamp(ctx.now()) },
    status: { userInfo: userInfoObject(ctx.user) },
  };
}

export const selfsubjectreviews: ResourceDefinition = {
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'selfsubjectreviews',
  singularName: 'selfsubjectreview',
  kind: 'SelfSubjectReview',
  listKind: 'SelfSubjectReviewList',
  namespaced: false,
  shortNames: [],
  categories: [],
  verbs: ['create'],
  subresources: [],
  schemaName: 'io.k8s.api.authentication.v1.SelfSubjectReview',
  nameValidation: 'subdomain',
  strategy: baseStrategy,
  selectableFields: {},
  fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  returnDeletedObject: false,
  store: 'review',
  review: reviewSelf,
  protobufMessage: 'k8s.io.api.authentication.v1.SelfSubjectReview',
};
