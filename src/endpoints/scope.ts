/**
 * What handlers work with, in three layers built at three times: ServingDeps once per server
 * (app.ts), ResourceScope once per served resource (kube's RequestScope: made the first time the
 * resource is routed to, reused after), HandlerScope once per request (the resource's scope plus
 * the request). A new dependency is one field of ServingDeps, given where the server builds it.
 */
import type { Request, Response } from 'express';
import type { GenericStore, Registry } from '../registry';
import type { SchemaRegistry } from '../registry/schema';
import type { ApplyTypes } from '../apply';
import type { CborSerializer, ProtobufSerializer } from './codec';
import type { EncodingCache } from './encoding-cache';
import type { WatchFrameFlusher } from './watch-frames';
import type { RequestInfo } from './request-info';
import type { RequestState } from './request-state';
import type { Authorizer } from '../auth';

/** The server's parts that serving resources needs (one instance per server). */
export interface ServingDeps {
  registry: Registry;
  schemas: SchemaRegistry;
  /** Aborted when the server shuts down: long-running requests (watches) end cleanly. */
  shutdownSignal?: AbortSignal;
  /** Present when protobuf is served (kinds it does not know answer 406/415 as for custom resources). */
  protobuf?: ProtobufSerializer;
  /** Present only while CBORServingAndStorage is on (else application/cbor is 406/415). */
  cbor?: CborSerializer;
  /** Per-server memo of watch event encodings (shared by every watcher). */
  encodings: EncodingCache;
  /** Per-server writer of every watch's queued frames, once per event-loop turn. */
  watchFrames: WatchFrameFlusher;
  /** Per-server cache of the types server-side apply compiles from the schemas. */
  applyTypes: ApplyTypes;
  /** A watch whose unsent backlog passes this many bytes is disconnected (the client relists). */
  watchBufferBytes: number;
  /** Open long-running responses: each promise settles when its response has finished writing. */
  streams: Set<Promise<void>>;
  /**
   * Present only while AllowUnsafeMalformedObjectDeletion is on: deletes may then carry
   * ignoreStoreReadErrorWithClusterBreakingPotential, authorized by this authorizer.
   */
  unsafeDelete?: { authorizer: Authorizer };
  /** The feature gates that change what is served, resolved once from `--feature-gates` (server/app.ts). */
  features: ServingFeatures;
}

/** Gates read while serving (the storage's own gates are options of the watch cache). */
export interface ServingFeatures {
  /**
   * WatchList (kube 1.32: beta, on): a watch may ask for a streaming list (sendInitialEvents), and one
   * from resourceVersion unset or "0" is one; off, sendInitialEvents on a watch is a 422.
   */
  watchList: boolean;
  /** OpenAPIEnums (beta, on): the OpenAPI documents keep their `enum`s; off, kube drops them and their description section. */
  openAPIEnums: boolean;
  /** StorageVersionHash (beta, on): discovery's resources carry storageVersionHash; off, kube omits it. */
  storageVersionHash: boolean;
}

/** One served resource's handler dependencies (kube's RequestScope). */
export interface ResourceScope extends Omit<ServingDeps, 'registry' | 'shutdownSignal'> {
  store: GenericStore;
  /** Aborted when the server shuts down or the resource stops being served (Registry.remove). */
  shutdownSignal: AbortSignal;
}

/** Everything a verb handler needs for one request; express objects stay in endpoints/. */
export interface HandlerScope extends ResourceScope {
  info: RequestInfo;
  /** The request's typed state, which is also the context the registry receives. */
  ctx: RequestState;
  req: Request;
  res: Response;
  query: Record<string, string | undefined>;
}

export type VerbHandler = (s: HandlerScope) => Promise<void>;
