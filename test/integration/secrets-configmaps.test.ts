/**
 * Secret and ConfigMap semantics through kubectl and HTTP (seed 001, kube-facts §1.6, §4):
 * base64 data, key rules, the 1 MiB limit, write-only stringData on every write path,
 * immutability, type defaulting and immutability, and every built-in type's requirements.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useTestServer } from '../support/server-fixture';
import { cause, expectStatus, failure, warningHeaders } from '../support/kube-status';

const { srv } = useTestServer();
const ns = 'sc';
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const immutableMsg = 'Forbidden: field is immutable when `immutable` is set';

const post = (p: string, body: unknown) => srv.request('POST', p, { body });
const patch = (p: string, body: unknown, type: string) => srv.request('PATCH', p, { body, headers: { 'content-type': `application/${type}` } });

beforeAll(async () => {
  expect((await srv.kubectl(['create', 'namespace', ns])).code).toBe(0);
});

describe('Secret data', () => {
  test('undecodable base64 is a 400 from the decoder', async () => {
    expectStatus(
      await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' }, data: { a: 'not base64!' } }),
      failure(400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'),
    );
  });

  test('an invalid key is a 422 with kube’s IsConfigMapKey message', async () => {
    const msg =
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
    expectStatus(
      await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' }, data: { 'bad key': b64('x') } }),
      failure(422, 'Invalid', `Secret "k" is invalid: data[bad key]: Invalid value: "bad key": ${msg}`, {
        name: 'k',
        kind: 'Secret',
        causes: [cause('FieldValueInvalid', 'data[bad key]', `Invalid value: "bad key": ${msg}`)],
      }),
    );
    const dots = await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' }, stringData: { '..': 'x' } });
    expect(dots.json().message).toBe('Secret "k" is invalid: data[..]: Invalid value: "..": must not be \'..\'');
  });

  test('exactly 1 MiB is accepted, one byte more is Too long', async () => {
    const mib = Buffer.alloc(1024 * 1024, 1);
    expect((await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'mib' }, data: { a: mib.toString('base64') } })).status).toBe(201);
    expectStatus(
      await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'big' }, data: { a: mib.toString('base64'), b: b64('x') } }),
      failure(422, 'Invalid', 'Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes', {
        name: 'big',
        kind: 'Secret',
        causes: [cause('FieldValueTooLong', 'data', 'Too long: may not be more than 1048576 bytes')],
      }),
    );
  });
});

describe('stringData is write-only and merged on every write path', () => {
  const base = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { keep: b64('k'), over: b64('old') } });
  /** The stored object, read straight from etcd. */
  const stored = async (name: string) => srv.etcdStore.get(`${srv.prefix}/secrets/${ns}/${name}`);

  test('create: stringData overwrites data and is neither returned nor stored', async () => {
    const r = await post(secrets, { ...base('sd'), stringData: { over: 'new', extra: 'e' } });
    expect(r.status).toBe(201);
    expect(r.json().stringData).toBeUndefined();
    expect(r.json().data).toEqual({ keep: b64('k'), over: b64('new'), extra: b64('e') });
    expect((await stored('sd')).stringData).toBeUndefined();
    expect((await srv.request('GET', `${secrets}/sd`)).json().stringData).toBeUndefined();
  });

  test.each([
    ['merge patch', 'merge-patch+json', { stringData: { over: 'merge' } }, b64('merge')],
    ['strategic merge patch', 'strategic-merge-patch+json', { stringData: { over: 'smp' } }, b64('smp')],
    ['JSON patch', 'json-patch+json', [{ op: 'add', path: '/stringData', value: { over: 'jp' } }], b64('jp')],
  ])('%s', async (_kind, type, body, expected) => {
    const r = await patch(`${secrets}/sd`, body, type);
    expect(r.status).toBe(200);
    expect(r.json().stringData).toBeUndefined();
    expect(r.json().data).toEqual({ keep: b64('k'), over: expected, extra: b64('e') });
    expect((await stored('sd')).stringData).toBeUndefined();
  });

  test('update (PUT) and kubectl apply', async () => {
    const cur = (await srv.request('GET', `${secrets}/sd`)).json();
    const put = await srv.request('PUT', `${secrets}/sd`, { body: { ...cur, stringData: { over: 'put' } } });
    expect(put.json().data.over).toBe(b64('put'));
    expect((await stored('sd')).stringData).toBeUndefined();
    const manifest = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: applied\n  namespace: ${ns}\nstringData:\n  user: admin\n`;
    expect((await srv.kubectl(['apply', '-f', '-'], { input: manifest })).code).toBe(0);
    const again = manifest.replace('admin', 'root');
    expect((await srv.kubectl(['apply', '-f', '-'], { input: again })).code).toBe(0);
    const got = (await srv.request('GET', `${secrets}/applied`)).json();
    expect(got.data).toEqual({ user: b64('root') });
    expect(got.stringData).toBeUndefined();
    expect((await stored('applied')).stringData).toBeUndefined();
  });
});

describe('immutable Secrets and ConfigMaps', () => {
  test('data and immutable are frozen; metadata changes and deletion still work', async () => {
    expect((await srv.kubectl(['-n', ns, 'create', 'secret', 'generic', 'imm', '--from-literal=a=b'])).code).toBe(0);
    expect((await patch(`${secrets}/imm`, { immutable: true }, 'merge-patch+json')).status).toBe(200);
    expectStatus(
      await patch(`${secrets}/imm`, { stringData: { a: 'c' } }, 'merge-patch+json'),
      failure(422, 'Invalid', `Secret "imm" is invalid: data: ${immutableMsg}`, {
        name: 'imm',
        kind: 'Secret',
        causes: [cause('FieldValueForbidden', 'data', immutableMsg)],
      }),
    );
    const unset = await patch(`${secrets}/imm`, { immutable: false, data: { a: b64('z') } }, 'merge-patch+json');
    expect(unset.json().message).toBe(`Secret "imm" is invalid: [immutable: ${immutableMsg}, data: ${immutableMsg}]`);
    // Same data through stringData is no change.
    expect((await patch(`${secrets}/imm`, { stringData: { a: 'b' } }, 'merge-patch+json')).status).toBe(200);
    const label = await srv.kubectl(['-n', ns, 'label', 'secret', 'imm', 'team=x']);
    expect(label).toMatchObject({ code: 0, stdout: 'secret/imm labeled\n' });
    expect((await srv.kubectl(['-n', ns, 'delete', 'secret', 'imm'])).code).toBe(0);
  });

  test('ConfigMap: data, binaryData and immutable are frozen', async () => {
    expect((await post(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'imm' }, data: { a: 'b' }, binaryData: { bin: b64('x') }, immutable: true })).status).toBe(201);
    const r = await srv.request('PUT', `${configmaps}/imm`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'imm' }, data: { a: 'c' } } });
    expect(r.json().message).toBe(`ConfigMap "imm" is invalid: [immutable: ${immutableMsg}, data: ${immutableMsg}, binaryData: ${immutableMsg}]`);
    expect((await srv.kubectl(['-n', ns, 'annotate', 'configmap', 'imm', 'note=ok'])).code).toBe(0);
    expect((await srv.kubectl(['-n', ns, 'delete', 'configmap', 'imm'])).code).toBe(0);
  });
});

describe('Secret type', () => {
  test('defaults to Opaque and cannot change', async () => {
    const r = await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'typed' } });
    expect(r.json().type).toBe('Opaque');
    const change = await patch(`${secrets}/typed`, { type: 'example.com/custom' }, 'merge-patch+json');
    expectStatus(
      change,
      failure(422, 'Invalid', 'Secret "typed" is invalid: type: Invalid value: "example.com/custom": field is immutable', {
        name: 'typed',
        kind: 'Secret',
        causes: [cause('FieldValueInvalid', 'type', 'Invalid value: "example.com/custom": field is immutable')],
      }),
    );
  });

  test.each([
    ['kubernetes.io/tls', {}, {}, '[data[tls.crt]: Required value, data[tls.key]: Required value]'],
    ['kubernetes.io/tls', { 'tls.crt': '' }, {}, 'data[tls.key]: Required value'],
    ['kubernetes.io/basic-auth', {}, {}, '[data[username]: Required value, data[password]: Required value]'],
    ['kubernetes.io/ssh-auth', { 'ssh-privatekey': '' }, {}, 'data[ssh-privatekey]: Required value'],
    ['kubernetes.io/dockercfg', {}, {}, 'data[.dockercfg]: Required value'],
    ['kubernetes.io/dockercfg', { '.dockercfg': 'nope' }, {}, 'data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character \'o\' in literal null (expecting \'u\')'],
    ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '{"auths":' }, {}, 'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input'],
    ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '[]' }, {}, 'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['kubernetes.io/service-account-token', {}, {}, 'metadata.annotations[kubernetes.io/service-account.name]: Required value'],
  ])('%s with %j is refused', async (type, stringData, annotations, errs) => {
    const r = await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'typed-bad', annotations }, type, stringData });
    expect(r.status).toBe(422);
    expect(r.json().message).toBe(`Secret "typed-bad" is invalid: ${errs}`);
  });

  test.each([
    ['kubernetes.io/basic-auth', { password: '' }, {}],
    ['kubernetes.io/ssh-auth', { 'ssh-privatekey': 'k' }, {}],
    ['kubernetes.io/dockercfg', { '.dockercfg': '{}' }, {}],
    ['kubernetes.io/service-account-token', {}, { 'kubernetes.io/service-account.name': 'default' }],
    ['bootstrap.kubernetes.io/token', {}, {}],
    ['example.com/anything', {}, {}],
  ])('%s with %j is accepted', async (type, stringData, annotations) => {
    const name = `ok-${type.replace(/[^a-z]/g, '')}`;
    expect((await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name, annotations }, type, stringData })).status).toBe(201);
  });

  test('kubectl create secret tls and docker-registry produce valid typed secrets; a bad key pair only warns', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tls-'));
    const [key, crt] = [path.join(dir, 'k.pem'), path.join(dir, 'c.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=t', '-keyout', key, '-out', crt, '-days', '1'], { stdio: 'ignore' });
    const tls = await srv.kubectl(['-n', ns, 'create', 'secret', 'tls', 'cert', `--cert=${crt}`, `--key=${key}`]);
    expect(tls).toMatchObject({ code: 0, stderr: '' });
    const docker = await srv.kubectl(['-n', ns, 'create', 'secret', 'docker-registry', 'reg', '--docker-server=r.example.com', '--docker-username=u', '--docker-password=p']);
    expect(docker.code).toBe(0);
    expect((await srv.request('GET', `${secrets}/reg`)).json().type).toBe('kubernetes.io/dockerconfigjson');

    // A certificate with someone else's key is stored, with tls.X509KeyPair's error as a warning.
    execFileSync('openssl', ['genrsa', '-out', path.join(dir, 'other.pem'), '2048'], { stdio: 'ignore' });
    const other = readFileSync(path.join(dir, 'other.pem'), 'utf8');
    const mismatched = await post(secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'mismatch' },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': readFileSync(crt, 'utf8'), 'tls.key': other },
    });
    expect(mismatched.status).toBe(201);
    expect(warningHeaders(mismatched)).toEqual(['299 - "tls: private key does not match public key"']);
    const empty = await post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'empty-tls' }, type: 'kubernetes.io/tls', stringData: { 'tls.crt': '', 'tls.key': '' } });
    expect(empty.status).toBe(201);
    expect(warningHeaders(empty)).toEqual(['299 - "tls: failed to find any PEM data in certificate input"']);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('ConfigMap data', () => {
  test('a key in both data and binaryData is reported on both sides', async () => {
    const r = await post(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup' }, data: { k: 'v' }, binaryData: { k: b64('v') } });
    expectStatus(
      r,
      failure(422, 'Invalid', 'ConfigMap "dup" is invalid: [data[k]: Invalid value: "k": duplicate of key present in binaryData, binaryData[k]: Invalid value: "k": duplicate of key present in data]', {
        name: 'dup',
        kind: 'ConfigMap',
        causes: [
          cause('FieldValueInvalid', 'data[k]', 'Invalid value: "k": duplicate of key present in binaryData'),
          cause('FieldValueInvalid', 'binaryData[k]', 'Invalid value: "k": duplicate of key present in data'),
        ],
      }),
    );
  });

  test('more than 1 MiB over data and binaryData is Too long at the object level', async () => {
    const half = 512 * 1024;
    expectStatus(
      await post(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(half) }, binaryData: { b: Buffer.alloc(half + 1).toString('base64') } }),
      failure(422, 'Invalid', 'ConfigMap "big" is invalid: : Too long: may not be more than 1048576 bytes', {
        name: 'big',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes' }],
      }),
    );
  });

  test('an invalid binaryData key is refused', async () => {
    const r = await post(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'badkey' }, binaryData: { 'a/b': b64('x') } });
    expect(r.json().message).toMatch(/^ConfigMap "badkey" is invalid: binaryData\[a\/b\]: Invalid value: "a\/b": a valid config key must consist of/);
  });
});

describe('the answer to a create', () => {
  // The JSON answer is the stored bytes with the resourceVersion spliced in: the same text as the
  // object's encoding anywhere else (a GET from etcd), key order and unicode escapes included.
  test('is the text a GET of the object answers, with labels, annotations and non-ASCII data', async () => {
    const body = {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 'answer', labels: { a: 'b' }, annotations: { note: 'é ✓ "quoted" \u0001 <&>' } },
      stringData: { k: 'v' },
      type: 'Opaque',
    };
    const created = await post(secrets, body);
    expect(created.status).toBe(201);
    const got = await srv.request('GET', `${secrets}/answer`);
    expect(created.text).toBe(got.text);
    expect(created.text.endsWith('}\n')).toBe(true);
    expect(created.json().metadata.resourceVersion).toMatch(/^[0-9]+$/);
  });

  test('pretty, YAML and Table answers are encoded as before', async () => {
    const make = (name: string) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name }, data: { a: '1' } });
    const pretty = await srv.request('POST', `${configmaps}?pretty=true`, { body: make('pretty') });
    expect(pretty.text).toBe(`${JSON.stringify(pretty.json(), null, 2)}\n`);
    const yaml = await srv.request('POST', configmaps, { body: make('yaml'), headers: { accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text).toContain('name: yaml\n');
    const table = await srv.request('POST', configmaps, { body: make('table'), headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.json().kind).toBe('Table');
  });
});

describe('the answer to an update', () => {
  // As a create's: the bytes the update stored with its resourceVersion spliced in, the same text a
  // GET answers afterwards; an unchanged update answers the object it found, encoded as before.
  const note = 'é ✓ "quoted" \u0001 <&>';
  const secret = (name: string, extra: Record<string, unknown> = {}) => ({
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: { name, labels: { a: 'b' }, annotations: { note } },
    stringData: { k: 'v' },
    type: 'Opaque',
    ...extra,
  });
  const get = (name: string) => srv.request('GET', `${secrets}/${name}`);

  test('a PUT that changes the object answers the text a GET answers', async () => {
    expect((await post(secrets, secret('put-answer'))).status).toBe(201);
    const put = await srv.request('PUT', `${secrets}/put-answer`, { body: secret('put-answer', { data: { other: b64('x') } }) });
    expect(put.status).toBe(200);
    const got = await get('put-answer');
    expect(put.text).toBe(got.text);
    expect(put.text.endsWith('}\n')).toBe(true);
    expect(put.json().data).toEqual({ k: b64('v'), other: b64('x') });
  });

  test('a PUT that changes nothing answers the stored object as a GET does', async () => {
    const before = (await get('put-answer')).json();
    const put = await srv.request('PUT', `${secrets}/put-answer`, { body: before });
    expect(put.status).toBe(200);
    expect(put.json().metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(put.text).toBe((await get('put-answer')).text);
  });

  test('a PUT that creates (a Role: create on update allowed) answers 201 with the text a GET answers', async () => {
    const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
    const role = { kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'put-created', annotations: { note } }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] };
    const put = await srv.request('PUT', `${roles}/put-created`, { body: role });
    expect(put.status).toBe(201);
    expect(put.text).toBe((await srv.request('GET', `${roles}/put-created`)).text);
  });

  test('a merge patch and an apply answer the text a GET answers; dry run and pretty are encoded as before', async () => {
    const merged = await patch(`${secrets}/put-answer`, { metadata: { labels: { c: 'd' } } }, 'merge-patch+json');
    expect(merged.status).toBe(200);
    expect(merged.text).toBe((await get('put-answer')).text);
    const applied = await srv.request('PATCH', `${configmaps}/applied-answer?fieldManager=t`, {
      body: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'applied-answer' }, data: { a: '1' } },
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(applied.status).toBe(201);
    expect(applied.text).toBe((await srv.request('GET', `${configmaps}/applied-answer`)).text);
    const dry = await patch(`${secrets}/put-answer?dryRun=All`, { metadata: { labels: { e: 'f' } } }, 'merge-patch+json');
    expect(dry.status).toBe(200);
    expect(dry.json().metadata.labels).toEqual({ a: 'b', c: 'd', e: 'f' });
    expect(dry.text).toBe(`${JSON.stringify(dry.json())}\n`);
    const pretty = await patch(`${secrets}/put-answer?pretty=true`, { metadata: { labels: { g: 'h' } } }, 'merge-patch+json');
    expect(pretty.text).toBe(`${JSON.stringify(pretty.json(), null, 2)}\n`);
  });
});
