/**
 * Serves the OpenAPI documents built from the resource table and the schemas: built once, rebuilt
 * when the table changes, answered as kube-openapi's handlers do (ETag, If-None-Match, the
 * `?hash=` redirect and immutable caching of hashed v3 URLs).
 */
import type { Request, Response } from 'express';
import type { Registry } from '../registry';
import type { SchemaRegistry } from '../registry/schema';
import { OpenApiDocument, OpenApiV3, buildOpenApiV2, buildOpenApiV3 } from './openapi';
import { parseAccept } from './negotiation';

interface Built {
  v2: OpenApiDocument;
  v3: OpenApiV3;
}

export class OpenApiDocuments {
  private built?: Built;

  constructor(
    private readonly registry: Registry,
    private readonly schemas: SchemaRegistry,
    private readonly serverVersion: string,
  ) {
    registry.onChange(() => (this.built = undefined));
  }

  private get docs(): Built {
    if (!this.built) {
      const defs = this.registry.definitions();
      const opts = { serverVersion: this.serverVersion };
      this.built = { v2: buildOpenApiV2(defs, this.schemas, opts), v3: buildOpenApiV3(defs, this.schemas, opts) };
    }
    return this.built;
  }

  serveV2(req: Request, res: Response): void {
    if (!acceptsJson(req)) return notAcceptable(res);
    this.send(req, res, this.docs.v2);
  }

  serveV3Index(req: Request, res: Response): void {
    if (!acceptsJson(req)) return notAcceptable(res);
    this.send(req, res, this.docs.v3.indexDocument);
  }

  serveV3(req: Request, res: Response, key: string): void {
    const doc = this.docs.v3.docs.get(key);
    if (!doc) {
      res.status(404).type('text/plain; charset=utf-8').send('404 page not found\n');
      return;
    }
    if (!acceptsJson(req)) return notAcceptable(res);
    const hash = req.query.hash;
    if (typeof hash === 'string' && hash !== '') {
      if (hash !== doc.etag) {
        res.redirect(301, `/openapi/v3/${key}?hash=${doc.etag}`);
        return;
      }
      // kube-openapi: a hashed URL never changes, so clients may cache it for a year.
      res.setHeader('Cache-Control', 'public, immutable');
      res.setHeader('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
    }
    this.send(req, res, doc);
  }

  private send(req: Request, res: Response, doc: OpenApiDocument): void {
    const etag = `"${doc.etag}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Vary', 'Accept');
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.status(200).setHeader('Content-Type', 'application/json').send(doc.body);
  }
}

function acceptsJson(req: Request): boolean {
  return parseAccept(req.headers.accept).some((m) => m.q > 0 && ['application/json', 'application/*', '*/*'].includes(m.type));
}

function notAcceptable(res: Response): void {
  res.status(406).type('text/plain; charset=utf-8').send('406: Not Acceptable\n');
}
