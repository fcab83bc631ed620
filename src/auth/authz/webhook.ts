/**
 * kube's webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook): every request's
 * attributes become a SubjectAccessReview (subject-access-review.ts) POSTed to the server a
 * kubeconfig names, and its status decides.
 *
 * - matchConditions first (api/authorization-cel.ts): one false → no opinion, the webhook is not
 *   called; one failing to evaluate (none false) → the failure policy.
 * - Decisions are cached by the whole v1 spec (kube's key), allowed answers for `authorizedTtlMs`,
 *   the others for `unauthorizedTtlMs` (0: not cached), in an LRU of 8,192 entries (lru-cache, the
 *   bounded map kube's LRUExpireCache is). Requests whose attributes add up to 10,000 bytes or more
 *   are not cached, as in kube.
 * - A call is an HTTP POST as client-go makes it (`?timeout=<timeout>`, `Content-Type` and
 *   `Accept` of kube's JSON codec, the configured credentials); each attempt is bounded by
 *   `timeoutMs`. An answer of 429 or 5xx with an integer Retry-After is posted again after that
 *   many seconds, up to 10 times (client-go's own retry: kube's client is a rest.RESTClient, whose
 *   requests retry so unless told MaxRetries(0)). Transient failures (connection reset,
 *   500/504/429 or a Retry-After) are then retried with kube's backoff (500 ms, ×1.5, 20 % jitter,
 *   at most 5 attempts: kube's WithExponentialBackoff around the client) — but, unlike kube, never
 *   past `timeoutMs` from the first attempt, so a dead webhook costs a request at most its timeout.
 * - A call that fails answers the failure policy's decision (NoOpinion or Deny) with kube's
 *   error text (client-go's wording of the failure) as Decision.error and no reason.
 * - An answer: allowed → allow, denied → deny, neither → no opinion, with the webhook's reason;
 *   both → deny with kube's error.
 */
import { LRUCache } from 'lru-cache';
import { type AuthorizationAttributes, type ClientConnection, type Authorizer, type Decision, type RulesResult } from '../../api';
import { WebhookCallError, WebhookClient, defaultRetryBackoff, type RetryBackoff } from '../../api/webhook-client';
import { evaluateMatchConditions, type CompiledMatchCondition } from '../../api/authorization-cel';
import { decodeSarResponse, encodeSarRequest, encodeSarSpec, sarSpecFor, type SarStatus, type SarVersion } from './subject-access-review';

/** Where and how to reach the webhook: a kubeconfig's current cluster and user, resolved. */
export type WebhookClientConfig = ClientConnection;

export type { RetryBackoff };

export interface WebhookAuthorizerOptions {
  /** The authorizer's name (AuthorizerConfiguration.name; `default` for the flag). */
  name: string;
  client: WebhookClientConfig;
  /** subjectAccessReviewVersion. */
  version: SarVersion;
  /** Each call's bound, and (ours) the bound on all attempts together. */
  timeoutMs: number;
  /** How long answers are cached; 0: not cached. */
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  failurePolicy: 'NoOpinion' | 'Deny';
  matchConditions?: readonly CompiledMatchCondition[];
  /** The User-Agent header (client-go's default names the binary, version and platform). */
  userAgent?: string;
  retryBackoff?: RetryBackoff;
  /** Where failed calls are reported (kube: klog `Failed to make webhook authorizer request`). */
  onError?: (message: string) => void;
  /** Clock of the decision cache (tests). */
  now?: () => number;
}

/** kube's maxControlledAttrCacheSize. */
const MAX_CACHED_ATTRIBUTES_BYTES = 10_000;
/** kube's LRUExpireCache size. */
const CACHE_ENTRIES = 8192;

/** kube's shouldCache: the requester-controlled attributes must stay small. */
function shouldCache(a: AuthorizationAttributes): boolean {
  const size = [a.namespace, a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name, a.path].reduce((n, s) => n + Buffer.byteLength(s), 0);
  return size < MAX_CACHED_ATTRIBUTES_BYTES;
}


export class WebhookAuthorizer implements Authorizer {
  private readonly cache: LRUCache<string, SarStatus>;
  private readonly client: WebhookClient;
  private readonly backoff: RetryBackoff;
  /** The failure policy's decision. */
  private readonly decisionOnError: Decision['decision'];

  constructor(private readonly opts: WebhookAuthorizerOptions) {
    const now = opts.now;
    this.cache = new LRUCache<string, SarStatus>({ max: CACHE_ENTRIES, ...(now ? { perf: { now }, ttlResolution: 0 } : {}) });
    this.backoff = opts.retryBackoff ?? defaultRetryBackoff;
    this.decisionOnError = opts.failurePolicy === 'Deny' ? 'deny' : 'no-opinion';
    this.client = new WebhookClient({ connection: opts.client, ...(opts.userAgent ? { userAgent: opts.userAgent } : {}) });
  }

  /** Closes the webhook's idle connections. */
  close(): void {
    this.client.close();
    this.cache.clear();
  }

  async authorize(attrs: AuthorizationAttributes): Promise<Decision> {
    const spec = sarSpecFor(attrs);
    const conditions = this.opts.matchConditions;
    if (conditions?.length) {
      const m = evaluateMatchConditions(conditions, spec);
      if ('error' in m) return { decision: this.decisionOnError, error: m.error };
      if (!m.match) return { decision: 'no-opinion' };
    }
    const key = encodeSarSpec(spec);
    let status = this.cache.get(key);
    if (!status) {
      try {
        status = await this.call(encodeSarRequest(spec, this.opts.version));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        this.opts.onError?.(`Failed to make webhook authorizer request: ${message}`);
        return { decision: this.decisionOnError, error: message };
      }
      if (shouldCache(attrs)) {
        const ttl = status.allowed ? this.opts.authorizedTtlMs : this.opts.unauthorizedTtlMs;
        if (ttl > 0) this.cache.set(key, status, { ttl });
      }
    }
    const reason = status.reason ? { reason: status.reason } : {};
    if (status.denied && status.allowed) return { decision: 'deny', ...reason, error: 'webhook subject access review returned both allow and deny response' };
    if (status.denied) return { decision: 'deny', ...reason };
    if (status.allowed) return { decision: 'allow', ...reason };
    return { decision: 'no-opinion', ...reason };
  }

  /** kube's webhook cannot list a user's rules. */
  async rulesFor(): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, errors: ['webhook authorizer does not support user rule resolution'] };
  }

  /** Posts with kube's retries, all within the timeout; resolves with the answer's status or rejects with kube's error text. */
  private async call(body: string): Promise<SarStatus> {
    const answer = await this.client.postWithRetry(body, this.opts.timeoutMs, this.backoff);
    try {
      return decodeSarResponse(answer.body, this.opts.version);
    } catch (e) {
      throw new WebhookCallError(e instanceof Error ? e.message : String(e), false);
    }
  }
}
