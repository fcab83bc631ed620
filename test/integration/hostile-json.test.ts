/**
 * JSON bodies nested 9999/10000/10001 levels against the real server and etcd (kube-limits §5):
 * 10000 levels decode (type errors, pruned unknown fields, kept fieldsV1), the 10001st `[`/`{` is
 * Go's `exceeded max depth` as a 400; never a 500, the server stays up, nothing stored on a 4xx.
 */
import { summarizeData } from '../../src/api';
import { useTestServer } from '../support/server-fixture';
import { expectStatus, failure, warningHeaders } from '../support/kube-status';
import { namespace } from '../support/factories';

const { srv } = useTestServer();
const ns = 'hostile';
const cms = `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  const r = await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) });
  expect(r.status).toBe(201);
  expect((await srv.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { k: 'v' } } })).status).toBe(201);
});

const shapes = {
  array: { open: '[', nest: (d: number) => '['.repeat(d) + ']'.repeat(d) },
  object: { open: '{', nest: (d: number) => '{"a":'.repeat(d) + '1' + '}'.repeat(d) },
} as const;
type Shape = keyof typeof shapes;
const json = { 'content-type': 'application/json' };
let seq = 0;
const prefix = 'ConfigMap in version "v1" cannot be handled as a ConfigMap: ';
const depthMessage = (kind: string, body: string, open: string) =>
  `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: invalid character '${open}' exceeded max depth (${summarizeData(Buffer.from(body))})`;

/** Where the nesting sits in a create body; `d` is the depth of the whole body. */
const places: Record<string, (name: string, d: number, s: Shape) => string> = {
  data: (n, d, s) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}"},"data":${shapes[s].nest(d - 1)}}`,
  unknown: (n, d, s) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}"},"zz":${shapes[s].nest(d - 1)}}`,
  labels: (n, d, s) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}","labels":${shapes[s].nest(d - 2)}}}`,
  fieldsV1: (n, d, s) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${shapes[s].nest(d - 4)}}]}}`,
};

async function expectAbsent(name: string): Promise<void> {
  expect((await srv.request('GET', `${cms}/${name}`)).status).toBe(404);
}

describe.each(['array', 'object'] as const)('%s nesting in a create body', (shape) => {
  const { open } = shapes[shape];

  test.each([9999, 10000])('%i levels: typed fields 400, unknown pruned (201 + warning), fieldsV1 accepted', async (d) => {
    let name = `c${seq++}`;
    let r = await srv.request('POST', cms, { body: places.data!(name, d, shape), headers: json });
    const dataType = shape === 'array' ? 'array into Go struct field ConfigMap.data of type map[string]string' : 'number into Go struct field ConfigMap.data of type string';
    expectStatus(r, failure(400, 'BadRequest', `${prefix}json: cannot unmarshal ${shape === 'array' ? dataType : 'object into Go struct field ConfigMap.data of type string'}`));
    await expectAbsent(name);

    name = `c${seq++}`;
    r = await srv.request('POST', cms, { body: places.labels!(name, d, shape), headers: json });
    expectStatus(
      r,
      failure(400, 'BadRequest', `${prefix}json: cannot unmarshal ${shape === 'array' ? 'array into Go struct field ObjectMeta.metadata.labels of type map[string]string' : 'object into Go struct field ObjectMeta.metadata.labels of type string'}`),
    );
    await expectAbsent(name);

    name = `c${seq++}`;
    r = await srv.request('POST', cms, { body: places.unknown!(name, d, shape), headers: json });
    expect(r.status).toBe(201);
    expect(warningHeaders(r)).toEqual(['299 - "unknown field \\"zz\\""']);
    expect(r.json().zz).toBeUndefined();
    expect((await srv.request('GET', `${cms}/${name}`)).status).toBe(200);

    name = `c${seq++}`;
    r = await srv.request('POST', cms, { body: places.fieldsV1!(name, d, shape), headers: json });
    expect(r.status).toBe(201);
    // Nothing readable in it (`[...]` is no set; `a` is no path element) and this write owns nothing.
    expect(r.json().metadata.managedFields).toBeUndefined();
  });

  test('10001 levels: 400 with Go\'s depth error, wherever the nesting is', async () => {
    for (const place of Object.keys(places)) {
      const name = `c${seq++}`;
      const body = places[place]!(name, 10001, shape);
      expectStatus(await srv.request('POST', cms, { body, headers: json }), failure(400, 'BadRequest', depthMessage('ConfigMap', body, open)));
      await expectAbsent(name);
      // update (PUT) words it the same way
      const put = places[place]!('target', 10001, shape);
      expectStatus(await srv.request('PUT', `${cms}/target`, { body: put, headers: json }), failure(400, 'BadRequest', depthMessage('ConfigMap', put, open)));
    }
    const whole = shapes[shape].nest(10001);
    expectStatus(await srv.request('POST', cms, { body: whole, headers: json }), failure(400, 'BadRequest', depthMessage('ConfigMap', whole, open)));
  });

  test('the whole body nested 10000 levels is no crash', async () => {
    const r = await srv.request('POST', cms, { body: shapes[shape].nest(10000), headers: json });
    expect([400, 422]).toContain(r.status);
  });
});

describe('fieldsV1 field paths nested deeply', () => {
  const chain = (d: number) => '{"f:a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1);
  const body = (name: string, fieldsV1: string) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":${fieldsV1}}]},"data":{"k":"v"}}`;

  test('1000 levels are kept, stored and served', async () => {
    const r = await srv.request('POST', cms, { body: body('fields-1000', chain(1000)), headers: json });
    expect(r.status).toBe(201);
    const got = await srv.request('GET', `${cms}/fields-1000`);
    const entries = got.json().metadata.managedFields as Array<{ manager: string; fieldsV1: unknown }>;
    expect(entries.map((e) => e.manager)).toEqual(['m', 'unknown']); // kube's order: older first
    expect(JSON.stringify(entries[0]!.fieldsV1)).toBe(chain(1000));
  });

  test('deeper (here 9995 levels) are not read: the entry is dropped as kube drops fieldsV1 it cannot decode', async () => {
    const r = await srv.request('POST', cms, { body: body('fields-deep', chain(9995)), headers: json });
    expect(r.status).toBe(201);
    expect(r.json().metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(['unknown']);
  });
});

