/**
 * The request authenticator every composition (main.ts, the test server, the bench's server)
 * builds, in kube's order: a client certificate first (when a client CA is configured), then the
 * bearer token through each token source in turn (static and file tokens, service-account tokens,
 * the configuration's JWT issuers), then any further authenticators an embedder adds. Every user
 * found carries system:authenticated. A token that authenticated is trusted for 10 s, as kube's
 * token cache does.
 */
import type { X509Certificate } from 'node:crypto';
import {
  Authenticator,
  TokenAuthenticator,
  audienceAgnostic,
  bearerTokenAuthenticator,
  cachedTokenAuthenticator,
  firstTokenSource,
  unionAuthenticator,
  withAuthenticatedGroup,
  x509Authenticator,
} from '../auth';

export interface AuthenticationChainParts {
  /**
   * --client-ca-file's roots (or a function answering the roots in force, for a reloaded file);
   * `onFailure` hears why a presented certificate was refused.
   */
  clientCa?: { roots: readonly X509Certificate[] | (() => readonly X509Certificate[]); onFailure?: (message: string) => void };
  /** Bearer-token sources, asked in this order. */
  tokens: TokenAuthenticator[];
  /**
   * --api-audiences: the audiences of sources that know nothing of audiences (static and file
   * tokens, JWT issuers: kube's WrapAudienceAgnosticToken); default none.
   */
  apiAudiences?: readonly string[];
  /** Asked after the bearer tokens (an embedder's or a test's own authenticators). */
  others?: Authenticator[];
  /** How long a token that authenticated is trusted without verifying it again (default kube's 10 s; 0: always verify). */
  tokenSuccessCacheTtlMs?: number;
}

export function authenticationChain(parts: AuthenticationChainParts): Authenticator {
  return withAuthenticatedGroup(
    unionAuthenticator(
      ...(parts.clientCa ? [x509Authenticator({ roots: parts.clientCa.roots, onFailure: parts.clientCa.onFailure })] : []),
      // kube caches the union's successes (TokenSuccessCacheTTL), not each source's.
      bearerTokenAuthenticator([
        cachedTokenAuthenticator(firstTokenSource(parts.tokens.map((t) => (t.audienceAware ? t : audienceAgnostic(t, parts.apiAudiences ?? [])))), {
          successTtlMs: parts.tokenSuccessCacheTtlMs,
        }),
      ]),
      ...(parts.others ?? []),
    ),
  );
}
