/**
 * GenericStore: one resource's verbs, each a short sequence of strategy hooks around one storage
 * call (kube's genericregistry.Store). Storage failures become ApiErrors here, at the boundary.
 */
import { randomUUID } from 'node:crypto';
import {
  ApiError,
  FieldError,
  GroupKind,
  GroupResource,
  KubeList,
  KubeObject,
  Status,
  StatusCause,
  StatusDetails,
  apiVersionOf,
  errors,
  failureStatus,
  fieldErrors,
  groupResourceString,
  parseResourceVersion,
  successStatus,
  timestamp,
  cloneJson,
} from '../api';
import { generateName } from '../api/names';
import { loopHeld, nextTurn } from '../api/turns';
import { validateObjectMeta, validateObjectMetaUpdate } from '../api/object-meta-validation';
import type { AdmissionAttributes, AdmissionChain, Operation } from '../admission';
import { CorruptObjectsError, Preconditions, Storage, StorageError, Watch, WatchSink, WatchStart, isStorageError } from '../storage';
import type { RequestContext } from './context';
import { withNamespace } from '../api/request-context';
import { ListQuery, readConsistency, resolveList } from './list-options';
import { defaultResourceSettings, storagePrefixOf, type ResourceDefinition, type ResourceSettings, type Strategy, type SubresourceEnv, type WriteToAuthorize } from './resource';
import { storedVersionStorage } from './stored-version';
import type { SchemaRegistry } from './schema';

/** kube's rest.UpdatedObjectInfo: computes the new object from the current one (null = absent). */
export type UpdatedObjectFn = (current: KubeObject | null) => Promise<KubeObject> | KubeObject;

export interface DeleteOptions {
  preconditions?: Preconditions;
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  /** false: no admission (kube's RESTs that delete with ValidateAllObjectFunc: an eviction's delete). */
  admission?: false;
}

export interface DeleteResult {
  /** The object (with finalizers pending, or types that return it) or a Success Status. */
  body: KubeObject | Status;
  /** False when the object stays (finalizers); kube answers 202 only with orphanDependents=false. */
  deleted: boolean;
}

export interface GenericStoreDeps {
  storage: Storage;
  /** etcd key prefix, e.g. /registry. */
  prefix: string;
  admission: AdmissionChain;
  /** What declarations read when installed (default: kube's defaults). */
  settings?: ResourceSettings;
  /** The kinds' decoders, lent to admission (AdmissionAttributes.decode: webhook-patched objects). */
  schemas?: Pick<SchemaRegistry, 'decode'>;
  /** What a review reaches of the server (Registry.env); absent in a store built alone. */
  env?: SubresourceEnv;
}

/** kube's maxNameGenerationCreateAttempts: how many times a create with a name to generate is tried. */
const generateNameAttempts = 8;

/** The chain of a write kube makes with ValidateAllObjectFunc: no plugin runs. */
const noAdmission: Pick<AdmissionChain, 'admit' | 'validate'> = { admit: async () => undefined, validate: async () => undefined };

export class GenericStore {
  readonly gr: GroupResource;
  readonly gk: GroupKind;
  readonly apiVersion: string;
  /** The declaration's TTL, resolved when installed (Registry.add), seconds. */
  readonly ttlSeconds: number | undefined;
  /** Whether objects are kept in etcd (a review store keeps none). */
  readonly stored: boolean = true;
  /** `<etcd prefix>/<storage prefix>`: every key of this resource starts with it and a slash. */
  private readonly keyRoot: string;
  private readonly removal = new AbortController();
  /** AdmissionAttributes.decode for this kind (made once: attrs() runs on every write). */
  private readonly admissionDecode?: (obj: unknown) => KubeObject;

  constructor(
    readonly def: ResourceDefinition,
    protected readonly deps: GenericStoreDeps,
  ) {
    this.gr = { group: def.group, resource: def.resource };
    // kube names the kind of invalid objects and failed delete preconditions by the stored (internal)
    // type: an events.k8s.io Event is refused as `Event "x" is invalid`, group "".
    this.gk = { group: def.storedAs?.group ?? def.group, kind: def.kind };
    // A second version of a stored kind reads and writes through conversions (StoredVersion).
    if (def.storedAs) this.deps = { ...deps, storage: storedVersionStorage(deps.storage, def.storedAs) };
    this.apiVersion = apiVersionOf(def);
    // The declaration's TTL, or the server setting it names, resolved once.
    const ttl = def.ttlSeconds;
    this.ttlSeconds = typeof ttl === 'function' ? ttl(deps.settings ?? defaultResourceSettings) : ttl;
    this.keyRoot = `${deps.prefix}/${storagePrefixOf(def)}`;
    const schemas = deps.schemas;
    // kube decodes a webhook-patched object and applies the kind's defaults to it again.
    if (schemas) {
      this.admissionDecode = (raw) => {
        const obj = decodeForAdmission(schemas, def.schemaName, raw);
        def.strategy.defaults?.(obj);
        return obj;
      };
    }
  }

