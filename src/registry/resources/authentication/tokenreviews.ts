/**
 * authentication.k8s.io/v1 TokenReview (kubernetes pkg/registry/authentication/tokenreview): asks
 * the server's authenticators what a bearer token stands for. Cluster-scoped, create only, never
 * stored; the answer is the request's object with its status filled in.
 */
import { KubeObject, errors, orderObjectMeta } from '../../../api';
import { ResourceDefinition, ResourceSettings, baseStrategy } from '../../resource';
import type { RequestContext } from '../../context';
import { userInfoObject } from './user-info';

interface TokenReviewSpec {
  token?: string;
  audiences?: string[];
}

/**
 * kube's REST Create: an empty token is a 400; otherwise the authenticators' answer is written over
 * status (authenticated always; user and audiences when a user was found; error when one was given),
 * what else the client put in status staying as it was.
 */
async function reviewTokenObject(_ctx: RequestContext, obj: KubeObject, settings: ResourceSettings): Promise<KubeObject> {
  const spec = (obj.spec ?? {}) as TokenReviewSpec;
  if (!spec.token) throw errors.badRequest('token is required for TokenReview in authentication');
  // Without an authenticator kube answers the review as it came.
  if (!settings.reviewToken) return obj;
  const result = await settings.reviewToken(spec.token, spec.audiences ?? []);
  const prev = (obj.status ?? {}) as Record<string, unknown>;
  // Go's field order: authenticated, user, audiences, error (each omitempty but user, a struct).
  const status: Record<string, unknown> = {};
  if (result.authenticated) status.authenticated = true;
  status.user = result.authenticated ? userInfoObject(result.user) : (prev.user ?? {});
  const audiences = result.authenticated ? result.audiences : (prev.audiences as string[] | undefined);
  if (audiences && audiences.length > 0) status.audiences = audiences;
  const error = !result.authenticated && result.error ? result.error : prev.error;
  if (error) status.error = error;
  // Go writes a zero creationTimestamp as null: kube's answer carries it.
  const metadata = orderObjectMeta({ ...obj.metadata, creationTimestamp: obj.metadata.creationTimestamp ?? null });
  return { ...obj, metadata, status };
}

export const tokenreviews: ResourceDefinition = {
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'tokenreviews',
  singularName: 'tokenreview',
  kind: 'TokenReview',
  listKind: 'TokenReviewList',
  namespaced: false,
  shortNames: [],
  categories: [],
  verbs: ['create'],
  subresources: [],
  schemaName: 'io.k8s.api.authentication.v1.TokenReview',
  nameValidation: 'subdomain',
  strategy: baseStrategy,
  selectableFields: {},
  fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  returnDeletedObject: false,
  store: 'review',
  review: reviewTokenObject,
  protobufMessage: 'k8s.io.api.authentication.v1.TokenReview',
};
