/**
 * Serves the OpenAPI documents built from the resource table and the schemas: built once, rebuilt
 * when the table changes, answered as kube-openapi's handlers do (pkg/handler for /openapi/v2,
 * pkg/handler3 for /openapi/v3): Accept negotiation between JSON and gnostic protobuf (406 with an
 * empty body when neither fits), `Vary: Accept`, a quoted ETag (the JSON's, for protobuf too), and
 * net/http's ServeContent (Last-Modified, Accept-Ranges, If-None-Match / If-Modified-Since → 304);
 * /openapi/v2 also passes through NYTimes gziphandler (always `Vary: Accept-Encoding`; gzip when
 * the client accepts it and the body is at least 1400 bytes); hashed v3 URLs are immutable for a
 * year and a stale hash redirects (301) to the current one.
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Request, Response } from 'express';
import type { Registry } from '../registry';
import type { SchemaRegistry } from '../registry/schema';
import { OpenApiDocument, OpenApiV3, buildOpenApiV2, buildOpenApiV3 } from './openapi';
import { OPENAPI_V2_PROTOBUF_MEDIA_TYPE, OpenApiV2Protobuf } from './openapi-protobuf';
import { parseAccept } from './negotiation';

const gzip = promisify(gzipCallback);

interface Built {
  v2: OpenApiDocument;
  v3: OpenApiV3;
  /** When the documents were built: Last-Modified of every response. */
  at: Date;
  /** The v2 document in protobuf, made on first request. */
  v2Protobuf?: Promise<Buffer>;
}

/** One acceptable answer: which Accept subtypes select it and the Content-Type it is served with. */
interface Offer {
  subtypes: string[];
  contentType: string;
  protobuf: boolean;
}

const JSON_OFFER: Offer = { subtypes: ['json'], contentType: 'application/json', protobuf: false };
/** kube-openapi accepts both spellings and answers with the dotted one. */
const V2_PROTOBUF_OFFER: Offer = {
  subtypes: ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf'],
  contentType: OPENAPI_V2_PROTOBUF_MEDIA_TYPE,
  protobuf: true,
};

/** NYTimes gziphandler's DefaultMinSize. */
const GZIP_MIN_SIZE = 1400;

/** Options for {@link OpenApiDocuments}. */
export interface OpenApiDocumentsOptions {
  /** The protobuf encoder of /openapi/v2 (default: loaded from proto/ on first use). */
  v2Protobuf?: () => Promise<OpenApiV2Protobuf>;
  /** Gate OpenAPIEnums (default true): false serves the schemas without their enums, as kube does. */
  enums?: boolean;
}

export class OpenApiDocuments {
  private built?: Built;
  private protobufEncoder?: Promise<OpenApiV2Protobuf>;

  constructor(
    private readonly registry: Registry,
    private readonly schemas: SchemaRegistry,
    private readonly serverVersion: string,
    private readonly opts: OpenApiDocumentsOptions = {},
  ) {
    registry.onChange(() => (this.built = undefined));
    schemas.onChange(() => (this.built = undefined));
  }

  private get docs(): Built {
    if (!this.built) {
      const defs = this.registry.definitions();
      const opts = { serverVersion: this.serverVersion, enums: this.opts.enums ?? true };
      this.built = { v2: buildOpenApiV2(defs, this.schemas, opts), v3: buildOpenApiV3(defs, this.schemas, opts), at: new Date() };
    }
    return this.built;
  }

  private v2ProtobufOf(built: Built): Promise<Buffer> {
    if (!built.v2Protobuf) {
      this.protobufEncoder ??= (this.opts.v2Protobuf ?? (() => OpenApiV2Protobuf.load()))();
      built.v2Protobuf = this.protobufEncoder.then((enc) => enc.encode(built.v2.body));
    }
    return built.v2Protobuf;
  }

  /** GET /openapi/v2: JSON or gnostic protobuf, gzipped when asked (kube-openapi pkg/handler). */
  async serveV2(req: Request, res: Response): Promise<void> {
    res.append('Vary', 'Accept-Encoding');
    res.append('Vary', 'Accept');
    const offer = negotiate(req.headers.accept, [JSON_OFFER, V2_PROTOBUF_OFFER]);
    if (!offer) return notAcceptable(res);
    const built = this.docs;
    const body = offer.protobuf ? await this.v2ProtobufOf(built) : built.v2.body;
    await serveContent(req, res, { body, etag: built.v2.etag, contentType: offer.contentType, lastModified: built.at, gzip: acceptsGzip(req.headers['accept-encoding']) });
  }

  /** GET /openapi/v3: the discovery index; kube-openapi ignores Accept here and sets no Vary. */
  async serveV3Index(req: Request, res: Response): Promise<void> {
    const built = this.docs;
    const doc = built.v3.indexDocument;
    await serveContent(req, res, { body: doc.body, etag: doc.etag, contentType: 'application/json', lastModified: built.at });
  }