  /** Aborted when the resource stops being served (Registry.remove): its watches end. */
  get removedSignal(): AbortSignal {
    return this.removal.signal;
  }

  /** Called by Registry.remove: ends the resource's watches; its objects stay in etcd. */
  markRemoved(): void {
    this.removal.abort(new Error(`${groupResourceString(this.gr)} is no longer served`));
  }

  keyFor(namespace: string, name: string): string {
    return this.def.namespaced ? `${this.keyRoot}/${namespace}/${name}` : `${this.keyRoot}/${name}`;
  }

  /** The prefix of a collection: one namespace, or every namespace when ns is "". */
  prefixFor(namespace: string): string {
    return this.def.namespaced && namespace ? `${this.keyRoot}/${namespace}/` : `${this.keyRoot}/`;
  }

  async get(ctx: RequestContext, name: string, opts: { resourceVersion?: string } = {}): Promise<KubeObject> {
    const consistency = readConsistency(opts.resourceVersion);
    try {
      return await this.deps.storage.get(this.keyFor(ctx.namespace, name), { consistency, ctx });
    } catch (e) {
      throw this.translate(e, name, 'get');
    }
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<KubeList> {
    const prefix = this.prefixFor(ctx.namespace);
    const plan = resolveList(this.def, prefix, query, this.singleKeyResolver(ctx));
    try {
      // A pinned name reads its key's range; the predicate drops neighbours that share the prefix.
      const r = await this.deps.storage.list(plan.singleKey ?? prefix, { ...plan.options, ctx });
      const list: KubeList = {
        kind: this.def.listKind,
        apiVersion: this.apiVersion,
        metadata: { resourceVersion: r.revision.toString() },
        items: r.items,
      };
      if (plan.singleKey === undefined) {
        if (r.continueKey !== undefined) list.metadata.continue = plan.continueToken(r.continueKey, r.revision);
        if (r.remainingItemCount !== undefined) list.metadata.remainingItemCount = r.remainingItemCount;
      }
      return list;
    } catch (e) {
      if (isStorageError(e, 'Compacted')) throw plan.expired();
      throw this.translate(e, '', 'list');
    }
  }

  /**
   * Starts a watch (seed 000's watch table): RV unset → current state then changes;
   * "0" → state at any revision then changes; N → changes after N. `sendInitialEvents=true` gives the
   * state at the requested freshness (RV unset: consistent), ended by a bookmark; `sendInitialEvents=false`
   * with RV unset starts at the current revision without state. RV unset without sendInitialEvents is
   * kube's legacy watch (storage's `withoutResourceVersion`); over HTTP only while WatchList is off.
   */
  async watch(ctx: RequestContext, query: ListQuery & { allowWatchBookmarks?: boolean }, sink: WatchSink): Promise<Watch> {
    const prefix = this.prefixFor(ctx.namespace);
    const plan = resolveList(this.def, prefix, query, this.singleKeyResolver(ctx));
    const rv = query.resourceVersion ?? '';
    let start: WatchStart;
    if (query.sendInitialEvents) start = { kind: 'state', consistency: readConsistency(rv) };
    else if (rv === '' && query.sendInitialEvents === false) start = { kind: 'after', revision: await this.currentRevision() };
    else if (rv === '' || rv === '0') start = { kind: 'state', consistency: readConsistency(rv) };
    else start = { kind: 'after', revision: parseResourceVersion(rv) };
    // kube's MatchesSingle: a watch pinned to one name (and namespace) watches that one key.
    const singleKey = plan.singleKey;
    return this.deps.storage.watch(
      singleKey ?? prefix,
      {
        exactKey: singleKey !== undefined,
        start,
        predicate: plan.options.predicate,
        bookmarks: !!query.allowWatchBookmarks,
        initialEventsEndBookmark: !!query.sendInitialEvents && !!query.allowWatchBookmarks,
        // kube's legacy watch (the HTTP handler makes it a streaming list while WatchList is on).
        withoutResourceVersion: rv === '' && query.sendInitialEvents === undefined,
      },
      sink,
    );
  }

  /** kube's MatchesSingle + KeyFunc: a pinned name resolves to one key, except across namespaces for a namespaced resource. */
  private singleKeyResolver(ctx: RequestContext): (name: string) => string | undefined {
    return (name) => (!this.def.namespaced || ctx.namespace ? this.keyFor(ctx.namespace, name) : undefined);
  }

  private async currentRevision(): Promise<bigint> {
    try {
      return await this.deps.storage.currentRevision();
    } catch (e) {
      throw this.translate(e, '', 'watch');
    }
  }

  /**
   * kube's Storage.GuaranteedUpdate on one object, outside the strategy: `tryUpdate` alone makes the
   * new object (no admission, defaults or validation), under `preconditions`. What kube's
   * BindingREST writes with. Storage errors are translated (404, 409); `tryUpdate`'s own pass through.
   */
  async guaranteedUpdate(ctx: RequestContext, name: string, tryUpdate: (current: KubeObject) => KubeObject, preconditions?: Preconditions): Promise<KubeObject> {
    try {
      const r = await this.deps.storage.guaranteedUpdate(this.keyFor(ctx.namespace, name), {
        preconditions,
        dryRun: ctx.dryRun,
        ctx,
        ttlSeconds: this.ttlSeconds,
        tryUpdate: (current) => tryUpdate(cloneJson(current as KubeObject)),
      });
      return r.object;
    } catch (e) {
      throw this.translate(e, name, 'update');
    }
  }

  /**
   * kube's ConnectResource admission: a CONNECT of the subresource, the options object as the
   * object (kind and apiVersion its own), through mutating then validating admission.
   */
  async admitConnect(ctx: RequestContext, name: string, subresource: string, options: KubeObject): Promise<void> {
    // The options are no object of the resource's kind: a webhook's patch of them is taken as it is.
    const attrs: AdmissionAttributes = { ...this.attrs(ctx, 'CONNECT', options, undefined, subresource, name), kind: options.kind ?? this.def.kind, decode: undefined };
    await this.deps.admission.admit(ctx, attrs);
    await this.deps.admission.validate(ctx, attrs);
  }

  /** A POST naming an object (an answered subresource, SubresourceStore): not served by a stored resource. */
  async createSubresource(_ctx: RequestContext, _name: string, _obj: KubeObject): Promise<KubeObject> {
    throw errors.routeMethodNotAllowed();
  }

  async create(ctx: RequestContext, obj: KubeObject): Promise<KubeObject> {
    const requestedName = obj.metadata.name ?? '';
    // kube's order: the create handler readies the object and runs mutating admission (webhooks see
    // no uid, no creationTimestamp, no generated name yet); the store's BeforeCreate comes after.
    this.readyRequestObject(ctx, obj, true);
    await this.deps.admission.admit(ctx, this.attrs(ctx, 'CREATE', obj));
    if (this.def.authorizeWrite) await this.authorizeWrite(ctx, { obj, verb: 'create', name: requestedName });
    if (loopHeld()) await nextTurn();
    if (!obj.metadata.generateName || obj.metadata.name) return this.createAttempt(ctx, obj);
    // kube's Store.Create with a name to generate (RetryGenerateName, GA and locked on in 1.32):
    // on AlreadyExists, whatever raised it, the store's whole create again on a fresh copy of the
    // admitted object (a new name, uid and creationTimestamp, BeforeCreate, validation, validating
    // admission), at most 8 times in all; mutating admission, in the handler, is not run again.
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= generateNameAttempts;
      try {
        // Only the last attempt's conflict reaches the client: the earlier ones skip reading the taken key.
        return await this.createAttempt(ctx, last ? obj : cloneJson(obj), last);
      } catch (e) {
        if (last || !(e instanceof ApiError && e.status.reason === 'AlreadyExists')) throw e;
      }
    }
  }

