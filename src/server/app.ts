/**
 * ApiServer: the server as a value. create() wires registry, admission, filters and routes;
 * start() listens (HTTPS: HTTP/2 and HTTP/1.1 by ALPN) and ensures the system namespaces; stop() ends
 * watches and closes.
 */
import { setMaxListeners } from 'node:events';
import express from 'express';
import type { Logger } from 'winston';
import type { KeyObject } from 'node:crypto';
import { ApiError, KubeObject, PolicyRule, RBAC_GROUP, RbacEscalationChecks, SCHEDULING_GROUP, apiVersionOf, cloneJson } from '../api';
import { AdmissionSetup, EnableOptions, Plugins, PriorityClassLister, WebhookConfigurationLister, newAdmissionPlugins, quotaAccessor } from '../admission';
import { etcdCheckTimeoutMs, rateLimitedEtcdCheck } from '../storage/etcd/health-check';
import type { Authenticator } from '../auth/authn/types';
import { AnonymousOptions, anonymousAuthenticator, publicInfoPath } from '../auth/authn/anonymous';
import { failOnError } from '../auth/authn/union';
import { reviewToken } from '../auth/authn/token-review';
import { Authorizer, alwaysAllow } from '../auth/authz/authorizer';
import { ClusterRoleAggregationController, NamespaceController, QuotaController, ServiceAccountController } from '../controllers';
import { controllerContext } from '../controllers/context';
import { SharedInformers } from '../controllers/informer';
import { rbacEscalationChecks } from '../auth/authz/rbac';
import { bootstrapPolicyPlan } from '../auth/authz/rbac/bootstrap';
import { ensureBootstrapPolicy } from '../controllers/rbac-bootstrap';
import { ensureSystemPriorityClasses, systemPriorityClassesHookName } from '../controllers/system-priority-classes';
import { rbacAuthorizerFor, rbacListers } from './rbac-authorization';
import { equivalentResources, webhookConfigurationLister } from './admission-webhooks';
import {
  GenericStore,
  Registry,
  RequestContext,
  ResourceDefinition,
  ResourceSettings,
  ServiceAccountTokenIssuer,
  builtinResources,
  getOrUndefined,
  protobufKindsOf,
  resolveRuntimeConfig,
} from '../registry';
import { SchemaDocument, SchemaRegistry, refName } from '../registry/schema';
import type { Storage } from '../storage';
import { BytePath, ByteFieldSchema, CborCodec, byteFieldPaths } from '../storage/codec/cbor-codec';
import { ProtobufCodec } from '../storage/codec/protobuf-codec';
import { FeatureGates } from '../config';
import { setHttp2BodyTimeout } from '../endpoints/body';
import { EncodingCache } from '../endpoints/encoding-cache';
import { WatchFrameFlusher } from '../endpoints/watch-frames';
import { defaultWatchBufferBytes } from '../endpoints/handlers/watch';
import { ApplySchema, ApplyTypes } from '../apply';
import { errorHandler } from './filters/error-handler';
import { filterChain, frontOfApp } from './filters/chain';
import type { HealthCheck } from './health';
import { dualProtocolListener, type FrontHandler } from './http2-express';
import { SecureServer } from './http2-serving';
import { buildRouter, resourceRequests, type RouteDeps } from './routes';

