/**
 * Entry of the server child the bench forks: the real ApiServer in-process (composed as src/main.ts
 * composes it: EtcdStore, Cacher unless watchCache is false), HTTPS on 127.0.0.1:0, a static admin
 * token. It answers memory requests over IPC (process.memoryUsage after a forced GC), samples its
 * event-loop delay between 'loop-start' and 'loop-stop', and stops on
 * request or when the parent goes away. Load never runs in this process.
 */
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import winston from 'winston';
import { parseCaBundle, staticTokenAuthenticator, unionAuthenticator, withAuthenticatedGroup, x509Authenticator } from '../../src/auth';
import { ApiServer } from '../../src/server/app';
import { ensureClientCertificates, ensureServingCertificates } from '../../src/server/certs';
import { Cacher, EtcdStore, Storage } from '../../src/storage';
import type { ChildMessage, MemorySample, ParentMessage, ServerProcessOptions } from './server-protocol';

function send(msg: ChildMessage): void {
  process.send?.(msg);
}

function sampleMemory(): MemorySample {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
  const m = process.memoryUsage();
  return {
    rssBytes: m.rss,
    heapUsedBytes: m.heapUsed,
    heapTotalBytes: m.heapTotal,
    externalBytes: m.external,
    arrayBuffersBytes: m.arrayBuffers,
    gcForced: gc !== undefined,
  };
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const opts = JSON.parse(process.env.BENCH_SERVER_OPTIONS ?? '{}') as ServerProcessOptions;
  const certs = await ensureServingCertificates({ certDir: path.join(opts.dir, 'pki'), hosts: [] });
  const token = randomBytes(16).toString('hex');
  // As main.ts's embedded default: a generated client CA, client certificates first in the union.
  const client = await ensureClientCertificates({ certDir: path.join(opts.dir, 'pki') });
  const etcdStore = new EtcdStore({ endpoints: opts.etcdEndpoints });
  const cacher = opts.watchCache ? new Cacher({ etcd: etcdStore, prefix: opts.prefix }) : undefined;
  const storage: Storage = cacher ?? etcdStore;
  await cacher?.ready();
  const server = await ApiServer.create({
    storage,
    etcdPrefix: opts.prefix,
    authenticator: withAuthenticatedGroup(
      unionAuthenticator(
        x509Authenticator({ roots: parseCaBundle(client.caCert, 'client-ca-bundle') }),
        staticTokenAuthenticator(new Map([[token, { name: 'admin', uid: 'admin', groups: ['system:masters'] }]])),
      ),
    ),
    tls: { ...certs, clientCA: client.caCert },
    logger: winston.createLogger({ silent: true }),
    bindAddress: '127.0.0.1',
    securePort: 0,
  });
  const { port } = await server.start();

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    await storage.close();
    process.exit(0);
  };
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  process.on('message', (msg: ParentMessage) => {
    if (msg.type === 'memory') send({ type: 'memory', id: msg.id, sample: sampleMemory() });
    else if (msg.type === 'loop-start') {
      loopDelay.reset();
      loopDelay.enable();
    } else if (msg.type === 'loop-stop') {
      loopDelay.disable();
      const ms = (ns: number) => ns / 1e6;
      send({ type: 'loop', id: msg.id, delay: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) } });
    } else if (msg.type === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  send({
    type: 'ready',
    url: `https://127.0.0.1:${port}`,
    caCert: certs.caCert,
    token,
    clientCert: { cert: client.adminCert, key: client.adminKey },
    startMs: Number(process.hrtime.bigint() - started) / 1e6,
  });
}

main().catch((e: unknown) => {
  send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  process.exit(1);
});
