/**
 * kube's ImagePolicyWebhook admission (plugin/pkg/admission/imagepolicy), off unless enabled: a
 * validating plugin that asks a backend, named by a kubeconfig, whether a pod's images may run.
 *
 * - Only pods are judged, on CREATE and UPDATE, the pod itself or its `ephemeralcontainers`
 *   subresource; every other resource and subresource passes.
 * - The pod becomes an ImageReview (review.ts) POSTed with the kubeconfig's server and credentials,
 *   bounded by kube's 30 s timeout, transient failures retried with kube's backoff from the
 *   configured `retryBackoff` (×1.5, 20 % jitter, 5 attempts) but never past that timeout.
 * - Answers are cached in an LRU of 1,024 entries keyed on the review's spec (and at most 64 MiB
 *   of them, ours), allowed ones for `allowTTL`, denied ones for `denyTTL`; failed calls are never
 *   cached.
 * - The answer's `status.auditAnnotations` become the request's audit annotations, each key
 *   prefixed with `imagepolicywebhook.image-policy.k8s.io/` (a key that would not make a qualified
 *   name is dropped, as kube's AddAnnotation refuses it).
 * - Denied: 403 `pods "<name>" is forbidden: image policy webhook backend denied one or more
 *   images: <reason>` (without a reason: `one or more images rejected by webhook backend`).
 * - A failed call (backend down, timeout, non-2xx, an answer that does not decode): with
 *   `defaultAllow` the pod is admitted and the request is annotated
 *   `imagepolicywebhook.image-policy.k8s.io/failed-open: "true"`; without it, 403 with client-go's
 *   error as the reason, except a Forbidden answer of the backend's (a 403, or a Status saying
 *   Forbidden), which reaches the client as the backend's Status, as kube's NewForbidden keeps it.
 *   kube also writes `alpha.image-policy.k8s.io/failed-open` on the pod it validates, but that pod
 *   is a copy nobody stores, so nothing of it is visible; it is left out.
 */
import { LRUCache } from 'lru-cache';
import { ApiError, errors, isQualifiedName, type ClientConnection, type KubeObject } from '../../../api';
import { addAuditAnnotation, type RequestContext } from '../../../api/request-context';
import { WebhookCallError, WebhookClient, statusHasReason } from '../../../api/webhook-client';
import { KubeconfigError, loadKubeconfig } from '../../../config/kinds/kubeconfig';
import type { ConfigSource } from '../../../config/versioned-config';
import { AdmissionAttributes, AdmissionPlugin, handlesOperations } from '../../interface';
import type { Plugins } from '../../plugin-registry';
import { ImagePolicyConfigError, loadImagePolicyConfig, type ImagePolicyConfig } from './config';
import { ImageReviewDecodeError, decodeImageReviewResponse, encodeImageReviewRequest, encodeImageReviewSpec, imageReviewSpecFor, type ImageReviewStatus } from './review';

export const imagePolicyWebhookPluginName = 'ImagePolicyWebhook';

/** kube's AuditKeyPrefix: the plugin's name, lower-cased, under image-policy.k8s.io. */
const imagePolicyAuditKeyPrefix = `${imagePolicyWebhookPluginName.toLowerCase()}.image-policy.k8s.io/`;

/** The audit annotation of a request admitted because the backend failed. */
export const imagePolicyFailedOpenKey = `${imagePolicyAuditKeyPrefix}failed-open`;

/** kube's webhook request timeout (apiserver util/webhook defaultRequestTimeout). */
const DEFAULT_TIMEOUT_MS = 30_000;
/** kube's LRUExpireCache size for answers. */
const CACHE_ENTRIES = 1024;
/**
 * Ours: the most the cached answers may hold together, counting their keys (the encoded spec: a
 * pod of many long image names makes one of a few MiB), so 1,024 large pods cannot pin gigabytes.
 */
const CACHE_MAX_BYTES = 64 << 20;

export interface ImagePolicyWebhookOptions extends Omit<ImagePolicyConfig, 'kubeConfigFile'> {
  /** The backend: the kubeconfig's current cluster and user. */
  connection: ClientConnection;
  /** Bound on one call with its retries (default kube's 30 s). */
  timeoutMs?: number;
  /** Clock of the answer cache, in milliseconds (tests). */
  now?: () => number;
  /** The User-Agent header of the calls. */
  userAgent?: string;
}

/** About what a cached answer holds: its key, its reason and audit annotations (the backend's). */
function cachedSize(status: ImageReviewStatus, key: string): number {
  let size = key.length + status.reason.length + 256;
  for (const [k, v] of Object.entries(status.auditAnnotations)) size += k.length + v.length;
  return size;
}

/** kube's checkKeyFormat: `<DNS subdomain>/<name>`, a qualified name. */
function isAuditKey(key: string): boolean {
  return key.split('/').length === 2 && isQualifiedName(key).length === 0;
}

/**
 * admission.NewForbidden: the request's name, else the object's name or generateName, else
 * "Unknown". An error that is already Forbidden (the backend's own 403) is passed through as it is.
 */
