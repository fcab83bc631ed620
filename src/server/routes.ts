/** The router below the filter chain: non-resource endpoints, discovery, OpenAPI, then resources. */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { errors } from '../api';
import {
  aggregatedDiscovery,
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  discoveryETag,
  wantsAggregated,
} from '../endpoints/discovery';
import { encodeBody } from '../endpoints/codec';
import { OpenApiDocuments } from '../endpoints/openapi-documents';
import { isPrettyPrint } from '../endpoints/negotiation';
import { serveResource } from '../endpoints/resource-router';
import { requestState } from '../endpoints/request-state';
import type { ServingDeps } from '../endpoints/scope';
import { HealthCheck, healthHandler } from './health';
import { versionInfo } from '../api/version';
import { openIdConfiguration, publicJwks } from '../auth/authn/service-account';
import type { KeyObject } from 'node:crypto';

/** The server's parts the router serves with: those of every resource, plus the health checks. */
export interface RouteDeps extends ServingDeps {
  shutdownSignal: AbortSignal;
  health: { livez: HealthCheck[]; readyz: HealthCheck[] };
  /** Service-account issuer discovery: the first --service-account-issuer and the verification keys. */
  /** The signing issuer, its keys, and `--service-account-jwks-uri` when given. */
  issuerDiscovery?: { issuer: string; keys: KeyObject[]; jwksUri?: string };
}

/**
 * kube's ServiceAccountIssuerDiscovery (routes/openidmetadata.go): the OpenID configuration and the
 * JWK set of the issuer, cached by clients for an hour. Served only for an https issuer URL, as kube.
 * No anonymous access by default (kube grants it to service accounts only, through RBAC).
 */
function issuerDiscoveryRoutes(r: Router, d: NonNullable<RouteDeps['issuerDiscovery']>): void {
  let url: URL;
  try {
    url = new URL(d.issuer);
  } catch {
    return;
  }
  if (url.protocol !== 'https:') return;
  const jwks = encodeBody(publicJwks(d.keys), 'json', false);
  const send = (res: Response, buf: Buffer, type: string) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.status(200).setHeader('Content-Type', type);
    res.send(buf);
  };
  r.get('/.well-known/openid-configuration', (req, res) => {
    // Without --service-account-jwks-uri, kube points at its own external address; here, the
    // address the client used: Host over HTTP/1.1, :authority over HTTP/2.
    const authority = req.headers.host ?? (req.headers[':authority'] as string | undefined) ?? `${req.socket.localAddress ?? ''}:${req.socket.localPort ?? ''}`;
    const jwksUri = d.jwksUri ?? `https://${authority}/openid/v1/jwks`;
    send(res, encodeBody(openIdConfiguration(d.issuer, jwksUri, d.keys), 'json', false), 'application/json');
  });
  r.get('/openid/v1/jwks', (_req, res) => send(res, jwks, 'application/jwk-set+json'));
}

function sendJson(req: Request, res: Response, body: unknown, contentType = 'application/json', etag = false): void {
  const buf = encodeBody(body, 'json', isPrettyPrint(req.query.pretty, req.headers['user-agent']));
  sendBytes(req, res, buf, contentType, etag ? discoveryETag(buf) : undefined);
}

function sendBytes(req: Request, res: Response, buf: Buffer, contentType: string, tag?: string): void {
  if (tag) {
    res.setHeader('ETag', tag);
    res.setHeader('Vary', 'Accept');
    res.setHeader('Cache-Control', 'public');
    if (req.headers['if-none-match'] === tag) {
      res.status(304).end();
      return;
    }
  }
  // kube writes the bare media type (no charset parameter).
  res.status(200).setHeader('Content-Type', contentType);
  res.send(buf);
}

/** Go's http.NotFound: kube's answer for paths no handler serves, an unknown API group included. */
function notFoundText(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.status(404).type('text/plain; charset=utf-8').send('404 page not found\n');
}