  /** kube's Store.create: BeforeCreate (the name generated), validation, validating admission, the storage create. */
  private async createAttempt(ctx: RequestContext, obj: KubeObject, explainConflict = true): Promise<KubeObject> {
    this.beforeCreate(ctx, obj);
    this.validateCreate(ctx, obj);
    await this.deps.admission.validate(ctx, this.attrs(ctx, 'CREATE', obj));
    if (loopHeld()) await nextTurn();
    const name = obj.metadata.name ?? '';
    const key = this.keyFor(ctx.namespace, name);
    try {
      return await this.deps.storage.create(key, obj, { dryRun: ctx.dryRun, ttlSeconds: this.ttlSeconds, ctx });
    } catch (e) {
      if (isStorageError(e, 'KeyExists')) {
        const generated = !!obj.metadata.generateName;
        throw explainConflict ? await this.createConflict(ctx, key, name, generated) : errors.generateNameConflict(this.gr, name);
      }
      throw this.translate(e, name, 'create');
    }
  }

  /**
   * kube's error for a create whose key is taken (CheckGeneratedNameError, then the object read):
   * with a generateName, even beside a name the client gave, the generated-name conflict (409,
   * retry after 1 s); a taken key whose object is being deleted says so first.
   */
  private async createConflict(ctx: RequestContext, key: string, name: string, generateName: boolean): Promise<ApiError> {
    const err = generateName ? errors.generateNameConflict(this.gr, name) : errors.alreadyExists(this.gr, name);
    let existing: KubeObject;
    try {
      existing = await this.deps.storage.get(key, { consistency: readConsistency(undefined), ctx });
    } catch {
      return err;
    }
    return existing.metadata.deletionTimestamp ? new ApiError({ ...err.status, message: `object is being deleted: ${err.status.message ?? ''}` }) : err;
  }

