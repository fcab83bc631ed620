/**
 * Writes whose response carries client-controlled text, against the real server and etcd: the Warning
 * headers (kube's recorder, kube-limits §7) go out as the exact bytes kube-apiserver writes, over
 * HTTP/1.1 and HTTP/2, bounded as kube bounds them; a write is never stored while the client is told
 * it failed; `null` map values decode as kube decodes them (kube-limits §9). After each scenario the
 * server still answers.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { connectH2, H2Client } from '../support/h2-client';
import { expectStatus, failure } from '../support/kube-status';
import { useTestServer } from '../support/server-fixture';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

const execFileP = promisify(execFile);

let h2: H2Client;
let caFile: string;
const { srv } = useTestServer({ beforeStop: () => h2?.close() });
const ns = 'hostile';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const secrets = `/api/v1/namespaces/${ns}/secrets`;

beforeAll(async () => {
  caFile = path.join(srv.dir, 'ca.crt');
  await writeFile(caFile, srv.caCert);
  expect((await srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
  h2 = await connectH2(srv.url, srv.caCert, srv.token);
});

afterEach(async () => {
  // The process is alive and serving after every scenario.
  const r = await srv.request('GET', '/readyz');
  expect(r.status).toBe(200);
});

/** What kube-apiserver writes for a warning text: `299 - "<text>"`, `"`/`\` escaped, UTF-8 as-is. */
const warningBytes = (text: string) => Buffer.from(`299 - "${text.replace(/["\\]/g, '\\$&')}"`, 'utf8');

interface RawResponse {
  status: number;
  /** The Warning header values, as the bytes on the wire. */
  warnings: Buffer[];
  /** Every header line, as bytes. */
  headerBlock: Buffer;
  body: Buffer;
  json<T = any>(): T;
}

let curlN = 0;
/** One request through curl (HTTP/1.1 or HTTP/2), keeping the response header bytes exactly. */
async function curl(proto: 'http1.1' | 'http2', method: string, p: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  const n = ++curlN;
  const hdrFile = path.join(srv.dir, `curl-${n}.headers`);
  const outFile = path.join(srv.dir, `curl-${n}.body`);
  const args = ['-sS', `--${proto}`, '--cacert', caFile, '-X', method, '-H', `Authorization: Bearer ${srv.token}`, '-D', hdrFile, '-o', outFile];
  for (const [k, v] of Object.entries({ 'Content-Type': 'application/json', ...headers })) args.push('-H', `${k}: ${v}`);
  if (body !== undefined) {
    const inFile = path.join(srv.dir, `curl-${n}.in`);
    await writeFile(inFile, body);
    args.push('--data-binary', `@${inFile}`);
  }
  args.push(`${srv.url}${p}`);
  await execFileP('curl', args, { maxBuffer: 64 << 20 });
  const { readFile } = await import('node:fs/promises');
  // curl writes every header block it got (a 100 Continue first, for big bodies): keep the last one.
  const blocks = (await readFile(hdrFile)).toString('latin1').split('\r\n\r\n').filter((b) => b.length);
  const headerBlock = Buffer.from(blocks[blocks.length - 1]!, 'latin1');
  const out = await readFile(outFile);
  const lines: Buffer[] = [];
  for (let i = 0; i < headerBlock.length; ) {
    let j = headerBlock.indexOf('\r\n', i);
    if (j < 0) j = headerBlock.length;
    lines.push(headerBlock.subarray(i, j));
    i = j + 2;
  }
  const statusLine = lines[0]!.toString('latin1');
  const warnings = lines.filter((l) => /^warning: /i.test(l.subarray(0, 9).toString('latin1'))).map((l) => l.subarray(9));
  return { status: Number(statusLine.split(' ')[1]), warnings, headerBlock, body: out, json: () => JSON.parse(out.toString('utf8')) };
}

/** The object as stored (read back through the API), or the 404. */
const read = (p: string) => srv.request('GET', p);

