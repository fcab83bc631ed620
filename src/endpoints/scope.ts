/** Everything a verb handler needs for one request; express objects stay in endpoints/. */
import type { Request, Response } from 'express';
import type { GenericStore, RequestContext } from '../registry';
import type { SchemaRegistry } from '../registry/schema';
import type { ApplyTypes } from '../apply';
import type { CborSerializer, ProtobufSerializer } from './codec';
import type { EncodingCache } from './encoding-cache';
import type { WatchFrameFlusher } from './watch-frames';
import type { RequestInfo } from './request-info';
import type { Authorizer } from '../auth';

export interface HandlerScope {
  store: GenericStore;
  info: RequestInfo;
  ctx: RequestContext;
  schemas: SchemaRegistry;
  req: Request;
  res: Response;
  query: Record<string, string | undefined>;
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
}

export type VerbHandler = (s: HandlerScope) => Promise<void>;
