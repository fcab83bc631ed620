/**
 * Hostile YAML request bodies against the real server and etcd (kube-limits §6): each is a 400
 * with go-yaml's message, the server stays up, and nothing is stored.
 */
import { useTestServer } from '../support/server-fixture';
import { expectStatus, failure, warningHeaders } from '../support/kube-status';
import { namespace } from '../support/factories';

const { srv } = useTestServer();
const ns = 'hostile-yaml';
const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
const yamlHeaders = { 'content-type': 'application/yaml' };
const applyHeaders = { 'content-type': 'application/apply-patch+yaml' };

beforeAll(async () => {
  const r = await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) });
  expect(r.status).toBe(201);
});

/** kube's summarizeData: a body not starting with `{` shows as the hex of its first 30 bytes. */
const summary = (body: string): string => {
  const b = Buffer.from(body);
  return b.length > 30 ? `${b.subarray(0, 30).toString('hex')} ...` : b.toString('hex');
};

/** A ConfigMap whose managedFields[0].fieldsV1 is `fieldsV1` (YAML text, one line). */
const configMap = (name: string, fieldsV1: string): string =>
  ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, '  managedFields:', '  - manager: m', '    operation: Apply', `    fieldsV1: ${fieldsV1}`, 'data:', '  a: "1"', ''].join('\n');

/** The 670-byte billion laughs: 9 levels of 9 aliases, 9^9 strings once expanded. */
function aliasBomb(): string {
  const levels = [`&a0 [${Array(9).fill('lol').join(',')}]`];
  for (let i = 1; i < 9; i++) levels.push(`&a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
  return `{f:x: [${levels.join(', ')}]}`;
}

async function expectAliveAndAbsent(name: string): Promise<void> {
  expect((await srv.request('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
  expect((await srv.request('GET', `${configmaps}/${name}`)).status).toBe(404);
}

const unrecognized = (body: string, why: string) =>
  failure(400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): ${why} (${summary(body)})`);

describe('create with a YAML body', () => {
  test('an alias bomb in managedFields[0].fieldsV1 is refused by counting, not expanded', async () => {
    const body = configMap('bomb', aliasBomb());
    expect(Buffer.byteLength(body)).toBeLessThan(1024);
    const r = await srv.request('POST', configmaps, { body, headers: yamlHeaders });
    expectStatus(r, unrecognized(body, 'yaml: document contains excessive aliasing'));
    await expectAliveAndAbsent('bomb');
  });

  test('a self-referencing anchor', async () => {
    const body = configMap('selfref', '&a {f:x: *a}');
    expectStatus(await srv.request('POST', configmaps, { body, headers: yamlHeaders }), unrecognized(body, "yaml: anchor 'a' value contains itself"));
    await expectAliveAndAbsent('selfref');
  });

  test('an unknown anchor', async () => {
    const body = configMap('unknown', '*x');
    expectStatus(await srv.request('POST', configmaps, { body, headers: yamlHeaders }), unrecognized(body, "yaml: unknown anchor 'x' referenced"));
    await expectAliveAndAbsent('unknown');
  });

  test('flow nesting: 10001 levels are refused with the line, 10000 decode', async () => {
    const deep = (d: number): string => '['.repeat(d) + ']'.repeat(d);
    const body = configMap('deep', `{f:x: ${deep(10000)}}`); // the 10001st level is on line 8
    expectStatus(await srv.request('POST', configmaps, { body, headers: yamlHeaders }), unrecognized(body, 'yaml: line 8: exceeded max depth of 10000'));
    await expectAliveAndAbsent('deep');
    // On one line, go-yaml names no line.
    const oneLine = `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep1"}, "data": ${'['.repeat(10001)}}`;
    const r = await srv.request('POST', configmaps, { body: oneLine, headers: yamlHeaders });
    expectStatus(
      r,
      failure(400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): yaml: exceeded max depth of 10000 (${oneLine.slice(0, 30)} ...)`),
    );
    await expectAliveAndAbsent('deep1');
    // 10000 levels decode; the schema then refuses the value (data holds strings), without a crash.
    const fine = configMap('deep2', `{f:x: ${deep(9998)}}`);
    const ok = await srv.request('POST', configmaps, { body: fine, headers: yamlHeaders });
    expect(ok.status).toBeLessThan(500);
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
  });

  test('block nesting deeper than 10000', async () => {
    // Levels: the document's mapping, then 10000 sequences opened on line 6.
    const body = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: deepblock', 'x:', `  ${'- '.repeat(10000)}y`, ''].join('\n');
    expectStatus(await srv.request('POST', configmaps, { body, headers: yamlHeaders }), unrecognized(body, 'yaml: line 6: exceeded max depth of 10000'));
    await expectAliveAndAbsent('deepblock');
  });

  test('repeated keys: Strict lists every one; Warn warns each and the last value wins', async () => {
    const body = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: dups', '  name: dups', 'data:', '  a: "1"', '  b: "2"', '  a: "3"', '  a: "4"', ''].join('\n');
    const strict = await srv.request('POST', `${configmaps}?fieldValidation=Strict`, { body, headers: yamlHeaders });
    expectStatus(
      strict,
      failure(
        400,
        'BadRequest',
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n' +
          '  line 5: key "name" already set in map\n  line 9: key "a" already set in map\n  line 10: key "a" already set in map',
      ),
    );
    await expectAliveAndAbsent('dups');
    const warned = await srv.request('POST', configmaps, { body, headers: yamlHeaders });
    expect(warned.status).toBe(201);
    expect(warned.json().data).toEqual({ a: '4', b: '2' });
    expect(warningHeaders(warned).join(', ')).toBe(
      '299 - "line 5: key \\"name\\" already set in map", 299 - "line 9: key \\"a\\" already set in map", 299 - "line 10: key \\"a\\" already set in map"',
    );
  });
});

describe('server-side apply with a YAML body', () => {
  test('the alias bomb, a self-reference and an unknown anchor', async () => {
    for (const [name, fieldsV1, why] of [
      ['abomb', aliasBomb(), 'yaml: document contains excessive aliasing'],
      ['aself', '&a {f:x: *a}', "yaml: anchor 'a' value contains itself"],
      ['aunknown', '*x', "yaml: unknown anchor 'x' referenced"],
    ] as const) {
      const r = await srv.request('PATCH', `${configmaps}/${name}?fieldManager=m`, { body: configMap(name, fieldsV1), headers: applyHeaders });
      expectStatus(r, failure(400, 'BadRequest', `error decoding YAML: error converting YAML to JSON: ${why}`));
      await expectAliveAndAbsent(name);
    }
  });
});