describe('a non-ASCII unknown field: 201 and the Warning as kube writes it', () => {
  const bodyOf = (name: string) => `{"metadata":{"name":"${name}"},"z😀":1}`;
  const expected = warningBytes('unknown field "z😀"');

  test.each([['http1.1' as const], ['http2' as const]])('over %s (curl): the header bytes are the UTF-8 text', async (proto) => {
    const name = `emoji-${proto.replace('.', '')}`;
    const r = await curl(proto, 'POST', cms, bodyOf(name));
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual([expected]);
    expect(r.json()).toMatchObject({ kind: 'ConfigMap', metadata: { name, namespace: ns } });
    const got = await read(`${cms}/${name}`);
    expect(got.status).toBe(200);
    expect(got.json()).not.toHaveProperty('z😀');
  });

  test('over HTTP/2 (Node client): one warning field, the UTF-8 bytes', async () => {
    const r = await h2.request('POST', cms, { body: bodyOf('emoji-node-h2') });
    expect(r.status).toBe(201);
    // Node hands header bytes over as latin1 characters.
    expect(Buffer.from(String(r.headers.warning), 'latin1')).toEqual(expected);
  });

  test('escaping: only " and \\ get a backslash; other non-ASCII passes as-is', async () => {
    const r = await curl('http1.1', 'POST', cms, JSON.stringify({ metadata: { name: 'escapes' }, 'q"b\\s é\u2028': 1 }));
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual([Buffer.from('299 - "unknown field \\"q\\"b\\\\s é\u2028\\""', 'utf8')]);
  });

  test('update and JSON merge patch carry it too; apply refuses the field', async () => {
    const name = 'emoji-verbs';
    expect((await curl('http1.1', 'POST', cms, bodyOf(name))).status).toBe(201);
    const put = await curl('http2', 'PUT', `${cms}/${name}`, `{"metadata":{"name":"${name}"},"data":{"a":"1"},"ü":{}}`);
    expect([put.status, put.warnings]).toEqual([200, [warningBytes('unknown field "ü"')]]);
    const patch = await curl('http1.1', 'PATCH', `${cms}/${name}`, '{"data":{"b":"2"},"ñ":1}', { 'Content-Type': 'application/merge-patch+json' });
    expect([patch.status, patch.warnings]).toEqual([200, [warningBytes('unknown field "ñ"')]]);
    const apply = await curl(
      'http2',
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/emoji-applied?fieldManager=t`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: emoji-applied\ndata:\n  k: v\n"ß😀": 1\n',
      { 'Content-Type': 'application/apply-patch+yaml' },
    );
    // As kube: server-side apply refuses a field outside the schema with a 500, and stores nothing.
    expect([apply.status, apply.json().message]).toEqual([
      500,
      'failed to create typed patch object (/emoji-applied; /v1, Kind=ConfigMap): .ß😀: field not declared in schema',
    ]);
    expect((await read(`${cms}/emoji-applied`)).status).toBe(404);
  });

  test('an error after warnings carries them too (409 with the warning)', async () => {
    const r = await curl('http1.1', 'POST', cms, bodyOf('emoji-http11'));
    expect(r.status).toBe(409);
    expect(r.warnings).toEqual([expected]);
    expect(r.json()).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', code: 409 });
  });

  test('Strict: 400 naming the field, nothing stored', async () => {
    const r = await curl('http1.1', 'POST', `${cms}?fieldValidation=Strict`, bodyOf('emoji-strict'));
    expect(r.status).toBe(400);
    expect(r.json().message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "z😀"');
    expect((await read(`${cms}/emoji-strict`)).status).toBe(404);
  });
});

describe('bounds', () => {
  test('a 100,000-character unknown field: 201 and one warning cut to 256 runes', async () => {
    const field = 'w'.repeat(100_000);
    const r = await curl('http1.1', 'POST', cms, `{"metadata":{"name":"long-field"},"${field}":1}`);
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual([warningBytes(`unknown field "${'w'.repeat(256 - 15)}`)]);
    expect(r.headerBlock.length).toBeLessThan(2048);
    expect((await read(`${cms}/long-field`)).status).toBe(200);
  });

  test('the same over HTTP/2 with multi-byte runes: cut on a rune boundary', async () => {
    const r = await curl('http2', 'POST', cms, `{"metadata":{"name":"long-emoji"},"${'😀'.repeat(100_000)}":1}`);
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual([warningBytes(`unknown field "${'😀'.repeat(256 - 15)}`)]);
  });

  test('1000 distinct unknown fields: whole while the total stays within 4096 runes, then truncating mode', async () => {
    const fields = Array.from({ length: 1000 }, (_, i) => `"f${i}":1`).join(',');
    const r = await curl('http1.1', 'POST', cms, `{"metadata":{"name":"many-fields"},${fields}}`);
    expect(r.status).toBe(201);
    // `unknown field "fN"` is 18 runes (N < 10), 19 (< 100), 20 (< 1000): 1890 runes for f0–f99, then 110 more
    // fit (4090); f210 passes 4096 and switches to truncating mode (all kept, being short: 4110 runes); the
    // count is past 4096 so f211 on are discarded.
    expect(r.warnings).toEqual(Array.from({ length: 211 }, (_, i) => warningBytes(`unknown field "f${i}"`)));
  });

  test('250,000 unknown fields (a 3 MB body): 201, the same 211 warnings', async () => {
    const fields = Array.from({ length: 250_000 }, (_, i) => `"f${i}":1`).join(',');
    const r = await curl('http2', 'POST', cms, `{"metadata":{"name":"most-fields"},${fields}}`);
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual(Array.from({ length: 211 }, (_, i) => warningBytes(`unknown field "f${i}"`)));
  });

  test('an apply repeating a key 20,000 times: 201, duplicate warnings bounded the same way', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `  k: "${i}"`).join('\n');
    const r = await curl('http1.1', 'PATCH', `${cms}/dup-apply?fieldManager=t`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup-apply\ndata:\n${lines}\n`, {
      'Content-Type': 'application/apply-patch+yaml',
    });
    expect(r.status).toBe(201);
    expect(r.warnings[0]).toEqual(warningBytes('line 7: key "k" already set in map'));
    expect(r.warnings.reduce((n, w) => n + w.length, 0)).toBeLessThan(17_000);
  });

  test('several long fields: each re-emitted cut to 256 runes once the total passes 4096', async () => {
    const long = (c: string) => c.repeat(3000);
    const r = await curl('http2', 'POST', cms, `{"metadata":{"name":"long-fields"},"${long('a')}":1,"${long('b')}":1,"short":1,"${long('c')}":1}`);
    expect(r.status).toBe(201);
    // "a…" (3015 runes) fits; "b…" passes 4096: both cut, then "short" and "c…" (cut) are added.
    expect(r.warnings).toEqual([
      warningBytes(`unknown field "${'a'.repeat(241)}`),
      warningBytes(`unknown field "${'b'.repeat(241)}`),
      warningBytes('unknown field "short"'),
      warningBytes(`unknown field "${'c'.repeat(241)}`),
    ]);
  });
});

