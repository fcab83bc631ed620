/**
 * The declaration of one served resource: names, scope, verbs, subresources, schema, strategy,
 * table columns and field selectors. `registry/resources/<group>/<resource>.ts` each export one.
 */
import { ApiError, AuthorizationAttributes, Decision, FieldError, KubeObject, NameValidator, RbacEscalationChecks, RulesResult, Status, TokenReviewResult, UserInfo } from '../api';
import type { Preconditions } from '../storage';
import type { ProtobufKind } from '../storage/codec/protobuf-kinds';
import type { RequestContext } from './context';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const allVerbs: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** kube's RESTCreateStrategy/RESTUpdateStrategy hooks; each mutates only the object it is given. */
export interface Strategy {
  /** PUT of a missing object creates it (kube: AllowCreateOnUpdate). */
  allowCreateOnUpdate: boolean;
  /**
   * kube's scheme defaulting of the kind (SetDefaults_*), which kube applies when a body is decoded
   * and again when a mutating admission webhook has patched the object: before mutating admission
   * on every create and update, and in AdmissionAttributes.decode. Must be idempotent. Optional.
   */
  defaults?(obj: KubeObject): void;
  /** PUT without metadata.resourceVersion is last-write-wins (kube: AllowUnconditionalUpdate). */
  allowUnconditionalUpdate: boolean;
  /** Clears fields the client may not set on create (status, generation). */
  prepareForCreate(ctx: RequestContext, obj: KubeObject): void;
  /** Type-specific validation of a new object (metadata is validated generically). */
  validate(ctx: RequestContext, obj: KubeObject): FieldError[];
  /** Normalises the object after validation (e.g. canonical quantities). */
  canonicalize(obj: KubeObject): void;
  /** Copies what this write may not change from the old object (status on the main resource...). */
  prepareForUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject): void;
  /** Type-specific validation of an update. */
  validateUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject): FieldError[];
  warningsOnCreate(ctx: RequestContext, obj: KubeObject): string[];
  warningsOnUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject): string[];
}

/** A strategy whose hooks do nothing; resources spread it and override what they need. */
export const baseStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: () => undefined,
  validate: () => [],
  canonicalize: () => undefined,
  prepareForUpdate: () => undefined,
  validateUpdate: () => [],
  warningsOnCreate: () => [],
  warningsOnUpdate: () => [],
};

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string; // "name" for the name column
  description: string;
  priority?: number;
  cell(obj: KubeObject, now: Date): unknown;
}

/** A condition on one row of a Table (meta/v1 TableRowCondition): kube marks a finished pod's row `Completed`. */
export interface TableRowCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

export interface SubresourceDefinition {
  name: string; // "status", "finalize"
  verbs: Verb[];
  /** The update strategy for writes through this subresource. */
  strategy: Strategy;
  /** Fields this subresource's writes reset (kube's GetResetFields): never owned by a field manager. */
  resetFields?: string[][];
  /**
   * A subresource that is answered, not stored (kube's NamedCreater, e.g. serviceaccounts/token):
   * its POST body is another kind, decoded against that kind's schema, admitted, then answered.
   */
  answer?: SubresourceAnswer;
  /**
   * A subresource served by a handler of its own, with options from the query and no body of a
   * kind (kube's Connecter, e.g. pods/exec, and GetterWithOptions, pods/log). `verbs` are what
   * discovery lists for it; `connect.methods` are the HTTP methods it answers.
   */
  connect?: SubresourceConnect;
}

/**
 * kube's Connecter (pods/exec, attach, portforward, proxy) or GetterWithOptions (pods/log): the
 * query decodes into an options kind, a Connecter's request is admitted as a CONNECT of that
 * kind, and `serve` answers.
 */
export interface SubresourceConnect {
  /** The options kind, which discovery names for the subresource (kube: the REST's New()); log names the parent's kind. */
  kind: string;
  /** The HTTP methods served (upper case). */
  methods: string[];
  /** kube's Connecter: dryRun refused, admission sees CONNECT. False: a GetterWithOptions (a read, negotiated as one). */
  connecter: boolean;
  /** The path after the subresource is the option `path` (kube's subpath, pods/proxy/<path>). */
  subpath?: boolean;
  /** The query parameters the OpenAPI documents list for it (the options kind's fields). */
  parameters: { name: string; type: 'string' | 'integer' | 'boolean'; description: string }[];
  /**
   * The options object from the query (Go's url.Values: every value of each key), and the subpath
   * when `subpath`; throws a 400 as kube's parameter codec does.
   */
  options(query: Record<string, string[]>, subpath: string): KubeObject;
  /** The answer to a request for the object `name` in `ctx.namespace` (an ApiError refuses it). */
  serve(ctx: RequestContext, name: string, options: KubeObject, env: SubresourceEnv): Promise<ConnectAnswer>;
}

