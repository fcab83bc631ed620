/**
 * Starts the real server in-process for an integration test: its own etcd key prefix, HTTPS on a
 * random port, generated certificates and an admin kubeconfig in a temp dir; kubectl and HTTP helpers.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import winston from 'winston';
import { Authenticator, Authorizer, TokenAuthenticator, parseCaBundle, staticTokenAuthenticator } from '../../src/auth';
import { FeatureGates } from '../../src/config/feature-gates';
import { ApiServer, type ApiServerOptions } from '../../src/server/app';
import { buildAuthorizer, type AuthorizationSettings, type AuthorizerDeps, type BuiltAuthorizer } from '../../src/server/authorization-config';
import { loadAuthenticationConfig, type AuthenticationConfigOptions, type LoadedAuthenticationConfig } from '../../src/server/authentication-config';
import { authenticationChain } from '../../src/server/authentication-chain';
import { buildStorageStack } from '../../src/server/storage-stack';
import { ensureServingCertificates } from '../../src/server/certs';
import { writeAdminKubeconfig } from '../../src/server/kubeconfig';
import { loadServiceAccountTokens, type ServiceAccountConfig } from '../../src/server/service-accounts';
import type { CacherOptions, EtcdStore, Storage } from '../../src/storage';
import { ProtobufCodec } from '../../src/storage/codec/protobuf-codec';
import { builtinResources, protobufKindsOf } from '../../src/registry';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = any>(): T;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestServer {
  url: string;
  port: number;
  token: string;
  kubeconfig: string;
  caCert: string;
  dir: string;
  prefix: string;
  server: ApiServer;
  storage: Storage;
  /** The etcd store below the cache (the same as storage with watchCache: false). */
  etcdStore: EtcdStore;
  /** What --authentication-config loaded (TestServerOptions.authenticationConfig). */
  authentication?: LoadedAuthenticationConfig;
  /** The chain TestServerOptions.authorization built. */
  authorization?: BuiltAuthorizer;
  kubectl(args: string[], opts?: { input?: string; env?: Record<string, string> }): Promise<RunResult>;
  request(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string>; token?: string | null }): Promise<HttpResult>;
  /** Stops the server and closes its storage; safe to call twice. */
  stop(): Promise<void>;
}

const silent = winston.createLogger({ silent: true });

export interface TestServerOptions {
  etcdEndpoints: string[];
  prefix?: string;
  /** Serve reads and watches from the watch cache (the default, as --watch-cache=true). */
  watchCache?: boolean;
  cacheOptions?: Pick<CacherOptions, 'historyWindowMs' | 'maxHistoryEvents' | 'bookmarkIntervalMs' | 'onRestart'>;
  /** To restart "the same" server: a fixed port, certificate dir and token keep an old kubeconfig valid. */
  port?: number;
  certDir?: string;
  token?: string;
  /** The watch back-pressure bound (default 1 MiB). */
  watchBufferBytes?: number;
  /** The server-wide budget of unsent watch bytes (default 256 MiB) and the stuck HTTP/2 session delay (default 5 s). */
  watchBudgetBytes?: number;
  watchStuckSessionMs?: number;
  /** --event-ttl in seconds (default 3600). */
  eventTtlSeconds?: number;
  /** --feature-gates, e.g. { AllowUnsafeMalformedObjectDeletion: true }. */
  featureGates?: Record<string, boolean>;
  /** The authorization slot (default AlwaysAllow). */
  authorizer?: Authorizer;
  /**
   * The authorization flags, as main.ts builds the chain from them (e.g. { authorizationModes: ['RBAC'] }
   * or { authorizationConfig: file }): replaces `authorizer`; the chain is `TestServer.authorization`.
   */
  authorization?: Partial<AuthorizationSettings> & Pick<AuthorizerDeps, 'onReload' | 'pollMs' | 'retryBackoff'>;
  /** Reconcile kube's bootstrap RBAC policy at start, awaited (default: when `authorization` is given). */
  rbacBootstrap?: boolean;
  /** The RBAC escalation checks of role and binding writes (ApiServerOptions.rbacEscalation; default: the server's RBAC checks). */
  rbacEscalation?: ApiServerOptions['rbacEscalation'];
  /** The anonymous authenticator's conditions (default: health checks and /version; false: none). */
  anonymous?: ApiServerOptions['anonymous'];
  /** Time for a request (body included) to arrive (default 60 s). */
  requestReadTimeoutMs?: number;
  /** --request-timeout: the deadline of non-long-running requests (default 60 s). */
  requestTimeoutMs?: number;
  /** Time for a request's headers to arrive (Go's ReadHeaderTimeout; default the server's own). */
  readHeaderTimeoutMs?: number;
  /** --runtime-config pairs, e.g. { 'v1/configmaps': 'false' }. */
  runtimeConfig?: Record<string, string>;
  /** Authenticators asked after the test's bearer token (the union's later members). */
  authenticators?: Authenticator[];
  /** Admission plugins to enable, disable or add (ApiServerOptions.admission). */
  admission?: ApiServerOptions['admission'];
  /**
   * A client CA bundle (PEM, as --client-ca-file): the listener asks for client certificates and the
   * x509 authenticator comes first in the union, as in kube (failures reported to onX509Failure).
   */
  clientCA?: string;
  onX509Failure?: (message: string) => void;
  /**
   * An AuthenticationConfiguration file, as --authentication-config: its JWT authenticators come
   * after the test's bearer token, its `anonymous` section replaces `anonymous` above. A file that
   * does not load fails startTestServer with the flag's error.
   */
  authenticationConfig?: { path: string } & AuthenticationConfigOptions;
  /**
   * Service-account tokens, as main.ts wires the --service-account-* flags and --api-audiences
   * (the signing key generated in the server's cert dir unless given): serviceaccounts/token issues
   * tokens and their authenticator comes after the test's bearer token, before the JWT issuers.
   */
  serviceAccounts?: Partial<Omit<ServiceAccountConfig, 'certDir'>>;
  /** How long a token that authenticated is trusted without verifying it again (default kube's 10 s; 0: always verify). */
  tokenSuccessCacheTtlMs?: number;
  /** The server's logger (default: silent); at level `http` it gets the request lines (-v=2). */
  logger?: winston.Logger;
}

