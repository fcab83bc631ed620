/**
 * Watch: a chunked stream of one JSON document per event (or length-prefixed protobuf WatchEvents,
 * or a CBOR sequence).
 * Errors before the stream starts are ordinary HTTP errors; after it they arrive as an ERROR event
 * and the stream ends. A client that cannot keep up is disconnected, so a slow reader never makes
 * the server buffer without bound: past watchBufferBytes unsent (or when the server-wide budget of
 * WatchFrameFlusher is spent and its backlog is among the largest) its connection is closed — the
 * HTTP/1.1 socket destroyed, the HTTP/2 stream reset — and what was queued for it is dropped. As
 * when kube's cacher terminates a blocked watcher, no ERROR event is sent; the client re-watches
 * from its last resourceVersion.
 */
import { randomInt } from 'node:crypto';
import { KubeObject, errors } from '../../api';
import type { WatchEvent } from '../../registry';
import { encodeBody } from '../codec';
import { type ResponseTarget, cborSeqMediaType, negotiateObject } from '../negotiation';
import { convertForTarget, includeObjectParam, protobufServes, writeWarnings } from '../responses';
import type { HandlerScope } from '../scope';
import { WatchFrameQueue } from '../watch-frames';
import { listQuery, parseIntParam } from './read';
import { queryBool } from '../query-bool';

/** kube's default watch timeout: minRequestTimeout (1800 s) × [1, 2). */
function defaultTimeoutSeconds(): number {
  return 1800 + randomInt(1800);
}

/**
 * Bytes a watch response may hold unsent (queued for it and in its connection) before the watcher
 * is cut off (default). kube bounds a watcher by events (2 × chanSize, 10 to 1000); 1 MiB keeps a
 * stuck watcher's cost near 2 MiB with Node's buffers, far above what a reader keeping up holds.
 */
export const defaultWatchBufferBytes = 1024 * 1024;

/** kube sends a bookmark shortly before a watch's own timeout, so the client can resume from it. */
const timeoutBookmarkLeadMs = 2000;

export async function watchHandler(s: HandlerScope): Promise<void> {
  // As kube's handler: the options are decoded, defaulted and validated before negotiation.
  const query = { ...listQuery(s), allowWatchBookmarks: queryBool(s.query.allowWatchBookmarks) ?? false };
  // kube's isListWatchRequest: a streaming list (WatchList) is never served as a Table.
  const listWatch = s.features.watchList && query.sendInitialEvents === true && query.allowWatchBookmarks;
  const target = negotiateObject(s.req.headers.accept, { allowTable: !listWatch, protobuf: protobufServes(s), cbor: !!s.cbor });
  // YAML has no stream framing (kube answers 406); protobuf streams length-prefixed WatchEvents.
  if (target.format === 'yaml') throw errors.notAcceptable(['application/json', 'application/vnd.kubernetes.protobuf', ...(s.cbor ? [cborSeqMediaType] : [])]);
  const protobuf = target.format === 'protobuf' ? s.protobuf : undefined;
  // kube answers a CBOR watch as application/cbor-seq: one self-described item per event.
  const cbor = target.format === 'cbor' ? s.cbor : undefined;
  const contentType = protobuf ? `${target.contentType};stream=watch` : cbor ? cborSeqMediaType : target.contentType;
  if (s.info.name) query.fieldSelector = [query.fieldSelector, `metadata.name=${s.info.name}`].filter(Boolean).join(',');
  const timeoutSeconds = parseIntParam('timeoutSeconds', s.query.timeoutSeconds) || defaultTimeoutSeconds(); // 0 means the default, as kube
  const bookmarkShape = bookmarkObjectFor(s, listWatch ? listBlueprint(s, target) : undefined);
  const includeObject = includeObjectParam(s);
  const { res, req } = s;
  let started = false;
  let frames: WatchFrameQueue | undefined;
  let ended = false;
  let headersOnTable = true;

  const start = (): void => {
    if (started) return;
    started = true;
    writeWarnings(res, s.ctx.warnings);
    res.status(200);
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
    // A client that cannot keep up is cut off rather than buffered for without bound: its
    // connection is closed and its queued frames dropped (a clean end would wait behind them).
    frames = new WatchFrameQueue(
      s.watchFrames,
      req,
      res,
      (unsent) => {
        if (unsent <= s.watchBufferBytes || ended) return;
        drop();
        frames?.abort();
      },
      drop,
    );
  };
  /** Detaches from the request and the server's shutdown signal (which outlives every watch). */
  const detach = (): void => {
    ended = true;
    clearTimeout(timer);
    clearTimeout(bookmarkTimer);
    req.off('close', end);
    s.ctx.signal?.removeEventListener('abort', end);
  };
  /** Stops the watch without writing more (its connection is being closed). */
  const drop = (): void => {
    if (ended) return;
    detach();
    watch?.stop();
  };
  const end = (): void => {
    if (ended) return;
    detach();
    watch?.stop();
    start();
    frames?.flush();
    res.end();
  };
  const objectOf = (e: WatchEvent): unknown => {
    if (e.type === 'BOOKMARK') return bookmarkShape(e.object as KubeObject);
    if (!target.as || e.type === 'ERROR') return e.object;
    const o = e.object as KubeObject;
    const table = convertForTarget(s.store, target, [o], { resourceVersion: o.metadata.resourceVersion }, includeObject, s.ctx.now()) as Record<string, unknown>;
    if (!headersOnTable && target.as.kind === 'Table') table.columnDefinitions = null;
    headersOnTable = false;
    return table;
  };
  const frameOf = (type: WatchEvent['type'], object: object): Buffer => {
    if (protobuf) return protobuf.encodeWatchEvent(type, protobuf.encode(object as Record<string, unknown>));
    if (cbor) return cbor.encodeWatchEvent(type, cbor.encode(object as Record<string, unknown>));
    return Buffer.from(`{"type":"${type}","object":${JSON.stringify(object)}}\n`);
  };
  // Per event type, this watch's frame memo key and builder, made once rather than per delivered event.
  const framers: Partial<Record<WatchEvent['type'], { key: string; build: (object: object) => Buffer }>> = {};
  const framerOf = (type: WatchEvent['type']) => ({ key: `${target.format} ${type}`, build: (object: object) => frameOf(type, object) });
  /** Queues one event. Plain objects come shared from the watch cache: their frames are built once for every watcher. */
  const send = (e: WatchEvent): void => {
    const object = objectOf(e) as object;
    if (object !== e.object) {
      frames?.push(frameOf(e.type, object));
      return;
    }
    const framer = (framers[e.type] ??= framerOf(e.type));
    frames?.push(s.encodings.eventFrameOf(object, framer.key, framer.build));
  };
  // The server waits for this before closing connections, so a watch ended by shutdown is flushed whole.
  const finished = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  s.streams.add(finished);
  void finished.then(() => s.streams.delete(finished));
  const timer = setTimeout(end, timeoutSeconds * 1000);
  const bookmarkTimer = setTimeout(() => watch?.requestBookmark?.(), Math.max(0, timeoutSeconds * 1000 - timeoutBookmarkLeadMs));
  let watch: { stop(): void; requestBookmark?(): void } | undefined;
  req.on('close', end);
  s.ctx.signal?.addEventListener('abort', end, { once: true });
  try {
    watch = await s.store.watch(s.ctx, query, {
      event: (e) => {
        if (ended) return;
        start();
        send(e);
        if (e.type === 'ERROR') end();
      },
      closed: end,
    });
  } catch (e) {
    if (!started) {
      // The error middleware answers; a later 'close' must not try to start the stream.
      detach();
      throw e;
    }
    end();
    return;
  }
  if (ended) watch.stop();
  else start();
}