describe.each(['array', 'object'] as const)('%s nesting in a patch body', (shape) => {
  const { open, nest } = shapes[shape];
  const types = {
    merge: 'application/merge-patch+json',
    strategic: 'application/strategic-merge-patch+json',
    json: 'application/json-patch+json',
  } as const;
  const bodies = (d: number): Array<[keyof typeof types, string]> => [
    ['merge', `{"zz":${nest(d - 1)}}`],
    ['strategic', `{"zz":${nest(d - 1)}}`],
    ['json', `[{"op":"add","path":"/zz","value":${nest(d - 2)}}]`],
  ];

  test.each([9999, 10000])('%i levels into an unknown field: pruned with a warning, object unchanged', async (d) => {
    const before = (await srv.request('GET', `${cms}/target`)).json();
    for (const [type, body] of bodies(d)) {
      const r = await srv.request('PATCH', `${cms}/target`, { body, headers: { 'content-type': types[type] } });
      expect({ type, status: r.status }).toEqual({ type, status: 200 });
      expect(r.json().metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      expect(warningHeaders(r)).toEqual(['299 - "unknown field \\"zz\\""']);
    }
  });

  test.each([9999, 10000])('%i levels into data: a type error', async (d) => {
    const r = await srv.request('PATCH', `${cms}/target`, { body: `{"data":${nest(d - 1)}}`, headers: { 'content-type': types.merge } });
    expect(r.status).toBe(400);
    expect(r.json().message).toContain(`${prefix}json: cannot unmarshal`);
  });

  test('10001 levels: 400 as kube words each patch type', async () => {
    const err = `invalid character '${open}' exceeded max depth`;
    const expected: Record<string, Record<string, string>> = {
      Warn: { merge: `error decoding patch: ${err}`, strategic: err, json: `error decoding patch: ${err}` },
      Ignore: { merge: 'Invalid JSON Patch', strategic: err, json: err },
    };
    for (const validation of ['Warn', 'Ignore']) {
      for (const [type, body] of bodies(10001)) {
        const r = await srv.request('PATCH', `${cms}/target?fieldValidation=${validation}`, { body, headers: { 'content-type': types[type] } });
        expectStatus(r, failure(400, 'BadRequest', expected[validation]![type]!));
      }
    }
  });
});

test('the server is alive and the target unchanged afterwards', async () => {
  const r = await srv.request('GET', `${cms}/target`);
  expect(r.status).toBe(200);
  expect(r.json().data).toEqual({ k: 'v' });
  expect(r.json().zz).toBeUndefined();
  expect((await srv.request('GET', '/healthz')).text).toBe('ok');
});
