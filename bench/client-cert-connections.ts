/**
 * What a client certificate costs the server per new TLS connection: the authentication filter's
 * read of the chain (server/peer-certificates.ts) and the x509 authenticator's verdict, timed on
 * the server's side of real connections, and how many certificate objects each connection builds.
 * Not a phase of `npm run bench`; no assertions.
 *
 *   npx tsc -p bench/tsconfig.json && node dist/bench/client-cert-connections.js [--connections N] [--rounds R] [--kept K]
 *
 * `--kept 0` turns off the verdicts kept across connections (the authenticator's maxVerifiedChains).
 *
 * The server is a TLS listener in this process with the API server's client-certificate options
 * (a certificate asked for, not required; the client CA named; no session tickets); the clients run
 * in a child process, one connection at a time, each presenting the embedded default's admin client
 * certificate (server/certs.ts: EC P-256, issued by the generated client CA) and closing after the
 * server's answer. For each connection the server runs what withAuthentication runs, timed with
 * hrtime; its process CPU over the connections is reported beside it (the handshake included).
 */
import { fork } from 'node:child_process';
import nodeCrypto = require('node:crypto');
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { x509Authenticator } from '../src/auth';
import { ensureClientCertificates, ensureServingCertificates } from '../src/server/certs';
import { peerCertificatesOf } from '../src/server/peer-certificates';

interface ClientJob {
  port: number;
  connections: number;
  ca: string;
  cert: string;
  key: string;
}

/** The child: `connections` connections one after another; each waits for the server's close. */
async function runClients(job: ClientJob): Promise<void> {
  for (let i = 0; i < job.connections; i++) {
    await new Promise<void>((resolve, reject) => {
      const s = tls.connect({ port: job.port, host: '127.0.0.1', servername: 'localhost', ca: job.ca, cert: job.cert, key: job.key });
      s.on('error', reject);
      s.resume();
      s.on('close', () => resolve());
    });
  }
}

/** Counts certificate objects built: detailed objects, X509Certificate constructions, and the X509Certificates Node hands over. */
function installCounters(): { counts: { detailed: number; constructed: number; handedOver: number } } {
  const counts = { detailed: 0, constructed: 0, handedOver: 0 };
  const Original = nodeCrypto.X509Certificate;
  class Counted extends Original {
    constructor(buffer: nodeCrypto.BinaryLike) {
      super(buffer);
      counts.constructed++;
    }
  }
  // Our modules read `X509Certificate` off node:crypto's module object at each use (CommonJS output).
  (nodeCrypto as { X509Certificate: typeof Original }).X509Certificate = Counted;
  const proto = tls.TLSSocket.prototype;
  const detailed = proto.getPeerCertificate;
  proto.getPeerCertificate = function (this: tls.TLSSocket, ...a: [true]) {
    const d = detailed.apply(this, a);
    const seen = new Set<object>();
    for (let c: tls.PeerCertificate | undefined = d; c && c.raw && !seen.has(c); c = (c as tls.DetailedPeerCertificate).issuerCertificate) {
      seen.add(c);
      counts.detailed++;
    }
    return d;
  } as typeof detailed;
  const x509 = proto.getPeerX509Certificate;
  if (x509) {
    proto.getPeerX509Certificate = function (this: tls.TLSSocket) {
      const c = x509.call(this);
      if (c) counts.handedOver++;
      return c;
    };
    const issuer = Object.getOwnPropertyDescriptor(Original.prototype, 'issuerCertificate');
    if (issuer?.get) {
      const get = issuer.get;
      const seen = new WeakSet<object>();
      Object.defineProperty(Original.prototype, 'issuerCertificate', {
        ...issuer,
        get(this: nodeCrypto.X509Certificate) {
          const c = get.call(this) as nodeCrypto.X509Certificate | undefined;
          if (c && !seen.has(c)) {
            seen.add(c);
            counts.handedOver++;
          }
          return c;
        },
      });
    }
  }
  return { counts };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const connections = arg('connections', 1000);
  const rounds = arg('rounds', 3);
  const kept = arg('kept', -1);
  const { counts } = installCounters();

  const dir = await mkdtemp(path.join(os.tmpdir(), 'papi-cert-conn-'));
  try {
    const serving = await ensureServingCertificates({ certDir: dir, hosts: [] });
    const client = await ensureClientCertificates({ certDir: path.join(dir, 'client') });
    const authn = x509Authenticator({ roots: [new nodeCrypto.X509Certificate(client.caCert)], ...(kept >= 0 ? { maxVerifiedChains: kept } : {}) });
    let timings: number[] = [];
    let refused = 0;
    const server = tls.createServer(
      {
        cert: serving.cert,
        key: serving.key,
        ca: client.caCert,
        requestCert: true,
        rejectUnauthorized: false,
        secureOptions: nodeCrypto.constants.SSL_OP_NO_TICKET,
      },
      (socket) => {
        socket.on('error', () => undefined);
        const req = { httpVersionMajor: 1, socket };
        const start = process.hrtime.bigint();
        authn
          .authenticate({ headers: {}, peerCertificates: () => peerCertificatesOf(req) })
          .then((user) => {
            timings.push(Number(process.hrtime.bigint() - start) / 1000);
            if (user?.name !== 'admin') refused++;
            socket.end();
          })
          .catch(() => {
            refused++;
            socket.end();
          });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const job: ClientJob = { port: (server.address() as AddressInfo).port, connections, ca: serving.caCert, cert: client.adminCert, key: client.adminKey };
    const runOnce = async (n: number) => {
      const child = fork(__filename, ['--client'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const cpu = process.cpuUsage();
      const wall = process.hrtime.bigint();
      await new Promise<void>((resolve, reject) => {
        child.on('message', (m) => (m === 'done' ? resolve() : reject(new Error(String(m)))));
        child.on('exit', (code) => (code ? reject(new Error(`client exited ${code}`)) : undefined));
        child.send({ ...job, connections: n });
      });
      const used = process.cpuUsage(cpu);
      child.kill();
      return { cpuUsPerConnection: (used.user + used.system) / n, wallMs: Number(process.hrtime.bigint() - wall) / 1e6 };
    };
    await runOnce(Math.min(200, connections)); // warm-up: V8 compiles the paths
    for (let r = 0; r < rounds; r++) {
      timings = [];
      refused = 0;
      const c0 = { ...counts };
      const { cpuUsPerConnection } = await runOnce(connections);
      const sorted = [...timings].sort((a, b) => a - b);
      const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
      const per = (k: keyof typeof counts) => ((counts[k] - c0[k]) / connections).toFixed(2);
      console.log(
        `round ${r + 1}: ${connections} connections, ${refused} refused; authentication per connection p50 ${percentile(sorted, 50).toFixed(1)} µs, mean ${mean.toFixed(1)} µs, p99 ${percentile(sorted, 99).toFixed(1)} µs; ` +
          `server CPU per connection ${cpuUsPerConnection.toFixed(0)} µs (handshake included); per connection: ${per('detailed')} detailed certificate objects, ` +
          `${per('constructed')} X509Certificates constructed, ${per('handedOver')} handed over by Node`,
      );
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--client')) {
  process.on('message', (job: ClientJob) => {
    runClients(job).then(
      () => process.send?.('done'),
      (e: unknown) => process.send?.(`client failed: ${(e as Error).message}`),
    );
  });
} else {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