/**
 * What a connect subresource answers: a stream's bytes, kube's 204 for an empty location (a pod
 * with no node), or where to forward the request (pods/proxy: the pod's address).
 */
export type ConnectAnswer = { status: 204 } | { status: 200; contentType: string; body: Buffer } | { status: 'proxy'; target: ProxyTarget };

/** kube's location URL of a proxied request: scheme, host, port and the path (the subpath joined in). */
export interface ProxyTarget {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  path: string;
}

/** The kind a POST to an answered subresource takes and returns, and the function answering it. */
export interface SubresourceAnswer {
  group: string;
  version: string;
  kind: string;
  /** Name of the kind's schema in openapi/. */
  schemaName: string;
  /** kube's protobuf message of the kind (no list). */
  protobufMessage?: string;
  /**
   * Other apiVersions a body may name (kube's GroupVersionAcceptor: pods/eviction takes policy/v1beta1
   * too); the kind's fields must be the same. The body is read as the answer's own version.
   */
  alsoAccepts?: string[];
  /**
   * kube's REST calls createValidation itself, after checks of its own (pods/binding, pods/eviction):
   * the store runs only mutating admission first and hands `create` the validating half as
   * `validate`. Otherwise both run before `create`.
   */
  ownsValidation?: boolean;
  /**
   * The answer to a POST naming the parent object `name` in `ctx.namespace` (validation is its own).
   * It returns the answered kind, or a Status (kube's binding and eviction answer `Success`).
   */
  create(ctx: RequestContext, name: string, obj: KubeObject, env: SubresourceEnv, validate: () => Promise<void>): Promise<KubeObject | Status>;
}

type GVR = { group: string; version: string; resource: string };

/** What an answered subresource (or a review) may reach: the server's settings and the served resources. */
export interface SubresourceEnv {
  settings: ResourceSettings;
  /** A quorum read of one object of a served resource; undefined when it does not exist. */
  get(ctx: RequestContext, gvr: GVR, name: string): Promise<KubeObject | undefined>;
  /** A served resource's store, for the writes an answer makes (a binding's pod update, an eviction's delete). */
  store(gvr: GVR): ObjectWrites | undefined;
}

/**
 * The part of a served resource's store an answer may use (GenericStore's). `admission: false`
 * writes without admission, as kube's RESTs do when they pass ValidateAllObjectFunc.
 */
export interface ObjectWrites {
  readonly def: ResourceDefinition;
  get(ctx: RequestContext, name: string): Promise<KubeObject>;
  /**
   * kube's Storage.GuaranteedUpdate of one object: `tryUpdate` changes the current object and
   * nothing else runs (no strategy, admission or validation). Storage errors come back as kube's
   * InterpretUpdateError makes them (404, 409); an error `tryUpdate` throws comes back as it is.
   */
  guaranteedUpdate(ctx: RequestContext, name: string, tryUpdate: (current: KubeObject) => KubeObject, preconditions?: Preconditions): Promise<KubeObject>;
  update(
    ctx: RequestContext,
    name: string,
    updated: (current: KubeObject | null) => Promise<KubeObject> | KubeObject,
    opts: { subresource?: string; admission?: false },
  ): Promise<{ object: KubeObject; created: boolean }>;
  delete(
    ctx: RequestContext,
    name: string,
    opts: { preconditions?: Preconditions; gracePeriodSeconds?: number; propagationPolicy?: string; orphanDependents?: boolean; admission?: false },
  ): Promise<{ body: KubeObject | Status; deleted: boolean }>;
}

