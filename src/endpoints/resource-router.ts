/** Routes a resource request (already parsed into RequestInfo) to its store and verb handler. */
import type { Request, Response } from 'express';
import { errors } from '../api';
import type { UserInfo } from '../auth/authn/types';
import type { Registry, Verb } from '../registry';
import type { SchemaRegistry } from '../registry/schema';
import { createHandler } from './handlers/create';
import { deleteCollectionHandler, deleteHandler } from './handlers/delete';
import { patchHandler } from './handlers/patch';
import { getHandler, listHandler } from './handlers/read';
import { updateHandler } from './handlers/update';
import { watchHandler } from './handlers/watch';
import type { ApplyTypes } from '../apply';
import type { CborSerializer, ProtobufSerializer } from './codec';
import type { EncodingCache } from './encoding-cache';
import type { WatchFrameFlusher } from './watch-frames';
import type { RequestInfo } from './request-info';
import type { HandlerScope, VerbHandler } from './scope';

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

export interface ResourceRouterDeps {
  registry: Registry;
  schemas: SchemaRegistry;
  /** Aborted when the server shuts down: long-running requests (watches) end cleanly. */
  shutdownSignal?: AbortSignal;
  protobuf?: ProtobufSerializer;
  /** Given only while CBORServingAndStorage is on. */
  cbor?: CborSerializer;
  encodings: EncodingCache;
  watchFrames: WatchFrameFlusher;
  applyTypes: ApplyTypes;
  watchBufferBytes: number;
  streams: Set<Promise<void>>;
  /** Only while AllowUnsafeMalformedObjectDeletion is on (see HandlerScope). */
  unsafeDelete?: HandlerScope['unsafeDelete'];
}

export async function serveResource(
  deps: ResourceRouterDeps,
  req: Request,
  res: Response,
  info: RequestInfo,
  user: UserInfo | undefined,
  warnings: string[],
): Promise<void> {
  // Errors of this request may be negotiated to CBOR too (responses.ts writeError reads it).
  if (deps.cbor) res.locals.cbor = deps.cbor;
  const store = deps.registry.get(info.apiGroup, info.apiVersion, info.resource);
  if (!store || info.parts.length > 3) throw errors.routeNotFound();
  const def = store.def;
  const isNamespacesPath = def.resource === 'namespaces';
  const hasNamespace = info.namespace !== '' && !isNamespacesPath;
  if (!def.namespaced && hasNamespace) throw errors.routeNotFound();
  if (def.namespaced && !hasNamespace) {
    // The all-namespaces path serves only list and watch.
    if (info.name) throw errors.routeNotFound();
    if (info.verb !== 'list' && info.verb !== 'watch') throw errors.routeMethodNotAllowed();
  }
  let verbs: Verb[] = def.verbs;
  if (info.subresource) {
    const sub = def.subresources.find((x) => x.name === info.subresource);
    if (!sub) throw errors.routeNotFound();
    verbs = sub.verbs;
  }
  const verb = info.verb as Verb;
  // kube registers POST on collections and on POST-able subresources only: POST on an item path
  // (RequestInfo verb create, with a name) matches no route — 405, nothing created.
  if (verb === 'create' && info.name && !info.subresource) throw errors.routeMethodNotAllowed();
  if (!verbs.includes(verb) || !handlers[verb]) throw errors.routeMethodNotAllowed();
  const query: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.query)) query[k] = Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
  const scope: HandlerScope = {
    store,
    info,
    req,
    res,
    query,
    schemas: deps.schemas,
    protobuf: deps.protobuf,
    cbor: deps.cbor,
    encodings: deps.encodings,
    watchFrames: deps.watchFrames,
    applyTypes: deps.applyTypes,
    watchBufferBytes: deps.watchBufferBytes,
    streams: deps.streams,
    unsafeDelete: deps.unsafeDelete,
    ctx: {
      user,
      namespace: def.namespaced ? info.namespace : '',
      warnings,
      dryRun: false,
      signal: deps.shutdownSignal,
      now: () => new Date(),
    },
  };
  await (handlers[verb] as VerbHandler)(scope);
}
