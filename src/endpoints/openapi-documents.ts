/**
 * Serves the OpenAPI documents built from the resource table and the schemas: built once, rebuilt
 * when the table changes, answered with ETag / If-None-Match as kube-openapi does.
 */
import type { Request, Response } from 'express';
import type { Registry } from '../registry';
import type { SchemaRegistry } from '../registry/schema';
import { routeNotFound } from './resource-router';
import { buildOpenApiV2, buildOpenApiV3 } from './openapi';

interface Built {
  v2: { body: Buffer; etag: string };
  v3: ReturnType<typeof buildOpenApiV3>;
  v3Index: Buffer;
}

export class OpenApiDocuments {
  private built?: Built;

  constructor(
    private readonly registry: Registry,
    private readonly schemas: SchemaRegistry,
  ) {
    registry.onChange(() => (this.built = undefined));
  }

  private get docs(): Built {
    if (!this.built) {
      const defs = this.registry.definitions();
      const v3 = buildOpenApiV3(defs, this.schemas);
      this.built = { v2: buildOpenApiV2(defs, this.schemas), v3, v3Index: Buffer.from(JSON.stringify(v3.index)) };
    }
    return this.built;
  }

  serveV2(req: Request, res: Response): void {
    const accept = req.headers.accept ?? '';
    if (accept && !/application\/json|\*\/\*/.test(accept)) {
      res.status(406).type('text/plain').send('406: Not Acceptable\n');
      return;
    }
    this.send(req, res, this.docs.v2.body, this.docs.v2.etag, 'application/json');
  }

  serveV3Index(_req: Request, res: Response): void {
    res.status(200).type('application/json').send(this.docs.v3Index);
  }

  serveV3(req: Request, res: Response, gvPath: string): void {
    const doc = this.docs.v3.docs.get(gvPath);
    if (!doc) throw routeNotFound();
    this.send(req, res, doc.body, doc.etag, 'application/json');
  }

  private send(req: Request, res: Response, body: Buffer, etag: string, type: string): void {
    res.setHeader('ETag', etag);
    res.setHeader('Vary', 'Accept');
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.status(200).type(type).send(body);
  }
}