  /**
   * PUT and PATCH: computes the new object from the current one, checks resourceVersion, runs the
   * update hooks and stores with compare-and-swap; creates when the strategy allows (PUT),
   * never (PATCH) or always (apply). Returns the stored object and whether it was created.
   */
  async update(
    ctx: RequestContext,
    name: string,
    updated: UpdatedObjectFn,
    opts: {
      subresource?: string;
      create?: 'strategy' | 'never' | 'always';
      admission?: false;
      /** `updated` only reads the object it is given (PUT's field manager): it gets the current object, not a copy of its own. */
      updatedReadsCurrent?: boolean;
    } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const strategy = this.strategyFor(opts.subresource);
    // kube's RESTs that update with ValidateAllObjectFunc (an eviction's condition) run no admission.
    const admission = opts.admission === false ? noAdmission : this.deps.admission;
    const key = this.keyFor(ctx.namespace, name);
    const mode = opts.create ?? 'strategy';
    const createIfMissing = !opts.subresource && (mode === 'always' || (mode === 'strategy' && strategy.allowCreateOnUpdate));
    let result: { object: KubeObject; created: boolean };
    try {
      result = await this.deps.storage.guaranteedUpdate(key, {
        createIfMissing,
        dryRun: ctx.dryRun,
        ctx,
        ttlSeconds: this.ttlSeconds,
        tryUpdate: async (current) => {
          if (!current) {
            const obj = await updated(null);
            this.readyRequestObject(ctx, obj, true);
            await this.deps.admission.admit(ctx, this.attrs(ctx, 'CREATE', obj));
            if (this.def.authorizeWrite) await this.authorizeWrite(ctx, { obj, verb: 'update', name: obj.metadata.name ?? name });
            if (loopHeld()) await nextTurn();
            this.beforeCreate(ctx, obj);
            this.validateCreate(ctx, obj);
            await this.deps.admission.validate(ctx, this.attrs(ctx, 'CREATE', obj));
            if (loopHeld()) await nextTurn();
            delete obj.metadata.resourceVersion;
            return obj;
          }
          if (loopHeld()) await nextTurn();
          const obj = await updated(opts.updatedReadsCurrent ? current : cloneJson(current));
          // kube's order: mutating admission and the declaration's write check (RBAC escalation) run
          // as the updated object is made, before the resourceVersion check and BeforeUpdate.
          this.readyRequestObject(ctx, obj, false);
          await admission.admit(ctx, this.attrs(ctx, 'UPDATE', obj, current, opts.subresource));
          if (this.def.authorizeWrite && !opts.subresource) await this.authorizeWrite(ctx, { obj, old: current, verb: 'update', name: obj.metadata.name ?? name });
          if (loopHeld()) await nextTurn();
          this.checkResourceVersion(obj, current, strategy);
          this.beforeUpdate(ctx, obj, current, strategy);
          this.validateUpdate(ctx, obj, current, strategy);
          await admission.validate(ctx, this.attrs(ctx, 'UPDATE', obj, current, opts.subresource));
          if (loopHeld()) await nextTurn();
          return obj;
        },
      });
    } catch (e) {
      throw this.translate(e, name, 'update');
    }
    // kube: an update that removes the last finalizer of an object being deleted deletes it.
    const m = result.object.metadata;
    if (!result.created && m.deletionTimestamp && !this.finalizersPending(result.object) && !ctx.dryRun) {
      try {
        const deleted = await this.deps.storage.delete(key, { preconditions: { resourceVersion: m.resourceVersion }, ctx });
        return { object: deleted, created: false };
      } catch (e) {
        if (!isStorageError(e, 'KeyNotFound') && !isStorageError(e, 'InvalidPrecondition')) throw this.translate(e, name, 'delete');
      }
    }
    return result;
  }

