/**
 * Property, against the real server on a real etcd: whatever a client sends — bodies of every media
 * type, the three patch types and apply, query parameters (selectors, continue, limits,
 * resourceVersions), headers — it gets a 4xx `Status`, a success, or one of kube's documented 5xx
 * answers, and the server stays up. Fixed seed; `make fuzz` runs the same properties for minutes.
 */
import fc from 'fast-check';
import * as yaml from 'js-yaml';
import { startTestEtcd, TestEtcd } from '../support/etcd';
import { HttpResult, startTestServer, TestServer } from '../support/api-server';
import { fuzzParams, fuzzTimeoutMs, hostileBody, hostileString, jsonish } from './fuzz-config';

let etcd: TestEtcd;
let srv: TestServer;
const ns = 'fuzz';
const configmaps = `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  etcd = await startTestEtcd();
  srv = await startTestServer({ etcdEndpoints: etcd.endpoints, featureGates: { CBORServingAndStorage: true } });
  expect((await srv.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status).toBe(201);
  expect((await srv.request('POST', configmaps, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: '1' } } })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await srv?.stop();
  await etcd?.stop();
});

/**
 * kube's 5xx answers a client can provoke by what it asks (not by what the server fails at):
 * 504 for a resourceVersion the server has not reached, 500 for an Exact list at a future revision
 * (etcd's error, unconverted by kube), and server-side apply's `failed to create typed patch
 * object` for a configuration that does not fit the schema (a plain error in kube 1.32's
 * structured-merge code, hence its 500).
 */
function documented5xx(r: HttpResult): boolean {
  if (r.status === 504) return /Too large resource version/.test(r.text);
  if (r.status === 500) return /required revision is a future revision|"failed to create typed patch object/.test(r.text);
  return false;
}

/** Kube's plain-text 4xx answers, written before any handler (max-in-flight's 429 among them). */
const plainText4xx = new Set([429, 431]);

/** The property: a success, a 4xx Status, or a documented 5xx; then the server still answers. */
function expectKubeAnswer(r: HttpResult, what: string): void {
  if (r.status >= 500 && !documented5xx(r)) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 500)}`);
  if (r.status >= 400 && r.status < 500 && !plainText4xx.has(r.status)) {
    const ct = String(r.headers['content-type'] ?? '');
    // Protobuf and CBOR Status bodies are checked by their decoders' own tests; here: JSON and YAML.
    if (!/json|yaml/.test(ct)) return;
    let body: { kind?: string; code?: number } = {};
    try {
      body = (ct.includes('yaml') ? yaml.load(r.text) : r.json()) as typeof body;
    } catch {
      throw new Error(`${what}: ${r.status} without a Status body: ${r.text.slice(0, 200)}`);
    }
    expect(body.kind).toBe('Status');
    expect(body.code).toBe(r.status);
  }
}

/** The string with lone surrogates replaced by U+FFFD (encodeURIComponent refuses them). */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

afterEach(async () => {
  expect((await srv.request('GET', '/readyz', { token: null })).status).toBe(200);
});

const contentTypes = fc.constantFrom(
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/cbor',
  'text/plain',
  'application/json; charset=utf-8',
);

const objectBody = fc
  .record({
    apiVersion: fc.oneof(fc.constant('v1'), hostileString(10)),
    kind: fc.oneof(fc.constant('ConfigMap'), fc.constant('Secret'), hostileString(10)),
    metadata: fc.oneof(
      fc.record({ name: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), hostileString(20)), labels: jsonish(2), annotations: jsonish(2), managedFields: jsonish(4) }, { requiredKeys: ['name'] }),
      jsonish(3),
    ),
    data: jsonish(3),
    binaryData: jsonish(2),
    stringData: jsonish(2),
    immutable: fc.oneof(fc.boolean(), jsonish(1)),
    extra: jsonish(3),
  }, { requiredKeys: ['metadata'] })
  .map((o) => JSON.stringify(o));

const rawBody = fc.oneof(objectBody, hostileString(300), fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')));

test(
  'create bodies of every media type',
  async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, contentTypes, fc.constantFrom('configmaps', 'secrets', 'resourcequotas'), async (body, ct, resource) => {
        const r = await srv.request('POST', `/api/v1/namespaces/${ns}/${resource}`, { body, headers: { 'content-type': ct } });
        expectKubeAnswer(r, `POST ${resource} ${ct} ${JSON.stringify(body).slice(0, 300)}`);
      }),
      fuzzParams(150),
    );
  },
  fuzzTimeoutMs,
);

