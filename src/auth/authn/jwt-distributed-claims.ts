/**
 * OIDC distributed claims for a JWT issuer of `--authentication-config`, as kube 1.32 resolves them
 * (the claimResolver of k8s.io/apiserver/plugin/pkg/authenticator/token/oidc, over go-oidc v2.2.1):
 *
 * - Only the groups claim, and only when `claimMappings.groups.claim` names it (a groups
 *   `expression` resolves nothing), and only when the token lacks that claim itself.
 * - `_claim_names[<claim>]` names a source in `_claim_sources`; a source with an `endpoint` is
 *   fetched with GET, with `Authorization: Bearer <access_token>` when the source carries one and no
 *   Authorization at all when it does not (the presented token itself is never sent). A source with
 *   no endpoint (an aggregated claim) resolves nothing.
 * - The answer (any 2xx) is a JWT whose unverified `iss` picks the verifier: this issuer's own keys,
 *   or another issuer's found by its discovery document, loaded in the background (refused as "not
 *   initialized" until then, as kube's lazily started verifiers are). It is checked as the token
 *   itself is (claims, audiences, times, signature), and its claim replaces the missing one.
 * - Nothing is cached here (kube neither); the token cache in front of the chain keeps the user.
 *
 * Our bounds, beyond kube's: the fetch has 30 s in all (kube's client timeout) and its answer at
 * most 4 MiB (kube reads any size); at most 16 other issuers' verifiers are kept per authenticator.
 * Reasons carry kube's wording; their logged forms replace the endpoint, source names and the
 * answer's issuer (all token contents) with `[redacted]`.
 */
import http from 'node:http';
import https from 'node:https';
import { goQuote } from '../../api';
import { REDACTED, Refusal } from './token-review';

/** The whole exchange with a claims endpoint (kube's http.Client Timeout for the issuer). */
export const CLAIM_FETCH_TIMEOUT_MS = 30_000;
/** The most of an endpoint's answer read (our bound; kube reads it all). */
export const CLAIM_ANSWER_MAX_BYTES = 4 << 20;
/** Verifiers of issuers other than the configured one, per authenticator (our bound; kube keeps all). */
export const OTHER_ISSUER_VERIFIERS = 16;

const CLAIM_NAMES = '_claim_names';
const CLAIM_SOURCES = '_claim_sources';

/** What verifies the JWT a claims endpoint answers with, for one issuer. */
export interface IdTokenVerifier {
  /** Whether its keys are loaded (until then kube's "verifier not initialized"). */
  readonly initialized: boolean;
  /** go-oidc's Verify and kube's audience check; Refusals in go-oidc's wording, with no prefix. */
  verifyIdToken(token: string, claims: Record<string, unknown>): Promise<void>;
  close(): void;
}

const goType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * encoding/json's field matching for a struct: the fields' values by JSON name, a key matching a
 * name exactly or case-insensitively, the last such key winning.
 */
function structFields(o: Record<string, unknown>, names: readonly string[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(o)) {
    const name = names.find((n) => n === k) ?? names.find((n) => n.toLowerCase() === k.toLowerCase());
    if (name !== undefined) out.set(name, v);
  }
  return out;
}

/** A source in `_claim_sources` as kube's `endpoint` type holds it. */
interface ClaimSource {
  endpoint: string;
  accessToken: string;
}

/**
 * go-oidc's json.Unmarshal of `_claim_names` (a map of strings) or `_claim_sources` (a map of
 * {endpoint, access_token}) into its idToken: the type error it would save, else undefined.
 */
export function claimSourcesTypeError(key: string, v: unknown): string | undefined {
  const err = (value: unknown, field: string, type: string): string => `json: cannot unmarshal ${goType(value)} into Go struct field ${field} of type ${type}`;
  if (v === null) return undefined;
  if (key === CLAIM_NAMES) {
    if (!isObject(v)) return err(v, 'idToken._claim_names', 'map[string]string');
    const bad = Object.values(v).find((x) => x !== null && typeof x !== 'string');
    return bad === undefined ? undefined : err(bad, 'idToken._claim_names', 'string');
  }
  if (key !== CLAIM_SOURCES) return undefined;
  if (!isObject(v)) return err(v, 'idToken._claim_sources', 'map[string]oidc.claimSource');
  for (const s of Object.values(v)) {
    if (s === null) continue;
    if (!isObject(s)) return err(s, 'idToken._claim_sources', 'oidc.claimSource');
    for (const [name, x] of structFields(s, ['endpoint', 'access_token'])) {
      if (x !== null && typeof x !== 'string') return err(x, `claimSource._claim_sources.${name}`, 'string');
    }
  }
  return undefined;
}

/** go-oidc's check once the claims decoded: every claim name points at a source that exists. */
export function claimSourcesRefusal(claims: Record<string, unknown>): Refusal | undefined {
  const names = claims[CLAIM_NAMES];
  if (!isObject(names)) return undefined;
  const sources = isObject(claims[CLAIM_SOURCES]) ? (claims[CLAIM_SOURCES] as Record<string, unknown>) : {};
  for (const src of Object.values(names)) {
    if (src === null || src === '') return new Refusal('oidc: failed to obtain source from claim name');
    if (!Object.hasOwn(sources, src as string)) return new Refusal('oidc: source does not exist');
  }
  return undefined;
}