export interface ApiServerOptions {
  storage: Storage;
  etcdPrefix: string;
  /** --etcd-healthcheck-timeout and --etcd-readycheck-timeout in ms (0 or absent: kube's 2 s). */
  etcdHealthcheckTimeoutMs?: number;
  etcdReadycheckTimeoutMs?: number;
  /** Who a request is; anonymous (below) is asked only when this has no opinion and no error. */
  authenticator: Authenticator;
  /**
   * The anonymous authenticator's conditions (kube's --anonymous-auth with AuthenticationConfiguration
   * `anonymous.conditions`); default: health checks and /version only; false: no anonymous requests.
   */
  anonymous?: AnonymousOptions | false;
  /**
   * The authorizer chain (default AlwaysAllow), or a function building it from what the server
   * owns: `rbac()` is the RBAC authorizer over the server's informers (server/authorization-config.ts
   * builds the chain from --authorization-mode or --authorization-config this way).
   */
  authorizer?: Authorizer | ((env: AuthorizerEnv) => Authorizer);
  /**
   * kube's RBAC escalation prevention for writes of roles and bindings; default: the RBAC checks over
   * the server's informers and the chain (none when the RBAC resources are not served).
   */
  rbacEscalation?: RbacEscalationChecks;
  /**
   * Reconcile kube's bootstrap RBAC policy once started (kube's rbac/bootstrap-roles post-start hook;
   * /readyz, /livez and /healthz report it until done). Default true; tests that do not look at RBAC turn it off.
   */
  rbacBootstrap?: boolean;
  /** Serving chain and key; `clientCA` (PEM): ask clients for a certificate (kube's --client-ca-file). */
  tls: { cert: string; key: string; clientCA?: string };
  logger: Logger;
  bindAddress: string;
  securePort: number;
  maxRequestsInFlight?: number;
  maxMutatingRequestsInFlight?: number;
  schemas?: SchemaRegistry;
  protobuf?: ProtobufCodec;
  /** `--feature-gates`, resolved; default: every gate at its 1.32 default. */
  featureGates?: FeatureGates;
  /** Full quota usage recalculation period (kube: --resource-quota-sync-period, default 5m). */
  resourceQuotaSyncPeriodMs?: number;
  /** A watch whose unsent backlog passes this many bytes is disconnected (default 1 MiB). */
  watchBufferBytes?: number;
  /** Server-wide bound on the bytes all watches hold unsent; past it the largest backlogs are disconnected (default 256 MiB). */
  watchBudgetBytes?: number;
  /** How long an HTTP/2 session whose stream was reset for backlog may send nothing before it is destroyed (default 5 s). */
  watchStuckSessionMs?: number;
  /** `--event-ttl` in seconds (default 3600): how long an event lives after its last write. */
  eventTtlSeconds?: number;
  /**
   * The server's own token audiences (kube's --api-audiences; main.ts passes the flag, which defaults
   * to the service-account issuers): what a TokenReview without spec.audiences checks a token for.
   * Default none: no audience is checked, as kube with none set.
   */
  apiAudiences?: string[];
  /** The service-account token issuer behind serviceaccounts/token (main.ts builds it from the flags); absent: TokenRequests get a 503. */
  serviceAccountTokens?: ServiceAccountTokenIssuer;
  /** Service-account issuer discovery (/.well-known/openid-configuration, /openid/v1/jwks); absent: not served. */
  issuerDiscovery?: { issuer: string; keys: KeyObject[]; jwksUri?: string };
  /** `--http2-max-streams-per-connection` (kube-apiserver's default 1000; 0 = kube's fallback, 100). */
  http2MaxStreamsPerConnection?: number;
  /** `--disable-http2-serving`: serve HTTP/1.1 only (default false: ALPN offers h2 and http/1.1). */
  disableHttp2?: boolean;
  /** HTTP/1.1 ReadHeaderTimeout (default kube's 32 s; tests shorten it). Also the TLS handshake deadline. */
  readHeaderTimeoutMs?: number;
  /**
   * Time for a whole request, body included, to arrive (default 60 s, kube's --request-timeout):
   * HTTP/1.1 closes the connection past it (0 = none); an HTTP/2 body still arriving gets kube's 504.
   */
  requestReadTimeoutMs?: number;
  /** Idle keep-alive / HTTP/2 connection timeout (default kube's 90 s). */
  idleTimeoutMs?: number;
  /** `--request-timeout` (default 60 s): non-long-running requests past it get kube's 504 (server/filters/timeout.ts). */
  requestTimeoutMs?: number;
  /**
   * `--runtime-config` (parsed pairs): which built-in group versions and resources are served
   * (registry/runtime-config.ts). create() rejects with a RuntimeConfigError for a setting kube refuses.
   */
  runtimeConfig?: ReadonlyMap<string, string>;
  /**
   * Admission plugins beyond kube's defaults (kube's --enable-admission-plugins and
   * --disable-admission-plugins, by name) and plugins of the embedder's own (`register`, called on
   * the registry before the chain is built). An unknown name rejects create() with kube's message.
   */
  admission?: EnableOptions & {
    register?: (plugins: Plugins) => void;
    /** kube's --admission-control-config-file: an AdmissionConfiguration (config/kinds/admission.ts). */
    configFile?: string;
    /** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (DefaultTolerationSeconds; kube's 300 each). */
    defaultTolerationSeconds?: { notReady: number; unreachable: number };
    /**
     * What `Plugins.configure` made of these same options before anything started (main.ts: the
     * names and every plugin's configuration judged before etcd): the chain is built from it, the
     * configurations not read again. Absent: they are read here, and create() rejects on an error.
     */
    setup?: AdmissionSetup;
  };
}