  async delete(ctx: RequestContext, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    return this.deleteOne(ctx, name, opts, name);
  }

  /**
   * kube's Store.Delete: the object is read (its 404 first), the preconditions checked (409), and
   * only then does admission run, mutating and validating, with the stored object as oldObject —
   * inside the write (kube's deleteValidation): in the update that marks an object with finalizers,
   * or in the storage delete, again on a fresh read if the object changed meanwhile. `admissionName`
   * is the name admission is told: the object's, or "" for an item of a deletecollection.
   */
  private async deleteOne(ctx: RequestContext, name: string, opts: DeleteOptions, admissionName: string): Promise<DeleteResult> {
    const key = this.keyFor(ctx.namespace, name);
    let existing: KubeObject;
    try {
      existing = await this.deps.storage.get(key, { ctx });
    } catch (e) {
      throw this.translate(e, name, 'delete');
    }
    this.checkDeletePreconditions(name, opts.preconditions, existing);
    const admit = opts.admission === false ? async () => undefined : (current: KubeObject) => this.admitDelete(ctx, admissionName, current);
    if (this.finalizersPending(existing)) return this.markForDeletion(ctx, key, name, existing, opts, admit);
    try {
      const last = await this.deps.storage.delete(key, { preconditions: opts.preconditions, dryRun: ctx.dryRun, cachedExisting: existing, validateDeletion: admit, ctx });
      return { body: this.deletedBody(last), deleted: true };
    } catch (e) {
      throw this.translate(e, name, 'delete');
    }
  }

  /**
   * kube's AdmissionToValidateObjectDeleteFunc: one set of attributes, the object about to be
   * deleted (a copy) as oldObject, through mutating then validating admission.
   */
  private async admitDelete(ctx: RequestContext, name: string, current: KubeObject): Promise<void> {
    const attrs = this.attrs(ctx, 'DELETE', undefined, cloneJson(current), undefined, name);
    await this.deps.admission.admit(ctx, attrs);
    await this.deps.admission.validate(ctx, attrs);
  }

  /**
   * Whether deleting again an object already marked for deletion goes through admission (kube's
   * store: yes, it is "marked" again); a resource with its own delete may answer without it.
   */
  protected admitsRepeatedDelete(_existing: KubeObject): boolean {
    return true;
  }

