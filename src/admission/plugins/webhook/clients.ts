/**
 * The HTTP clients of admission webhooks (kube's webhookutil.ClientManager): one WebhookClient
 * (its TLS agent keeping connections alive) per `clientConfig.url` and `caBundle`, shared by every
 * webhook naming the same pair, at most 200 of them (kube's cache size; the least recently used is
 * closed). A `service` reference cannot be dialled here: this server serves no Services, so the
 * call fails as kube's fails for a Service that does not exist, and the webhook's failurePolicy
 * decides.
 *
 * Every call says `User-Agent: kube-apiserver-admission` (kube's webhook client configuration sets
 * it for admission webhooks alone; the authorization webhook keeps client-go's default) and is
 * retried as client-go retries an answer carrying a Retry-After.
 */
import { X509Certificate } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { WebhookCallError, WebhookClient, requestUrl, type WebhookAnswer } from '../../../api/webhook-client';
import type { WebhookClientConfigJson } from '../../../api/admissionregistration';

/** Where a webhook is posted to. */
export interface WebhookEndpoint {
  /**
   * One POST of `body` within `timeoutMs`, `?timeout=<urlTimeoutMs>` (default the same), cut off
   * (its connection closed) when `signal`, the request's context, aborts; rejects with WebhookCallError.
   */
  post(body: string, timeoutMs: number, urlTimeoutMs?: number, signal?: AbortSignal): Promise<WebhookAnswer>;
}

/** kube's admission webhook clients' User-Agent (webhookutil's setGlobalDefaults). */
export const ADMISSION_USER_AGENT = 'kube-apiserver-admission';

const MAX_CLIENTS = 200;

/** The endpoint of a service reference: the Service is looked up when dialling, and there is none. */
function serviceEndpoint(svc: NonNullable<WebhookClientConfigJson['service']>): WebhookEndpoint {
  const name = svc.name ?? '';
  const host = `${name}.${svc.namespace ?? ''}.svc:${svc.port ?? 443}`;
  return {
    post: async (_body, timeoutMs, urlTimeoutMs = timeoutMs) => {
      // Go keeps the port kube names (443 too), which URL's serialisation would drop.
      const u = requestUrl(`https://${host}${svc.path ?? ''}`, urlTimeoutMs);
      throw new WebhookCallError(`Post ${JSON.stringify(`https://${host}${u.pathname}${u.search}`)}: service ${JSON.stringify(name)} not found`, false);
    },
  };
}

/** A clientConfig no client can be made of (kube: the REST client's error); the message is client-go's. */
export class ClientConfigError extends Error {
  override readonly name = 'ClientConfigError';
}

const PEM_BLOCK = /-----BEGIN ([^\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;

/**
 * client-go's check of a CA bundle (rootCertPool): fine when one CERTIFICATE block parses; else its
 * reason, as createErrorParsingCAData words it. Node would take any text and fail every handshake.
 */
export function caBundleError(pem: string): string | undefined {
  let firstParseError: string | undefined;
  let blocks = 0;
  for (const m of pem.matchAll(PEM_BLOCK)) {
    blocks++;
    if (m[1] !== 'CERTIFICATE') continue;
    try {
      new X509Certificate(m[0]);
      return undefined;
    } catch {
      firstParseError ??= 'failed to parse certificate: x509: malformed certificate';
    }
  }
  return firstParseError ?? (blocks === 0 ? 'unable to parse bytes as PEM block' : 'no valid certificate authority data seen');
}

export class WebhookClients {
  private readonly clients = new LRUCache<string, WebhookClient>({ max: MAX_CLIENTS, dispose: (client) => client.close() });

  /**
   * The endpoint of a webhook's clientConfig (the registry has checked it names a URL or a
   * service). Throws ClientConfigError for a CA bundle client-go would not load.
   */
  endpointFor(cc: WebhookClientConfigJson): WebhookEndpoint {
    if (cc.service) return serviceEndpoint(cc.service);
    const url = cc.url ?? '';
    const caBundle = cc.caBundle ?? '';
    const key = `${url}\n${caBundle}`;
    let client = this.clients.get(key);
    if (!client) {
      // caBundle is the API's base64 of PEM; without it the system roots are trusted.
      const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
      const caError = ca === undefined ? undefined : caBundleError(ca);
      if (caError) throw new ClientConfigError(`unable to load root certificates: ${caError}`);
      client = new WebhookClient({ connection: { server: url, ...(ca ? { ca } : {}) }, userAgent: ADMISSION_USER_AGENT });
      this.clients.set(key, client);
    }
    return client;
  }

  /** Closes every client's idle connections. */
  close(): void {
    this.clients.clear();
  }
}
