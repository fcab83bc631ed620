/** Routes a resource request (already parsed into RequestInfo) to its store and verb handler. */
import { setMaxListeners } from 'node:events';
import type { Request, Response } from 'express';
import { errors } from '../api';
import type { GenericStore, Verb } from '../registry';
import { serveConnect } from './handlers/connect';
import { createHandler } from './handlers/create';
import { deleteCollectionHandler, deleteHandler } from './handlers/delete';
import { patchHandler } from './handlers/patch';
import { getHandler, listHandler } from './handlers/read';
import { updateHandler } from './handlers/update';
import { watchHandler } from './handlers/watch';
import type { RequestInfo } from './request-info';
import { requestState } from './request-state';
import type { HandlerScope, ResourceScope, ServingDeps, VerbHandler } from './scope';

const handlers: Record<string, VerbHandler> = {
  get: getHandler,
  list: listHandler,
  watch: watchHandler,
  create: createHandler,
  update: updateHandler,
  patch: patchHandler,
  delete: deleteHandler,
  deletecollection: deleteCollectionHandler,
};

/** Each served resource's scope, made the first time it is routed to (a removed resource's goes with its store). */
const scopes = new WeakMap<ServingDeps, WeakMap<GenericStore, ResourceScope>>();

function resourceScope(deps: ServingDeps, store: GenericStore): ResourceScope {
  let byStore = scopes.get(deps);
  if (!byStore) scopes.set(deps, (byStore = new WeakMap()));
  let scope = byStore.get(store);
  if (!scope) {
    const { registry: _registry, ...shared } = deps;
    // The resource's requests end with the server or when the resource stops being served.
    const shutdownSignal = deps.shutdownSignal ? AbortSignal.any([deps.shutdownSignal, store.removedSignal]) : store.removedSignal;
    // Every open watch of the resource listens to it: thousands of listeners are expected.
    setMaxListeners(0, shutdownSignal);
    byStore.set(store, (scope = { ...shared, shutdownSignal, store }));
  }
  return scope;
}

/** Routes a resource request (the request-info filter has parsed it) to its store and verb handler. */
export async function serveResource(deps: ServingDeps, req: Request, res: Response): Promise<void> {
  const ctx = requestState(res);
  const info: RequestInfo = ctx.info;
  // Errors of this request may be negotiated to CBOR too (responses.ts writeError reads it).
  if (deps.cbor) ctx.cbor = deps.cbor;
  const store = deps.registry.get(info.apiGroup, info.apiVersion, info.resource);
  if (!store) throw errors.routeNotFound();
  const def = store.def;
  // Only a subresource with a subpath (pods/<name>/proxy/<path>) has segments past the subresource.
  const connect = info.subresource ? def.subresources.find((x) => x.name === info.subresource)?.connect : undefined;
  if (info.parts.length > 3 && !connect?.subpath) throw errors.routeNotFound();
  const isNamespacesPath = def.resource === 'namespaces';
  const hasNamespace = info.namespace !== '' && !isNamespacesPath;
  if (!def.namespaced && hasNamespace) throw errors.routeNotFound();
  if (def.namespaced && !hasNamespace) {
    // The all-namespaces path serves only list and watch; kube registers it only for a resource that
    // lists (a LocalSubjectAccessReview, create only, has none).
    if (info.name || !def.verbs.includes('list')) throw errors.routeNotFound();
    if (info.verb !== 'list' && info.verb !== 'watch') throw errors.routeMethodNotAllowed();
  }
  if (connect) {
    // kube's connect routes exist per method (proxy: HEAD and OPTIONS too).
    if (!connect.methods.includes(req.method.toUpperCase())) throw errors.routeMethodNotAllowed();
    ctx.namespace = def.namespaced ? info.namespace : '';
    await serveConnect(deps.registry.env, store, connect, info, ctx, req, res, { cbor: !!deps.cbor });
    return;
  }
  let verbs: Verb[] = def.verbs;
  let target: GenericStore = store;
  if (info.subresource) {
    const sub = def.subresources.find((x) => x.name === info.subresource);
    if (!sub) throw errors.routeNotFound();
    verbs = sub.verbs;
    // An answered subresource (serviceaccounts/token) is served by a store of its own kind.
    if (sub.answer) target = deps.registry.subresourceStore(store, sub.name) ?? store;
  }
  const verb = info.verb as Verb;
  // kube registers POST on collections and on POST-able subresources only: POST on an item path
  // (RequestInfo verb create, with a name) matches no route — 405, nothing created.
  if (verb === 'create' && info.name && !info.subresource) throw errors.routeMethodNotAllowed();
  if (!verbs.includes(verb) || !handlers[verb]) throw errors.routeMethodNotAllowed();
  const query: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.query)) query[k] = Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
  ctx.namespace = def.namespaced ? info.namespace : '';
  const r = resourceScope(deps, target);
  ctx.signal = r.shutdownSignal;
  // Written out (not spread): one object shape for every request, built without a property walk.
  const scope: HandlerScope = {
    store: r.store,
    schemas: r.schemas,
    shutdownSignal: r.shutdownSignal,
    protobuf: r.protobuf,
    cbor: r.cbor,
    encodings: r.encodings,
    watchFrames: r.watchFrames,
    applyTypes: r.applyTypes,
    watchBufferBytes: r.watchBufferBytes,
    streams: r.streams,
    unsafeDelete: r.unsafeDelete,
    features: r.features,
    info,
    ctx,
    req,
    res,
    query,
  };
  await (handlers[verb] as VerbHandler)(scope);
}
