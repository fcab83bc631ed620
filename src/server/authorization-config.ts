/**
 * The authorization chain (kube's pkg/kubeapiserver/authorizer Config.New and its reloadable
 * resolver): from `--authorization-config` or, without it, from the mode flags turned into the
 * same configuration (kube's buildAuthorizationConfiguration: a Webhook mode is the webhook
 * `default` with a 30 s timeout and failure policy NoOpinion). The chain always starts with kube's
 * system:masters authorizer, then the configured authorizers in order (auth/authz/union.ts).
 *
 * A configuration file is watched (server/config-file-watch.ts): changed text that loads, passes
 * validation and differs from the configuration in force is built into a new chain, which then
 * replaces the old one for the requests that follow; text that does not load, or a chain that
 * cannot be built (a webhook kubeconfig that fails), is logged and the chain in force stays. As in
 * kube, RBAC is built once, and only when the first configuration has it: a reload that adds it is
 * refused, as is one that leaves out a type other than Webhook the server started with.
 */
import { readFileSync } from 'node:fs';
import type winston from 'winston';
import type { Authorizer, Decision, RulesResult } from '../api';
import { SYSTEM_MASTERS } from '../auth/authn/types';
import { alwaysAllow, alwaysDeny, privilegedGroups } from '../auth/authz/authorizer';
import { unionAuthorizer } from '../auth/authz/union';
import { WebhookAuthorizer, type RetryBackoff } from '../auth/authz/webhook';
import { loadAuthorizationConfig, type AuthorizationConfiguration } from '../config/kinds/authorization';
import { loadKubeconfig } from '../config/kinds/kubeconfig';
import type { ServerConfig } from '../config/server-config';
import type { AuthorizerEnv } from './app';
import { watchConfigFile } from './config-file-watch';
import { rbacPlaceholder } from './rbac-authorization';

export type AuthorizationSettings = Pick<
  ServerConfig,
  | 'authorizationModes' | 'authorizationConfig' | 'authorizationWebhookConfigFile' | 'authorizationWebhookVersion'
  | 'authorizationWebhookCacheAuthorizedTtlMs' | 'authorizationWebhookCacheUnauthorizedTtlMs'
>;

export interface AuthorizerDeps {
  /**
   * Makes the RBAC authorizer; called once, when the configuration has RBAC. Default: the server's
   * own, filled in when the chain is handed to it (`BuiltAuthorizer.forServer`).
   */
  rbac?: () => Authorizer;
  logger?: winston.Logger;
  /** How often the configuration file is looked at (default 1 s). */
  pollMs?: number;
  /** Told of every reload attempt of a changed file (tests wait on it). */
  onReload?: (result: { ok: true } | { ok: false; error: string }) => void;
  /** The webhooks' retry backoff (default kube's). */
  retryBackoff?: RetryBackoff;
}

/** The chain in force, delegating to the latest configuration's; close() stops the file watch. */
export interface BuiltAuthorizer extends Authorizer {
  rulesFor(user: Parameters<NonNullable<Authorizer['rulesFor']>>[0], namespace: string): Promise<RulesResult>;
  /**
   * ApiServerOptions.authorizer: the chain is built (and its file checked) before the server exists;
   * RBAC's place in it takes the server's RBAC authorizer (env.rbac()) when the server is made.
   */
  forServer(env: AuthorizerEnv): Authorizer;
  close(): void;
}

/** kube's webhook timeout when the mode flags configure it, and the most a configuration may give. */
const FLAG_WEBHOOK_TIMEOUT_MS = 30_000;
const MAX_WEBHOOK_TIMEOUT_MS = 30_000;


/** kube's buildAuthorizationConfiguration: the mode flags as a configuration. */
function configurationFromFlags(c: AuthorizationSettings): AuthorizationConfiguration {
  return {
    authorizers: c.authorizationModes.map((mode) =>
      mode === 'Webhook'
        ? {
            type: 'Webhook',
            name: 'default',
            webhook: {
              authorizedTTLMs: c.authorizationWebhookCacheAuthorizedTtlMs,
              unauthorizedTTLMs: c.authorizationWebhookCacheUnauthorizedTtlMs,
              timeoutMs: FLAG_WEBHOOK_TIMEOUT_MS,
              failurePolicy: 'NoOpinion',
              subjectAccessReviewVersion: c.authorizationWebhookVersion,
              matchConditionSubjectAccessReviewVersion: '',
              connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: c.authorizationWebhookConfigFile ?? '' },
              matchConditions: [],
            },
          }
        : { type: mode, name: mode.toLowerCase() },
    ),
  };
}

interface Chain {
  authorizer: Authorizer;
  webhooks: WebhookAuthorizer[];
}

/** A configuration without its compiled expressions (what "the same configuration" compares). */
const comparable = (c: AuthorizationConfiguration): string => JSON.stringify(c, (k, v: unknown) => (k === 'compiled' ? undefined : v));

