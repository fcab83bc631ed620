/**
 * Entry of the floor server: the same TLS/HTTP-2 serving as the API server
 * (src/server/http2-serving.ts SecureServer, kube's settings) with no API server behind it, to show
 * what any Node server pays on this machine before doing an API server's work.
 *
 * Watch floor (no BENCH_FLOOR_ETCD): it holds every `?watch=1` GET open, answers other GETs with an
 * empty list, and turns each POST or PUT into an event that it writes at once to every watcher: the
 * body, given a resourceVersion, uid, creationTimestamp and one managedFields entry as the API
 * server's Secrets have, so the event lines are of the same size and shape. Nothing is stored.
 *
 * Create floor (BENCH_FLOOR_ETCD = comma-separated endpoints, BENCH_FLOOR_PREFIX = key prefix): each
 * POST's object, stamped the same way, is written with one etcd3 transaction in kube's create shape
 * (`if mod_revision(key) == 0 then put`) on a client configured as the API server's, and answered
 * 201 with the revision as its resourceVersion (409 if the key exists). No routing, admission,
 * validation, field manager or watch cache: only HTTPS, JSON and the etcd3 call.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import path from 'node:path';
import type { Etcd3 } from 'etcd3';
import { timestamp } from '../../src/api';
import { EtcdStore } from '../../src/storage';
import { ensureServingCertificates } from '../../src/server/certs';
import { SecureServer } from '../../src/server/http2-serving';

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

const watchers = new Set<Res>();
let revision = 1;

function readBody(req: Req): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(res: Res, code: number, body: string): void {
  (res as ServerResponse).writeHead(code, { 'content-type': 'application/json' });
  res.end(body);
}

/** The body as the API server would store and send it. */
function stored(body: Record<string, unknown>, now: string): Record<string, unknown> {
  const metadata = (body.metadata ?? {}) as Record<string, unknown>;
  const managedFields = [
    {
      manager: 'node',
      operation: 'Update',
      apiVersion: 'v1',
      time: now,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:data': { '.': {}, 'f:payload': {} },
        'f:metadata': { 'f:annotations': { '.': {}, 'f:marker': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
        'f:type': {},
      },
    },
  ];
  return {
    kind: body.kind,
    apiVersion: body.apiVersion,
    metadata: { ...metadata, uid: randomUUID(), resourceVersion: String(++revision), creationTimestamp: now, managedFields },
    data: body.data,
    type: body.type,
  };
}

/** The create floor's etcd client and key prefix, when BENCH_FLOOR_ETCD is set. */
interface FloorEtcd {
  client: Etcd3;
  prefix: string;
}

function floorEtcd(): FloorEtcd | undefined {
  const endpoints = process.env.BENCH_FLOOR_ETCD;
  if (!endpoints) return undefined;
  // The API server's own etcd3 client, as EtcdStore configures it (one channel, no retries).
  const client = new EtcdStore({ endpoints: endpoints.split(',') }).etcd;
  return { client, prefix: process.env.BENCH_FLOOR_PREFIX ?? '/bench-floor-create/' };
}

async function create(etcd: FloorEtcd, body: Record<string, unknown>, res: Res): Promise<void> {
  const obj = stored(body, timestamp(new Date()));
  const metadata = obj.metadata as Record<string, unknown>;
  const key = Buffer.from(`${etcd.prefix}${String(metadata.namespace)}/${String(metadata.name)}`);
  delete metadata.resourceVersion;
  const txn = await etcd.client.kv.txn({
    compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
    success: [{ request_put: { key, value: Buffer.from(JSON.stringify(obj)) } }],
    failure: [],
  });
  if (!txn.succeeded) {
    json(res, 409, JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'AlreadyExists', code: 409 }));
    return;
  }
  metadata.resourceVersion = txn.header.revision;
  json(res, 201, JSON.stringify(obj));
}

async function handle(req: Req, res: Res, etcd: FloorEtcd | undefined): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://floor');
  if (req.method === 'GET' && url.searchParams.get('watch')) {
    (res as ServerResponse).writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
    (res as ServerResponse).flushHeaders();
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
    return;
  }
  if (req.method === 'GET') {
    json(res, 200, `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"${revision}"},"items":[]}`);
    return;
  }
  const body = JSON.parse((await readBody(req)).toString('utf8')) as Record<string, unknown>;
  if (etcd && req.method === 'POST') return create(etcd, body, res);
  const obj = JSON.stringify(stored(body, timestamp(new Date())));
  const line = Buffer.from(`{"type":"${req.method === 'POST' ? 'ADDED' : 'MODIFIED'}","object":${obj}}\n`);
  for (const w of watchers) (w as ServerResponse).write(line);
  json(res, req.method === 'POST' ? 201 : 200, obj);
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_FLOOR_DIR ?? '';
  const certs = await ensureServingCertificates({ certDir: path.join(dir, 'pki'), hosts: [] });
  const etcd = floorEtcd();
  const server = new SecureServer({ tls: { cert: certs.cert, key: certs.key }, http2MaxStreamsPerConnection: 1000, disableHttp2: false }, (req, res) => {
    handle(req, res, etcd).catch((e: unknown) => json(res, 500, JSON.stringify({ message: String(e) })));
  });
  const { port } = await server.listen(0, '127.0.0.1');
  process.on('disconnect', () => process.exit(0));
  process.on('message', () => process.exit(0));
  process.send?.({ type: 'ready', url: `https://127.0.0.1:${port}`, caCert: certs.caCert });
}

main().catch((e: unknown) => {
  process.send?.({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  process.exit(1);
});