function forbidden(a: AdmissionAttributes, reason: string, cause?: unknown): ApiError {
  if (cause instanceof WebhookCallError && cause.status && statusHasReason(cause.status, 'Forbidden', 403)) return new ApiError(cause.status);
  const meta = a.object?.metadata;
  const name = a.name || meta?.name || meta?.generateName || 'Unknown';
  return errors.forbidden({ group: a.group, resource: a.resource }, name, reason);
}

export class ImagePolicyWebhook implements AdmissionPlugin {
  readonly name = imagePolicyWebhookPluginName;
  readonly handles = handlesOperations('CREATE', 'UPDATE');
  private readonly client: WebhookClient;
  private readonly cache: LRUCache<string, ImageReviewStatus>;
  private readonly timeoutMs: number;

  constructor(private readonly opts: ImagePolicyWebhookOptions) {
    this.client = new WebhookClient({ connection: opts.connection, ...(opts.userAgent ? { userAgent: opts.userAgent } : {}) });
    const now = opts.now;
    this.cache = new LRUCache<string, ImageReviewStatus>({
      max: CACHE_ENTRIES,
      maxSize: CACHE_MAX_BYTES,
      sizeCalculation: cachedSize,
      ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
    });
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Closes the backend's idle connections and forgets the answers. */
  close(): void {
    this.client.close();
    this.cache.clear();
  }

  async validate(ctx: RequestContext, a: AdmissionAttributes): Promise<void> {
    if ((a.subresource !== '' && a.subresource !== 'ephemeralcontainers') || a.group !== '' || a.resource !== 'pods') return;
    const pod = a.object;
    if (!pod || typeof pod !== 'object' || !pod.metadata) throw errors.badRequest('Resource was marked with kind Pod but was unable to be converted');
    const spec = encodeImageReviewSpec(imageReviewSpecFor(pod as KubeObject, a.subresource, a.namespace));
    let status = this.cache.get(spec);
    if (!status) {
      try {
        status = await this.call(spec);
      } catch (e) {
        if (!(e instanceof WebhookCallError || e instanceof ImageReviewDecodeError)) throw e;
        if (this.opts.defaultAllow) {
          addAuditAnnotation(ctx, imagePolicyFailedOpenKey, 'true');
          return;
        }
        throw forbidden(a, e.message, e);
      }
      const ttl = status.allowed ? this.opts.allowTtlMs : this.opts.denyTtlMs;
      if (ttl > 0) this.cache.set(spec, status, { ttl });
    }
    for (const [k, v] of Object.entries(status.auditAnnotations)) {
      const key = imagePolicyAuditKeyPrefix + k;
      // kube logs and goes on when an annotation is refused (bad key, or already set otherwise).
      if (isAuditKey(key)) addAuditAnnotation(ctx, key, v);
    }
    if (!status.allowed) {
      throw forbidden(a, status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend');
    }
  }

  /** One review: POSTed with retries, its answer decoded; rejects with client-go's or the decoder's error. */
  private async call(spec: string): Promise<ImageReviewStatus> {
    const backoff = { initialMs: this.opts.retryBackoffMs, factor: 1.5, jitter: 0.2, steps: 5 };
    const answer = await this.client.postWithRetry(encodeImageReviewRequest(spec), this.timeoutMs, backoff);
    return decodeImageReviewResponse(answer.body);
  }
}

/**
 * The backend's connection (webhookutil.LoadKubeconfig): client-go's messages, thrown as
 * ImagePolicyConfigError naming `imagePolicy.kubeConfigFile`.
 */
function backendConnection(kubeConfigFile: string): ClientConnection {
  const field = 'imagePolicy.kubeConfigFile';
  // kube's loader would fall back to $KUBECONFIG or ~/.kube/config here; a server does not read
  // its operator's own kubeconfig, so this is the error client-go gives when none is found.
  if (kubeConfigFile === '') throw new ImagePolicyConfigError('invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable', field);
  try {
    return loadKubeconfig(kubeConfigFile);
  } catch (e) {
    if (e instanceof KubeconfigError) throw new ImagePolicyConfigError(e.message, field);
    throw e;
  }
}

/**
 * kube's NewImagePolicyWebhook: the configuration decoded and normalized, then the kubeconfig
 * loaded. Throws with kube's message for a missing or bad configuration or kubeconfig.
 */
export function newImagePolicyWebhook(config: ConfigSource | undefined, opts: Pick<ImagePolicyWebhookOptions, 'timeoutMs' | 'now' | 'userAgent'> = {}): ImagePolicyWebhook {
  return new ImagePolicyWebhook({ ...readImagePolicyWebhookConfig(config), ...opts });
}

/** What kube's NewImagePolicyWebhook reads: the configuration, and the backend's kubeconfig it names. */
function readImagePolicyWebhookConfig(config: ConfigSource | undefined): ImagePolicyWebhookOptions {
  const { kubeConfigFile, ...settings } = loadImagePolicyConfig(config);
  return { ...settings, connection: backendConnection(kubeConfigFile) };
}

/** Configuration: the `imagePolicy` document (required), read before anything starts; needs nothing from the server. */
export function registerImagePolicyWebhook(plugins: Plugins): void {
  plugins.register(imagePolicyWebhookPluginName, { readConfig: readImagePolicyWebhookConfig, build: (options) => new ImagePolicyWebhook(options) });
}
