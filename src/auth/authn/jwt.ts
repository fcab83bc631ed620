/**
 * JWT authenticators of `--authentication-config` (kube's
 * k8s.io/apiserver/plugin/pkg/authenticator/token/oidc): one per `jwt[]` entry, asked in order.
 *
 * - A token whose unverified `iss` is not this issuer's `url` (or that is not a compact JWT at all)
 *   gets no opinion: the next authenticator is asked.
 * - Keys: the OIDC discovery document (`discoveryURL`, else `<url>/.well-known/openid-configuration`),
 *   whose `issuer` must be `url`, then its `jwks_uri`, both over HTTPS trusting
 *   `certificateAuthority` (else Node's bundled Mozilla roots, not the host's store: an IdP behind a CA installed only on the host needs certificateAuthority). Fetched in the background until they load
 *   (until then a token for the issuer is refused, as kube's "authenticator not initialized"), and
 *   fetched again when no key the set holds verifies a token's signature (at most every 10 s).
 * - Checks as go-oidc v2.2.1 (kube 1.32's) and kube make them, in their order: the claims' types,
 *   the audience when one is configured, `exp` (no leeway; a token without one is expired), `nbf`
 *   (one minute's leeway), no `iat` check, the algorithm (RS/ES/PS 256/384/512), and only then the
 *   signature, so a token refused for its claims costs no key fetch; with several audiences
 *   configured kube checks them itself, after the signature (any of them matches).
 * - With groups mapped by `claim`, a groups claim the token lacks is resolved from its distributed
 *   claims (jwt-distributed-claims.ts), as kube's claimResolver does.
 * - Then username, groups, uid, extra (plus `authentication.kubernetes.io/credential-id` from
 *   `jti`), the claim+requiredValue rules, the claim validation expressions, the user validation
 *   expressions, in kube's order and with kube's rules.
 *
 * A token for the issuer that fails any step is a 401 Unauthorized. The reason in kube's wording
 * goes to a TokenReview's status.error; the same reason without the token's values goes to
 * `onFailure` for the log (see Refusal).
 */
import https from 'node:https';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { JWTAuthenticatorConfig, PrefixedClaimOrExpression } from '../../api/authentication-config';
import { compareGoStrings, goQuote, goQuoteList, goTimeString } from '../../api';
import { CEL_COST_EXCEEDED, celInput, type CelInput, type CelResultValue } from '../../api/cel';
import { authenticationFailure, REDACTED, Refusal } from './token-review';
import { ClaimResolver, claimSourcesRefusal, claimSourcesTypeError, type IdTokenVerifier } from './jwt-distributed-claims';
import { CREDENTIAL_ID_KEY, type TokenAuthenticator, type UserInfo } from './types';

/** go-oidc's and kube's algorithms for the configuration file (oidc.AllValidSigningAlgorithms). */
export const validSigningAlgorithms = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];

/** go-oidc v2's leeway for `nbf` (`exp` has none). */
const NBF_LEEWAY_S = 60;
/** Go's zero time.Time as Unix seconds: a token without `exp` expired then. */
const ZERO_TIME_S = -62135596800;

export interface JwtAuthenticatorOptions {
  /** Why a token for this issuer was refused: kube's reason with the token's values `[redacted]`. */
  onFailure?: (issuer: string, reason: string) => void;
  /** A failed key fetch (retried). */
  onInitError?: (issuer: string, error: string) => void;
  /** Retry delay of the initial key fetch (default 10 s). */
  retryMs?: number;
  /** Clock (seconds since the epoch), for tests. */
  now?: () => number;
  /** Bounds of a distributed claims endpoint's fetch (tests; defaults in jwt-distributed-claims.ts). */
  claimFetch?: { timeoutMs?: number; maxBytes?: number };
}