/** kube's untrustedIssuer of the endpoint's answer: its `iss` and claims, or kube's reason. */
function untrustedIssuer(token: string): { iss: string; claims: Record<string, unknown> } {
  if (token.trim().startsWith('{')) throw new Error('token is not compact JWT');
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('malformed token');
  const payload = parts[1] as string;
  const bad = payload.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0 || payload.length % 4 === 1) throw new Error(`error decoding token: illegal base64 data at input byte ${bad >= 0 ? bad : payload.length - 1}`);
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch (e) {
    throw new Error(`while unmarshaling token: ${(e as Error).message}`);
  }
  if (!isObject(claims)) {
    if (claims === null) return { iss: '', claims: {} };
    throw new Error(`while unmarshaling token: json: cannot unmarshal ${goType(claims)} into Go value of type struct { Issuer string "json:\\"iss\\"" }`);
  }
  const iss = claims.iss ?? '';
  if (typeof iss !== 'string') throw new Error(`while unmarshaling token: json: cannot unmarshal ${goType(iss)} into Go struct field .iss of type string`);
  return { iss: iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss, claims };
}

/** A failed fetch: kube's reason, and the same without the endpoint's address (for the log). */
class FetchError extends Error {
  constructor(
    message: string,
    readonly logged = message,
  ) {
    super(message);
  }
}