test(
  'the hostile shapes of issue 25: deep nesting, aliases, repeated keys, unencodable warnings',
  async () => {
    await fc.assert(
      fc.asyncProperty(hostileBody, fc.constantFrom('', '?fieldValidation=Strict', '?dryRun=All'), async ({ body, contentType }, q) => {
        const r = await srv.request('POST', `${configmaps}${q}`, { body, headers: { 'content-type': contentType } });
        expectKubeAnswer(r, `POST ${contentType}${q} ${body.slice(0, 200)}`);
        if (r.status === 201 && !q.includes('dryRun')) {
          const name = (r.json() as { metadata: { name: string } }).metadata.name;
          expect((await srv.request('DELETE', `${configmaps}/${name}`)).status).toBe(200);
        }
      }),
      fuzzParams(60),
    );
  },
  fuzzTimeoutMs,
);

test(
  'patch and apply bodies',
  async () => {
    const patchType = fc.constantFrom(
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
      'application/apply-patch+cbor',
    );
    const jsonPatch = fc
      .array(fc.record({ op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), path: fc.constantFrom('/data/a', '/data', '/metadata/labels', '/x', '/data/-', ''), from: fc.constantFrom('/data', '/metadata'), value: jsonish(3) }, { requiredKeys: ['op'] }), { maxLength: 5 })
      .map((o) => JSON.stringify(o));
    const body = fc.oneof(rawBody, jsonPatch, jsonish(4).map((v) => JSON.stringify(v)));
    await fc.assert(
      fc.asyncProperty(body, patchType, fc.constantFrom('', '?fieldManager=fuzz', '?fieldManager=fuzz&force=true', '?fieldValidation=Strict&fieldManager=f', '?dryRun=All&fieldManager=f'), async (b, ct, q) => {
        const r = await srv.request('PATCH', `${configmaps}/target${q}`, { body: b, headers: { 'content-type': ct } });
        expectKubeAnswer(r, `PATCH ${ct}${q} ${b.slice(0, 300)}`);
      }),
      fuzzParams(150),
    );
  },
  fuzzTimeoutMs,
);

test(
  'query parameters of list and get',
  async () => {
    const value = fc.oneof(hostileString(40), fc.constantFrom('0', '1', '-1', '999999999999999999999', 'NotOlderThan', 'Exact', 'true', 'false', 'a=b', 'metadata.name=target', 'a in (b)', '!a'));
    const param = fc.tuple(
      fc.constantFrom('labelSelector', 'fieldSelector', 'continue', 'limit', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'allowWatchBookmarks', 'sendInitialEvents', 'pretty', 'fieldValidation', 'propagationPolicy', 'gracePeriodSeconds', 'dryRun'),
      value,
    );
    const query = fc.array(param, { minLength: 1, maxLength: 4 }).map((ps) => ps.map(([k, v]) => `${k}=${encodeURIComponent(wellFormed(v))}`).join('&'));
    const path = fc.constantFrom(configmaps, `${configmaps}/target`, '/api/v1/configmaps', '/api/v1/namespaces', `/api/v1/namespaces/${ns}/resourcequotas`);
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        const r = await srv.request('GET', `${p}?${q}`);
        expectKubeAnswer(r, `GET ${p}?${q}`);
      }),
      fuzzParams(200),
    );
  },
  fuzzTimeoutMs,
);

test(
  'request headers',
  async () => {
    const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,80}$/);
    const headers = fc.record(
      {
        accept: fc.oneof(headerValue, fc.constantFrom('application/json;as=Table;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/cbor', '*/*;q=0', 'application/yaml;q=abc')),
        'content-type': fc.oneof(headerValue, contentTypes),
        'accept-encoding': fc.oneof(headerValue, fc.constant('gzip')),
        'impersonate-user': headerValue,
        'audit-id': headerValue,
        'x-request-id': headerValue,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(headers, fc.constantFrom('GET', 'POST', 'PUT'), async (h, method) => {
        const body = method === 'GET' ? undefined : JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' } });
        const r = await srv.request(method, method === 'POST' ? configmaps : `${configmaps}/target`, { body, headers: h });
        expectKubeAnswer(r, `${method} with ${JSON.stringify(h)}`);
      }),
      fuzzParams(150),
    );
  },
  fuzzTimeoutMs,
);

test(
  'resource quota quantities',
  async () => {
    const quantity = fc.oneof(hostileString(20), fc.stringMatching(/^[-+]?[0-9.]{0,30}(e[-+]?[0-9]{1,6}|[kMGTPE]i?|m|n|u)?$/));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('secrets', 'configmaps', 'count/secrets', 'requests.storage', 'x'), quantity, { maxKeys: 3 }), async (hard) => {
        const r = await srv.request('POST', `/api/v1/namespaces/${ns}/resourcequotas?dryRun=All`, {
          body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard } },
        });
        expectKubeAnswer(r, `quota ${JSON.stringify(hard)}`);
      }),
      fuzzParams(150),
    );
  },
  fuzzTimeoutMs,
);
