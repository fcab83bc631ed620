/**
 * `--authentication-config` put to work (kube's BuiltInAuthenticationOptions.ToAuthenticationConfig
 * and ApplyTo): the file is loaded at start (config/kinds/authentication.ts; an error names the
 * file and field and stops the start), its `jwt[]` become token authenticators
 * (auth/authn/jwt.ts) placed after the static tokens, and its `anonymous` section decides what
 * the anonymous authenticator lets in. `anonymous` together with `--anonymous-auth` is kube's
 * startup error. The file is then watched: a changed file that loads and validates replaces the
 * JWT authenticators once their keys are fetched (within a minute); one that does not is logged
 * and the configuration in force stays, as is a change to `anonymous` (kube refuses that too).
 */
import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type winston from 'winston';
import { fieldErrorString, fieldErrors } from '../api';
import type { AuthenticationConfiguration } from '../api/authentication-config';
import type { AnonymousOptions } from '../auth/authn/anonymous';
import { JwtAuthenticators } from '../auth/authn/jwt';
import { authenticationConfigKindFor } from '../config/kinds/authentication';
import { loadConfig } from '../config/versioned-config';
import { watchConfigFile } from './config-file-watch';

export interface LoadedAuthenticationConfig {
  /** The JWT authenticators, in the file's order (a TokenAuthenticator). */
  jwt: JwtAuthenticators;
  /** ApiServerOptions.anonymous from the file; undefined when the file has no `anonymous`. */
  anonymous: AnonymousOptions | false | undefined;
  /** Resolves when every issuer's keys have loaded (tests wait on it; serving does not). */
  ready: Promise<void>;
  /** Stops the file watch and key fetches. */
  close(): void;
}

export interface AuthenticationConfigOptions {
  /** `--service-account-issuer` values: a JWT issuer may not be one of them (kube's disallowedIssuers). */
  serviceAccountIssuers?: readonly string[];
  /** Gate AnonymousAuthConfigurableEndpoints (default on, as in 1.32): off, an `anonymous` section is refused. */
  anonymousConfigurable?: boolean;
  /** `--anonymous-auth` as given (undefined: not given). */
  anonymousAuthFlag?: boolean;
  logger?: winston.Logger;
  /** How often the file is looked at (default 1 s; kube: file events, else every minute). */
  pollMs?: number;
  /** Retry delay of a failed key fetch (default 10 s). */
  retryMs?: number;
  /** How long a reload waits for the new issuers' keys (default 1 min, kube's UpdateAuthenticationConfigTimeout). */
  reloadTimeoutMs?: number;
}

/** kube's anonymous section → the anonymous authenticator's options. */
function anonymousOptions(a: AuthenticationConfiguration['anonymous']): AnonymousOptions | false | undefined {
  if (!a) return undefined;
  if (!a.enabled) return false;
  if (a.conditions.length === 0) return {};
  const paths = new Set(a.conditions.map((c) => c.path));
  return { allows: (path) => paths.has(path) };
}

/**
 * Loads the file (throwing ConfigFileError or Error with kube's message), builds the
 * authenticators and starts watching the file.
 */
export function loadAuthenticationConfig(path: string, opts: AuthenticationConfigOptions = {}): LoadedAuthenticationConfig {
  const logger = opts.logger;
  // One validation with the server's options: the file's own errors and the issuers the service accounts own together, as kube reports them.
  const kind = authenticationConfigKindFor({ disallowedIssuers: opts.serviceAccountIssuers, anonymousConfigurable: opts.anonymousConfigurable });
  const load = (source: { path: string } | { text: string; path: string }): AuthenticationConfiguration => loadConfig(source, kind);
  const config = load({ path });
  if (config.anonymous && opts.anonymousAuthFlag !== undefined) {
    // kube: field.Forbidden(anonymous, …) returned from ToAuthenticationConfig (kube 1.32 misspells
    // the flag in that message as `--anonynous-auth`; ours names it as it is spelled).
    throw new Error(
      fieldErrorString(fieldErrors.forbidden('anonymous', '--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file')),
    );
  }
  const jwt = new JwtAuthenticators(config.jwt, {
    retryMs: opts.retryMs,
    onFailure: (issuer, reason) => logger?.info('Unable to authenticate the request', { issuer, reason }),
    onInitError: (issuer, error) => logger?.error('oidc authenticator: initializing plugin', { issuer, error }),
  });
  const ready = jwt.start();
  ready.catch(() => undefined);

  let tracked: string | undefined;
  void readFile(path, 'utf8').then(
    (t) => (tracked ??= t),
    () => undefined,
  );
  const apply = async (text: string): Promise<void> => {
    if (text === tracked) return;
    let next: AuthenticationConfiguration;
    try {
      next = load({ text, path });
      if (!isDeepStrictEqual(next.anonymous, config.anonymous)) {
        throw new Error(`invalid authentication configuration in file "${path}": ${fieldErrorString(fieldErrors.forbidden('anonymous', 'changed from initial configuration file'))}`);
      }
    } catch (e) {
      // Anything the load throws (ConfigFileError or another Error) is logged.
      logger?.error('failed to load authentication config', { path, error: e instanceof Error ? e.message : String(e) });
      tracked = text; // never valid: not retried until the file changes again
      return;
    }
    const ok = await jwt.replace(next.jwt, opts.reloadTimeoutMs ?? 60_000);
    if (!ok) {
      logger?.error('failed to update authentication config', { path, error: 'timed out waiting for the issuers\' keys' });
      return;
    }
    tracked = text;
    logger?.info('reloaded authentication config', { path });
  };
  const stopWatching = watchConfigFile(path, {
    pollMs: opts.pollMs,
    onText: apply,
    onError: (e, stage) =>
      stage === 'read'
        ? logger?.error('failed to read authentication config file', { path, error: (e as Error).message })
        : logger?.error('failed to update authentication config', { path, error: String(e) }),
  });
  return {
    jwt,
    anonymous: anonymousOptions(config.anonymous),
    ready,
    close: () => {
      stopWatching();
      jwt.close();
    },
  };
}