describe('the largest Warning block a body can cause', () => {
  // 20 fields of 300 emoji: 12 fit whole (316 runes each, 3792); the 13th switches to truncating (13 × 256),
  // the 14th–16th bring the count to 4096 and the rest are discarded: 16 warnings of 15 + 241 emoji.
  const fields = Array.from({ length: 20 }, (_, i) => `${String.fromCodePoint(0x1f600 + i).repeat(300)}`);
  const body = (name: string) => `{"metadata":{"name":"${name}"},${fields.map((f) => `"${f}":1`).join(',')}}`;
  const expected = fields.slice(0, 16).map((f) => warningBytes(`unknown field "${[...f].slice(0, 241).join('')}`));

  test.each([['http1.1' as const], ['http2' as const]])('over %s: 201 with 16 warnings (~16 KB)', async (proto) => {
    const r = await curl(proto, 'POST', cms, body(`widest-${proto.replace('.', '')}`));
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual(expected);
    expect(r.warnings.reduce((n, w) => n + w.length, 0)).toBeLessThan(17_000);
  });

  test('with a gzip response (over 128 KiB): the headers keep their bytes, the body decompresses', async () => {
    const big = `{"metadata":{"name":"gzipped"},"data":{"k":"${'v'.repeat(200_000)}"},"z😀":1}`;
    const r = await curl('http1.1', 'POST', cms, big, { 'Accept-Encoding': 'gzip' });
    expect(r.status).toBe(201);
    expect(r.headerBlock.toString('latin1')).toMatch(/\r\ncontent-encoding: gzip\r\n/i);
    expect(r.warnings).toEqual([warningBytes('unknown field "z😀"')]);
    const { gunzipSync } = await import('node:zlib');
    expect(JSON.parse(gunzipSync(r.body).toString('utf8')).data.k).toHaveLength(200_000);
  });
});

