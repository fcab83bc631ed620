/** Writing API objects, lists and Status bodies with negotiation, pretty printing and warnings. */
import type { Request, Response } from 'express';
import { ApiError, KubeList, KubeObject, Status, errors, hasSharedItems, storedJsonOf } from '../api';
import { GenericStore, IncludeObject, toTable } from '../registry';
import { CborSerializer, encodeBody } from './codec';
import { encodeJsonList } from './list-encoding';
import { ResponseTarget, isPrettyPrint, negotiateObject } from './negotiation';
import type { HandlerScope } from './scope';
import { writeWarnings } from './warnings';
import { maybeRequestState } from './request-state';

export { writeWarnings };

/** Negotiates the response of a handler; protobuf only where the kind (and its list) has a protobuf form. */
export function negotiate(s: HandlerScope): ResponseTarget {
  return negotiateObject(s.req.headers.accept, { allowTable: true, protobuf: protobufServes(s), cbor: !!s.cbor });
}

/**
 * Checks what a write's response will read from the request (the Table options), before the write
 * commits: a bad option must never follow a stored write. kube reads the Table options while
 * writing the response, after the commit (it stores and answers 400); here nothing is stored.
 * Handlers call it once the body is decoded, so body errors keep their precedence.
 */
export function checkResponseOptions(s: HandlerScope, target: ResponseTarget): void {
  tableIncludeObject(s, target);
}

/** includeObject is a Table option: kube reads (and validates) it only when converting to a Table. */
function tableIncludeObject(s: HandlerScope, target: ResponseTarget): IncludeObject {
  return target.as?.kind === 'Table' ? includeObjectParam(s) : 'Metadata';
}

export function protobufServes(s: HandlerScope): boolean {
  const p = s.protobuf;
  // A review has no list kind (nothing to list): its kind alone decides.
  const def = s.store.def;
  return !!p && p.supports(s.store.apiVersion, def.kind) && (def.store === 'review' || p.supports(s.store.apiVersion, def.listKind));
}

export function includeObjectParam(s: HandlerScope): IncludeObject {
  const v = s.query.includeObject;
  if (v === undefined || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw errors.badRequest(`unrecognized includeObject value: "${v}"`);
}

/** Indented JSON: the accepted media type's pretty=1, else kube's isPrettyPrint of the request. */
function prettyOutput(req: Request | undefined, target: { pretty?: boolean }): boolean {
  return !!target.pretty || isPrettyPrint(req?.query?.pretty, req?.headers['user-agent']);
}

/** prettyOutput of a resource request, from its query as already parsed (Express parses req.query again at each read). */
function prettyScope(s: HandlerScope, target: { pretty?: boolean }): boolean {
  return !!target.pretty || isPrettyPrint(s.query.pretty, s.req.headers['user-agent']);
}

function send(s: HandlerScope, code: number, target: ResponseTarget, body: unknown): void {
  sendEncoded(s, code, target, encodeBody(body, target.format, prettyScope(s, target), s.protobuf, s.cbor));
}

function sendEncoded(s: HandlerScope, code: number, target: ResponseTarget, bytes: Buffer): void {
  writeWarnings(s.res, s.ctx.warnings);
  // kube writes the bare media type (no charset parameter).
  if (sendsAsWritten(s.req, code)) endWith(s.res, code, target.contentType, bytes);
  else s.res.status(code).setHeader('Content-Type', target.contentType).send(bytes);
}

/**
 * Whether Express's res.send would write a body of bytes as it is, so that endWith may write it
 * instead (its type checks, settings lookups and header reads cost every answer): any method but
 * HEAD (no body), with a status that keeps its body, and for GET no conditional header (Express
 * answers a request it deems fresh 304 without the body).
 */
function sendsAsWritten(req: Request, code: number): boolean {
  if (code === 204 || code === 205 || code === 304) return false;
  const method = req.method;
  if (method === 'HEAD') return false;
  return method !== 'GET' || (req.headers['if-none-match'] === undefined && req.headers['if-modified-since'] === undefined);
}

/** What res.send does with bytes in the cases sendsAsWritten lets through: Content-Length unless chunked, then the body. */
function endWith(res: Response, code: number, contentType: string, bytes: Buffer): void {
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  if (res.getHeader('Transfer-Encoding') === undefined) res.setHeader('Content-Length', String(bytes.length));
  res.end(bytes);
}

/** Converts one object (or list) to what the client negotiated: Table, partial metadata or itself. */
export function convertForTarget(
  store: GenericStore,
  target: ResponseTarget,
  objects: KubeObject[],
  listMeta: KubeList['metadata'],
  includeObject: IncludeObject,
  now: Date,
  single?: KubeObject | KubeList,
): unknown {
  const as = target.as;
  if (!as) return single;
  const apiVersion = `meta.k8s.io/${as.version}`;
  if (as.kind === 'Table') return toTable(store.def, objects, { apiVersion, includeObject, listMeta, now });
  if (as.kind === 'PartialObjectMetadataList' || (single && 'items' in single)) {
    if (as.kind === 'PartialObjectMetadata') {
      throw errors.notAcceptableMessage(
        `you requested PartialObjectMetadata, but the requested object is a list (*v1.${store.def.listKind})`,
      );
    }
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion,
      metadata: listMeta,
      items: objects.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion, metadata: o.metadata })),
    };
  }
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: objects[0]?.metadata ?? {} };
}