function discovery(deps: RouteDeps, legacy: boolean) {
  // Aggregated discovery changes only with the registry: encode (and hash) it once per version.
  const aggregatedBytes = new Map<string, { buf: Buffer; tag: string }>();
  deps.registry.onChange(() => aggregatedBytes.clear());
  return (req: Request, res: Response): void => {
    const aggregated = wantsAggregated(req.headers.accept);
    if (aggregated) {
      const ct = `application/json;g=apidiscovery.k8s.io;v=${aggregated};as=APIGroupDiscoveryList`;
      if (isPrettyPrint(req.query.pretty, req.headers['user-agent'])) {
        sendJson(req, res, aggregatedDiscovery(deps.registry, legacy, aggregated), ct, true);
        return;
      }
      let doc = aggregatedBytes.get(aggregated);
      if (!doc) {
        const buf = encodeBody(aggregatedDiscovery(deps.registry, legacy, aggregated), 'json', false);
        doc = { buf, tag: discoveryETag(buf) };
        aggregatedBytes.set(aggregated, doc);
      }
      sendBytes(req, res, doc.buf, ct, doc.tag);
      return;
    }
    if (legacy) sendJson(req, res, apiVersions(`${req.socket.localAddress ?? ''}:${req.socket.localPort ?? ''}`));
    else sendJson(req, res, apiGroupList(deps.registry));
  };
}

export function buildRouter(deps: RouteDeps): Router {
  const r = Router();
  const openapi = new OpenApiDocuments(deps.registry, deps.schemas, versionInfo.gitVersion, { enums: deps.features.openAPIEnums });

  r.get('/version', (req, res) => sendJson(req, res, versionInfo));
  r.get('/healthz', healthHandler('healthz', deps.health.livez));
  r.get('/healthz/*check', healthHandler('healthz', deps.health.livez));
  r.get('/livez', healthHandler('livez', deps.health.livez));
  r.get('/livez/*check', healthHandler('livez', deps.health.livez));
  r.get('/readyz', healthHandler('readyz', deps.health.readyz));
  r.get('/readyz/*check', healthHandler('readyz', deps.health.readyz));

  if (deps.issuerDiscovery) issuerDiscoveryRoutes(r, deps.issuerDiscovery);
  r.get('/api', discovery(deps, true));
  r.get('/apis', discovery(deps, false));
  r.get('/api/v1', (req, res) => {
    const gv = deps.registry.groupVersions().find((g) => !g.group && g.version === 'v1');
    if (!gv) throw errors.routeNotFound();
    sendJson(req, res, apiResourceList(gv, { storageVersionHash: deps.features.storageVersionHash }));
  });
  r.get('/apis/:group', (req, res) => {
    const doc = apiGroupDoc(deps.registry, req.params.group as string);
    if (!doc) return notFoundText(res);
    sendJson(req, res, doc);
  });
  r.get('/apis/:group/:version', (req, res) => {
    const gv = deps.registry.groupVersions().find((g) => g.group === req.params.group && g.version === req.params.version);
    if (!gv) {
      if (!servesGroup(deps, req.params.group as string)) return notFoundText(res);
      throw errors.routeNotFound();
    }
    sendJson(req, res, apiResourceList(gv, { storageVersionHash: deps.features.storageVersionHash }));
  });

  r.get('/openapi/v2', (req, res) => openapi.serveV2(req, res));
  r.get('/openapi/v3', (req, res) => openapi.serveV3Index(req, res));
  r.get(/^\/openapi\/v3\/(.+)$/, (req, res) => openapi.serveV3(req, res, (req.params as Record<string, string>)[0] ?? ''));

  r.use((_req, res) => {
    const { info } = requestState(res);
    // Only served groups have go-restful web services (JSON 404s); the rest falls through to http.NotFound.
    if (info.apiPrefix === 'apis' && info.apiGroup && !servesGroup(deps, info.apiGroup)) return notFoundText(res);
    if (info.apiPrefix) throw errors.routeNotFound();
    return notFoundText(res);
  });
  return r;
}

function servesGroup(deps: Pick<RouteDeps, 'registry'>, group: string): boolean {
  return deps.registry.groupVersions().some((g) => g.group === group);
}

/**
 * Resource requests, mounted ahead of buildRouter's routes: none of those matches a resource path
 * (they serve /version, health, discovery of groups and versions, OpenAPI and issuer discovery,
 * none with a resource segment), so a resource request is served without entering that router
 * and testing each route's pattern. Other requests go on to it.
 */
export function resourceRequests(deps: RouteDeps): RequestHandler {
  return (req, res, next) => {
    const { info } = requestState(res);
    if (!info.isResourceRequest) return next();
    // Only served groups have go-restful web services (JSON 404s); the rest falls through to http.NotFound.
    if (info.apiPrefix === 'apis' && info.apiGroup && !servesGroup(deps, info.apiGroup)) return notFoundText(res);
    if (deps.shutdownSignal.aborted) throw errors.serviceUnavailable('apiserver is shutting down');
    return serveResource(deps, req, res);
  };
}