export async function startTestServer(opts: TestServerOptions): Promise<TestServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'papi-test-'));
  const prefix = opts.prefix ?? `/registry-${randomBytes(4).toString('hex')}`;
  const certs = await ensureServingCertificates({ certDir: opts.certDir ?? path.join(dir, 'pki'), hosts: [] });
  const token = opts.token ?? randomBytes(16).toString('hex');
  const featureGates = opts.featureGates ? FeatureGates.fromFlags(new Map(Object.entries(opts.featureGates))) : FeatureGates.defaults();
  // As main.ts: the built-in kinds' protobuf forms are known before the watch cache reads etcd.
  const protobuf = await ProtobufCodec.load(undefined, builtinResources.flatMap(protobufKindsOf));
  const { etcdStore, storage } = buildStorageStack({
    endpoints: opts.etcdEndpoints,
    prefix,
    protobuf,
    featureGates,
    watchCache: opts.watchCache,
    cacheOptions: opts.cacheOptions,
  });
  let serviceAccounts: Awaited<ReturnType<typeof loadServiceAccountTokens>> | undefined;
  let authentication: LoadedAuthenticationConfig | undefined;
  let authorization: BuiltAuthorizer | undefined;
  try {
    if (opts.serviceAccounts) {
      serviceAccounts = await loadServiceAccountTokens({
        serviceAccountIssuers: [],
        serviceAccountKeyFiles: [],
        apiAudiences: [],
        serviceAccountMaxTokenExpirationSeconds: 0,
        ...opts.serviceAccounts,
        certDir: opts.certDir ?? path.join(dir, 'pki'),
      });
    }
    if (opts.authorization) {
      const { onReload, pollMs, retryBackoff, ...flags } = opts.authorization;
      const settings: AuthorizationSettings = {
        authorizationModes: flags.authorizationConfig ? [] : ['AlwaysAllow'],
        authorizationWebhookVersion: 'v1beta1',
        authorizationWebhookCacheAuthorizedTtlMs: 300_000,
        authorizationWebhookCacheUnauthorizedTtlMs: 30_000,
        ...flags,
      };
      authorization = buildAuthorizer(settings, { logger: silent, onReload, pollMs, retryBackoff });
    }
    // As main.ts: a JWT issuer may not be one of the service-account issuers.
    if (opts.authenticationConfig) {
      authentication = loadAuthenticationConfig(opts.authenticationConfig.path, { serviceAccountIssuers: serviceAccounts?.issuers, ...opts.authenticationConfig });
    }
  } catch (e) {
    authorization?.close();
    await storage.close();
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  let server: ApiServer | undefined;
  try {
    server = await ApiServer.create({
      storage,
      protobuf,
      etcdPrefix: prefix,
      // As main.ts: the test's admin token, service-account tokens, then the JWT issuers.
      authenticator: authenticationChain({
        clientCa: opts.clientCA ? { roots: parseCaBundle(opts.clientCA, 'client-ca-bundle'), onFailure: opts.onX509Failure } : undefined,
        tokens: [
          staticTokenAuthenticator(new Map([[token, { name: 'admin', uid: 'admin', groups: ['system:masters'] }]])),
          ...(serviceAccounts ? [serviceAccounts.authenticator(async (r, ns, n) => server?.getObject(r, ns, n))] : []),
          ...(authentication ? [authentication.jwt] : []),
        ] satisfies TokenAuthenticator[],
        others: opts.authenticators,
        apiAudiences: serviceAccounts?.apiAudiences,
        tokenSuccessCacheTtlMs: opts.tokenSuccessCacheTtlMs,
      }),
      tls: opts.clientCA ? { ...certs, clientCA: opts.clientCA } : certs,
      logger: opts.logger ?? silent,
      bindAddress: '127.0.0.1',
      securePort: opts.port ?? 0,
      watchBufferBytes: opts.watchBufferBytes,
      watchBudgetBytes: opts.watchBudgetBytes,
      watchStuckSessionMs: opts.watchStuckSessionMs,
      eventTtlSeconds: opts.eventTtlSeconds,
      featureGates,
      authorizer: authorization ? (env) => authorization!.forServer(env) : opts.authorizer,
      rbacEscalation: opts.rbacEscalation,
      rbacBootstrap: opts.rbacBootstrap ?? opts.authorization !== undefined,
      anonymous: authentication?.anonymous ?? opts.anonymous,
      requestReadTimeoutMs: opts.requestReadTimeoutMs,
      requestTimeoutMs: opts.requestTimeoutMs,
      readHeaderTimeoutMs: opts.readHeaderTimeoutMs,
      runtimeConfig: opts.runtimeConfig && new Map(Object.entries(opts.runtimeConfig)),
      admission: opts.admission,
      apiAudiences: serviceAccounts?.apiAudiences,
      serviceAccountTokens: serviceAccounts?.issuer,
      issuerDiscovery: serviceAccounts?.discovery,
    });
  } catch (e) {
    // A server that could not be made (a refused setting): nothing of it may stay open.
    authentication?.close();
    authorization?.close();
    await storage.close();
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  let port: number;
  try {
    ({ port } = await server.start());
    await server.rbacBootstrapped();
  } catch (e) {
    authentication?.close();
    authorization?.close();
    await server.stop();
    await storage.close();
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  const url = `https://127.0.0.1:${port}`;
  const kubeconfig = path.join(dir, 'admin.kubeconfig');
  await writeAdminKubeconfig({ path: kubeconfig, server: url, caCertPem: certs.caCert, token });

  const kubectl: TestServer['kubectl'] = (args, o = {}) =>
    run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'kube-cache'), ...args], {
      input: o.input,
      env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig, ...(o.env ?? {}) },
    });

  const request: TestServer['request'] = (method, p, o = {}) =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token !== null) headers.authorization = `Bearer ${o.token ?? token}`;
      let payload: Buffer | undefined;
      if (o.body !== undefined) {
        payload = Buffer.isBuffer(o.body) ? o.body : Buffer.from(typeof o.body === 'string' ? o.body : JSON.stringify(o.body));
        headers['content-type'] ??= 'application/json';
        // Node sends DELETE bodies unframed unless the length is given.
        headers['content-length'] = String(payload.length);
      }
      const req = https.request(`${url}${p}`, { method, headers, ca: certs.caCert }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });

  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    token,
    kubeconfig,
    caCert: certs.caCert,
    dir,
    prefix,
    server,
    storage,
    etcdStore,
    ...(authentication ? { authentication } : {}),
    ...(authorization ? { authorization } : {}),
    kubectl,
    request,
    stop: () =>
      (stopped ??= (async () => {
        authentication?.close();
        authorization?.close();
        await server.stop();
        await storage.close();
        await rm(dir, { recursive: true, force: true });
      })()),
  };
}

export function run(cmd: string, args: string[], o: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: o.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(o.input ?? '');
  });
}
