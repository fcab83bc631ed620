/**
 * The store of a resource nothing is kept for (kube's create-only reviews: TokenReview,
 * SubjectAccessReview, SelfSubjectReview …). A POST runs admission, then the declaration's `review`,
 * and answers what it returns; etcd is never touched. Declared with `store: 'review'`, verbs `create`.
 */
import { type KubeObject, type Status, errors } from '../api';
import type { RequestContext } from './context';
import { GenericStore, type GenericStoreDeps } from './generic-store';
import { defaultResourceSettings, type ResourceDefinition, type SubresourceAnswer, type SubresourceEnv } from './resource';
import type { AdmissionAttributes, Operation } from '../admission';

/** An env for a store built without a registry (tests): settings only, nothing else served. */
function bareEnv(deps: GenericStoreDeps): SubresourceEnv {
  return { settings: deps.settings ?? defaultResourceSettings, get: async () => undefined, store: () => undefined };
}

/**
 * A Status answered where the handler expects an object (kube's binding REST answers `Success`);
 * the response writer tells the two apart by kind.
 */
function asAnswer(obj: KubeObject | Status): KubeObject {
  return obj as KubeObject;
}

export class ReviewStore extends GenericStore {
  override readonly stored = false;
  private readonly review: NonNullable<ResourceDefinition['review']>;
  private readonly env: SubresourceEnv;

  constructor(def: ResourceDefinition, deps: GenericStoreDeps) {
    super(def, deps);
    if (!def.review) throw new Error(`${def.resource}.${def.group}: a review store needs the declaration's review function`);
    if (def.verbs.some((v) => v !== 'create')) throw new Error(`${def.resource}.${def.group}: a review resource serves only create`);
    this.review = def.review;
    this.env = deps.env ?? bareEnv(deps);
  }

  /**
   * kube's review RESTs: admission (mutating, then validating) around nothing stored, then the
   * answer; a review that owns its validation runs the validating half itself.
   */
  override async create(ctx: RequestContext, obj: KubeObject): Promise<KubeObject> {
    matchRequestNamespace(ctx, this.def.namespaced, obj);
    await this.deps.admission.admit(ctx, this.attrs(ctx, 'CREATE', obj));
    const validate = () => this.deps.admission.validate(ctx, this.attrs(ctx, 'CREATE', obj));
    if (!this.def.reviewOwnsValidation) await validate();
    return asAnswer(await this.review(ctx, obj, this.deps.settings ?? defaultResourceSettings, { env: this.env, validate }));
  }
}

/**
 * kube's create handler (EnsureObjectNamespaceMatchesRequestNamespace): the request's namespace
 * fills an empty one, a cluster-scoped resource's is cleared, a different one is refused.
 */
function matchRequestNamespace(ctx: RequestContext, namespaced: boolean, obj: KubeObject): void {
  const m = obj.metadata;
  const want = namespaced ? ctx.namespace : '';
  if (!m.namespace) {
    if (want) m.namespace = want;
  } else if (!want) delete m.namespace;
  else if (m.namespace !== want) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

/**
 * The store behind an answered subresource (kube's NamedCreater, e.g. serviceaccounts/token): its
 * declaration is the parent's with the subresource's kind, so the create handler decodes, field-
 * manages and encodes that kind; a POST is admitted as a CREATE of the parent's subresource, then
 * answered by the subresource's `create`. Nothing is stored.
 */
export class SubresourceStore extends GenericStore {
  override readonly stored = false;

  constructor(
    readonly parent: GenericStore,
    readonly subresource: string,
    private readonly answer: SubresourceAnswer,
    deps: GenericStoreDeps,
    private readonly env: SubresourceEnv,
  ) {
    super(
      {
        ...parent.def,
        group: answer.group,
        version: answer.version,
        kind: answer.kind,
        listKind: `${answer.kind}List`,
        schemaName: answer.schemaName,
        protobufMessage: answer.protobufMessage,
        alsoAccepts: answer.alsoAccepts,
        verbs: ['create'],
        subresources: [],
        store: 'review',
      },
      deps,
    );
  }

  override async create(ctx: RequestContext, obj: KubeObject): Promise<KubeObject> {
    return this.createSubresource(ctx, obj.metadata.name ?? '', obj);
  }

  override async createSubresource(ctx: RequestContext, name: string, obj: KubeObject): Promise<KubeObject> {
    matchRequestNamespace(ctx, this.def.namespaced, obj);
    const attrs = this.attrs(ctx, 'CREATE', obj, undefined, this.subresource, name);
    await this.deps.admission.admit(ctx, attrs);
    const validate = () => this.deps.admission.validate(ctx, attrs);
    if (!this.answer.ownsValidation) await validate();
    return asAnswer(await this.answer.create(ctx, name, obj, this.env, validate));
  }

  /**
   * Admission sees the parent's resource and the subresource, with the answered kind in its own
   * group and version (kube's attributes: serviceaccounts/token is authentication.k8s.io/v1 TokenRequest).
   */
  protected override attrs(ctx: RequestContext, operation: Operation, object?: KubeObject, oldObject?: KubeObject, subresource = '', name?: string): AdmissionAttributes {
    const a = super.attrs(ctx, operation, object, oldObject, subresource, name);
    const kindGroupVersion = { group: this.def.group, version: this.def.version };
    return { ...a, group: this.parent.def.group, version: this.parent.def.version, resource: this.parent.def.resource, kindGroupVersion };
  }
}