  /**
   * kube's corruptObjectDeleter (DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential,
   * gate AllowUnsafeMalformedObjectDeletion; the caller checked the option's rules and permission):
   * only for an object etcd holds but the server cannot read back. It tries the normal deletion
   * first, then deletes the key without reading it, skipping preconditions and finalizers.
   */
  async deleteCorrupt(ctx: RequestContext, name: string): Promise<DeleteResult> {
    const key = this.keyFor(ctx.namespace, name);
    const readError = await this.deps.storage.get(key).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isStorageError(readError, 'CorruptObject')) {
      // kube names the resource where the kind goes (its TODO in corrupt_obj_deleter.go).
      throw errors.invalid({ group: this.gr.group, kind: this.gr.resource }, name, [
        fieldErrors.invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is exclusively used to delete corrupt object(s), try again by removing this option'),
      ]);
    }
    try {
      return await this.delete(ctx, name, {});
    } catch (e) {
      if (!(e instanceof ApiError) || !e.message.includes('corrupt object')) throw e;
    }
    // kube's delete validation runs with no object: there is none to show.
    await this.deps.admission.admit(ctx, this.attrs(ctx, 'DELETE', undefined, undefined, undefined, name));
    await this.deps.admission.validate(ctx, this.attrs(ctx, 'DELETE', undefined, undefined, undefined, name));
    let deleted: boolean;
    try {
      deleted = await this.deps.storage.deleteIgnoringReadError(key, { ctx });
    } catch (e) {
      throw this.translate(e, name, 'delete');
    }
    // kube's delete handler fills in a Status, with its code, when the deleter returns no object.
    return { body: { ...successStatus({ name, kind: this.def.kind }), code: 200 }, deleted };
  }

  /**
   * Deletes every object of the list (kube: DeleteCollection, one worker) and returns the list of
   * those deleted. Admission sees each item with the collection's attributes: no name.
   */
  async deleteCollection(ctx: RequestContext, query: ListQuery, opts: DeleteOptions): Promise<KubeList> {
    const list = await this.list(ctx, query);
    const deleted: KubeObject[] = [];
    for (const item of list.items) {
      const itemCtx = withNamespace(ctx, item.metadata.namespace ?? '');
      try {
        const r = await this.deleteOne(itemCtx, item.metadata.name ?? '', opts, '');
        deleted.push(r.body.kind === 'Status' ? item : (r.body as KubeObject));
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) continue;
        throw e;
      }
    }
    return { ...list, metadata: { resourceVersion: list.metadata.resourceVersion }, items: deleted };
  }

  /** Strips kind/apiVersion from list items as kube's JSON list encoding does. */
  static stripItemTypes(list: KubeList): KubeList {
    return {
      ...list,
      items: list.items.map((i) => {
        const { kind: _k, apiVersion: _a, ...rest } = i;
        return rest as KubeObject;
      }),
    };
  }

  /** The first phase of a delete with finalizers pending: admission (`admit`), then the object marked. */
  private async markForDeletion(
    ctx: RequestContext,
    key: string,
    name: string,
    existing: KubeObject,
    opts: DeleteOptions,
    admit: (current: KubeObject) => Promise<void>,
  ): Promise<DeleteResult> {
    if (existing.metadata.deletionTimestamp) {
      // Marking again changes nothing (kube writes nothing either).
      if (this.admitsRepeatedDelete(existing)) await admit(existing);
      return { body: existing, deleted: false };
    }
    try {
      const r = await this.deps.storage.guaranteedUpdate(key, {
        preconditions: opts.preconditions,
        dryRun: ctx.dryRun,
        ctx,
        tryUpdate: async (cur) => {
          const obj = cur as KubeObject;
          await admit(obj);
          this.markDeleted(obj, ctx.now());
          return obj;
        },
      });
      return { body: r.object, deleted: false };
    } catch (e) {
      throw this.translate(e, name, 'delete');
    }
  }

  /** Whether finalizers keep the object after a delete (or after an update while deleting). */
  protected finalizersPending(obj: KubeObject): boolean {
    return !!obj.metadata.finalizers?.length;
  }

  /** The first phase of a delete with finalizers pending: kube sets deletionTimestamp and a zero grace period. */
  protected markDeleted(obj: KubeObject, now: Date): void {
    if (!obj.metadata.deletionTimestamp) obj.metadata.deletionTimestamp = timestamp(now);
    obj.metadata.deletionGracePeriodSeconds = 0;
    if (obj.metadata.generation) obj.metadata.generation += 1;
  }

  private deletedBody(last: KubeObject): KubeObject | Status {
    if (this.def.returnDeletedObject) return last;
    const details: StatusDetails = {
      name: last.metadata.name,
      group: this.def.group,
      kind: this.def.resource,
      uid: last.metadata.uid,
    };
    return successStatus(details);
  }

  private strategyFor(subresource?: string): Strategy {
    if (!subresource) return this.def.strategy;
    const sub = this.def.subresources.find((s) => s.name === subresource);
    if (!sub) throw errors.routeNotFound();
    return sub.strategy;
  }

  /**
   * The declaration's check of a write (kube's policy-based RBAC storage): where kube's wrapper runs,
   * after mutating admission and before the strategy's validation. Subresource writes are not checked.
   */
  private async authorizeWrite(ctx: RequestContext, write: WriteToAuthorize): Promise<void> {
    await this.def.authorizeWrite?.(ctx, write, this.deps.settings ?? defaultResourceSettings);
  }

  /**
   * What kube's create and update handlers do to a decoded object before mutating admission: its
   * namespace made the request's (or a mismatch refused), on a create the system fields a client
   * may not set wiped (rest.WipeObjectMetaSystemFields), and the kind's defaults applied (kube's
   * decoder defaults).
   */
  private readyRequestObject(ctx: RequestContext, obj: KubeObject, creating: boolean): void {
    const m = obj.metadata;
    if (this.def.namespaced) {
      if (m.namespace && ctx.namespace && m.namespace !== ctx.namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (ctx.namespace) m.namespace = ctx.namespace;
    }
    if (creating) {
      delete m.uid;
      delete m.creationTimestamp;
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
      delete m.selfLink;
    }
    this.def.strategy.defaults?.(obj);
  }

  /** kube's rest.BeforeCreate (after mutating admission): system fields, strategy preparation, generated name. */
  private beforeCreate(ctx: RequestContext, obj: KubeObject): void {
    const m = obj.metadata;
    if (this.def.namespaced) {
      if (m.namespace && ctx.namespace && m.namespace !== ctx.namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      m.namespace = ctx.namespace || m.namespace;
    } else {
      delete m.namespace;
    }
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    this.def.strategy.prepareForCreate(ctx, obj);
    if (m.generateName && !m.name) m.name = generateName(m.generateName);
    m.uid = randomUUID();
    m.creationTimestamp = timestamp(ctx.now());
    delete m.resourceVersion;
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
  }

  private validateCreate(ctx: RequestContext, obj: KubeObject): void {
    const errs: FieldError[] = [
      ...validateObjectMeta(obj.metadata, { namespaced: this.def.namespaced, nameValidation: this.def.nameValidation }),
      ...this.def.strategy.validate(ctx, obj),
    ];
    if (errs.length) throw errors.invalid(this.gk, obj.metadata.name ?? obj.metadata.generateName ?? '', errs);
    this.def.strategy.canonicalize(obj);
    ctx.warnings.push(...this.def.strategy.warningsOnCreate(ctx, obj));
  }

  private checkResourceVersion(obj: KubeObject, current: KubeObject, strategy: Strategy): void {
    const rv = obj.metadata.resourceVersion;
    if (!rv) {
      if (!strategy.allowUnconditionalUpdate) {
        throw errors.invalid(this.gk, obj.metadata.name ?? '', [
          { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', badValueText: '0x0', detail: 'must be specified for an update' },
        ]);
      }
      obj.metadata.resourceVersion = current.metadata.resourceVersion;
    } else if (rv !== current.metadata.resourceVersion) {
      throw errors.modifiedConflict(this.gr, current.metadata.name ?? '');
    }
  }

  /** kube's rest.BeforeUpdate: keep what an update cannot change, then the strategy's hook. */
  private beforeUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject, strategy: Strategy): void {
    const m = obj.metadata;
    const o = old.metadata;
    if (this.def.namespaced) {
      if (m.namespace && m.namespace !== ctx.namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      m.namespace = ctx.namespace;
    } else {
      delete m.namespace;
    }
    if (o.generation !== undefined) m.generation = o.generation;
    else delete m.generation;
    strategy.prepareForUpdate(ctx, obj, old);
    if (!m.uid) m.uid = o.uid;
    if (o.creationTimestamp) m.creationTimestamp = o.creationTimestamp;
    if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
    if (o.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds === undefined) {
      m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
    }
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
  }

  private validateUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject, strategy: Strategy): void {
    const errs: FieldError[] = [
      ...validateObjectMeta(obj.metadata, { namespaced: this.def.namespaced, nameValidation: this.def.nameValidation }),
      ...validateObjectMetaUpdate(obj.metadata, old.metadata),
      ...strategy.validateUpdate(ctx, obj, old),
    ];
    if (errs.length) throw errors.invalid(this.gk, obj.metadata.name ?? '', errs);
    strategy.canonicalize(obj);
    ctx.warnings.push(...strategy.warningsOnUpdate(ctx, obj, old));
  }

  /** kube's BeforeDelete precondition check: its conflict is built on GroupResource{group, Kind} (a kube quirk), in message and details. */
  private checkDeletePreconditions(name: string, p: Preconditions | undefined, existing: KubeObject): void {
    if (!p) return;
    const gr = { group: this.gk.group, resource: this.def.kind };
    if (p.uid !== undefined && p.uid !== existing.metadata.uid) {
      throw errors.conflict(
        gr,
        name,
        `the UID in the precondition (${p.uid}) does not match the UID in record (${existing.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
      );
    }
    if (p.resourceVersion !== undefined && p.resourceVersion !== existing.metadata.resourceVersion) {
      throw errors.conflict(
        gr,
        name,
        `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${existing.metadata.resourceVersion ?? ''}). The object might have been modified`,
      );
    }
  }

  protected attrs(
    ctx: RequestContext,
    operation: Operation,
    object?: KubeObject,
    oldObject?: KubeObject,
    subresource = '',
    name?: string,
  ): AdmissionAttributes {
    return {
      operation,
      group: this.def.group,
      version: this.def.version,
      resource: this.def.resource,
      subresource,
      kind: this.def.kind,
      namespace: ctx.namespace,
      // kube: a create's name is the object's, empty for generateName (the name is made after admission).
      name: name ?? object?.metadata.name ?? oldObject?.metadata.name ?? '',
      namespaced: this.def.namespaced,
      object,
      oldObject,
      dryRun: ctx.dryRun,
      decode: this.admissionDecode,
    };
  }

  /** StorageError → ApiError (kube's storage/errors.InterpretXError). */
  translate(e: unknown, name: string, operation: string): unknown {
    if (!(e instanceof StorageError)) return e;
    switch (e.code) {
      case 'KeyNotFound':
        return errors.notFound(this.gr, name);
      case 'KeyExists':
        return errors.alreadyExists(this.gr, name);
      case 'Conflict':
        return errors.modifiedConflict(this.gr, name);
      case 'InvalidPrecondition':
        return errors.conflict(this.gr, name, `StorageError: invalid object, Code: 4, Key: ${e.key}, ResourceVersion: 0, AdditionalErrorMsg: ${e.message}`);
      case 'TooLargeResourceVersion':
        return errors.tooLargeResourceVersion(e.requested ?? 0n, e.revision, e.retryAfterSeconds);
      case 'FutureRevision':
      case 'Undecodable':
        // kube 1.32 passes these up unconverted (etcd's error, the decoder's): ErrorToAPIStatus's 500, no reason.
        return new ApiError(failureStatus(500, '', e.message));
      case 'Compacted':
        return errors.expired('The resourceVersion for the provided list is too old.');
      case 'Unreachable':
        return errors.serverTimeout(this.gr, operation);
      case 'CorruptObjects':
        return corruptObjectsStatus(this.gr, e as CorruptObjectsError);
      case 'ContextDone':
        // What kube's finishRequest answers once the context is done (the client usually has the
        // request-timeout filter's 504 already, or is gone).
        return errors.timeout(`request did not complete within requested timeout - ${e.message}`);
      default:
        return errors.internal(e);
    }
  }
}

/** kube's aggregatedStorageError.NewAPIStatusError: every corrupt value a list met, as causes. */
function corruptObjectsStatus(gr: GroupResource, e: CorruptObjectsError): ApiError {
  const causes: StatusCause[] = e.causes.map((c) => ({ reason: 'UnexpectedServerResponse', message: c.message, field: c.key }));
  if (e.truncated) causes.push({ reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
  return new ApiError(
    failureStatus(500, 'StorageReadError', `failed to read one or more ${groupResourceString(gr)} from the storage`, { name: 'list', group: gr.group, kind: gr.resource, causes }),
  );
}

/**
 * A value decoded into a kind for admission: the decoder's object, or an Error in the decoder's own
 * words (SchemaRegistry words it as the create handler reports it; admission webhooks report the
 * decoder's part alone, as kube does).
 */
export function decodeForAdmission(schemas: Pick<SchemaRegistry, 'decode'>, schemaName: string, raw: unknown): KubeObject {
  try {
    return schemas.decode(schemaName, raw).object;
  } catch (e) {
    if (e instanceof ApiError) throw new Error(e.message.replace(/^.*? cannot be handled as a [^:]*: /, ''));
    throw e;
  }
}

/** Reads one object through a store (a quorum read); a 404 is undefined. */
export async function getOrUndefined(store: GenericStore, ctx: RequestContext, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(ctx, name);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}
