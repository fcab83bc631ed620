/**
 * The connect subresources (pods/exec, attach, portforward, proxy; and pods/log, a read with
 * options): kube's ConnectResource and GetResourceWithOptions handlers. The query is decoded into
 * the subresource's options kind; a Connecter refuses dryRun and is admitted as a CONNECT with the
 * options as its object; the declaration's `serve` answers. Nothing is read from the body.
 */
import type { Request, Response } from 'express';
import { errors } from '../../api';
import type { GenericStore, RequestContext, SubresourceConnect, SubresourceEnv } from '../../registry';
import { proxyRequest } from '../connect-proxy';
import { negotiateObject } from '../negotiation';
import type { RequestInfo } from '../request-info';

/** Go's url.Values of the request: every value of every key, in order. */
function queryValues(req: Request): Record<string, string[]> {
  const url = new URL(req.originalUrl || req.url, 'http://localhost');
  const out: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) (out[k] ??= []).push(v);
  return out;
}

/** The request's query as sent (kube's proxy passes RawQuery on). */
function rawQuery(req: Request): string {
  const url = req.originalUrl || req.url;
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i + 1);
}

/**
 * kube's getRequestOptions subpath: the path segments after the subresource joined with "/",
 * with a leading slash, and a trailing one when the request's path ends with one.
 */
function subpathOf(info: RequestInfo): string {
  let p = info.parts.slice(3).join('/');
  if (p && !p.startsWith('/')) p = `/${p}`;
  if (info.path.endsWith('/') && !p.endsWith('/')) p += '/';
  return p;
}

export async function serveConnect(
  env: SubresourceEnv,
  store: GenericStore,
  connect: SubresourceConnect,
  info: RequestInfo,
  ctx: RequestContext,
  req: Request,
  res: Response,
  opts: { cbor: boolean },
): Promise<void> {
  const query = queryValues(req);
  if (connect.connecter) {
    if (query.dryRun?.length) throw errors.badRequest('dryRun is not supported');
  } else {
    // A read negotiates its answer before anything else (406), as kube's get handler does.
    negotiateObject(req.headers.accept, { allowTable: true, protobuf: true, cbor: opts.cbor });
  }
  const options = connect.options(query, connect.subpath ? subpathOf(info) : '');
  if (connect.connecter) await store.admitConnect(ctx, info.name, info.subresource, options);
  const answer = await connect.serve(ctx, info.name, options, env);
  if (answer.status === 'proxy') {
    await proxyRequest(req, res, answer.target, rawQuery(req));
    return;
  }
  if (answer.status === 204) {
    // kube's StreamObject for an empty location: the status alone, no body, no content type.
    res.status(204).end();
    return;
  }
  res.status(answer.status).setHeader('Content-Type', answer.contentType).send(answer.body);
}
