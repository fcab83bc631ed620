/**
 * Wire formats through the real server and etcd (issue 6): protobuf objects, lists, watches and
 * request bodies decoded/encoded with protobufjs from proto/; gzip of large get/list responses
 * (apiserver responsewriters deferredResponseWriter: first write > 128 KiB, Content-Encoding and
 * Vary) and its feature gate; CBOR behind CBORServingAndStorage (apimachinery serializer/cbor:
 * self-described tag, byte strings, tag 22 for []byte, application/cbor-seq watches); /openapi/v2
 * in gnostic protobuf (kube-openapi pkg/handler) and kubectl explain against it.
 */
import https from 'node:https';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as protobuf from 'protobufjs';
import { CborCodec, decodeCbor } from '../../src/storage/codec/cbor-codec';
import { RunResult, TestServer } from '../support/api-server';
import { useTestEtcd, useTestServer } from '../support/server-fixture';
import { namespace } from '../support/factories';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A test server as raw bytes: bodies are Buffers both ways (protobuf and CBOR are not text). */
interface Server {
  request(method: string, p: string, o?: { body?: Buffer | string; headers?: Record<string, string> }): Promise<Raw>;
  /** Reads a streaming response until `done` says enough (or the time runs out), then aborts it. */
  stream(p: string, headers: Record<string, string>, done: (b: Buffer) => boolean): Promise<Raw>;
  kubectl(args: string[]): Promise<RunResult>;
}

function raw(srv: TestServer): Server {
  const open = (method: string, p: string, headers: Record<string, string>, onRes: (res: import('node:http').IncomingMessage, req: import('node:http').ClientRequest) => void, reject: (e: Error) => void, body?: Buffer) => {
    const req = https.request(`${srv.url}${p}`, { method, headers: { authorization: `Bearer ${srv.token}`, ...headers }, ca: srv.caCert }, (res) => onRes(res, req));
    req.on('error', reject);
    req.end(body);
  };
  return {
    request: (method, p, o = {}) =>
      new Promise((resolve, reject) => {
        const body = o.body === undefined ? undefined : Buffer.isBuffer(o.body) ? o.body : Buffer.from(o.body);
        const headers = { ...(o.headers ?? {}), ...(body ? { 'content-length': String(body.length) } : {}) };
        open(method, p, headers, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        }, reject, body);
      }),
    stream: (p, headers, done) =>
      new Promise((resolve, reject) => {
        open('GET', p, headers, (res, req) => {
          const chunks: Buffer[] = [];
          const finish = () => {
            clearTimeout(timer);
            req.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
          };
          // A safety net only (the test then fails on what arrived); wide, so that load cannot trip it.
          const timer = setTimeout(finish, 30_000);
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            if (done(Buffer.concat(chunks))) finish();
          });
          res.on('end', finish);
        }, reject);
      }),
    kubectl: (args) => srv.kubectl(args),
  };
}

const PB = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const etcd = useTestEtcd();
const plain = raw(useTestServer({ etcd }).srv); // every gate at its default
const gated = raw(useTestServer({ etcd, featureGates: { CBORServingAndStorage: true, APIResponseCompression: false } }).srv);
let root: protobuf.Root;

