/**
 * Wire-format cost (issue 6): encode + decode time per object for JSON, protobuf and CBOR with the
 * server's own codecs, and the size of a 1,000-item list in each. In-process, no server or etcd:
 * the numbers are codec cost only. Run with `make bench-wire` (ARGS: --objects=N --rounds=N).
 */
import { performance } from 'node:perf_hooks';
import { SchemaRegistry, refName } from '../src/registry/schema';
import { ByteFieldSchema, CborCodec, byteFieldPaths } from '../src/storage/codec/cbor-codec';
import { ProtobufCodec } from '../src/storage/codec/protobuf-codec';
import { builtinResources, protobufKindsOf } from '../src/registry';

type Json = Record<string, unknown>;

interface Codec {
  name: string;
  encode(o: Json): Buffer;
  decode(b: Buffer): unknown;
}

function arg(name: string, def: number): number {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : def;
}

/** A Secret as the server stores it: metadata as kube fills it, 4 data keys of 64–1024 bytes. */
function secret(i: number): Json {
  const data: Record<string, string> = {};
  for (const [k, n] of [['username', 64], ['password', 128], ['ca.crt', 1024], ['token', 256]] as const) {
    data[k] = Buffer.alloc(n, i % 251).toString('base64');
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `secret-${i}`,
      namespace: 'bench',
      uid: `6a3b9f2e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100000 + i),
      creationTimestamp: '2025-01-01T00:00:00Z',
      labels: { app: 'bench', tier: i % 2 ? 'web' : 'db' },
      annotations: { 'example.com/owner': 'team-a' },
    },
    data,
    type: 'Opaque',
  };
}

function measure(codec: Codec, objects: Json[], rounds: number): { encodeUs: number; decodeUs: number; bytes: number } {
  let encodeMs = 0;
  let decodeMs = 0;
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    for (const o of objects) {
      const t0 = performance.now();
      const b = codec.encode(o);
      const t1 = performance.now();
      codec.decode(b);
      const t2 = performance.now();
      encodeMs += t1 - t0;
      decodeMs += t2 - t1;
      if (r === 0) bytes += b.length;
    }
  }
  const n = objects.length * rounds;
  return { encodeUs: (encodeMs * 1000) / n, decodeUs: (decodeMs * 1000) / n, bytes: bytes / objects.length };
}

async function main(): Promise<void> {
  const count = arg('objects', 2000);
  const rounds = arg('rounds', 5);
  const schemas = await SchemaRegistry.load();
  const protobuf = await ProtobufCodec.load(undefined, builtinResources.flatMap(protobufKindsOf));
  const secretSchema = schemas.get('io.k8s.api.core.v1.Secret') as ByteFieldSchema;
  const secretBytes = byteFieldPaths(secretSchema, (r) => schemas.get(refName(r)) as ByteFieldSchema | undefined);
  const cbor = new CborCodec({ byteFields: (_v, kind) => (kind === 'Secret' ? secretBytes : undefined) });
  const codecs: Codec[] = [
    { name: 'JSON', encode: (o) => Buffer.from(JSON.stringify(o)), decode: (b) => JSON.parse(b.toString('utf8')) },
    { name: 'protobuf', encode: (o) => protobuf.encode(o), decode: (b) => protobuf.decode(b) },
    { name: 'CBOR', encode: (o) => cbor.encode(o), decode: (b) => cbor.decode(b) },
  ];
  const objects = Array.from({ length: count }, (_, i) => secret(i));
  const list: Json = {
    apiVersion: 'v1',
    kind: 'SecretList',
    metadata: { resourceVersion: '200000' },
    items: objects.slice(0, 1000).map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
  };
  // Warm up every codec (JIT) before measuring.
  for (const c of codecs) measure(c, objects.slice(0, 200), 2);

  const rows = codecs.map((c) => {
    const m = measure(c, objects, rounds);
    const t0 = performance.now();
    const listBytes = c.encode(list).length;
    const listEncodeMs = performance.now() - t0;
    return { format: c.name, 'encode µs/obj': m.encodeUs.toFixed(2), 'decode µs/obj': m.decodeUs.toFixed(2), 'bytes/obj': Math.round(m.bytes), '1000-item list bytes': listBytes, 'list encode ms': listEncodeMs.toFixed(1) };
  });
  process.stdout.write(`wire formats: ${count} Secrets × ${rounds} rounds (node ${process.version})\n`);
  console.table(rows);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