/**
 * Builds the chain; throws Error with kube's message for a configuration file or webhook
 * kubeconfig that cannot be used (a start fails on it).
 */
export function buildAuthorizer(settings: AuthorizationSettings, deps: AuthorizerDeps): BuiltAuthorizer {
  const logger = deps.logger;
  const file = settings.authorizationConfig;
  // The file is read once: the watch below starts from the very text the chain was built from.
  let initialData: Buffer | undefined;
  if (file !== undefined) {
    try {
      initialData = readFileSync(file);
    } catch {
      // The load reports it, in Go's words.
    }
  }
  const initial =
    file === undefined
      ? configurationFromFlags(settings)
      : loadAuthorizationConfig(initialData === undefined ? { path: file } : { text: initialData, path: file });
  if (initial.authorizers.length === 0) throw new Error('at least one authorization mode must be passed');
  const serverRbac = rbacPlaceholder();
  const rbac = initial.authorizers.some((a) => a.type === 'RBAC') ? (deps.rbac ?? (() => serverRbac))() : undefined;
  // kube: a reload must keep every non-webhook type the server started with.
  const requiredTypes = new Set(initial.authorizers.map((a) => a.type).filter((t) => t !== 'Webhook'));

  const build = (config: AuthorizationConfiguration): Chain => {
    const members: Authorizer[] = [privilegedGroups(SYSTEM_MASTERS)];
    const webhooks: WebhookAuthorizer[] = [];
    try {
      for (const a of config.authorizers) {
        switch (a.type) {
          case 'AlwaysAllow':
            members.push(alwaysAllow);
            break;
          case 'AlwaysDeny':
            members.push(alwaysDeny);
            break;
          case 'RBAC':
            if (!rbac) throw new Error('authorizer type RBAC is not allowed if it was not enabled at initial server startup');
            members.push(rbac);
            break;
          case 'Webhook': {
            const w = a.webhook!;
            const client = loadKubeconfig(w.connectionInfo.kubeConfigFile ?? '');
            const webhook = new WebhookAuthorizer({
              name: a.name,
              client,
              version: w.subjectAccessReviewVersion === 'v1' ? 'v1' : 'v1beta1',
              timeoutMs: w.timeoutMs,
              authorizedTtlMs: w.authorizedTTLMs,
              unauthorizedTtlMs: w.unauthorizedTTLMs,
              failurePolicy: w.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion',
              matchConditions: w.matchConditions.flatMap((m) => (m.compiled ? [m.compiled] : [])),
              ...(deps.retryBackoff ? { retryBackoff: deps.retryBackoff } : {}),
              onError: (message) => logger?.error(message, { authorizer: a.name }),
            });
            webhooks.push(webhook);
            members.push(webhook);
            break;
          }
          default:
            throw new Error(`unknown authorization mode ${a.type} specified`);
        }
      }
    } catch (e) {
      for (const w of webhooks) w.close();
      throw e;
    }
    return { authorizer: unionAuthorizer(...members), webhooks };
  };

  let current = build(initial);
  const retired = new Set<WebhookAuthorizer>();
  let stopWatching: (() => void) | undefined;
  if (file !== undefined) {
    let lastText = initialData?.toString('utf8');
    let lastConfig = comparable(initial);
    const fail = (error: string): void => {
      logger?.error('reloading authorization config', { path: file, error });
      deps.onReload?.({ ok: false, error });
    };
    stopWatching = watchConfigFile(file, {
      pollMs: deps.pollMs,
      onText: (text) => {
        if (text === lastText) return;
        lastText = text;
        let chain: Chain;
        try {
          const next = loadAuthorizationConfig({ text, path: file }, requiredTypes);
          const nextComparable = comparable(next);
          if (nextComparable === lastConfig) return;
          lastConfig = nextComparable;
          chain = build(next);
        } catch (e) {
          fail(e instanceof Error ? e.message : String(e));
          return;
        }
        const old = current;
        current = chain;
        // Requests already asking the old webhooks finish within their timeouts (30 s at most).
        for (const w of old.webhooks) retired.add(w);
        setTimeout(() => {
          for (const w of old.webhooks) {
            w.close();
            retired.delete(w);
          }
        }, MAX_WEBHOOK_TIMEOUT_MS + 1000).unref();
        logger?.info('reloaded authz config', { path: file });
        deps.onReload?.({ ok: true });
      },
      onError: (e) => fail(e instanceof Error ? e.message : String(e)),
    });
  }

  return {
    authorize: (attrs): Promise<Decision> => current.authorizer.authorize(attrs),
    rulesFor: (user, namespace) => current.authorizer.rulesFor!(user, namespace),
    forServer(env) {
      serverRbac.fill(env.rbac());
      return this;
    },
    close: () => {
      stopWatching?.();
      for (const w of [...current.webhooks, ...retired]) w.close();
      retired.clear();
    },
  };
}
