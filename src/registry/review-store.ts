/**
 * The store of a resource nothing is kept for (kube's create-only reviews: TokenReview,
 * SubjectAccessReview, SelfSubjectReview …). A POST runs admission, then the declaration's `review`,
 * and answers what it returns; etcd is never touched. Declared with `store: 'review'`, verbs `create`.
 */
import { type KubeObject, errors } from '../api';
import type { RequestContext } from './context';
import { GenericStore, type GenericStoreDeps } from './generic-store';
import { defaultResourceSettings, type ResourceDefinition } from './resource';

export class ReviewStore extends GenericStore {
  override readonly stored = false;
  private readonly review: NonNullable<ResourceDefinition['review']>;

  constructor(def: ResourceDefinition, deps: GenericStoreDeps) {
    super(def, deps);
    if (!def.review) throw new Error(`${def.resource}.${def.group}: a review store needs the declaration's review function`);
    if (def.verbs.some((v) => v !== 'create')) throw new Error(`${def.resource}.${def.group}: a review resource serves only create`);
    this.review = def.review;
  }

  /** kube's review RESTs: admission (mutating, then validating) around nothing stored, then the answer. */
  override async create(ctx: RequestContext, obj: KubeObject): Promise<KubeObject> {
    // kube's create handler (EnsureObjectNamespaceMatchesRequestNamespace): the request's namespace
    // fills an empty one, a cluster-scoped resource's is cleared, a different one is refused.
    const m = obj.metadata;
    const want = this.def.namespaced ? ctx.namespace : '';
    if (!m.namespace) {
      if (want) m.namespace = want;
    } else if (!want) delete m.namespace;
    else if (m.namespace !== want) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    await this.deps.admission.admit(ctx, this.attrs(ctx, 'CREATE', obj));
    await this.deps.admission.validate(ctx, this.attrs(ctx, 'CREATE', obj));
    return this.review(ctx, obj, this.deps.settings ?? defaultResourceSettings);
  }
}