/**
 * A BOOKMARK's object is an empty instance of the watched kind carrying only the resourceVersion
 * (and the initial-events-end annotation), serialised as Go does a zero object: creationTimestamp
 * null, and spec/status as {} for kinds that have them. A streaming list's initial-events-end
 * bookmark also carries `blueprint` (see listBlueprint).
 */
function bookmarkObjectFor(s: HandlerScope, blueprint?: () => string): (o: KubeObject) => Record<string, unknown> {
  const props = s.schemas.get(s.store.def.schemaName)?.properties ?? {};
  const zeroStructs = ['spec', 'status'].filter((f) => f in props);
  return (o) => {
    // Go's ObjectMeta order: resourceVersion, creationTimestamp, annotations.
    const metadata: Record<string, unknown> = { resourceVersion: o.metadata.resourceVersion, creationTimestamp: null };
    const annotations = o.metadata.annotations;
    if (annotations) {
      metadata.annotations =
        blueprint && annotations[initialEventsEnd] === 'true' ? { ...annotations, [initialEventsListBlueprint]: blueprint() } : annotations;
    }
    const out: Record<string, unknown> = { kind: s.store.def.kind, apiVersion: s.store.apiVersion, metadata };
    for (const f of zeroStructs) out[f] = {};
    return out;
  };
}

const initialEventsEnd = 'k8s.io/initial-events-end';
const initialEventsListBlueprint = 'kubernetes.io/initial-events-list-blueprint';

/**
 * kube's watchListTransformer (apiserver endpoints/handlers/response.go): the initial-events-end
 * bookmark of a streaming list carries, base64, an empty list of the watched kind
 * (PartialObjectMetadataList when partial metadata was asked for) encoded as the events' objects
 * are, so a client can build the list the stream stands for. Made once per watch, when needed.
 */
function listBlueprint(s: HandlerScope, target: ResponseTarget): () => string {
  let encoded: string | undefined;
  return () => {
    if (encoded === undefined) {
      const as = target.as;
      // Go's zero list: empty ListMeta, nil items.
      const list = as
        ? { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${as.version}`, metadata: {}, items: null }
        : { kind: s.store.def.listKind, apiVersion: s.store.apiVersion, metadata: {}, items: null };
      encoded = encodeBody(list, target.format, false, s.protobuf, s.cbor).toString('base64');
    }
    return encoded;
  };
}