const ns = 'wire';
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const cms = `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  const protoDir = path.resolve(__dirname, '../../proto');
  root = new protobuf.Root();
  root.resolvePath = (_o, t) => (path.isAbsolute(t) ? t : path.join(protoDir, t));
  await root.load(['k8s.io/api/core/v1/generated.proto', 'github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto'], { keepCase: true });
  const nsBody = JSON.stringify(namespace(ns));
  for (const s of [plain, gated]) {
    const r = await s.request('POST', '/api/v1/namespaces', { body: nsBody, headers: { 'content-type': 'application/json' } });
    expect([201, 409]).toContain(r.status);
  }
});

// ---------------------------------------------------------------- protobuf

const t = (name: string) => root.lookupType(name);
const Unknown = () => t('k8s.io.apimachinery.pkg.runtime.Unknown');

/** kube's object envelope: magic + runtime.Unknown{typeMeta, raw}. */
function unwrap(b: Buffer, type: string): { typeMeta: { apiVersion?: string; kind?: string }; obj: Record<string, any> } {
  expect(b.subarray(0, 4)).toEqual(MAGIC);
  const u = Unknown().toObject(Unknown().decode(b.subarray(4))) as { typeMeta: { apiVersion?: string; kind?: string }; raw: Uint8Array };
  return { typeMeta: u.typeMeta, obj: t(type).toObject(t(type).decode(u.raw), { longs: String }) as Record<string, any> };
}

function wrap(apiVersion: string, kind: string, type: string, obj: Record<string, unknown>): Buffer {
  const raw = t(type).encode(t(type).fromObject(obj)).finish();
  return Buffer.concat([MAGIC, Buffer.from(Unknown().encode(Unknown().fromObject({ typeMeta: { apiVersion, kind }, raw })).finish())]);
}

/** Splits a `;stream=watch` body into its length-prefixed WatchEvent frames. */
function frames(b: Buffer): Array<{ type: string; object: Buffer }> {
  const out: Array<{ type: string; object: Buffer }> = [];
  const WatchEvent = t('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');
  for (let i = 0; i + 4 <= b.length; ) {
    const n = b.readUInt32BE(i);
    if (i + 4 + n > b.length) break;
    const e = WatchEvent.toObject(WatchEvent.decode(b.subarray(i + 4, i + 4 + n))) as { type: string; object: { raw: Uint8Array } };
    out.push({ type: e.type, object: Buffer.from(e.object.raw) });
    i += 4 + n;
  }
  return out;
}

describe('protobuf (application/vnd.kubernetes.protobuf)', () => {
  test('POST a protobuf body, GET and LIST it back in protobuf', async () => {
    const body = wrap('v1', 'Secret', 'k8s.io.api.core.v1.Secret', { metadata: { name: 'pb-1', labels: { wire: 'pb' } }, data: { key: Buffer.from([0, 1, 2, 255]) }, type: 'Opaque' });
    const created = await plain.request('POST', secrets, { body, headers: { 'content-type': PB, accept: PB } });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe(PB);
    const c = unwrap(created.body, 'k8s.io.api.core.v1.Secret');
    expect(c.typeMeta).toEqual({ apiVersion: 'v1', kind: 'Secret' });
    expect(c.obj.metadata.namespace).toBe(ns);
    expect(c.obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);

    const got = await plain.request('GET', `${secrets}/pb-1`, { headers: { accept: PB } });
    expect(got.status).toBe(200);
    const g = unwrap(got.body, 'k8s.io.api.core.v1.Secret');
    expect(Buffer.from(g.obj.data.key)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(g.obj.type).toBe('Opaque');
    // The same object in JSON carries the same bytes as base64.
    const json = JSON.parse((await plain.request('GET', `${secrets}/pb-1`)).body.toString());
    expect(json.data.key).toBe(Buffer.from([0, 1, 2, 255]).toString('base64'));
    expect(json.metadata.resourceVersion).toBe(g.obj.metadata.resourceVersion);

    const list = await plain.request('GET', `${secrets}?labelSelector=wire%3Dpb`, { headers: { accept: `${PB}, application/json` } });
    expect(list.headers['content-type']).toBe(PB);
    const l = unwrap(list.body, 'k8s.io.api.core.v1.SecretList');
    expect(l.typeMeta).toEqual({ apiVersion: 'v1', kind: 'SecretList' });
    expect(l.obj.items.map((i: any) => i.metadata.name)).toEqual(['pb-1']);
    expect(l.obj.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  test('a protobuf body without the magic prefix is rejected', async () => {
    const raw = t('k8s.io.api.core.v1.Secret').encode({ metadata: { name: 'nomagic' } }).finish();
    const r = await plain.request('POST', secrets, { body: Buffer.from(raw), headers: { 'content-type': PB } });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body.toString())).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  });

  test('WATCH in protobuf: ;stream=watch with length-prefixed WatchEvents', async () => {
    const rv = unwrap((await plain.request('GET', cms, { headers: { accept: PB } })).body, 'k8s.io.api.core.v1.ConfigMapList').obj.metadata.resourceVersion as string;
    const watching = plain.stream(`${cms}?watch=1&resourceVersion=${rv}`, { accept: PB }, (b) => frames(b).length >= 2);
    const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: name } });
    expect((await plain.request('POST', cms, { body: cm('w-1'), headers: { 'content-type': 'application/json' } })).status).toBe(201);
    expect((await plain.request('DELETE', `${cms}/w-1`)).status).toBe(200);
    const r = await watching;
    expect(r.headers['content-type']).toBe(`${PB};stream=watch`);
    const evs = frames(r.body);
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    const added = unwrap(evs[0]!.object, 'k8s.io.api.core.v1.ConfigMap');
    expect(added.typeMeta).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(added.obj.data).toEqual({ a: 'w-1' });
  });
});

// ---------------------------------------------------------------- gzip

describe('response compression (APIResponseCompression)', () => {
  const big = 'x'.repeat(60 * 1024);
  beforeAll(async () => {
    for (const s of [plain, gated]) {
      for (let i = 0; i < 3; i++) {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}`, labels: { size: 'big' } }, data: { v: big } });
        const r = await s.request('POST', cms, { body, headers: { 'content-type': 'application/json' } });
        expect(r.status).toBe(201);
      }
    }
  });

  test('a list over 128 KiB is gzipped when Accept-Encoding names gzip', async () => {
    const r = await plain.request('GET', `${cms}?labelSelector=size%3Dbig`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers['content-type']).toBe('application/json');
    const list = JSON.parse(gunzipSync(r.body).toString());
    expect(list.items.map((i: any) => i.metadata.name)).toEqual(['big-0', 'big-1', 'big-2']);
    const unzipped = await plain.request('GET', `${cms}?labelSelector=size%3Dbig`);
    expect(unzipped.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(unzipped.body.toString()).items).toEqual(list.items);
  });

  test('gzip among other codings; protobuf lists too', async () => {
    const r = await plain.request('GET', `${cms}?labelSelector=size%3Dbig`, { headers: { 'accept-encoding': 'deflate, gzip, br', accept: PB } });
    expect(r.headers['content-encoding']).toBe('gzip');
    const l = unwrap(gunzipSync(r.body), 'k8s.io.api.core.v1.ConfigMapList');
    expect(l.obj.items).toHaveLength(3);
  });

  test('small responses, a q-valued gzip, no Accept-Encoding: not compressed', async () => {
    const small = await plain.request('GET', `${cms}/big-0?fieldSelector=x`, { headers: { 'accept-encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined(); // ~60 KiB < 128 KiB
    expect(small.headers.vary).toBeUndefined();
    // kube's negotiateContentEncoding compares whole tokens: "gzip;q=1" is not "gzip".
    const q = await plain.request('GET', `${cms}?labelSelector=size%3Dbig`, { headers: { 'accept-encoding': 'gzip;q=1' } });
    expect(q.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(q.body.toString()).items).toHaveLength(3);
  });

  test('watches are never compressed', async () => {
    const r = await plain.stream(`${cms}?watch=1&labelSelector=size%3Dbig&resourceVersion=0`, { 'accept-encoding': 'gzip' }, (b) => b.toString().split('\n').length > 3);
    expect(r.headers['content-encoding']).toBeUndefined();
    const lines = r.body.toString().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
  });

  test('--feature-gates=APIResponseCompression=false turns it off', async () => {
    const r = await gated.request('GET', `${cms}?labelSelector=size%3Dbig`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(r.body.toString()).items).toHaveLength(3);
  });
});

// ---------------------------------------------------------------- CBOR

const CBOR = 'application/cbor';
const SELF_DESCRIBED = Buffer.from([0xd9, 0xd9, 0xf7]);
const cbor = new CborCodec({ byteFields: (_v, kind) => (kind === 'Secret' ? [['data', '*']] : undefined) });

/** Splits an application/cbor-seq body into its items (each self-described). */
function cborItems(b: Buffer): any[] {
  const out: any[] = [];
  let rest = b;
  while (rest.length) {
    const next = rest.indexOf(SELF_DESCRIBED, 3);
    const end = next < 0 ? rest.length : next;
    // The nested object is self-described too: grow until the slice decodes.
    let cut = end;
    for (;;) {
      try {
        out.push(decodeCbor(rest.subarray(0, cut)));
        break;
      } catch {
        const more = rest.indexOf(SELF_DESCRIBED, cut + 1);
        if (more < 0 && cut === rest.length) return out;
        cut = more < 0 ? rest.length : more;
      }
    }
    rest = rest.subarray(cut);
  }
  return out;
}

describe('CBOR, gate off (the default): application/cbor is unknown', () => {
  test('Accept: application/cbor → 406 without CBOR in the list', async () => {
    const r = await plain.request('GET', secrets, { headers: { accept: CBOR } });
    expect(r.status).toBe(406);
    expect(JSON.parse(r.body.toString()).message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  test('Content-Type: application/cbor → 415', async () => {
    const r = await plain.request('POST', secrets, { body: cbor.encode({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c' } }), headers: { 'content-type': CBOR } });
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body.toString()).message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });
});

describe('CBOR, CBORServingAndStorage=true', () => {
  test('POST a CBOR body, GET and LIST in CBOR: self-described, byte strings, tag 22 for data', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cbor-1', labels: { wire: 'cbor' } }, data: { key: Buffer.from([0, 1, 254]).toString('base64') }, type: 'Opaque' };
    const created = await gated.request('POST', secrets, { body: cbor.encode(secret), headers: { 'content-type': CBOR, accept: CBOR } });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe(CBOR);
    expect(created.body.subarray(0, 3)).toEqual(SELF_DESCRIBED);
    const c = decodeCbor(created.body) as any;
    expect(c).toMatchObject({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data: { key: 'AAH+' }, metadata: { name: 'cbor-1', namespace: ns } });
    // data.key: 0x43 "key" then tag 22 (0xd6) around the 3 raw bytes (0x43 00 01 fe)
    expect(created.body.includes(Buffer.from('436b6579d643' + '0001fe', 'hex'))).toBe(true);
    // kind is a byte string (major type 2), as kube writes every string
    expect(created.body.includes(Buffer.concat([Buffer.from([0x44]), Buffer.from('kind'), Buffer.from([0x46]), Buffer.from('Secret')]))).toBe(true);

    const json = JSON.parse((await gated.request('GET', `${secrets}/cbor-1`)).body.toString());
    expect(json.data.key).toBe('AAH+');
    const got = decodeCbor((await gated.request('GET', `${secrets}/cbor-1`, { headers: { accept: CBOR } })).body);
    expect(got).toEqual(JSON.parse(JSON.stringify(json)));

    const list = await gated.request('GET', `${secrets}?labelSelector=wire%3Dcbor`, { headers: { accept: `${CBOR};q=0.9, application/xml` } });
    expect(list.headers['content-type']).toBe(CBOR);
    const l = decodeCbor(list.body) as any;
    expect(l.kind).toBe('SecretList');
    expect(l.items.map((i: any) => i.data.key)).toEqual(['AAH+']);
  });

  test('a text-string CBOR body without the self-described tag is accepted too', async () => {
    // {"metadata": {"name": "cbor-text"}} with text-string keys (major type 3), no tag 55799.
    const body = Buffer.from('a1686d65746164617461a1646e616d6569' + Buffer.from('cbor-text').toString('hex'), 'hex');
    const r = await gated.request('POST', cms, { body, headers: { 'content-type': CBOR } });
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body.toString())).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'cbor-text' } });
  });

  test('malformed CBOR is a 400 naming the kind', async () => {
    const r = await gated.request('POST', secrets, { body: Buffer.from('a2616101616102', 'hex'), headers: { 'content-type': CBOR } });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body.toString()).message).toBe(
      'the object provided is unrecognized (must be of type Secret): unable to determine group/version/kind: cbor: found duplicate map key "a" at map element index 1 (a2616101616102)',
    );
  });

  test('406 and 415 now list application/cbor; errors are negotiated to CBOR', async () => {
    const r = await gated.request('GET', secrets, { headers: { accept: 'application/xml' } });
    expect(JSON.parse(r.body.toString()).message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
    );
    const missing = await gated.request('GET', `${secrets}/nope`, { headers: { accept: CBOR } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe(CBOR);
    expect(decodeCbor(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  test('application/cbor is no patch kind: 415 listing apply-patch+cbor among the accepted ones', async () => {
    const r = await gated.request('PATCH', `${secrets}/cbor-1`, { body: cbor.encode({ data: {} }), headers: { 'content-type': CBOR } });
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body.toString()).message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
    );
  });

  test('server-side apply in CBOR (application/apply-patch+cbor), as kube 1.32 serves it with the gate on', async () => {
    const path = `${cms}/applied-cbor?fieldManager=cbor-client`;
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied-cbor' }, data: { a: 'b' } };
    const made = await gated.request('PATCH', path, { body: cbor.encode(config), headers: { 'content-type': 'application/apply-patch+cbor' } });
    expect(made.status).toBe(201);
    const obj = JSON.parse(made.body.toString());
    expect(obj.data).toEqual({ a: 'b' });
    expect(obj.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'cbor-client', operation: 'Apply', fieldsType: 'FieldsV1' })]);
    const again = await gated.request('PATCH', path, { body: cbor.encode({ ...config, data: { a: 'c' } }), headers: { 'content-type': 'application/apply-patch+cbor' } });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body.toString()).data).toEqual({ a: 'c' });
    const bad = await gated.request('PATCH', path, { body: Buffer.from([0xff]), headers: { 'content-type': 'application/apply-patch+cbor' } });
    expect(bad.status).toBe(400);
    // kube's applyPatcher words a CBOR decode failure as for YAML.
    expect(JSON.parse(bad.body.toString()).message).toMatch(/^error decoding YAML: /);
    const list = await gated.request('PATCH', path, { body: cbor.encode([1] as never), headers: { 'content-type': 'application/apply-patch+cbor' } });
    expect(JSON.parse(list.body.toString()).message).toBe('error decoding YAML: cbor: cannot unmarshal array into Go value of type map[string]interface {}');
  });

  test('WATCH in CBOR: application/cbor-seq, one self-described {type, object} per event', async () => {
    const rv = (decodeCbor((await gated.request('GET', cms, { headers: { accept: CBOR } })).body) as any).metadata.resourceVersion;
    const watching = gated.stream(`${cms}?watch=true&resourceVersion=${rv}&labelSelector=wire%3Dseq`, { accept: CBOR }, (b) => cborItems(b).length >= 2);
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seq-1', labels: { wire: 'seq' } }, data: { a: 'b' } });
    expect((await gated.request('POST', cms, { body, headers: { 'content-type': 'application/json' } })).status).toBe(201);
    expect((await gated.request('DELETE', `${cms}/seq-1`)).status).toBe(200);
    const r = await watching;
    expect(r.headers['content-type']).toBe('application/cbor-seq');
    const events = cborItems(r.body);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    expect(events[0].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'seq-1' }, data: { a: 'b' } });
  });
});