/** Go's net/http client error for a failed request (`Get "<url>": <cause>`), from Node's error. */
function goClientError(url: URL, raw: string, e: NodeJS.ErrnoException, timedOut: boolean): FetchError {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const address = `${host}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  const cause = (redact: boolean): string => {
    if (timedOut) return 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
    if (e.code === 'ECONNREFUSED') return `dial tcp ${redact ? REDACTED : address}: connect: connection refused`;
    if (e.code === 'ENOTFOUND') return `dial tcp: lookup ${redact ? REDACTED : host}: no such host`;
    if (e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || e.code === 'SELF_SIGNED_CERT_IN_CHAIN' || e.code === 'DEPTH_ZERO_SELF_SIGNED_CERT') {
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    }
    return redact ? e.message.split(host).join(REDACTED) : e.message;
  };
  return new FetchError(`Get ${goQuote(raw)}: ${cause(false)}`, `Get ${REDACTED}: ${cause(true)}`);
}

/**
 * kube's getClaimJWT: GET `url` (Bearer `accessToken` when there is one), any 2xx answer's body as
 * the JWT. HTTPS trusts `ca` (PEM), else Node's bundled roots. Redirects are not followed.
 */
export function fetchClaimJwt(url: string, accessToken: string, ca: string | undefined, opts: { timeoutMs?: number; maxBytes?: number } = {}): Promise<string> {
  const maxBytes = opts.maxBytes ?? CLAIM_ANSWER_MAX_BYTES;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (e) {
    return Promise.reject(new FetchError(`while calling ${url}: parse ${goQuote(url)}: ${(e as Error).message}`, `while calling ${REDACTED}: parse ${REDACTED}: invalid URL`));
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    const scheme = goQuote(parsed.protocol.slice(0, -1));
    return Promise.reject(new FetchError(`Get ${goQuote(url)}: unsupported protocol scheme ${scheme}`, `Get ${REDACTED}: unsupported protocol scheme ${scheme}`));
  }
  const signal = AbortSignal.timeout(opts.timeoutMs ?? CLAIM_FETCH_TIMEOUT_MS);
  const headers: Record<string, string> = accessToken ? { authorization: `Bearer ${accessToken}` } : {};
  return new Promise((resolve, reject) => {
    let answered = false;
    const options = { headers, signal, ...(parsed.protocol === 'https:' && ca ? { ca } : {}) };
    const req = (parsed.protocol === 'https:' ? https : http).get(parsed, options, (res) => {
      answered = true;
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 226) {
        // Go closes the body unread; draining it would let the endpoint stream until the timeout.
        res.destroy();
        return reject(new FetchError(`error while getting distributed claim JWT: ${status} ${res.statusMessage || http.STATUS_CODES[status] || ''}`.trimEnd()));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      // A body that fails, stops or outgrows the bound: kube's reason for a failed read.
      const unreadable = (): void => {
        res.destroy();
        reject(new FetchError('could not decode distributed claim response'));
      };
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) unreadable();
        else chunks.push(c);
      });
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', unreadable);
      res.on('aborted', unreadable);
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (!answered) reject(goClientError(parsed, url, e, signal.aborted));
    });
  });
}

export interface ClaimResolverOptions {
  /** The configured issuer's `url`, and its own verifier (its keys). */
  issuer: string;
  own: IdTokenVerifier;
  /** A verifier for another issuer, started (fetching its keys in the background). */
  verifierFor: (iss: string) => IdTokenVerifier;
  /** `certificateAuthority` (PEM), trusted for the endpoints as for the issuer. */
  ca?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/** kube's claimResolver for one claim (the groups claim) of one authenticator. */
export class ClaimResolver {
  /** Verifiers of other issuers, oldest first (closed when dropped). */
  private readonly others = new Map<string, IdTokenVerifier>();

  constructor(
    readonly claim: string,
    private readonly opts: ClaimResolverOptions,
  ) {}

  close(): void {
    for (const v of this.others.values()) v.close();
    this.others.clear();
  }

  /**
   * kube's expand: when the claim is missing and `_claim_names` sends it to a source with an
   * endpoint, fetches it into `claims`. A Refusal (prefixed as kube's authenticator prefixes it) when
   * that fails.
   */
  async expand(claims: Record<string, unknown>): Promise<void> {
    try {
      await this.expandClaims(claims);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      const prefix = 'oidc: could not expand distributed claims: ';
      throw new Refusal(prefix + e.message, prefix + e.logged);
    }
  }

  private async expandClaims(claims: Record<string, unknown>): Promise<void> {
    if (Object.hasOwn(claims, this.claim) || !Object.hasOwn(claims, CLAIM_NAMES)) return;
    // go-oidc has checked both claims' types (claimSourcesTypeError) before the signature.
    const names = (claims[CLAIM_NAMES] ?? {}) as Record<string, string | null>;
    if (!Object.hasOwn(claims, CLAIM_SOURCES)) throw new Refusal('oidc: no claim sources');
    const raw = (claims[CLAIM_SOURCES] ?? {}) as Record<string, Record<string, unknown> | null>;
    const sources = new Map<string, ClaimSource>();
    for (const [name, s] of Object.entries(raw)) {
      const fields = structFields(s ?? {}, ['endpoint', 'access_token', 'JWT']);
      // kube's own type adds the aggregated claim's `JWT`, which go-oidc's does not check.
      const jwt = fields.get('JWT');
      if (jwt !== undefined && jwt !== null && typeof jwt !== 'string') {
        throw new Refusal(`oidc: could not parse claim sources: json: cannot unmarshal ${goType(jwt)} into Go struct field endpoint.JWT of type string`);
      }
      sources.set(name, { endpoint: (fields.get('endpoint') as string | null) ?? '', accessToken: (fields.get('access_token') as string | null) ?? '' });
    }
    if (!Object.hasOwn(names, this.claim)) return;
    const src = names[this.claim] ?? '';
    const source = sources.get(src);
    if (!source) {
      const text = (s: string): string => `id token _claim_names contained a source ${s} missing in _claims_sources`;
      throw new Refusal(text(src), text(REDACTED));
    }
    if (source.endpoint === '') return;
    claims[this.claim] = await this.resolve(source);
  }

  /** kube's resolve: the claim's value from the source's endpoint. */
  private async resolve(source: ClaimSource): Promise<unknown> {
    const url = source.endpoint;
    let jwt: string;
    try {
      jwt = await fetchClaimJwt(url, source.accessToken, this.opts.ca, { timeoutMs: this.opts.timeoutMs, maxBytes: this.opts.maxBytes });
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      const text = (reason: string): string => `while getting distributed claim ${goQuote(this.claim)}: ${reason}`;
      throw new Refusal(text(e.message), text(e.logged));
    }
    let answer: { iss: string; claims: Record<string, unknown> };
    try {
      answer = untrustedIssuer(jwt);
    } catch (e) {
      const text = (endpoint: string, reason: string): string => `getting untrusted issuer from endpoint ${endpoint} failed for claim ${goQuote(this.claim)}: ${reason}`;
      throw new Refusal(text(url, (e as Error).message), text(REDACTED, REDACTED));
    }
    const verifier = this.verifier(answer.iss);
    if (!verifier.initialized) {
      const text = (iss: string, quoted: string): string => `verifying untrusted issuer ${iss} failed: verifier not initialized for issuer: ${quoted}`;
      throw new Refusal(text(answer.iss, goQuote(answer.iss)), text(REDACTED, REDACTED));
    }
    try {
      await verifier.verifyIdToken(jwt, answer.claims);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      throw new Refusal(`verify distributed claim token: ${e.message}`, `verify distributed claim token: ${e.logged}`);
    }
    if (!Object.hasOwn(answer.claims, this.claim)) {
      const text = (endpoint: string): string => `jwt returned by distributed claim endpoint ${endpoint} did not contain claim: ${this.claim}`;
      throw new Refusal(text(goQuote(url)), text(REDACTED));
    }
    return answer.claims[this.claim];
  }

  /** kube's Verifier(iss): this issuer's own, else one per issuer made on first use. */
  private verifier(iss: string): IdTokenVerifier {
    if (iss === this.opts.issuer) return this.opts.own;
    let v = this.others.get(iss);
    if (v) return v;
    v = this.opts.verifierFor(iss);
    this.others.set(iss, v);
    if (this.others.size > OTHER_ISSUER_VERIFIERS) {
      const [oldest, dropped] = this.others.entries().next().value as [string, IdTokenVerifier];
      this.others.delete(oldest);
      dropped.close();
    }
    return v;
  }
}