describe('texts kube refuses', () => {
  test('fields with control characters: the warning is dropped, the write succeeds', async () => {
    const body = JSON.stringify({ metadata: { name: 'controls' }, 'a\tb': 1, 'c\u0085': 1, 'd\u007f': 1, 'e\r\nX-Injected: 1': 1, ok: 1 });
    for (const proto of ['http1.1', 'http2'] as const) {
      const r = await curl(proto, 'POST', `${cms}?dryRun=All`, body);
      expect(r.status).toBe(201);
      expect(r.warnings).toEqual([warningBytes('unknown field "ok"')]);
      expect(r.headerBlock.toString('latin1')).not.toMatch(/x-injected/i);
    }
  });

  test('lone surrogates are U+FFFD (as Go decodes them) and dedupe', async () => {
    const r = await curl('http1.1', 'POST', `${cms}?dryRun=All`, '{"metadata":{"name":"surrogates"},"x\\ud800":1,"x\\udc00":2}');
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual([warningBytes('unknown field "x\ufffd"')]);
  });
});

describe('nothing stored when the client is told the write failed', () => {
  const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';

  test('a bad Table option on a create is refused before the commit', async () => {
    const r = await srv.request('POST', `${cms}?includeObject=Bogus`, { body: { metadata: { name: 'table-bogus' } }, headers: { accept: tableAccept } });
    expectStatus(r, failure(400, 'BadRequest', 'unrecognized includeObject value: "Bogus"'));
    expect((await read(`${cms}/table-bogus`)).status).toBe(404);
  });

  test('… and on update, patch and delete', async () => {
    expect((await srv.request('POST', cms, { body: { metadata: { name: 'table-kept' }, data: { a: '1' } } })).status).toBe(201);
    const bad = { accept: tableAccept };
    const put = await srv.request('PUT', `${cms}/table-kept?includeObject=Bogus`, { body: { metadata: { name: 'table-kept' }, data: { a: '2' } }, headers: bad });
    expect(put.status).toBe(400);
    const patch = await srv.request('PATCH', `${cms}/table-kept?includeObject=Bogus`, { body: { data: { a: '3' } }, headers: { ...bad, 'content-type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(400);
    const del = await srv.request('DELETE', `${cms}/table-kept?includeObject=Bogus`, { headers: bad });
    expect(del.status).toBe(400);
    const delAll = await srv.request('DELETE', `${cms}?includeObject=Bogus&labelSelector=nothing`, { headers: bad });
    expect(delAll.status).toBe(400);
    const got = await read(`${cms}/table-kept`);
    expect(got.json().data).toEqual({ a: '1' });
  });

  test('a Table response of a create with a hostile field and a valid includeObject: 201', async () => {
    const r = await srv.request('POST', `${cms}?includeObject=Object`, { body: { metadata: { name: 'table-ok', labels: { 'a.b/c': 'd' } }, 'ü"': 1 }, headers: { accept: tableAccept } });
    expect(r.status).toBe(201);
    expect(r.json()).toMatchObject({ kind: 'Table', rows: [{ cells: ['table-ok', 0, expect.any(String)] }] });
  });

  test.each([
    ['application/yaml'],
    ['application/vnd.kubernetes.protobuf'],
    ['application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'],
  ])('a create answered as %s with non-ASCII everywhere: 201', async (accept) => {
    const name = `enc-${accept.length}`;
    const body = { metadata: { name, annotations: { 'x/y': 'é😀\u2028\u0000"\\' }, labels: { a: 'b' } }, data: { k: '\ud800\u0000\u0085' }, binaryData: { b: null }, 'ñ': 1 };
    const r = await curl('http1.1', 'POST', cms, JSON.stringify(body), { Accept: accept });
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual([warningBytes('unknown field "ñ"')]);
  });
});

describe('deep client data and every response encoder', () => {
  // managedFields[].fieldsV1 is the one free-form (raw) field of these kinds: 9000 levels pass Go's
  // decoder limit (10000) but overflow a recursive JS encoder if they survive to the response.
  const deep = '{"f:a":'.repeat(9000) + '{}' + '}'.repeat(9000);
  test.each([
    ['application/json', 'deep-json'],
    ['application/yaml', 'deep-yaml'],
    ['application/vnd.kubernetes.protobuf', 'deep-protobuf'],
    ['application/json;as=Table;v=v1;g=meta.k8s.io', 'deep-table'],
  ])(
    'answered as %s: 201 and stored, never a failure after the commit',
    async (accept, name) => {
      const body = `{"metadata":{"name":"${name}","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${deep}}]}}`;
      const r = await srv.request('POST', `${cms}?pretty=true`, { body, headers: { accept } });
      expect(r.status).toBe(201);
      expect((await read(`${cms}/${name}`)).status).toBe(200);
    },
  );
});

describe('null map values (kube-limits §9)', () => {
  test('ConfigMap binaryData {"k": null}: 201, read back as ""', async () => {
    const r = await srv.request('POST', cms, { body: '{"metadata":{"name":"bin-null"},"binaryData":{"k":null}}' });
    expect(r.status).toBe(201);
    expect(r.json().binaryData).toEqual({ k: '' });
    expect((await read(`${cms}/bin-null`)).json().binaryData).toEqual({ k: '' });
  });

  test('ConfigMap data {"k": null} is "" too; so is a dry run', async () => {
    const r = await srv.request('POST', `${cms}?dryRun=All`, { body: '{"metadata":{"name":"data-null"},"data":{"k":null},"binaryData":{"b":null}}' });
    expect(r.status).toBe(201);
    expect(r.json()).toMatchObject({ data: { k: '' }, binaryData: { b: '' } });
    expect((await read(`${cms}/data-null`)).status).toBe(404);
  });

  test('Secret data {"k": null} and stringData {"s": null}: data holds both as ""', async () => {
    const r = await srv.request('POST', secrets, { body: '{"metadata":{"name":"sec-null"},"data":{"k":null},"stringData":{"s":null}}' });
    expect(r.status).toBe(201);
    expect(r.json().data).toEqual({ k: '', s: '' });
    expect((await read(`${secrets}/sec-null`)).json().data).toEqual({ k: '', s: '' });
  });

  test('update and JSON patch with a null bytes value', async () => {
    const put = await srv.request('PUT', `${cms}/bin-null`, { body: '{"metadata":{"name":"bin-null"},"binaryData":{"k":null,"j":null}}' });
    expect([put.status, put.json().binaryData]).toEqual([200, { k: '', j: '' }]);
    const patch = await srv.request('PATCH', `${cms}/bin-null`, {
      body: '[{"op":"add","path":"/binaryData/m","value":null}]',
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect([patch.status, patch.json().binaryData]).toEqual([200, { k: '', j: '', m: '' }]);
  });
});

describe('clients', () => {
  test('@kubernetes/client-node: a create whose response carries a non-ASCII warning succeeds', async () => {
    const k8s: typeof K8sModule = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(srv.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    let warning: string | undefined;
    // The typed client drops unknown properties: send the raw body and look at the response headers.
    const created = await core.createNamespacedConfigMap(
      { namespace: ns, body: { metadata: { name: 'client-node' } } },
      {
        middleware: [
          {
            pre: (ctx) => {
              ctx.setBody('{"metadata":{"name":"client-node"},"data":{"a":"b"},"z😀":1}');
              return new k8s.Observable(Promise.resolve(ctx));
            },
            post: (resp) => {
              warning = resp.headers.warning;
              return new k8s.Observable(Promise.resolve(resp));
            },
          },
        ],
        middlewareMergeStrategy: 'append',
      },
    );
    expect(created.metadata?.name).toBe('client-node');
    expect(created.data).toEqual({ a: 'b' });
    expect(Buffer.from(warning ?? '', 'latin1')).toEqual(warningBytes('unknown field "z😀"'));
  });

  test('the Python client (urllib3): the create succeeds and the header bytes are the UTF-8 text', async () => {
    const script = [
      'import sys, json',
      'from kubernetes import client, config',
      'config.load_kube_config(sys.argv[1])',
      'api = client.CoreV1Api()',
      'r = api.create_namespaced_config_map(sys.argv[2], {"metadata": {"name": "python"}, "z\\U0001F600": 1}, _preload_content=False)',
      'print(json.dumps({"status": r.status, "warning": [w.encode("latin-1").hex() for w in r.headers.getlist("Warning")], "name": json.loads(r.data)["metadata"]["name"]}))',
    ].join('\n');
    const { stdout } = await execFileP('/usr/bin/python3', ['-c', script, srv.kubeconfig, ns], { timeout: 60_000, env: { ...process.env, HOME: srv.dir } });
    expect(JSON.parse(stdout)).toEqual({ status: 201, warning: [warningBytes('unknown field "z😀"').toString('hex')], name: 'python' });
  });
});

describe('an object too large for etcd (its default 1.5 MiB request limit)', () => {
  /** A ConfigMap of `keys` empty values: within the 1 MiB data limit, stored about twice as large with its managedFields. */
  const wide = (name: string, keys: number) => {
    const data: Record<string, string> = {};
    for (let i = 0; i < keys; i++) data[`k${i}`] = '';
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
  };

  test("past etcd's limit: kube's pass-through 500 with etcd's text, nothing stored", async () => {
    const r = await srv.request('POST', cms, { body: wide('too-large', 75_000) });
    expectStatus(r, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 });
    expect((await srv.request('GET', `${cms}/too-large`)).status).toBe(404);
  });

  test("past etcd's gRPC message limit: gRPC's text as Go's client words it, nothing stored", async () => {
    const r = await srv.request('POST', cms, { body: wide('far-too-large', 100_000) });
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: expect.stringMatching(/^rpc error: code = ResourceExhausted desc = grpc: received message larger than max \(\d+ vs\. \d+\)$/),
      code: 500,
    });
    expect((await srv.request('GET', `${cms}/far-too-large`)).status).toBe(404);
    expect((await srv.request('GET', '/readyz')).status).toBe(200);
  });
});

test('a data key named __proto__ is an ordinary key: stored and read back, with or without an unknown field (kube: 201)', async () => {
  for (const [name, extra] of [['proto-a', ''], ['proto-b', ',"junk":1']] as const) {
    const r = await srv.request('POST', cms, { body: `{"metadata":{"name":"${name}"},"data":{"__proto__":"v","k":"w"}${extra}}`, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(201);
    const got = await srv.request('GET', `${cms}/${name}`);
    expect(got.text).toContain('"data":{"__proto__":"v","k":"w"}');
  }
});