// ---------------------------------------------------------------- OpenAPI v2 protobuf, kubectl explain

describe('/openapi/v2 in protobuf (gnostic openapi_v2.Document)', () => {
  const PB_V2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

  test('client-go OpenAPISchema() Accept → the dotted content type, JSON ETag, gnostic Document', async () => {
    const json = await plain.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
    const r = await plain.request('GET', '/openapi/v2', { headers: { accept: PB_V2 } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(r.headers.etag).toBe(json.headers.etag);
    expect(r.headers.vary).toBe('Accept-Encoding, Accept');
    expect(r.headers['last-modified']).toMatch(/GMT$/);
    const Document = t('openapi.v2.Document');
    const doc = Document.toObject(Document.decode(r.body)) as any;
    expect(doc.swagger).toBe('2.0');
    expect(doc.info.title).toBe('Kubernetes');
    const defs = new Map<string, any>(doc.definitions.additional_properties.map((d: any) => [d.name, d.value]));
    const secret = defs.get('io.k8s.api.core.v1.Secret');
    const data = secret.properties.additional_properties.find((p: any) => p.name === 'data').value;
    expect(data.type.value).toEqual(['object']);
    expect(data.additional_properties.schema).toMatchObject({ type: { value: ['string'] }, format: 'byte' });
    const gvk = secret.vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
    expect(gvk.value.yaml).toBe('- group: ""\n  kind: Secret\n  version: v1\n');
    const paths = new Map<string, any>(doc.paths.path.map((p: any) => [p.name, p.value]));
    const create = paths.get('/api/v1/namespaces/{namespace}/secrets').post;
    expect(create.operation_id).toBe('createCoreV1NamespacedSecret');
    const params = create.parameters.map((p: any) => p.parameter.body_parameter?.name ?? p.parameter.non_body_parameter.query_parameter_sub_schema.name);
    expect(params).toEqual(expect.arrayContaining(['body', 'dryRun', 'fieldManager', 'fieldValidation']));
  });

  test('gzip (kube-openapi wraps v2 in gziphandler), If-None-Match → 304, unknown types → bare 406', async () => {
    const r = await plain.request('GET', '/openapi/v2', { headers: { accept: PB_V2, 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBe('gzip');
    const Document = t('openapi.v2.Document');
    expect((Document.toObject(Document.decode(gunzipSync(r.body))) as any).swagger).toBe('2.0');
    const again = await plain.request('GET', '/openapi/v2', { headers: { accept: PB_V2, 'if-none-match': String(r.headers.etag) } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const bad = await plain.request('GET', '/openapi/v2', { headers: { accept: 'application/xml' } });
    expect(bad.status).toBe(406);
    expect(bad.body.length).toBe(0);
  });

  test('kubectl explain --output=plaintext-openapiv2 reads the protobuf document', async () => {
    const r = await plain.kubectl(['explain', 'secret.immutable', '--output=plaintext-openapiv2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('KIND:     Secret\nVERSION:  v1\n\nFIELD:    immutable <boolean>\n');
  });
});

describe('kubectl explain (OpenAPI v3)', () => {
  test('kubectl explain secret.data', async () => {
    const r = await plain.kubectl(['explain', 'secret.data']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(EXPLAIN_SECRET_DATA);
  });

  test('kubectl explain resourcequota.spec.scopeSelector --recursive', async () => {
    const r = await plain.kubectl(['explain', 'resourcequota.spec.scopeSelector', '--recursive']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(EXPLAIN_SCOPE_SELECTOR);
  });
});

/**
 * kubectl 1.32's plaintext explain layout (KIND/VERSION/FIELD/DESCRIPTION/FIELDS, `-required-`,
 * `enum:` lines for kube's +enum fields, the recursive tree) over our schema: the descriptions are
 * openapi/api__v1.json's, written in our own words, so only they differ from kube-apiserver's output.
 */
const EXPLAIN_SECRET_DATA = `KIND:       Secret
VERSION:    v1

FIELD: data <map[string]string>


DESCRIPTION:
    The secret content: keys made of alphanumerics, "-", "_" or "."; values are
    arbitrary bytes, written as base64 strings in JSON and YAML. Together with
    stringData the total size must stay under 1 MiB.
    

`;

const EXPLAIN_SCOPE_SELECTOR = `KIND:       ResourceQuota
VERSION:    v1

FIELD: scopeSelector <ScopeSelector>


DESCRIPTION:
    Selects the objects the quota tracks by scope expressions; an object must
    match every expression and every entry of scopes.
    A set of scope expressions that the objects tracked by a quota must all
    match.
    
FIELDS:
  matchExpressions	<[]ScopedResourceSelectorRequirement>
    operator	<string> -required-
    enum: DoesNotExist, Exists, In, NotIn
    scopeName	<string> -required-
    enum: BestEffort, CrossNamespacePodAffinity, NotBestEffort, NotTerminating, ....
    values	<[]string>

`;
