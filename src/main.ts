#!/usr/bin/env node
/**
 * The composition root: flags → config → etcd (external or embedded) → storage → certificates and
 * credentials → ApiServer → kubeconfig; SIGTERM/SIGINT stop everything, the embedded etcd last.
 * For a quick start the embedded etcd is spawned first, and the serving modules, certificates,
 * credentials and schemas are loaded while it starts; errors are still reported in that order.
 */
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import winston from 'winston';
import { help, parseFlags, usage, FeatureGateError, FeatureGates, FlagError, ServerConfig } from './config';
import { TokenAuthenticator, TokenFileAuthenticator, anonymousForFlag, loadClientCaFile, parseCaBundle, staticTokenAuthenticator } from './auth';
import { newAdmissionPlugins, type AdmissionSettings, type AdmissionSetup } from './admission';
import { EmbeddedEtcd, EmbeddedEtcdEndpoints } from './server/embedded-etcd';
import { authenticationChain } from './server/authentication-chain';
import { watchClientCaFile } from './server/client-ca-file';
import type * as AppModule from './server/app';
import type * as AuthenticationConfigModule from './server/authentication-config';
import type * as AuthorizationConfigModule from './server/authorization-config';
import type * as CertsModule from './server/certs';
import type * as KubeconfigModule from './server/kubeconfig';
import type * as ServiceAccountsModule from './server/service-accounts';
import type * as RegistryModule from './registry';
import type * as SchemaModule from './registry/schema';
import type * as ProtobufModule from './storage/codec/protobuf-codec';
import type * as StorageStackModule from './server/storage-stack';
import type * as StorageModule from './storage';

function makeLogger(verbosity: number): winston.Logger {
  return winston.createLogger({
    // Request lines (level "http") appear from -v=2 on, as kube's httplog does at higher verbosity.
    level: verbosity >= 2 ? 'http' : 'info',
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug'] })],
  });
}

/** The modules that serve; see loadServingModules. */
interface ServingModules {
  app: typeof AppModule;
  certs: typeof CertsModule;
  kubeconfig: typeof KubeconfigModule;
  registry: typeof RegistryModule;
  schema: typeof SchemaModule;
  protobuf: typeof ProtobufModule;
  storageStack: typeof StorageStackModule;
}

/**
 * Loads (requires) the server, storage, schema and codec modules. Loading them takes most of a
 * second of CPU, so run() calls this only once the embedded etcd's process exists: etcd then starts
 * on the other core meanwhile, instead of after it.
 */
function loadServingModules(): ServingModules {
  return {
    app: require('./server/app') as typeof AppModule,
    certs: require('./server/certs') as typeof CertsModule,
    kubeconfig: require('./server/kubeconfig') as typeof KubeconfigModule,
    registry: require('./registry') as typeof RegistryModule,
    schema: require('./registry/schema') as typeof SchemaModule,
    protobuf: require('./storage/codec/protobuf-codec') as typeof ProtobufModule,
    storageStack: require('./server/storage-stack') as typeof StorageStackModule,
  };
}

/** Starts the embedded etcd and resolves once its process exists; `started` settles when it is healthy. */
async function launchEmbeddedEtcd(etcd: EmbeddedEtcd, dataDir: string): Promise<{ started: Promise<EmbeddedEtcdEndpoints> }> {
  const spawned = once(etcd, 'spawn');
  const started = etcd.start({ dataDir: path.join(dataDir, 'etcd'), logFile: path.join(dataDir, 'etcd.log') });
  // A start that fails before any spawn (no binary) rejects here; `started` is observed by the race.
  await Promise.race([spawned, started]);
  return { started };
}