export function writeObject(s: HandlerScope, code: number, obj: KubeObject | Status, target = negotiate(s)): void {
  // A create's or an update's object as compact JSON: the bytes it was stored as, its resourceVersion spliced in.
  if (!target.as && target.format === 'json' && obj.kind !== 'Status' && !prettyScope(s, target)) {
    const stored = storedJsonOf(s.ctx, obj as KubeObject);
    if (stored) {
      sendEncoded(s, code, target, stored);
      return;
    }
  }
  // send reads the target's format, type and pretty flag, never `as`.
  if (obj.kind === 'Status' || !target.as) {
    send(s, code, target, obj);
    return;
  }
  const o = obj as KubeObject;
  const body = convertForTarget(s.store, target, [o], { resourceVersion: o.metadata.resourceVersion }, tableIncludeObject(s, target), s.ctx.now(), o);
  send(s, code, target, body);
}

/**
 * Writes a list as negotiated. A compact JSON list of shared (watch cache) items is assembled from
 * per-item memoised encodings, byte for byte what encoding the whole stripped list would give.
 */
export function writeList(s: HandlerScope, list: KubeList, target = negotiate(s)): void {
  const items = list.items;
  if (!target.as && target.format === 'json' && !prettyScope(s, target) && hasSharedItems(items) && s.encodings.fitsListItemMemo(items.length)) {
    sendEncoded(s, 200, target, encodeJsonList(list, (item) => s.encodings.listItemJsonOf(item)));
    return;
  }
  const body = target.as
    ? convertForTarget(s.store, target, list.items, list.metadata, tableIncludeObject(s, target), s.ctx.now(), list)
    : GenericStore.stripItemTypes(list);
  send(s, 200, target, body);
}

/**
 * kube's ErrorNegotiated: a Status is encoded like any object (YAML, or CBOR while its gate is on,
 * when asked); JSON when nothing else fits. The CBOR serializer reaches the error path through
 * the request's state (set by the resource router for every resource request while the gate is on).
 */
function errorTarget(res: Response): { format: 'json' | 'yaml' | 'cbor'; contentType: string; pretty?: boolean } {
  const cbor = cborOf(res);
  try {
    const t = negotiateObject(res.req?.headers.accept, { allowTable: true, protobuf: false, cbor: !!cbor });
    if (t.format === 'yaml') return { format: 'yaml', contentType: 'application/yaml' };
    if (t.format === 'cbor') return { format: 'cbor', contentType: 'application/cbor' };
    if (t.pretty) return { format: 'json', contentType: 'application/json', pretty: true };
  } catch {
    // 406 for the Status itself: kube falls back to JSON.
  }
  return { format: 'json', contentType: 'application/json' };
}

/** Writes an ApiError's Status (negotiated JSON or YAML) with its code and Retry-After. */
export function writeError(res: Response, err: ApiError, warnings: string[] = []): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  writeWarnings(res, warnings);
  for (const [k, v] of Object.entries(err.headers())) res.setHeader(k, v);
  let target = errorTarget(res);
  let bytes: Buffer;
  try {
    bytes = encodeBody(err.status, target.format, prettyOutput(res.req, target), undefined, cborOf(res));
  } catch {
    // The error path must always answer a Status: JSON, which any Status encodes to, when the negotiated encoder fails.
    target = { format: 'json', contentType: 'application/json' };
    bytes = encodeBody(err.status, 'json', false);
  }
  res.status(err.code).setHeader('Content-Type', target.contentType).send(bytes);
}

function cborOf(res: Response): CborSerializer | undefined {
  return maybeRequestState(res)?.cbor;
}
