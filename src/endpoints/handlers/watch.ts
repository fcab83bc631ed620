/**
 * Watch: a chunked stream of one JSON document per event. Errors before the first event are
 * ordinary HTTP errors; after it they arrive as an ERROR event and the stream ends.
 */
import { randomInt } from 'node:crypto';
import { KubeObject, errors } from '../../api';
import type { WatchEvent } from '../../registry';
import { convertForTarget, protobufServes, writeWarnings } from '../responses';
import { negotiateObject } from '../negotiation';
import type { HandlerScope } from '../scope';
import { listQuery, parseIntParam } from './read';

/** kube's default watch timeout: minRequestTimeout (1800 s) × [1, 2). */
function defaultTimeoutSeconds(): number {
  return 1800 + randomInt(1800);
}

export async function watchHandler(s: HandlerScope): Promise<void> {
  const target = negotiateObject(s.req.headers.accept, { allowTable: true, protobuf: protobufServes(s) });
  // YAML has no stream framing (kube answers 406); protobuf streams length-prefixed WatchEvents.
  if (target.format === 'yaml') throw errors.notAcceptable(['application/json', 'application/vnd.kubernetes.protobuf']);
  const protobuf = target.format === 'protobuf' ? s.protobuf : undefined;
  const contentType = protobuf ? `${target.contentType};stream=watch` : target.contentType;
  const query = listQuery(s);
  if (s.info.name) query.fieldSelector = [query.fieldSelector, `metadata.name=${s.info.name}`].filter(Boolean).join(',');
  const timeoutSeconds = parseIntParam('timeoutSeconds', s.query.timeoutSeconds) ?? defaultTimeoutSeconds();
  const { res, req } = s;
  let started = false;
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
  };
  /** Detaches from the request and the server's shutdown signal (which outlives every watch). */
  const detach = (): void => {
    ended = true;
    clearTimeout(timer);
    req.off('close', end);
    s.ctx.signal?.removeEventListener('abort', end);
  };
  const end = (): void => {
    if (ended) return;
    detach();
    watch?.stop();
    start();
    res.end();
  };
  const encode = (e: WatchEvent): string => {
    let object: unknown = e.object;
    if (target.as && e.type !== 'ERROR' && e.type !== 'BOOKMARK') {
      const o = e.object as KubeObject;
      const includeObject = (s.query.includeObject as 'None' | 'Metadata' | 'Object' | undefined) || 'Metadata';
      const table = convertForTarget(s.store, target, [o], { resourceVersion: o.metadata.resourceVersion }, includeObject, s.ctx.now()) as Record<string, unknown>;
      if (!headersOnTable && target.as.kind === 'Table') table.columnDefinitions = null;
      headersOnTable = false;
      object = table;
    }
    return JSON.stringify({ type: e.type, object }) + '\n';
  };

  const timer = setTimeout(end, timeoutSeconds * 1000);
  let watch: { stop(): void } | undefined;
  req.on('close', end);
  s.ctx.signal?.addEventListener('abort', end, { once: true });
  try {
    watch = await s.store.watch(s.ctx, query, {
      event: (e) => {
        if (ended) return;
        start();
        res.write(protobuf ? protobuf.encodeWatchEvent(e.type, protobuf.encode(e.object as unknown as Record<string, unknown>)) : encode(e));
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