/** What an authorizer chain may be built from (ApiServerOptions.authorizer). */
export interface AuthorizerEnv {
  /** kube's RBAC authorizer over the server's informers (grants nothing when RBAC is not served). */
  rbac(): Authorizer;
}

/** kube-apiserver's --http2-max-streams-per-connection default (apiserver options/recommended.go). */
export const defaultHttp2MaxStreamsPerConnection = 1000;

export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class ApiServer {
  readonly registry: Registry;
  private readonly app: express.Express;
  /** The filter chain and resource requests, which every request meets before the app. */
  private readonly front: FrontHandler;
  private server?: SecureServer;
  private readonly shutdown = new AbortController();
  /** Watches still writing; stop() lets them finish before closing connections. */
  private readonly streams = new Set<Promise<void>>();
  /** Every watch's frame queue: per-turn writes and the server-wide account of unsent watch bytes. */
  readonly watchFrames: WatchFrameFlusher;
  private rbacBootstrap?: Promise<void>;
  private rbacBootstrapDone = false;
  private systemPriorityClasses?: Promise<void>;
  private systemPriorityClassesDone = false;
  /** The server's shared informers (RBAC's listers); started and synced before the server listens. */
  readonly informers: SharedInformers;
  private readonly namespaceController: NamespaceController;
  private readonly quotaController: QuotaController;
  private readonly serviceAccountController: ServiceAccountController;
  private readonly clusterRoleAggregationController: ClusterRoleAggregationController;

  /** The server's authorizer chain (the filter's, access reviews', admission's). */
  private readonly authorizer: Authorizer;
  /** The admission webhooks' configurations (informers made with the others, after the chain). */
  private readonly webhookConfigurations: WebhookConfigurationLister;
  /** The Priority plugin's PriorityClasses (an informer made with the others, after the chain). */
  private readonly priorityClasses: PriorityClassLister;
  /** The quotas of a namespace in the shared informer's copy (ResourceQuota admission). */
  private readonly quotaLister: (namespace: string) => readonly KubeObject[];

  /** The schema names addResource added with each resource (group/version/resource). */
  private readonly schemasAddedWith = new Map<string, string[]>();

  private constructor(
    private readonly opts: ApiServerOptions,
    private readonly schemas: SchemaRegistry,
    private readonly protobuf: ProtobufCodec,
  ) {
    // Every open watch listens for shutdown: thousands of listeners are expected, not a leak.
    setMaxListeners(0, this.shutdown.signal);
    // One setting per process (the body reader is shared): the last server made decides.
    setHttp2BodyTimeout(opts.requestReadTimeoutMs || 60_000);
    // Every plugin this server implements, on by kube v1.32's defaults and run in kube's order.
    const admissionPlugins = newAdmissionPlugins();
    opts.admission?.register?.(admissionPlugins);
    const setup = opts.admission?.setup ?? admissionPlugins.configure(opts.admission);
    const admission = admissionPlugins.applyConfigured(setup, {
      getNamespace: (name) => this.getNamespace(name),
      // The informer is asked for at the first pod (not before the registry exists); its copy, then a live read.
      serviceAccounts: {
        cached: (namespace, name) => {
          if (this.shutdown.signal.aborted || !this.registry.get('', 'v1', 'serviceaccounts')) return undefined;
          const informer = this.informers.forResource('', 'v1', 'serviceaccounts');
          return informer.hasSynced() ? informer.indexer.get(namespace, name) : undefined;
        },
        live: (namespace, name) => this.read('', 'serviceaccounts', namespace, name),
      },
      // The chain is built before the authorizer: plugins ask it through this late binding.
      authorize: (attrs) => this.authorizer.authorize(attrs),
      webhookConfigurations: { mutating: () => this.webhookConfigurations.mutating(), validating: () => this.webhookConfigurations.validating() },
      equivalentResources: (group, version, resource, subresource) => equivalentResources(this.registry, schemas, group, version, resource, subresource),
      priorityClasses: {
        get: (name) => this.priorityClasses.get(name),
        list: () => this.priorityClasses.list(),
        live: (name) => this.read(SCHEDULING_GROUP, 'priorityclasses', '', name),
      },
      defaultTolerationSeconds: opts.admission?.defaultTolerationSeconds,
      // kube's quota accessor: the informer's copy (made below), live lists when it holds none.
      quotas: quotaAccessor({
        listed: (namespace) => this.quotaLister(namespace),
        // With resourcequotas not served (--runtime-config) there are no quotas to enforce.
        live: async (namespace) => {
          const store = this.registry.get('', 'v1', 'resourcequotas');
          return store ? (await store.list(this.systemContext(namespace), {})).items : [];
        },
        writeStatus: async (quota) =>
          (await this.quotaStore().update(this.systemContext(quota.metadata.namespace), quota.metadata.name ?? '', () => cloneJson(quota), { subresource: 'status' })).object,
      }),
    });
    // What the declarations reach of the server (ResourceSettings). The registry reads it per
    // request, so the authorizer chain and RBAC's escalation checks, which need the registry's
    // informers, are added below, before anything can ask.
    const settings: ResourceSettings = {
      eventTtlSeconds: opts.eventTtlSeconds ?? 3600,
      // TokenReview asks the server's own authenticators (kube passes the request authenticator).
      reviewToken: (token, audiences) => reviewToken(opts.authenticator, token, audiences, { apiAudiences: opts.apiAudiences }),
      serviceAccountTokens: opts.serviceAccountTokens,
    };
    this.registry = new Registry({ storage: opts.storage, prefix: opts.etcdPrefix, admission, settings, schemas });
    // Each resource's kinds get their protobuf form as it is installed (kept when it goes: see addKind).
    this.registry.onChange((change) => {
      if ('added' in change) for (const row of protobufKindsOf(change.added)) protobuf.addKind(row);
    });
    const served = resolveRuntimeConfig(opts.runtimeConfig ?? new Map(), builtinResources);
    for (const def of builtinResources) if (served.enabled(def)) this.registry.add(def);
    // One informer per resource for whatever in the server reads it (RBAC first), synced before serving.
    this.informers = new SharedInformers(this.registry, {
      onError: (e, resource) => opts.logger.warn('informer', { resource, error: (e as Error).message }),
    });
    const listers = rbacListers(this.registry, this.informers);
    this.webhookConfigurations = webhookConfigurationLister(this.registry, this.informers);
    this.priorityClasses = priorityClassLister(this.registry, this.informers);
    this.quotaLister = quotaLister(this.registry, this.informers);
    const authorizer = typeof opts.authorizer === 'function' ? opts.authorizer({ rbac: () => rbacAuthorizerFor(listers) }) : (opts.authorizer ?? alwaysAllow);
    this.authorizer = authorizer;
    // Access reviews and RBAC's escalate/bind checks ask the same chain every request passes.
    settings.authorization = {
      authorize: (attrs) => authorizer.authorize(attrs),
      rulesFor: async (user, namespace) =>
        authorizer.rulesFor ? authorizer.rulesFor(user, namespace) : { resourceRules: [], nonResourceRules: [], incomplete: true, errors: [] },
    };
    // A role the informers do not hold yet is read through the registry, as kube's storage reads it.
    const readRole = (resource: 'roles' | 'clusterroles', namespace: string, name: string) =>
      this.read(RBAC_GROUP, resource, namespace, name) as Promise<{ rules?: PolicyRule[] } | undefined>;
    settings.rbacEscalation = opts.rbacEscalation ?? (listers && rbacEscalationChecks(listers, authorizer, readRole));
    this.namespaceController = new NamespaceController({
      registry: this.registry,
      onError: (e) => opts.logger.warn('namespace controller', { error: (e as Error).message }),
    });
    this.serviceAccountController = new ServiceAccountController({
      registry: this.registry,
      informers: this.informers,
      onError: (e) => opts.logger.warn('service account controller', { error: (e as Error).message }),
    });
    this.clusterRoleAggregationController = new ClusterRoleAggregationController({
      registry: this.registry,
      informers: this.informers,
      onError: (e) => opts.logger.warn('clusterrole aggregation controller', { error: (e as Error).message }),
    });
    this.quotaController = new QuotaController({
      registry: this.registry,
      resyncPeriodMs: opts.resourceQuotaSyncPeriodMs,
      onError: (e) => opts.logger.warn('resource quota controller', { error: (e as Error).message }),
    });

    const ping: HealthCheck = { name: 'ping', check: async () => true };
    const log: HealthCheck = { name: 'log', check: async () => true };
    const etcdCheck: HealthCheck = { name: 'etcd', check: etcdHealthCheck(opts.storage, opts.etcdHealthcheckTimeoutMs) };
    // kube's post-start hooks are boot-sequence checks: on /healthz and /livez as on /readyz.
    const postStartHooks: HealthCheck[] = [
      ...(opts.rbacBootstrap === false ? [] : [{ name: 'poststarthook/rbac/bootstrap-roles', check: async () => this.rbacBootstrapDone }]),
      // kube registers the hook with the scheduling group: not when the group is not served.
      ...(this.registry.get(SCHEDULING_GROUP, 'v1', 'priorityclasses')
        ? [{ name: `poststarthook/${systemPriorityClassesHookName}`, check: async () => this.systemPriorityClassesDone }]
        : []),
    ];
    const live = [ping, log, etcdCheck, ...postStartHooks];
    const ready = [
      ping,
      log,
      etcdCheck,
      { name: 'etcd-readiness', check: etcdHealthCheck(opts.storage, opts.etcdReadycheckTimeoutMs) },
      ...postStartHooks,
      { name: 'shutdown', check: async () => !this.shutdown.signal.aborted },
    ];

    // Types compiled from schemas are dropped when schemas are added or removed at run time.
    const applyTypes = new ApplyTypes((ref) => schemas.resolve(ref) as ApplySchema | undefined);
    schemas.onChange(() => applyTypes.clear());

    this.app = express();
    this.app.disable('x-powered-by');
    this.app.set('etag', false);
    // Go's url.ParseQuery: every key literal (no qs nesting like a[b]=c), repeats become an array of any length.
    this.app.set('query parser', 'simple');
    const gates = opts.featureGates ?? FeatureGates.defaults();
    // CBOR is served only with CBORServingAndStorage on; objects stay JSON in etcd either way.
    const cbor = gates.enabled('CBORServingAndStorage') ? new CborCodec({ byteFields: byteFieldLookup(this.registry, schemas) }) : undefined;
    const filters = filterChain({
      logger: opts.logger,
      authenticator:
        opts.anonymous === false ? opts.authenticator : failOnError(opts.authenticator, anonymousAuthenticator(opts.anonymous ?? { allows: publicInfoPath })),
      authorizer,
      maxRequestsInFlight: opts.maxRequestsInFlight ?? 400,
      maxMutatingRequestsInFlight: opts.maxMutatingRequestsInFlight ?? 200,
      responseCompression: gates.enabled('APIResponseCompression'),
      http2DosMitigation: gates.enabled('UnauthenticatedHTTP2DOSMitigation'),
      requestTimeoutMs: opts.requestTimeoutMs,
    });
    const routeDeps: RouteDeps = {
      registry: this.registry,
      schemas,
      health: { livez: live, readyz: ready },
      issuerDiscovery: opts.issuerDiscovery,
      shutdownSignal: this.shutdown.signal,
      protobuf,
      cbor,
      encodings: new EncodingCache(),
      watchFrames: (this.watchFrames = new WatchFrameFlusher({ budgetBytes: opts.watchBudgetBytes, stuckSessionMs: opts.watchStuckSessionMs })),
      applyTypes,
      watchBufferBytes: opts.watchBufferBytes ?? defaultWatchBufferBytes,
      streams: this.streams,
      ...(gates.enabled('AllowUnsafeMalformedObjectDeletion') ? { unsafeDelete: { authorizer } } : {}),
      features: {
        watchList: gates.enabled('WatchList'),
        openAPIEnums: gates.enabled('OpenAPIEnums'),
        storageVersionHash: gates.enabled('StorageVersionHash'),
      },
    };
    // Every request meets the filters, then resource requests are served, ahead of the app (see
    // frontOfApp); the rest goes on to the app's routes.
    const onError = errorHandler(opts.logger);
    this.front = frontOfApp(filters, resourceRequests(routeDeps), onError);
    this.app.use(buildRouter(routeDeps));
    this.app.use(onError);
  }

  static async create(opts: ApiServerOptions): Promise<ApiServer> {
    return new ApiServer(opts, opts.schemas ?? (await SchemaRegistry.load()), opts.protobuf ?? (await ProtobufCodec.load()));
  }

  /**
   * Serves a resource from now on, discovery and the OpenAPI documents included; `schemas` adds the
   * schemas its declaration names when openapi/ does not have them (a custom resource's); they go
   * with it (removeResource). Everything is checked before anything changes: an Error (the resource
   * is served already, its storage prefix is another kind's, its schemas clash, refer to unknown
   * ones or lack its kind or list, proto/ lacks its protobuf message) leaves the server as it was.
   */
  addResource(def: ResourceDefinition, schemas?: SchemaDocument): GenericStore {
    for (const row of protobufKindsOf(def)) {
      if (!this.protobuf.declares(row.message)) throw new Error(`protobuf: no message ${row.message} in proto/ for ${def.resource}`);
    }
    this.registry.check(def);
    const added = Object.keys(schemas?.components?.schemas ?? {});
    if (schemas) this.schemas.add(schemas);
    try {
      // The kind's schema and its list's (same namespace, the list kind's name) drive decoding and OpenAPI.
      for (const name of [def.schemaName, listSchemaName(def)]) {
        if (!this.schemas.get(name)) throw new Error(`openapi: no schema ${name} for ${def.resource}`);
      }
    } catch (e) {
      if (added.length > 0) this.schemas.remove(added);
      throw e;
    }
    const store = this.registry.add(def);
    this.schemasAddedWith.set(gvrKey(def), added);
    return store;
  }

  /**
   * Stops serving a resource: its open watches end, its objects stay in etcd, and the schemas added
   * with it go (those no other served resource still names). False when it was not served.
   */
  removeResource(group: string, version: string, resource: string): boolean {
    const store = this.registry.get(group, version, resource);
    if (!store) return false;
    const key = gvrKey(store.def);
    const stillNamed = new Set(this.registry.definitions().filter((d) => d !== store.def).flatMap((d) => [d.schemaName, listSchemaName(d)]));
    const names = (this.schemasAddedWith.get(key) ?? []).filter((n) => !stillNamed.has(n));
    // Refused schema removals (another schema still refers to one) keep them, and the resource goes.
    const removable = this.schemas.canRemove(names) ? names : [];
    this.registry.remove(group, version, resource);
    this.schemasAddedWith.delete(key);
    if (removable.length > 0) this.schemas.remove(removable);
    return true;
  }

  /** Listens on bindAddress:securePort (0 = any free port) and creates the system namespaces. */
  async start(): Promise<{ port: number }> {
    // RBAC decides from these copies: they hold a full list before the first request is served.
    this.informers.start();
    await this.informers.waitForSync();
    const server = new SecureServer(
      {
        tls: this.opts.tls,
        http2MaxStreamsPerConnection: this.opts.http2MaxStreamsPerConnection ?? defaultHttp2MaxStreamsPerConnection,
        disableHttp2: this.opts.disableHttp2 ?? false,
        readHeaderTimeoutMs: this.opts.readHeaderTimeoutMs,
        requestReadTimeoutMs: this.opts.requestReadTimeoutMs,
        idleTimeoutMs: this.opts.idleTimeoutMs,
        log: this.opts.logger,
      },
      dualProtocolListener(this.app, this.front),
    );
    const { port } = await server.listen(this.opts.securePort, this.opts.bindAddress);
    this.server = server;
    await this.ensureSystemNamespaces();
    await this.namespaceController.start();
    await this.serviceAccountController.start();
    await this.clusterRoleAggregationController.start();
    await this.quotaController.start();
    // kube's scheduling post-start hook, in the background too; its health check stays failing if it fails.
    this.systemPriorityClasses = ensureSystemPriorityClasses(this.registry, { logger: this.opts.logger, signal: this.shutdown.signal }).then((r) => {
      this.systemPriorityClassesDone = !r.error;
    });
    if (this.opts.rbacBootstrap !== false) {
      // In the background, as kube's post-start hook: the server serves meanwhile, its health checks
      // wait for it. It logs what it could not reconcile.
      this.rbacBootstrap = ensureBootstrapPolicy(this.registry, bootstrapPolicyPlan(), { logger: this.opts.logger, signal: this.shutdown.signal }).then(() => {
        this.rbacBootstrapDone = true;
      });
    }
    return { port };
  }

  /** Replaces the client CA names the TLS handshake sends (a reloaded --client-ca-file); for new connections. */
  setClientCA(pem: string): void {
    this.server?.setClientCA(pem);
  }

  /** Resolves once the system PriorityClasses have been made (or given up on; at once when not started). */
  async systemPriorityClassesBootstrapped(): Promise<void> {
    await this.systemPriorityClasses;
  }

  /** Resolves once the bootstrap RBAC policy has been reconciled (at once when that is off or not started). */
  async rbacBootstrapped(): Promise<void> {
    await this.rbacBootstrap;
  }

  /**
   * One object of a served core resource (the service-account authenticator's lookup of accounts
   * and secrets), as kube's service-account getter reads it: from the shared informer's copy, and
   * through the registry when the copy has not synced or lacks it (just created). Undefined when
   * missing or not served.
   */
  async getObject(resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    if (!this.registry.get('', 'v1', resource)) return undefined;
    if (!this.shutdown.signal.aborted) {
      const informer = this.informers.forResource('', 'v1', resource);
      const cached = informer.hasSynced() ? informer.indexer.get(namespace, name) : undefined;
      if (cached) return cached;
    }
    return this.read('', resource, namespace, name);
  }

  /** One object of a served v1 resource, read through the registry as the server itself; undefined when missing or not served. */
  private async read(group: string, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    const store = this.registry.get(group, 'v1', resource);
    return store && getOrUndefined(store, this.systemContext(namespace), name);
  }

  /** Ends every watch, lets their last bytes out, then closes: GOAWAY to HTTP/2 sessions, HTTP/1.1 sockets closed. */
  async stop(): Promise<void> {
    this.shutdown.abort();
    void this.informers.stop();
    this.namespaceController.stop();
    this.serviceAccountController.stop();
    this.clusterRoleAggregationController.stop();
    this.quotaController.stop();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // Aborting ended every watch; wait (briefly) until their last bytes are written.
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.streams]), new Promise((r) => (bound = setTimeout(r, 1000)))]);
    clearTimeout(bound);
    await server.close(2000);
  }

  private systemContext(namespace = ''): RequestContext {
    return controllerContext('system:apiserver', ['system:masters'], namespace);
  }

  private quotaStore() {
    const store = this.registry.get('', 'v1', 'resourcequotas');
    if (!store) throw new Error('resourcequotas are not served');
    return store;
  }

  /**
   * kube's NamespaceLifecycle reads namespaces from its informer cache and, when one is missing
   * there, from storage (it may just have been created): RV=0 from the watch cache, then a live read.
   */
  private async getNamespace(name: string) {
    const store = this.registry.get('', 'v1', 'namespaces');
    if (!store) return null;
    for (const resourceVersion of ['0', undefined]) {
      try {
        return await store.get(this.systemContext(), name, { resourceVersion });
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    return null;
  }

  private async ensureSystemNamespaces(): Promise<void> {
    const store = this.registry.get('', 'v1', 'namespaces');
    if (!store) return;
    for (const name of systemNamespaces) {
      try {
        await store.create(this.systemContext(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      } catch (e) {
        if (e instanceof ApiError && e.code === 409) continue;
        // Refused by admission (kube's bootstrap controller logs it and serves on): not a start failure.
        if (e instanceof ApiError && e.code < 500) {
          this.opts.logger.warn('system namespace not created', { namespace: name, error: e.message });
          continue;
        }
        throw e;
      }
    }
  }
}

const gvrKey = (d: ResourceDefinition): string => `${d.group}/${d.version}/${d.resource}`;

/** A kind's list schema: the kind schema's namespace, the list kind's name. */
const listSchemaName = (d: ResourceDefinition): string => d.schemaName.replace(/[^.]+$/, d.listKind);

/** The []byte fields of each served kind, from its schema (`format: byte`), memoised per server. */
function byteFieldLookup(registry: Registry, schemas: SchemaRegistry): (apiVersion: string, kind: string) => BytePath[] {
  const memo = new Map<string, BytePath[]>();
  registry.onChange(() => memo.clear());
  schemas.onChange(() => memo.clear());
  const resolve = (ref: string) => schemas.get(refName(ref)) as ByteFieldSchema | undefined;
  return (apiVersion, kind) => {
    const key = `${apiVersion}/${kind}`;
    let paths = memo.get(key);
    if (!paths) {
      const def = registry.definitions().find((d) => apiVersionOf(d) === apiVersion && d.kind === kind);
      const schema = def && (schemas.get(def.schemaName) as ByteFieldSchema | undefined);
      paths = schema ? byteFieldPaths(schema, resolve) : [];
      memo.set(key, paths);
    }
    return paths;
  };
}

/**
 * The ResourceQuotas of a namespace that ResourceQuota admission reads, from the server's shared
 * informer (made now, so it syncs with the others before the server listens): none until it has
 * synced, and none when resourcequotas are not served.
 */
function quotaLister(registry: Registry, informers: SharedInformers): (namespace: string) => readonly KubeObject[] {
  if (!registry.get('', 'v1', 'resourcequotas')) return () => [];
  const informer = informers.forResource('', 'v1', 'resourcequotas');
  return (namespace) => (informer.hasSynced() ? informer.indexer.listInNamespace(namespace) : []);
}

/**
 * The PriorityClasses the Priority plugin reads, from the server's shared informer (made now, so it
 * syncs with the others before the server listens); none when scheduling.k8s.io is not served.
 */
function priorityClassLister(registry: Registry, informers: SharedInformers): PriorityClassLister {
  if (!registry.get(SCHEDULING_GROUP, 'v1', 'priorityclasses')) return { get: () => undefined, list: () => [] };
  const indexer = informers.forResource(SCHEDULING_GROUP, 'v1', 'priorityclasses').indexer;
  return { get: (name) => indexer.get('', name), list: () => indexer.list() };
}

/** kube's etcd check for one of the health endpoints: its own timeout, one etcd read per half of it. */
function etcdHealthCheck(storage: Storage, flagMs = 0): () => Promise<boolean> {
  return rateLimitedEtcdCheck((ms) => storage.ping(ms), etcdCheckTimeoutMs(flagMs));
}
