#!/usr/bin/env node
/**
 * The composition root: flags → config → etcd (external or embedded) → storage → certificates and
 * credentials → ApiServer → kubeconfig; SIGTERM/SIGINT stop everything, the embedded etcd last.
 */
import os from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import winston from 'winston';
import { parseFlags, usage, FeatureGateError, FeatureGates, FlagError, ServerConfig } from './config';
import { TokenAuthenticator, TokenFileAuthenticator, bearerTokenAuthenticator, staticTokenAuthenticator, withAuthenticatedGroup } from './auth';
import { EmbeddedEtcd } from './server/embedded-etcd';
import { ensureServingCertificates } from './server/certs';
import { ensureAdminToken, writeAdminKubeconfig } from './server/kubeconfig';
import { ApiServer } from './server/app';
import { Cacher, EtcdStore, Storage } from './storage';

function makeLogger(verbosity: number): winston.Logger {
  return winston.createLogger({
    // Request lines (level "http") appear from -v=2 on, as kube's httplog does at higher verbosity.
    level: verbosity >= 2 ? 'http' : 'info',
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug'] })],
  });
}

async function waitForEtcd(store: EtcdStore, endpoints: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await store.ping())) {
    if (Date.now() > deadline) {
      throw new Error(`unable to reach etcd at ${endpoints.join(',')} within ${timeoutMs / 1000}s (check --etcd-servers and that etcd is running)`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function run(config: ServerConfig, logger: winston.Logger, featureGates: FeatureGates): Promise<() => Promise<void>> {
  let etcd: EmbeddedEtcd | undefined;
  let endpoints = config.etcdServers;
  if (endpoints.length === 0) {
    etcd = new EmbeddedEtcd();
    const started = await etcd.start({ dataDir: path.join(config.dataDir, 'etcd'), logFile: path.join(config.dataDir, 'etcd.log') });
    endpoints = started.endpoints;
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
  const etcdStore = new EtcdStore({ endpoints, tls });
  await waitForEtcd(etcdStore, endpoints, 5_000);
  etcdStore.startCompactor(config.etcdCompactionIntervalMs, {
    onCompacted: (revision) => logger.info('etcd compacted', { revision: revision.toString() }),
    onError: (e) => logger.warn('etcd compaction failed', { error: (e as Error).message }),
  });
  const storage: Storage = config.watchCache
    ? new Cacher({ etcd: etcdStore, prefix: config.etcdPrefix, onRestart: (e) => logger.warn('watch cache relisting', { reason: String(e) }) })
    : etcdStore;

  const hosts = [os.hostname()];
  if (config.bindAddress !== '0.0.0.0' && config.bindAddress !== '::') hosts.push(config.bindAddress);
  const certs = await ensureServingCertificates({
    certDir: config.certDir,
    hosts,
    tlsCertFile: config.tlsCertFile,
    tlsKeyFile: config.tlsPrivateKeyFile,
  });
  const adminToken = await ensureAdminToken(config.dataDir);
  const tokenSources: TokenAuthenticator[] = [
    staticTokenAuthenticator(new Map([[adminToken, { name: 'admin', uid: 'admin', groups: ['system:masters'] }]])),
  ];
  if (config.tokenAuthFile) {
    tokenSources.push(await TokenFileAuthenticator.load(config.tokenAuthFile, { onWarning: (w) => logger.warn(w) }));
  }

  const server = await ApiServer.create({
    storage,
    etcdPrefix: config.etcdPrefix,
    authenticator: withAuthenticatedGroup(bearerTokenAuthenticator(tokenSources)),
    tls: certs,
    logger,
    bindAddress: config.bindAddress,
    securePort: config.securePort,
    maxRequestsInFlight: config.maxRequestsInflight,
    maxMutatingRequestsInFlight: config.maxMutatingRequestsInflight,
    featureGates,
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
    await writeAdminKubeconfig({ path: config.writeKubeconfig, server: url, caCertPem: certs.caCert, token: adminToken });
  }
  logger.info('serving', { url, kubeconfig: config.writeKubeconfig ?? '', etcd: endpoints });
  // Machine-readable readiness line for scripts and tests that start the binary.
  process.stdout.write(`platform-apiserver ready: ${url} kubeconfig=${config.writeKubeconfig ?? ''}\n`);

  return async () => {
    await server.stop();
    await storage.close();
    if (etcd) await etcd.stop();
  };
}

async function main(argv: string[]): Promise<void> {
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
    process.stdout.write(`${usage()}\n`);
    return;
  }
  const logger = makeLogger(config.verbosity);
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

void main(process.argv.slice(2));