export interface ResourceDefinition {
  group: string; // "" = core
  version: string;
  resource: string; // plural, lowercase
  singularName: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  subresources: SubresourceDefinition[];
  /** Name of the kind's schema in openapi/ (components.schemas key), e.g. io.k8s.api.core.v1.Secret. */
  schemaName: string;
  /** Name validation applied to metadata.name: a DNS subdomain or label, or a type's own rule (kube's ValidateNameFunc). */
  nameValidation: 'subdomain' | 'label' | NameValidator;
  strategy: Strategy;
  /**
   * Field selector attributes beyond metadata.name / metadata.namespace (kube: GetAttrs).
   * Unsupported labels are rejected with `fieldSelectorError`.
   */
  selectableFields: Record<string, (obj: KubeObject) => string>;
  /** kube words the "unsupported field selector" 400 differently per type. */
  fieldSelectorError: (label: string) => string;
  /** Server-side printing columns (kube's TableConvertor); absent → default Name / Created At. */
  tableColumns?: TableColumn[];
  /** The conditions of an object's Table row (kube's printers set them on some rows); none when absent or empty. */
  tableRowConditions?: (obj: KubeObject) => TableRowCondition[] | undefined;
  /** The object kube returns for DELETE (namespaces return the object; most types a Status). */
  returnDeletedObject: boolean;
  /**
   * The OpenAPI documents DELETE as answering the object, not a Status (kube's installer asks the
   * storage's rest.MayReturnFullObjectDeleter: true for a REST that embeds a ReturnDeletedObject
   * Store, e.g. resourcequotas; namespaces return the object but hide their Store, so Status).
   */
  documentsDeletedObject?: boolean;
  /** Fields main-resource writes reset (kube's GetResetFields, e.g. status): never owned by a field manager. */
  resetFields?: string[][];
  /**
   * kube's TTLFunc: each create or update gives the object this long to live in etcd, seconds —
   * a number, or read from the server's settings when the resource is installed (events: --event-ttl).
   */
  ttlSeconds?: number | ((settings: ResourceSettings) => number);
  /**
   * The store variant: `namespace` adds the Terminating phase and finalization (namespace-store.ts);
   * `review` keeps nothing in etcd (kube's create-only reviews, review-store.ts): a POST is admitted
   * and answered by `review`.
   */
  store?: 'generic' | 'namespace' | 'review';
  /**
   * The answer to a POST of a `review` resource (validation is its own, as kube's review RESTs do);
   * `settings` carries what the server lends it (token authentication for TokenReview).
   */
  review?: (ctx: RequestContext, obj: KubeObject, settings: ResourceSettings, extras?: ReviewExtras) => Promise<KubeObject | Status> | KubeObject | Status;
  /**
   * kube's REST calls createValidation itself (the legacy `bindings`): only mutating admission runs
   * before `review`, which gets the validating half as `extras.validate`.
   */
  reviewOwnsValidation?: boolean;
  /**
   * A check that may refuse a write before it is validated (kube's policy-based RBAC storage, which
   * wraps the standard store's Create and the update function of Update, so patch and apply too).
   * Called after mutating admission on a create (old undefined), on a PUT or apply that creates, and
   * on every update with the stored object; it throws an ApiError (e.g. errors.forbidden) to refuse.
   */
  authorizeWrite?: (ctx: RequestContext, write: WriteToAuthorize, settings: ResourceSettings) => Promise<void>;
  /**
   * kube's REST wrapping the Delete of one object (PriorityClass refuses its system classes): an
   * ApiError refusing it before admission or any read, else undefined. A collection delete does not
   * ask it, as kube's DeleteCollection deletes through the plain store. Only with the generic store.
   */
  refuseDelete?: (name: string) => ApiError | undefined;
  /**
   * kube's protobuf message of the kind (full name, no leading dot), e.g. `k8s.io.api.core.v1.Secret`;
   * its list is the same name + `List`. Absent: the kind has no protobuf form (JSON only).
   */
  protobufMessage?: string;
  /**
   * Where the objects live under --etcd-prefix (kube's storage prefix): kube's built-in resources
   * use their plural (the default), custom resources `<group>/<plural>` (customResourceStoragePrefix).
   */
  storagePrefix?: string;
  /** Other apiVersions a create's body may name, read as this one (SubresourceAnswer.alsoAccepts). */
  alsoAccepts?: string[];
  /**
   * This declaration serves, in its own version, objects another declaration stores (kube's
   * cohabitating resources: events.k8s.io/v1 Events are core/v1 Events in etcd). Its
   * `storagePrefix` must be that declaration's. The store converts on every way in and out.
   */
  storedAs?: StoredVersion;
}

/**
 * Where and in which form a second served version's objects are kept: the declaration that stores
 * them (its group, version and plural), and the conversions between the two forms. GenericStore applies
 * them to every read, write, list item, watch event, delete answer and field-selector match, so
 * the objects stay one set under one etcd key each, whichever version a client uses.
 */