async function waitForEtcd(store: StorageModule.EtcdStore, endpoints: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await store.ping())) {
    if (Date.now() > deadline) {
      throw new Error(`unable to reach etcd at ${endpoints.join(',')} within ${timeoutMs / 1000}s (check --etcd-servers and that etcd is running)`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function run(config: ServerConfig, logger: winston.Logger, featureGates: FeatureGates): Promise<() => Promise<void>> {
  // --authentication-config: loaded, and its errors reported, before anything is started.
  if (config.authenticationConfig && !featureGates.enabled('StructuredAuthenticationConfiguration')) {
    throw new Error('set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file');
  }
  // Service-account tokens: the signing key (generated in --cert-dir unless given), issuers, audiences.
  const serviceAccounts = await (require('./server/service-accounts') as typeof ServiceAccountsModule).loadServiceAccountTokens(config);
  const authenticationConfig = config.authenticationConfig
    ? (require('./server/authentication-config') as typeof AuthenticationConfigModule).loadAuthenticationConfig(config.authenticationConfig, {
        serviceAccountIssuers: serviceAccounts.issuers,
        anonymousAuthFlag: config.anonymousAuth,
        // kube refuses the file's `anonymous` section with the AnonymousAuthConfigurableEndpoints gate off.
        anonymousConfigurable: featureGates.enabled('AnonymousAuthConfigurableEndpoints'),
        logger,
      })
    : undefined;
  // --authorization-mode / --authorization-config: the chain (and its file's errors) before anything starts;
  // RBAC's place in it is filled once the server and its informers exist (forServer).
  let authorization: AuthorizationConfigModule.BuiltAuthorizer;
  try {
    authorization = (require('./server/authorization-config') as typeof AuthorizationConfigModule).buildAuthorizer(config, { logger });
  } catch (e) {
    authenticationConfig?.close();
    throw e;
  }
  // Admission as kube applies it before storage: the plugin names, --admission-control-config-file
  // and every plugin's own configuration are judged before etcd is started or reached.
  const admissionSettings = {
    enable: config.enableAdmissionPlugins,
    disable: config.disableAdmissionPlugins,
    configFile: config.admissionControlConfigFile,
    defaultTolerationSeconds: { notReady: config.defaultNotReadyTolerationSeconds, unreachable: config.defaultUnreachableTolerationSeconds },
  };
  let admission: AdmissionSettings & { setup: AdmissionSetup; defaultTolerationSeconds: { notReady: number; unreachable: number } };
  try {
    admission = { ...admissionSettings, setup: newAdmissionPlugins().configure(admissionSettings) };
  } catch (e) {
    authenticationConfig?.close();
    authorization.close();
    throw e;
  }
  let etcd: EmbeddedEtcd | undefined;
  let etcdStarted: Promise<EmbeddedEtcdEndpoints> | undefined;
  if (config.etcdServers.length === 0) {
    etcd = new EmbeddedEtcd();
    ({ started: etcdStarted } = await launchEmbeddedEtcd(etcd, config.dataDir));
  }
  const { app, certs: certsModule, kubeconfig, registry, schema, protobuf: protobufModule, storageStack } = loadServingModules();
  // kube validates --runtime-config with the other options: refused before anything waits on etcd.
  registry.resolveRuntimeConfig(config.runtimeConfig, registry.builtinResources);
  // --client-ca-file is read as kube applies its options: a file that cannot be used fails before etcd is awaited.
  const clientCaFile = config.clientCaFile ? await loadClientCaFile(config.clientCaFile) : undefined;

  // Independent of etcd: certificates, credentials, schemas and codecs are prepared while it starts.
  const hosts = [os.hostname()];
  if (config.bindAddress !== '0.0.0.0' && config.bindAddress !== '::') hosts.push(config.bindAddress);
  const certsReady = certsModule.ensureServingCertificates({
    certDir: config.certDir,
    hosts,
    tlsCertFile: config.tlsCertFile,
    tlsKeyFile: config.tlsPrivateKeyFile,
  });
  const adminTokenReady = kubeconfig.ensureAdminToken(config.dataDir);
  // --client-ca-file, or the embedded default: a client CA generated in --cert-dir with an admin certificate.
  const clientCaReady = clientCaFile
    ? Promise.resolve({ ...clientCaFile, admin: undefined })
    : certsModule.ensureClientCertificates({ certDir: config.certDir }).then((c) => ({ pem: c.caCert, roots: parseCaBundle(c.caCert, 'client-ca-bundle'), admin: c }));
  clientCaReady.catch(() => undefined);
  const tokenFileReady = config.tokenAuthFile
    ? TokenFileAuthenticator.load(config.tokenAuthFile, { onWarning: (w) => logger.warn(w) })
    : Promise.resolve(undefined);
  const schemasReady = schema.SchemaRegistry.load();
  // The built-in kinds' protobuf forms are known before the watch cache reads etcd: values a
  // kube-apiserver stored there decode from the first read. Resources added later bring theirs.
  const protobufReady = protobufModule.ProtobufCodec.load(undefined, registry.builtinResources.flatMap(registry.protobufKindsOf));
  // Failures are reported in the order the steps used to run (etcd first), so observe them for now.
  for (const p of [certsReady, adminTokenReady, tokenFileReady, schemasReady, protobufReady]) p.catch(() => undefined);

  let endpoints = config.etcdServers;
  if (etcd && etcdStarted) {
    endpoints = (await etcdStarted).endpoints;
    etcd.on('exit', (code, signal) => logger.error('embedded etcd exited', { code, signal }));
    logger.info('embedded etcd started', { endpoints, dataDir: path.join(config.dataDir, 'etcd') });
  }
  const tls = config.etcdCaFile || config.etcdCertFile
    ? {
        ca: config.etcdCaFile ? await readFile(config.etcdCaFile) : undefined,
        cert: config.etcdCertFile ? await readFile(config.etcdCertFile) : undefined,
        key: config.etcdKeyFile ? await readFile(config.etcdKeyFile) : undefined,
      }
    : undefined;
  // The storage codec reads what a kube-apiserver stored (protobuf) too. Loading the protobuf
  // schema cannot fail on a sound install, so awaiting it here keeps etcd's errors first.
  const protobuf = await protobufReady;
  const { etcdStore, storage } = storageStack.buildStorageStack({
    endpoints,
    tls,
    prefix: config.etcdPrefix,
    protobuf,
    featureGates,
    watchCache: config.watchCache,
    cacheOptions: { onRestart: (e) => logger.warn('watch cache relisting', { reason: String(e) }) },
  });
  await waitForEtcd(etcdStore, endpoints, 5_000);
  etcdStore.startCompactor(config.etcdCompactionIntervalMs, {
    onCompacted: (revision) => logger.info('etcd compacted', { revision: revision.toString() }),
    onError: (e) => logger.warn('etcd compaction failed', { error: (e as Error).message }),
  });

  const certs = await certsReady;
  const adminToken = await adminTokenReady;
  const tokenFile = await tokenFileReady;
  const clientCa = await clientCaReady;
  const schemas = await schemasReady;
  const tokenSources: TokenAuthenticator[] = [
    staticTokenAuthenticator(new Map([[adminToken, { name: 'admin', uid: 'admin', groups: ['system:masters'] }]])),
  ];
  if (tokenFile) tokenSources.push(tokenFile);
  // kube's order: token file, service accounts, then the configuration's JWT authenticators.
  // The accounts (and bound secrets) a token names are read through the server's registry.
  let server: AppModule.ApiServer | undefined;
  tokenSources.push(
    serviceAccounts.authenticator(
      async (resource, namespace, name) => server?.getObject(resource, namespace, name),
      (reason) => logger.info('Unable to authenticate the request', { authenticator: 'service-account', reason }),
    ),
  );
  if (authenticationConfig) tokenSources.push(authenticationConfig.jwt);
  // --client-ca-file is read again when it changes (kube's dynamic CA file); the generated CA never changes.
  const clientCaWatch = config.clientCaFile ? watchClientCaFile(config.clientCaFile, clientCa, { log: logger }) : undefined;

  server = await app.ApiServer.create({
    schemas,
    protobuf,
    storage,
    etcdPrefix: config.etcdPrefix,
    etcdHealthcheckTimeoutMs: config.etcdHealthcheckTimeoutMs,
    etcdReadycheckTimeoutMs: config.etcdReadycheckTimeoutMs,
    // kube's order: client certificates, then bearer tokens.
    authenticator: authenticationChain({
      clientCa: { roots: clientCaWatch ? clientCaWatch.roots : clientCa.roots, onFailure: (error) => logger.warn('Unable to authenticate the request', { error }) },
      tokens: tokenSources,
      apiAudiences: serviceAccounts.apiAudiences,
    }),
    // --anonymous-auth: unset keeps the server's default (health checks and /version only).
    anonymous: authenticationConfig?.anonymous ?? anonymousForFlag(config.anonymousAuth),
    tls: { ...certs, clientCA: clientCa.pem },
    authorizer: (env) => authorization.forServer(env),
    logger,
    bindAddress: config.bindAddress,
    securePort: config.securePort,
    maxRequestsInFlight: config.maxRequestsInflight,
    eventTtlSeconds: config.eventTtlSeconds,
    maxMutatingRequestsInFlight: config.maxMutatingRequestsInflight,
    http2MaxStreamsPerConnection: config.http2MaxStreamsPerConnection,
    disableHttp2: config.disableHttp2Serving,
    requestTimeoutMs: config.requestTimeoutMs,
    // kube's http.Server sets no ReadTimeout: a body still arriving is cut off by the request
    // deadline (--request-timeout). Our connection-level body bounds follow the same flag.
    requestReadTimeoutMs: config.requestTimeoutMs,
    runtimeConfig: config.runtimeConfig,
    admission,
    featureGates,
    apiAudiences: serviceAccounts.apiAudiences,
    serviceAccountTokens: serviceAccounts.issuer,
    issuerDiscovery: serviceAccounts.discovery,
  });
  let port: number;
  try {
    ({ port } = await server.start());
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') throw new Error(`failed to listen on ${config.bindAddress}:${config.securePort}: address already in use`);
    if (err.code === 'EACCES') throw new Error(`failed to listen on ${config.bindAddress}:${config.securePort}: permission denied`);
    throw e;
  }
  const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' ? '127.0.0.1' : config.bindAddress;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (config.writeKubeconfig) {
    await kubeconfig.writeAdminKubeconfig({
      path: config.writeKubeconfig,
      server: url,
      caCertPem: certs.caCert,
      token: adminToken,
      // --write-kubeconfig-exec-service-account: a user whose token this binary's exec plugin obtains.
      execServiceAccount: config.writeKubeconfigExecServiceAccount && { ...config.writeKubeconfigExecServiceAccount, program: [process.execPath, __filename] },
    });
  }
  if (config.writeCertKubeconfig && clientCa.admin) {
    const clientCertificate = { cert: clientCa.admin.adminCert, key: clientCa.admin.adminKey };
    await kubeconfig.writeAdminKubeconfig({ path: config.writeCertKubeconfig, server: url, caCertPem: certs.caCert, clientCertificate });
  }
  logger.info('serving', { url, kubeconfig: config.writeKubeconfig ?? '', etcd: endpoints });
  // Machine-readable readiness line for scripts and tests that start the binary.
  process.stdout.write(`platform-apiserver ready: ${url} kubeconfig=${config.writeKubeconfig ?? ''}\n`);

  const served = server;
  clientCaWatch?.onBundle((pem) => served.setClientCA(pem));

  return async () => {
    clientCaWatch?.stop();
    authenticationConfig?.close();
    authorization.close();
    await server.stop();
    await storage.close();
    if (etcd) await etcd.stop();
  };
}

/**
 * The last resort: an exception or rejection nothing caught is logged with its stack and the
 * server keeps serving. Go's net/http recovers a panic per connection (conn.serve), so one bad
 * request never takes kube-apiserver down; Node has no per-request isolation, and its default here
 * is to end the process — every client, watch and in-flight write with it. The serving layer
 * contains what it can (listener, parser errors, socket/session/stream 'error' events, the error
 * middleware); whatever still escapes is a bug, reported here. Installed by the binary only:
 * tests create many servers in one process, and a library must not own process-wide handlers.
 */
function keepServingOnStrayErrors(logger: winston.Logger): void {
  process.on('uncaughtException', (e, origin) => {
    logger.error('uncaught exception (server keeps serving)', { origin, error: e?.stack ?? String(e) });
  });
  process.on('unhandledRejection', (reason) => {
    logger.error('unhandled rejection (server keeps serving)', { error: (reason as Error)?.stack ?? String(reason) });
  });
}

async function main(argv: string[]): Promise<void> {
  // `platform-apiserver credential …` is the kubeconfig exec credential plugin, not the server.
  if (argv[0] === 'credential') {
    process.exitCode = await (require('./cli/credential') as typeof import('./cli/credential')).runCredential(argv.slice(1), process);
    return;
  }
  let config: ServerConfig;
  try {
    config = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n\n${usage()}\n`);
      process.exit(1);
    }
    throw e;
  }
  if (config.help) {
    process.stdout.write(help());
    return;
  }
  const logger = makeLogger(config.verbosity);
  keepServingOnStrayErrors(logger);
  let featureGates: FeatureGates;
  try {
    featureGates = FeatureGates.fromFlags(config.featureGates, { onWarning: (w) => logger.warn(w) });
  } catch (e) {
    // kube-apiserver fails at startup (not as a flag parse error, so without the usage text).
    if (e instanceof FeatureGateError) {
      process.stderr.write(`Error: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    try {
      await stop?.();
      process.exit(0);
    } catch (e) {
      logger.error('shutdown failed', { error: (e as Error).message });
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  try {
    stop = await run(config, logger, featureGates);
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

// A failure before the server runs (the stray-error handlers would only log it) ends the process with 1.
main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`platform-apiserver: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