  /** GET /openapi/v3/<group-version>: JSON (v3 protobuf is not served: 406 for it, as for any other type). */
  async serveV3(req: Request, res: Response, key: string): Promise<void> {
    const built = this.docs;
    const doc = built.v3.docs.get(key);
    if (!doc) {
      res.status(404).type('text/plain; charset=utf-8').send('404 page not found\n');
      return;
    }
    res.append('Vary', 'Accept');
    if (!negotiate(req.headers.accept, [JSON_OFFER])) return notAcceptable(res);
    const hash = req.query.hash;
    if (typeof hash === 'string' && hash !== '') {
      if (hash !== doc.etag) {
        res.redirect(301, `/openapi/v3/${key}?hash=${doc.etag}`);
        return;
      }
      // kube-openapi: a hashed URL never changes, so clients may cache it for a year.
      res.setHeader('Cache-Control', 'public, immutable');
      res.setHeader('Expires', goRfc1123(new Date(Date.now() + 365 * 24 * 3600 * 1000)));
    }
    await serveContent(req, res, { body: doc.body, etag: doc.etag, contentType: 'application/json', lastModified: built.at });
  }
}

/** The first offer a clause matches, the clauses in goautoneg's order (kube-openapi does not skip q=0 clauses either). */
function negotiate(accept: string | undefined, offers: Offer[]): Offer | undefined {
  for (const c of parseAccept(accept)) {
    const [type = '', subtype = ''] = c.type.split('/');
    for (const o of offers) {
      if (type !== 'application' && type !== '*') continue;
      if (subtype === '*' || o.subtypes.includes(subtype)) return o;
    }
  }
  return undefined;
}

/** kube-openapi writes a bare 406: no body, no Content-Type. */
function notAcceptable(res: Response): void {
  res.status(406).end();
}

/** gziphandler's acceptsGzip: a `gzip` coding with q > 0. */
function acceptsGzip(header: string | undefined): boolean {
  for (const part of (header ?? '').split(',')) {
    const [coding, ...params] = part.split(';');
    if ((coding ?? '').trim().toLowerCase() !== 'gzip') continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if ((k ?? '').trim() === 'q') q = Number((v ?? '').trim());
    }
    if (q > 0) return true;
  }
  return false;
}

/** net/http's TimeFormat (RFC 1123 in GMT), the Last-Modified format. */
function httpDate(d: Date): string {
  return d.toUTCString();
}

/** Go's time.RFC1123 of a UTC time, as kube-openapi formats Expires ("… 15:04:05 UTC"). */
function goRfc1123(d: Date): string {
  return d.toUTCString().replace(/GMT$/, 'UTC');
}

/** http.ServeContent's weak ETag match of one If-None-Match list. */
function noneMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => strip(t) === strip(etag));
}

/**
 * net/http ServeContent for an in-memory body: ETag / Last-Modified / Accept-Ranges, 304 on a
 * matching If-None-Match (or, without one, an If-Modified-Since not before Last-Modified), HEAD
 * without a body; optionally gziphandler's compression. Range requests are answered whole.
 */
async function serveContent(
  req: Request,
  res: Response,
  o: { body: Buffer; etag: string; contentType: string; lastModified: Date; gzip?: boolean },
): Promise<void> {
  const etag = `"${o.etag}"`;
  res.setHeader('Content-Type', o.contentType);
  res.setHeader('Etag', etag);
  res.setHeader('Last-Modified', httpDate(o.lastModified));
  const inm = req.headers['if-none-match'];
  const ims = req.headers['if-modified-since'];
  const lastModifiedSecond = Math.floor(o.lastModified.getTime() / 1000) * 1000;
  const notModified = inm !== undefined ? noneMatch(inm, etag) : ims !== undefined && !Number.isNaN(Date.parse(ims)) && Date.parse(ims) >= lastModifiedSecond;
  if (notModified && (req.method === 'GET' || req.method === 'HEAD')) {
    // writeNotModified: no entity headers; Last-Modified goes too when an ETag is present.
    res.removeHeader('Content-Type');
    res.removeHeader('Last-Modified');
    res.status(304).end();
    return;
  }
  res.setHeader('Accept-Ranges', 'bytes');
  res.status(200);
  if (o.gzip && o.body.length >= GZIP_MIN_SIZE && req.method !== 'HEAD') {
    // gziphandler drops Content-Length and streams the compressed body (chunked).
    const zipped = await gzip(o.body);
    res.setHeader('Content-Encoding', 'gzip');
    res.write(zipped);
    res.end();
    return;
  }
  res.setHeader('Content-Length', String(o.body.length));
  if (req.method === 'HEAD') res.end();
  else res.end(o.body);
}