export interface StoredVersion {
  group: string;
  /** The version objects are stored in (discovery's storageVersionHash names it, as kube's does). */
  version: string;
  resource: string;
  /** This version's object in the stored form, apiVersion and kind included. Must not modify `obj`. */
  toStored(obj: KubeObject): KubeObject;
  /** A stored object in this version's form, apiVersion and kind included. Must not modify `obj`. */
  fromStored(obj: KubeObject): KubeObject;
}

/** What a review may reach besides the server's settings: the served resources, and its validating admission when it owns it. */
export interface ReviewExtras {
  env: SubresourceEnv;
  validate: () => Promise<void>;
}

/** What ResourceDefinition.authorizeWrite is shown of a write. */
export interface WriteToAuthorize {
  /** The object about to be validated and stored. */
  obj: KubeObject;
  /** The stored object an update replaces; undefined for a create. */
  old?: KubeObject;
  /** The request's verb: `create` is a POST; `update` is a PUT, patch or apply, which may create too. */
  verb: 'create' | 'update';
  /**
   * The name the client gave: kube checks before a generateName is resolved, so a generated
   * object's check (and its Forbidden message) carries an empty name.
   */
  name: string;
}

/** kube's key prefix for a custom resource: its group, then its plural. */
export function customResourceStoragePrefix(def: Pick<ResourceDefinition, 'group' | 'resource'>): string {
  return `${def.group}/${def.resource}`;
}

/**
 * The protobuf rows of a declaration: its kind and its list kind (none without protobufMessage).
 * A review has no list in kube (k8s.io/api declares no TokenReviewList), so only its kind.
 */
export function protobufKindsOf(def: ResourceDefinition): ProtobufKind[] {
  const answered: ProtobufKind[] = def.subresources.flatMap(({ answer: a }) =>
    a?.protobufMessage ? [{ apiVersion: a.group ? `${a.group}/${a.version}` : a.version, kind: a.kind, message: a.protobufMessage }] : [],
  );
  if (!def.protobufMessage) return answered;
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  const kind = { apiVersion, kind: def.kind, message: def.protobufMessage };
  if (def.store === 'review') return [kind, ...answered];
  return [kind, { apiVersion, kind: def.listKind, message: `${def.protobufMessage}List` }, ...answered];
}

/** The storage prefix of a declaration (kube's built-ins: the plural). */
export function storagePrefixOf(def: ResourceDefinition): string {
  return def.storagePrefix ?? def.resource;
}

/** Server settings a resource declaration may read when it is installed. */
export interface ResourceSettings {
  /** `--event-ttl`, seconds. */
  eventTtlSeconds: number;
  /**
   * The server's token authentication, for TokenReview: what its authenticators make of a bearer
   * token presented for `audiences` (empty: the server's own). Absent (a registry without a server),
   * a TokenReview is answered as kube's REST does without an authenticator: unchanged.
   */
  reviewToken?: (token: string, audiences: string[]) => Promise<TokenReviewResult>;
  /** The service-account token issuer (serviceaccounts/token); absent: a TokenRequest is refused. */
  serviceAccountTokens?: ServiceAccountTokenIssuer;
  /**
   * The server's authorizer chain, for the access reviews (SubjectAccessReview and kin) and the
   * RBAC declarations' `escalate`/`bind` checks; absent (a registry without a server): reviews get a 503.
   */
  authorization?: {
    authorize(attrs: AuthorizationAttributes): Promise<Decision>;
    rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
  };
  /** kube's RBAC escalation prevention for Role/ClusterRole/RoleBinding/ClusterRoleBinding writes; absent: none. */
  rbacEscalation?: RbacEscalationChecks;
}

/** What serviceaccounts/token needs from the server: its audiences, the expiration cap and the signer. */
export interface ServiceAccountTokenIssuer {
  /** --api-audiences: a TokenRequest without audiences gets these. */
  apiAudiences: string[];
  /** --service-account-max-token-expiration, seconds; 0: no cap. */
  maxExpirationSeconds: number;
  /** Signs kube's claims for the account (and the bound Secret, or Pod and its Node). */
  issue(input: {
    namespace: string;
    serviceAccount: { name: string; uid: string };
    secret?: { name: string; uid: string };
    pod?: { name: string; uid: string };
    /** The bound pod's node; uid empty when the Node is unknown (this server serves none). */
    node?: { name: string; uid: string };
    audiences: string[];
    expirationSeconds: number;
    now: Date;
  }): Promise<string>;
}

/** kube's defaults of the settings (a registry built without any, e.g. in tests). */
export const defaultResourceSettings: ResourceSettings = { eventTtlSeconds: 3600 };
