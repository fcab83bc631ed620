/**
 * Entry of the watch phase's floor server: the same TLS/HTTP-2 serving as the API server
 * (src/server/http2-serving.ts SecureServer, kube's settings) with no API server behind it. It
 * holds every `?watch=1` GET open, answers other GETs with an empty list, and turns each POST or
 * PUT into an event that it writes at once to every watcher: the body, given a resourceVersion,
 * uid, creationTimestamp and one managedFields entry as the API server's Secrets have, so the
 * event lines are of the same size and shape. Nothing is stored; there is no etcd.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import path from 'node:path';
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

async function handle(req: Req, res: Res): Promise<void> {
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
  const obj = JSON.stringify(stored(body, new Date().toISOString().replace(/\.\d+Z$/, 'Z')));
  const line = Buffer.from(`{"type":"${req.method === 'POST' ? 'ADDED' : 'MODIFIED'}","object":${obj}}\n`);
  for (const w of watchers) (w as ServerResponse).write(line);
  json(res, req.method === 'POST' ? 201 : 200, obj);
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_FLOOR_DIR ?? '';
  const certs = await ensureServingCertificates({ certDir: path.join(dir, 'pki'), hosts: [] });
  const server = new SecureServer({ tls: { cert: certs.cert, key: certs.key }, http2MaxStreamsPerConnection: 1000, disableHttp2: false }, (req, res) => {
    handle(req, res).catch((e: unknown) => json(res, 500, JSON.stringify({ message: String(e) })));
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