/** The `aud` claim as a list (a JWT may give one audience as a string); non-strings dropped. */
export function audienceClaim(claims: Record<string, unknown>): string[] {
  const aud = claims.aud;
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

/** A token's claims, read before its signature is checked. */
interface Unverified {
  /** kube's untrustedIssuer. */
  iss: string;
  /** The payload: once the signature verifies (over these same bytes), the claims checked. */
  claims: Record<string, unknown>;
}

/** The token's unverified issuer and claims, undefined when it is no compact JWT. */
function unverified(token: string): Unverified | undefined {
  if (token.trim().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const payload = parts[1] as string;
  if (!/^[A-Za-z0-9_-]*$/.test(payload)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return undefined;
    const iss = (claims as Record<string, unknown>).iss;
    if (iss === undefined || iss === null) return { iss: '', claims: claims as Record<string, unknown> };
    if (typeof iss !== 'string') return undefined;
    return { iss: iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss, claims: claims as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** GET a JSON document over HTTPS trusting `ca` (PEM) or Node's bundled roots. */
function getJson(url: string, ca: string | undefined, timeoutMs = 10_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ...(ca ? { ca } : {}), timeout: timeoutMs, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 4 << 20) req.destroy(new Error(`${url}: response too large`));
        else chunks.push(c);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (e) {
          reject(new Error(`${url}: ${(e as Error).message}`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: timeout`)));
    req.on('error', reject);
  });
}

const goType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;

/** json.Unmarshal of a claim into a Go string: null leaves "", anything else but a string fails. */
function claimString(claims: Record<string, unknown>, name: string, what: string): string {
  if (!(name in claims)) throw new Refusal(`oidc: parse ${what} ${JSON.stringify(name)}: claim not present`);
  const v = claims[name];
  if (v === null) return '';
  if (typeof v !== 'string') throw new Refusal(`oidc: parse ${what} ${JSON.stringify(name)}: json: cannot unmarshal ${goType(v) === 'bool' ? 'bool' : goType(v)} into Go value of type string`);
  return v;
}

/** kube's convertCELValueToStringList: a string or list of strings; "" and [] are nothing. */
function stringList(v: CelResultValue): string[] {
  if (v === null) return [];
  if (typeof v === 'string') return v === '' ? [] : [v];
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const x of v) {
      if (typeof x !== 'string') throw new Error('expression must return a string or a list of strings');
      if (x !== '') out.push(x);
    }
    return out;
  }
  throw new Error('expression must return a string or a list of strings');
}

/** CEL evaluation errors that hold no value from the token (the others may: `no such key: <a claim's value>`). */
const valueFreeCelErrors = new Set([
  CEL_COST_EXCEEDED,
  'no such overload',
  'division by zero',
  'modulus by zero',
  'integer overflow',
  'unsigned integer overflow',
  'optional.none() dereference',
]);

function evaluate(what: string, fn: () => CelResultValue): CelResultValue {
  try {
    return fn();
  } catch (e) {
    const message = (e as Error).message;
    const logged = valueFreeCelErrors.has(message) ? message : message.startsWith('no such key: ') ? `no such key: ${REDACTED}` : REDACTED;
    throw new Refusal(`oidc: error evaluating ${what}: ${message}`, `oidc: error evaluating ${what}: ${logged}`);
  }
}

/** Go's time.Time String() of Unix seconds, in UTC (kube prints the server's zone, UTC in a container). */
function goUnixTime(seconds: number): string {
  const ms = seconds * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return String(seconds);
  return goTimeString(new Date(ms).toISOString()) ?? String(seconds);
}

/** encoding/json's syntax of a number, which a json.Number also takes from a JSON string. */
const jsonNumber = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** go-oidc's jsonTime of a time claim (a number, or a string holding one), whole seconds; undefined when absent or null. */
function jsonTimeSeconds(v: unknown): number | undefined {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'string' && jsonNumber.test(v)) return Math.trunc(Number(v));
  return undefined;
}

/**
 * go-oidc's json.Unmarshal of the claims into its idToken: the refusal for a claim it cannot hold
 * (`aud` a string or list of strings; `exp`, `iat`, `nbf` numbers or strings holding one; `sub`,
 * `nonce`, `at_hash` strings; `_claim_names`, `_claim_sources` its distributed claims' maps). A bad
 * `aud` or time stops the decoding where it stands; any other bad field is reported only when
 * nothing stops it.
 */
function claimTypesRefusal(claims: Record<string, unknown>): Refusal | undefined {
  const prefix = 'oidc: failed to unmarshal claims: ';
  const typeError = (field: string, v: unknown, type: string): string => `json: cannot unmarshal ${goType(v)} into Go struct field idToken.${field} of type ${type}`;
  let saved: string | undefined;
  for (const [k, v] of Object.entries(claims)) {
    if (k === 'aud' && v !== null && typeof v !== 'string') {
      const bad = Array.isArray(v) ? v.find((x) => x !== null && typeof x !== 'string') : v;
      if (bad !== undefined) return new Refusal(prefix + typeError(k, bad, Array.isArray(v) ? 'string' : '[]string'));
    } else if (k === 'exp' || k === 'iat' || k === 'nbf') {
      if (typeof v === 'number' || (typeof v === 'string' && jsonNumber.test(v)) || (v === null && k === 'nbf')) continue;
      if (v === null) return new Refusal(`${prefix}strconv.ParseFloat: parsing "": invalid syntax`);
      if (typeof v === 'string') {
        const text = (raw: string): string => `${prefix}json: invalid number literal, trying to unmarshal ${raw} into Number`;
        return new Refusal(text(goQuote(JSON.stringify(v))), text(REDACTED));
      }
      return new Refusal(prefix + typeError(k, v, 'json.Number'));
    } else if ((k === 'sub' || k === 'nonce' || k === 'at_hash') && v !== null && typeof v !== 'string') {
      saved ??= typeError(k, v, 'string');
    } else if (k === '_claim_names' || k === '_claim_sources') {
      saved ??= claimSourcesTypeError(k, v);
    }
  }
  return saved === undefined ? undefined : new Refusal(prefix + saved);
}

/** The token's protected header, undefined when it does not decode to a JSON object (go-jose's ParseSigned fails). */
function protectedHeader(token: string): Record<string, unknown> | undefined {
  const head = token.slice(0, token.indexOf('.'));
  if (!/^[A-Za-z0-9_-]*$/.test(head)) return undefined;
  try {
    const h: unknown = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    return h !== null && typeof h === 'object' && !Array.isArray(h) ? (h as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** go-oidc's refusal when no key verifies the signature (a key fetch failing has its own). */
const BAD_SIGNATURE = 'failed to verify signature: failed to verify id token signature';

/** Whether a key of `keys` verifies the token's signature (by `kid` when it names one). */
async function verifiesWith(token: string, keys: ReturnType<typeof createLocalJWKSet>): Promise<boolean> {
  try {
    await compactVerify(token, keys, { algorithms: validSigningAlgorithms });
    return true;
  } catch {
    return false;
  }
}

/** One `jwt[]` entry. */
export class JwtAuthenticator implements TokenAuthenticator {
  private keys: ReturnType<typeof createLocalJWKSet> | undefined;
  private jwksUri: string | undefined;
  private lastRefresh = 0;
  /** The key-set fetch in flight, shared by every request that meets an unknown key meanwhile. */
  private refreshing: Promise<void> | undefined;
  private initialising: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly now: () => number;
  /** kube resolves the groups claim from distributed claims only when groups are mapped by claim. */
  private readonly resolver: ClaimResolver | undefined;

  constructor(
    readonly config: JWTAuthenticatorConfig,
    private readonly opts: JwtAuthenticatorOptions = {},
  ) {
    this.now = opts.now ?? (() => Date.now() / 1000);
    const groupsClaim = config.claimMappings.groups.claim;
    if (groupsClaim !== '') {
      this.resolver = new ClaimResolver(groupsClaim, {
        issuer: config.issuer.url,
        own: this,
        verifierFor: (iss) => this.otherIssuer(iss),
        ca: config.issuer.certificateAuthority || undefined,
        ...(opts.claimFetch ?? {}),
      });
    }
  }

  /**
   * A verifier of another issuer named by a distributed claims endpoint's answer: its own discovery
   * at `<iss>/.well-known/openid-configuration` (no discoveryURL), this one's CA and audiences.
   */
  private otherIssuer(iss: string): IdTokenVerifier {
    const { certificateAuthority, audiences, audienceMatchPolicy } = this.config.issuer;
    const none = { claim: '', expression: '' };
    const verifier = new JwtAuthenticator(
      {
        issuer: { url: iss, certificateAuthority, audiences, audienceMatchPolicy },
        claimValidationRules: [],
        claimMappings: { username: none, groups: none, uid: none, extra: [] },
        userValidationRules: [],
      },
      {
        ...this.opts,
        onFailure: undefined,
        // Logged under the configured issuer: the other one is named only by an endpoint's answer.
        onInitError: (_, error) => this.opts.onInitError?.(this.issuer, `distributed claims verifier for ${REDACTED}: ${iss ? error.split(iss).join(REDACTED) : error}`),
      },
    );
    void verifier.start();
    return verifier;
  }

  get issuer(): string {
    return this.config.issuer.url;
  }

  /** Starts fetching the keys; resolves once they are loaded (retrying until then). */
  start(): Promise<void> {
    if (!this.initialising) {
      this.initialising = new Promise<void>((resolve) => {
        const attempt = (): void => {
          if (this.closed) return resolve();
          this.loadKeys().then(resolve, (e: unknown) => {
            this.opts.onInitError?.(this.issuer, (e as Error).message);
            if (!this.closed) this.retryTimer = setTimeout(attempt, this.opts.retryMs ?? 10_000).unref();
          });
        };
        attempt();
      });
    }
    return this.initialising;
  }

  /** Stops retrying (a reload replaced this authenticator, or the server stops). */
  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.resolver?.close();
  }

  private async loadKeys(): Promise<void> {
    const ca = this.config.issuer.certificateAuthority || undefined;
    if (!this.jwksUri) {
      const discovery = this.config.issuer.discoveryURL || `${this.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const doc = (await getJson(discovery, ca)) as { issuer?: unknown; jwks_uri?: unknown } | null;
      if (!doc || typeof doc !== 'object') throw new Error(`oidc: failed to decode provider discovery object`);
      if (doc.issuer !== this.issuer) {
        throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.issuer)} got ${JSON.stringify(doc.issuer)}`);
      }
      if (typeof doc.jwks_uri !== 'string' || doc.jwks_uri === '') throw new Error('oidc: provider discovery document has no jwks_uri');
      this.jwksUri = doc.jwks_uri;
    }
    const jwks = (await getJson(this.jwksUri, ca)) as JSONWebKeySet;
    this.keys = createLocalJWKSet(jwks);
    this.lastRefresh = Date.now();
  }

  async authenticateToken(token: string): Promise<UserInfo | null> {
    const u = unverified(token);
    return u?.iss === this.issuer ? this.authenticateIssued(token, u.claims) : null;
  }

  /**
   * A token whose unverified issuer is this one's (`claims` its payload): the user, or a 401 whose
   * reason (kube's message) a TokenReview reports in status.error.
   */
  async authenticateIssued(token: string, claims: Record<string, unknown>): Promise<UserInfo> {
    try {
      return await this.verify(token, claims);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      this.opts.onFailure?.(this.issuer, e.logged);
      throw authenticationFailure(e.message);
    }
  }

  /**
   * go-oidc's remote key set: a signature no key held verifies (an unknown `kid`, or a key the
   * issuer replaced) fetches the set again, one fetch shared by every request that asks meanwhile,
   * then tries the keys as they now are. go-oidc fetches again each time unless the JWKS response's
   * caching headers say otherwise; we fetch at most once every 10 s, even when a fetch fails.
   */
  private async verifySignature(token: string, keys: ReturnType<typeof createLocalJWKSet>): Promise<void> {
    if (await verifiesWith(token, keys)) return;
    if (!this.refreshing && Date.now() - this.lastRefresh <= 10_000) throw new Refusal(BAD_SIGNATURE);
    if (!this.refreshing) {
      this.lastRefresh = Date.now();
      this.refreshing = this.loadKeys().finally(() => (this.refreshing = undefined));
    }
    try {
      await this.refreshing;
    } catch (le) {
      throw new Refusal(`failed to verify signature: fetching keys ${(le as Error).message}`);
    }
    if (!this.keys || !(await verifiesWith(token, this.keys))) throw new Refusal(BAD_SIGNATURE);
  }

  /** Whether the issuer's keys are in (before that, every token for it is refused). */
  get initialized(): boolean {
    return this.keys !== undefined;
  }

  /**
   * go-oidc's IDTokenVerifier.Verify and kube's audience check, in their order, for a token of this
   * issuer or an answer of a distributed claims endpoint; Refusals in go-oidc's wording, unprefixed.
   */
  async verifyIdToken(token: string, claims: Record<string, unknown>): Promise<void> {
    const keys = this.keys;
    if (!keys) throw new Refusal('oidc: authenticator not initialized');
    const header = protectedHeader(token);
    if (!header) throw new Refusal('oidc: malformed jwt: the protected header is not base64url-encoded JSON');
    const typeRefusal = claimTypesRefusal(claims) ?? claimSourcesRefusal(claims);
    if (typeRefusal) throw typeRefusal;
    // go-oidc's audience type (the types are checked above): null is one empty audience, as is a null in the list.
    const aud = claims.aud === null ? [''] : Array.isArray(claims.aud) ? claims.aud.map((a: unknown) => (typeof a === 'string' ? a : '')) : audienceClaim(claims);
    const audiences = [...new Set(this.config.issuer.audiences)];
    // One audience: go-oidc's ClientID check, before the times. Several: kube's own, after the signature.
    const clientId = audiences.length === 1 ? (audiences[0] as string) : undefined;
    if (clientId !== undefined && !aud.includes(clientId)) {
      const text = (got: string): string => `oidc: expected audience ${goQuote(clientId)} got ${got}`;
      throw new Refusal(text(goQuoteList(aud)), text(REDACTED));
    }
    const now = this.now();
    const exp = jsonTimeSeconds(claims.exp) ?? ZERO_TIME_S;
    if (exp < now) {
      const text = (expiry: string): string => `oidc: token is expired (Token Expiry: ${expiry})`;
      throw new Refusal(text(goUnixTime(exp)), text(REDACTED));
    }
    const nbf = jsonTimeSeconds(claims.nbf);
    if (nbf !== undefined && now + NBF_LEEWAY_S < nbf) {
      const text = (notBefore: string): string => `oidc: current time ${goUnixTime(now)} before the nbf (not before) time: ${notBefore}`;
      throw new Refusal(text(goUnixTime(nbf)), text(REDACTED));
    }
    const alg = typeof header.alg === 'string' ? header.alg : '';
    if (!validSigningAlgorithms.includes(alg)) {
      const text = (got: string): string => `oidc: id token signed with unsupported algorithm, expected ${goQuoteList(validSigningAlgorithms)} got ${got}`;
      throw new Refusal(text(goQuote(alg)), text(REDACTED));
    }
    await this.verifySignature(token, keys);
    if (clientId === undefined && !aud.some((a) => audiences.includes(a))) {
      const text = (got: string): string => `oidc: expected audience in ${goQuoteList(audiences.sort(compareGoStrings))} got ${got}`;
      throw new Refusal(text(goQuoteList(aud)), text(REDACTED));
    }
  }

  private async verify(token: string, verified: Record<string, unknown>): Promise<UserInfo> {
    if (!this.keys) throw new Refusal('oidc: authenticator not initialized');
    try {
      await this.verifyIdToken(token, verified);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      throw new Refusal(`oidc: verify token: ${e.message}`, `oidc: verify token: ${e.logged}`);
    }
    // A resolved distributed claim goes into a copy: the token's own claims stay as they were.
    const claims = this.resolver ? { ...verified } : verified;
    await this.resolver?.expand(claims);

    // The claims as CEL sees them, converted once for every expression (and only if one runs).
    let converted: CelInput | undefined;
    const input = (): CelInput => (converted ??= celInput(claims));
    const m = this.config.claimMappings;
    const name = this.username(claims, m.username, input);
    const user: UserInfo = { name, uid: '', groups: this.groups(claims, m.groups, input) };
    if (m.uid.claim !== '') user.uid = claimString(claims, m.uid.claim, 'uid claim');
    else if (m.uid.compiled) {
      const v = evaluate('uid claim expression', () => m.uid.compiled!.evaluate(input()));
      if (typeof v !== 'string') throw new Refusal('oidc: error evaluating uid claim expression: uid claim expression must return a string');
      user.uid = v;
    }
    const extra: Record<string, string[]> = {};
    if (typeof claims.jti === 'string') extra[CREDENTIAL_ID_KEY] = [`JTI=${claims.jti}`];
    for (const x of m.extra) {
      if (!x.compiled) continue;
      const v = evaluate('extra claim expression', () => x.compiled!.evaluate(input()));
      let values: string[];
      try {
        values = stringList(v);
      } catch (e) {
        throw new Refusal(`oidc: error evaluating extra claim expression: ${x.valueExpression}: ${(e as Error).message}`);
      }
      if (values.length) extra[x.key] = values;
    }
    if (Object.keys(extra).length) user.extra = extra;

    for (const rule of this.config.claimValidationRules) {
      if (rule.claim === '') continue;
      if (!(rule.claim in claims)) throw new Refusal(`oidc: required claim ${rule.claim} not present in ID token`);
      const v = claims[rule.claim];
      if (v !== null && typeof v !== 'string') throw new Refusal(`oidc: parse claim ${rule.claim}: json: cannot unmarshal ${goType(v)} into Go value of type string`);
      if ((v ?? '') !== rule.requiredValue) {
        const text = (got: string): string => `oidc: required claim ${rule.claim} value does not match. Got = ${got}, want = ${rule.requiredValue}`;
        throw new Refusal(text(String(v ?? '')), text(REDACTED));
      }
    }
    for (const rule of this.config.claimValidationRules) {
      if (!rule.compiled) continue;
      const v = evaluate('claim validation expression', () => rule.compiled!.evaluate(input()));
      if (typeof v !== 'boolean') throw new Refusal('oidc: error evaluating claim validation expression: validation expression must return a boolean');
      if (!v) throw new Refusal(`oidc: error evaluating claim validation expression: validation expression '${rule.expression}' failed: ${rule.message}`);
    }
    if (this.config.userValidationRules.length) {
      // kube converts authentication/v1 UserInfo to unstructured: its omitempty fields are absent when empty.
      const userValue = celInput({
        ...(user.name ? { username: user.name } : {}),
        ...(user.uid ? { uid: user.uid } : {}),
        ...(user.groups.length ? { groups: user.groups } : {}),
        ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
      });
      for (const rule of this.config.userValidationRules) {
        if (!rule.compiled) continue;
        const v = evaluate('user info validation rule', () => rule.compiled!.evaluate(userValue));
        if (typeof v !== 'boolean') throw new Refusal('oidc: error evaluating user info validation rule: validation expression must return a boolean');
        if (!v) throw new Refusal(`oidc: error evaluating user info validation rule: validation expression '${rule.expression}' failed: ${rule.message}`);
      }
    }
    return user;
  }

  private username(claims: Record<string, unknown>, u: PrefixedClaimOrExpression, input: () => CelInput): string {
    if (u.compiled) {
      const v = evaluate('username claim expression', () => u.compiled!.evaluate(input()));
      if (typeof v !== 'string') throw new Refusal('oidc: error evaluating username claim expression: username claim expression must return a string');
      if (v === '') throw new Refusal('oidc: empty username via CEL expression is not allowed');
      return v;
    }
    const name = claimString(claims, u.claim, 'username claims');
    if (u.claim === 'email' && 'email_verified' in claims) {
      const verified = claims.email_verified;
      if (verified !== null && typeof verified !== 'boolean') {
        throw new Refusal(`oidc: parse 'email_verified' claim: json: cannot unmarshal ${goType(verified)} into Go value of type bool`);
      }
      if (verified !== true) throw new Refusal('oidc: email not verified');
    }
    return u.prefix ? u.prefix + name : name;
  }

  private groups(claims: Record<string, unknown>, g: PrefixedClaimOrExpression, input: () => CelInput): string[] {
    if (g.claim !== '' && g.claim in claims) {
      const v = claims[g.claim];
      let groups: string[];
      if (v === null) groups = [];
      else if (typeof v === 'string') groups = [v];
      else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) groups = v as string[];
      else throw new Refusal(`oidc: parse groups claim ${JSON.stringify(g.claim)}: json: cannot unmarshal ${goType(v)} into Go value of type string`);
      return g.prefix ? groups.map((x) => g.prefix + x) : [...groups];
    }
    if (!g.compiled) return [];
    const v = evaluate('group claim expression', () => g.compiled!.evaluate(input()));
    try {
      return stringList(v);
    } catch (e) {
      throw new Refusal(`oidc: error evaluating group claim expression: ${(e as Error).message}`);
    }
  }
}

/**
 * The configuration's JWT authenticators as one token authenticator, in order; `replace` swaps in
 * a reloaded set (the old ones stop fetching keys).
 */
export class JwtAuthenticators implements TokenAuthenticator {
  private list: JwtAuthenticator[] = [];
  /** The authenticator of each issuer (validation makes the issuers distinct), built with the list. */
  private byIssuer = new Map<string, JwtAuthenticator>();

  constructor(configs: readonly JWTAuthenticatorConfig[], private readonly opts: JwtAuthenticatorOptions = {}) {
    this.use(configs.map((c) => new JwtAuthenticator(c, opts)));
  }

  private use(list: JwtAuthenticator[]): void {
    this.list = list;
    this.byIssuer = new Map(list.map((a) => [a.issuer, a]));
  }

  get authenticators(): readonly JwtAuthenticator[] {
    return this.list;
  }

  /** Starts every authenticator's key fetch; resolves when all have their keys. */
  async start(): Promise<void> {
    await Promise.all(this.list.map((a) => a.start()));
  }

  /**
   * Swaps in a new configuration's authenticators once their keys have loaded (kube waits too);
   * false, and the set in force kept, when they have not within `timeoutMs`.
   */
  async replace(configs: readonly JWTAuthenticatorConfig[], timeoutMs: number): Promise<boolean> {
    const next = configs.map((c) => new JwtAuthenticator(c, this.opts));
    let timer: NodeJS.Timeout | undefined;
    const loaded = await Promise.race([
      Promise.all(next.map((a) => a.start())).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs).unref())),
    ]);
    if (timer) clearTimeout(timer);
    if (!loaded) {
      for (const a of next) a.close();
      return false;
    }
    const old = this.list;
    this.use(next);
    for (const a of old) a.close();
    return true;
  }

  close(): void {
    for (const a of this.list) a.close();
  }

  /** The token's unverified claims are read once; only the authenticator of their issuer is asked. */
  async authenticateToken(token: string): Promise<UserInfo | null> {
    const u = unverified(token);
    const a = u && this.byIssuer.get(u.iss);
    return a ? a.authenticateIssued(token, u.claims) : null;
  }
}
