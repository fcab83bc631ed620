/**
 * HTTP error behaviour against the real server and etcd: every failure is a kube Status with kube's
 * code, reason, message and details (kube-facts §1, §3, §8; seed 000 "Errors").
 */
import https from 'node:https';
import { useTestServer } from '../support/server-fixture';
import { namespace, secret } from '../support/factories';
import { cause, expectStatus, failure, warningHeaders } from '../support/kube-status';

const { srv } = useTestServer();
const ns = 'errs';
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const configmaps = `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  const r = await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) });
  expect(r.status).toBe(201);
});

describe('401 Unauthorized', () => {
  const unauthorized = failure(401, 'Unauthorized', 'Unauthorized');
  test.each([
    ['no token', null],
    ['a wrong token', 'not-the-token'],
  ])('an API path with %s', async (_what, token) => {
    expectStatus(await srv.request('GET', '/api/v1/namespaces', { token }), unauthorized);
    expectStatus(await srv.request('GET', '/api', { token }), unauthorized);
    expectStatus(await srv.request('POST', secrets, { token, body: secret('x') }), unauthorized);
  });
});

describe('404 NotFound', () => {
  // go-restful's 404 inside a served group-version carries an empty details object.
  const noRoute = failure(404, 'NotFound', 'the server could not find the requested resource', {});

  test('an unknown resource in a served group-version', async () => {
    expectStatus(await srv.request('GET', '/api/v1/widgets'), noRoute);
    expectStatus(await srv.request('GET', '/api/v1/namespaces/default/widgets'), noRoute);
    expectStatus(await srv.request('GET', `${secrets}/x/bogus`), noRoute);
  });

  test('a missing object names the resource and the name', async () => {
    expectStatus(await srv.request('GET', `${secrets}/x`), failure(404, 'NotFound', 'secrets "x" not found', { name: 'x', kind: 'secrets' }));
    expectStatus(await srv.request('DELETE', `${configmaps}/gone`), failure(404, 'NotFound', 'configmaps "gone" not found', { name: 'gone', kind: 'configmaps' }));
    expectStatus(
      await srv.request('PATCH', `${secrets}/x`, { body: '{}', headers: { 'content-type': 'application/merge-patch+json' } }),
      failure(404, 'NotFound', 'secrets "x" not found', { name: 'x', kind: 'secrets' }),
    );
    expectStatus(
      await srv.request('GET', '/api/v1/namespaces/nope'),
      failure(404, 'NotFound', 'namespaces "nope" not found', { name: 'nope', kind: 'namespaces' }),
    );
  });

  test('an unknown API group is not served at all: Go http.NotFound text', async () => {
    for (const p of ['/apis/foo.example.com/v1/bars', '/apis/foo.example.com/v1', '/apis/foo.example.com', '/nothing-here']) {
      const r = await srv.request('GET', p);
      expect({ p, status: r.status, type: r.headers['content-type'], text: r.text }).toEqual({
        p,
        status: 404,
        type: 'text/plain; charset=utf-8',
        text: '404 page not found\n',
      });
    }
  });

  test('creating in a missing namespace', async () => {
    expectStatus(
      await srv.request('POST', '/api/v1/namespaces/nope/secrets', { body: secret('x') }),
      failure(404, 'NotFound', 'namespaces "nope" not found', { name: 'nope', kind: 'namespaces' }),
    );
  });

  test('creating an invalid object in a missing namespace: the namespace answers first (NamespaceLifecycle is mutating admission)', async () => {
    expectStatus(
      await srv.request('POST', '/api/v1/namespaces/nope/secrets', { body: secret('Not_A_Valid_Name') }),
      failure(404, 'NotFound', 'namespaces "nope" not found', { name: 'nope', kind: 'namespaces' }),
    );
  });
});

describe('405 MethodNotAllowed', () => {
  const notAllowed = failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  test('deletecollection on namespaces (not among its verbs)', async () => {
    expectStatus(await srv.request('DELETE', '/api/v1/namespaces'), notAllowed);
  });
  test('POST on the all-namespaces secrets path', async () => {
    expectStatus(await srv.request('POST', '/api/v1/secrets', { body: secret('x') }), notAllowed);
  });
});

describe('406 and 415', () => {
  test('Accept: application/xml', async () => {
    const r = await srv.request('GET', secrets, { headers: { accept: 'application/xml' } });
    expect(r.status).toBe(406);
    const body = r.json();
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotAcceptable', code: 406 });
    expect(body.details).toBeUndefined();
    // kube lists every serializer (json, yaml, protobuf) in this message; protobuf is being wired.
    expect(body.message).toMatch(/^only the following media types are accepted: application\/json, application\/yaml/);
  });

  test('Content-Type: text/plain on POST', async () => {
    const r = await srv.request('POST', secrets, { body: JSON.stringify(secret('x')), headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    const body = r.json();
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'UnsupportedMediaType', code: 415 });
    expect(body.message).toMatch(
      /^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml/,
    );
  });

  test('an unknown patch type', async () => {
    await srv.request('POST', secrets, { body: secret('patchme') });
    const r = await srv.request('PATCH', `${secrets}/patchme`, { body: '{}', headers: { 'content-type': 'application/foo+json' } });
    expect(r.status).toBe(415);
    const body = r.json();
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'UnsupportedMediaType', code: 415 });
    // The list goes on with application/apply-patch+yaml, as kube's.
    expect(body.message).toMatch(
      /^the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json/,
    );
  });
});

test('413 for a body over 3 MiB', async () => {
  const big = secret('big', { data: { k: Buffer.alloc(3 * 1024 * 1024).toString('base64') } });
  expectStatus(await srv.request('POST', secrets, { body: big }), failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
});

test('413 for a chunked body (no Content-Length) once it passes 3 MiB; the answer is still delivered', async () => {
  const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = https.request(
      `${srv.url}${secrets}`,
      { method: 'POST', headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' }, ca: srv.caCert },
      (r) => {
        let body = '';
        r.setEncoding('utf8');
        r.on('data', (d: string) => (body += d));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    // 4 MiB in 64 KiB chunks, sent without a length (Transfer-Encoding: chunked).
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let i = 0; i < 64; i++) req.write(chunk);
    req.end();
  });
  expect(res.status).toBe(413);
  expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413, message: 'Request entity too large: limit is 3145728' });
  expect((await srv.request('GET', secrets)).status).toBe(200);
});

describe('400 BadRequest', () => {
  test('undecodable JSON', async () => {
    const r = await srv.request('POST', secrets, { body: '{not json' });
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(body.details).toBeUndefined();
    // kube: transformDecodeError + summarizeData (bodies starting with "{" are quoted as is).
    expect(body.message).toMatch(/^the object provided is unrecognized \(must be of type Secret\): couldn't get version\/kind; json parse error: .* \(\{not json\)$/);
  });

  test('the body summary is the first 30 bytes, then " ..." (kube summarizeData)', async () => {
    const r = await srv.request('POST', secrets, { body: '{"kind": broken json that is long enough}' });
    expect(r.status).toBe(400);
    expect(r.json().message).toMatch(/: couldn't get version\/kind; json parse error: .* \(\{"kind": broken json that is l \.\.\.\)$/);
  });

  test('apiVersion of the body differs from the endpoint', async () => {
    expectStatus(
      await srv.request('POST', secrets, { body: { ...secret('x'), apiVersion: 'apps/v1' } }),
      failure(400, 'BadRequest', 'the API version in the data (apps/v1) does not match the expected API version (v1)'),
    );
  });

  test('kind of the body differs from the endpoint', async () => {
    const r = await srv.request('POST', secrets, { body: { ...secret('x'), kind: 'ConfigMap' } });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ reason: 'BadRequest', code: 400 });
    expect(r.json().message).toMatch(/^ConfigMap in version "v1" cannot be handled as a Secret: /);
  });

  test('name in the body differs from the URL on PUT', async () => {
    await srv.request('POST', secrets, { body: secret('named') });
    expectStatus(
      await srv.request('PUT', `${secrets}/named`, { body: secret('other') }),
      failure(400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (named)'),
    );
  });

  test('namespace in the body differs from the URL', async () => {
    expectStatus(
      await srv.request('POST', secrets, { body: { ...secret('x'), metadata: { name: 'x', namespace: 'default' } } }),
      failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request'),
    );
  });

  test.each(['a in (b', 'a=b=c', '!!a', 'a notin'])('bad label selector %p', async (sel) => {
    const r = await srv.request('GET', `${secrets}?labelSelector=${encodeURIComponent(sel)}`);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  test('bad field selector syntax', async () => {
    const r = await srv.request('GET', `${secrets}?fieldSelector=metadata.name`);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ reason: 'BadRequest', code: 400 });
  });

  test('unsupported field selectors: secrets have a conversion func, configmaps the default one', async () => {
    expectStatus(await srv.request('GET', `${secrets}?fieldSelector=x%3Dy`), failure(400, 'BadRequest', 'field label not supported: x'));
    expectStatus(
      await srv.request('GET', `/api/v1/secrets?fieldSelector=data.k%3Dv`),
      failure(400, 'BadRequest', 'field label not supported: data.k'),
    );
    expectStatus(
      await srv.request('GET', `${configmaps}?fieldSelector=data.a%3D1`),
      failure(400, 'BadRequest', '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    );
  });

  test('fieldValidation=Strict rejects unknown fields; Warn and the default warn', async () => {
    // kube reports unknown fields in document order.
    const body = { apiVersion: 'v1', kind: 'Secret', foo: 1, metadata: { name: 'strict', bar: 'x' } };
    expectStatus(
      await srv.request('POST', `${secrets}?fieldValidation=Strict`, { body }),
      failure(400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: strict decoding error: unknown field "foo", unknown field "metadata.bar"'),
    );
    expect((await srv.request('GET', `${secrets}/strict`)).status).toBe(404);

    const warned = await srv.request('POST', `${secrets}?fieldValidation=Warn`, { body });
    expect(warned.status).toBe(201);
    expect(warningHeaders(warned).sort()).toEqual(['299 - "unknown field \\"foo\\""', '299 - "unknown field \\"metadata.bar\\""']);
    expect(warned.json()).not.toHaveProperty('foo');

    const dflt = await srv.request('POST', secrets, { body: { ...body, metadata: { name: 'strict2', bar: 'x' } } });
    expect(dflt.status).toBe(201);
    expect(warningHeaders(dflt).sort()).toEqual(['299 - "unknown field \\"foo\\""', '299 - "unknown field \\"metadata.bar\\""']);

    const ignored = await srv.request('POST', `${secrets}?fieldValidation=Ignore`, { body: { ...body, metadata: { name: 'strict3' } } });
    expect(ignored.status).toBe(201);
    expect(warningHeaders(ignored)).toEqual([]);
  });
});

describe('422 Invalid', () => {
  const subdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const labelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

  test('a secret name that is not a DNS-1123 subdomain', async () => {
    const body = `Invalid value: "Bad_Name": ${subdomainMsg}`;
    expectStatus(
      await srv.request('POST', secrets, { body: secret('Bad_Name') }),
      failure(422, 'Invalid', `Secret "Bad_Name" is invalid: metadata.name: ${body}`, {
        name: 'Bad_Name',
        kind: 'Secret',
        causes: [cause('FieldValueInvalid', 'metadata.name', body)],
      }),
    );
  });

  test('namespace names are DNS-1123 labels', async () => {
    const ns1 = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'Bad' } };
    const body = `Invalid value: "Bad": ${labelMsg}`;
    expectStatus(
      await srv.request('POST', '/api/v1/namespaces', { body: ns1 }),
      failure(422, 'Invalid', `Namespace "Bad" is invalid: metadata.name: ${body}`, {
        name: 'Bad',
        kind: 'Namespace',
        causes: [cause('FieldValueInvalid', 'metadata.name', body)],
      }),
    );
  });

  test('missing name and generateName', async () => {
    const body = 'Required value: name or generateName is required';
    expectStatus(
      await srv.request('POST', secrets, { body: { apiVersion: 'v1', kind: 'Secret', metadata: {} } }),
      failure(422, 'Invalid', `Secret "" is invalid: metadata.name: ${body}`, {
        kind: 'Secret',
        causes: [cause('FieldValueRequired', 'metadata.name', body)],
      }),
    );
  });

  test('bad label key and value, both at metadata.labels', async () => {
    const keyErr =
      "Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const valErr =
      "Invalid value: \"-v\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    const r = await srv.request('POST', secrets, { body: { ...secret('lbl'), metadata: { name: 'lbl', labels: { 'bad key': 'ok', good: '-v' } } } });
    expectStatus(
      r,
      failure(422, 'Invalid', `Secret "lbl" is invalid: [metadata.labels: ${keyErr}, metadata.labels: ${valErr}]`, {
        name: 'lbl',
        kind: 'Secret',
        causes: [cause('FieldValueInvalid', 'metadata.labels', keyErr), cause('FieldValueInvalid', 'metadata.labels', valErr)],
      }),
    );
  });

  test('bad data keys', async () => {
    const keyErr =
      "Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
    expectStatus(
      await srv.request('POST', secrets, { body: secret('dk', { data: { 'bad key': 'eA==' } }) }),
      failure(422, 'Invalid', `Secret "dk" is invalid: data[bad key]: ${keyErr}`, {
        name: 'dk',
        kind: 'Secret',
        causes: [cause('FieldValueInvalid', 'data[bad key]', keyErr)],
      }),
    );
    expectStatus(
      await srv.request('POST', configmaps, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cmk' }, data: { '..': 'x' } } }),
      failure(422, 'Invalid', 'ConfigMap "cmk" is invalid: data[..]: Invalid value: "..": must not be \'..\'', {
        name: 'cmk',
        kind: 'ConfigMap',
        causes: [cause('FieldValueInvalid', 'data[..]', 'Invalid value: "..": must not be \'..\'')],
      }),
    );
  });
});

describe('409', () => {
  test('AlreadyExists', async () => {
    expect((await srv.request('POST', secrets, { body: secret('dup') })).status).toBe(201);
    expectStatus(
      await srv.request('POST', secrets, { body: secret('dup') }),
      failure(409, 'AlreadyExists', 'secrets "dup" already exists', { name: 'dup', kind: 'secrets' }),
    );
  });

  const modified = (name: string) =>
    failure(
      409,
      'Conflict',
      `Operation cannot be fulfilled on secrets "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      { name, kind: 'secrets' },
    );

  test('Conflict for a stale resourceVersion on PUT', async () => {
    const created = (await srv.request('POST', secrets, { body: secret('cas', { stringData: { a: '1' } }) })).json();
    const first = await srv.request('PUT', `${secrets}/cas`, { body: { ...created, stringData: { a: '2' } } });
    expect(first.status).toBe(200);
    expectStatus(await srv.request('PUT', `${secrets}/cas`, { body: { ...created, stringData: { a: '3' } } }), modified('cas'));
  });

  test('Conflict for a patch carrying a stale metadata.resourceVersion', async () => {
    const created = (await srv.request('POST', secrets, { body: secret('pcas') })).json();
    const patch = (rv: string) =>
      srv.request('PATCH', `${secrets}/pcas`, {
        body: { metadata: { resourceVersion: rv, labels: { a: rv } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
    expect((await patch(created.metadata.resourceVersion)).status).toBe(200);
    expectStatus(await patch(created.metadata.resourceVersion), modified('pcas'));
  });
});

describe('query parameters are read as Go url.ParseQuery reads them', () => {
  test('a bracketed key is a literal, unknown parameter (ignored), not a nested selector', async () => {
    const r = await srv.request('GET', `${secrets}?labelSelector%5Bapp%5D=nothing-matches`);
    expect(r.status).toBe(200);
    const plain = await srv.request('GET', secrets);
    expect(r.json<{ items: unknown[] }>().items).toHaveLength(plain.json<{ items: unknown[] }>().items.length);
  });

  test('more than 20 repeats of a parameter stay a list (kube reads the first value)', async () => {
    const r = await srv.request('GET', `${secrets}?${Array.from({ length: 25 }, () => 'limit=1').join('&')}`);
    expect(r.status).toBe(200);
    expect(r.json<{ items: unknown[] }>().items.length).toBeLessThanOrEqual(1);
  });
});

describe('indented JSON (kube isPrettyPrint)', () => {
  const indented = (text: string) => text.startsWith('{\n  "kind": ');
  test('curl gets indented objects and errors unless pretty says otherwise; other clients get compact JSON', async () => {
    const curl = { 'user-agent': 'curl/8.5.0' };
    expect(indented((await srv.request('GET', `/api/v1/namespaces/${ns}`, { headers: curl })).text)).toBe(true);
    expect(indented((await srv.request('GET', `${secrets}/missing`, { headers: curl })).text)).toBe(true);
    expect(indented((await srv.request('GET', `/api/v1/namespaces/${ns}?pretty=false`, { headers: curl })).text)).toBe(false);
    expect(indented((await srv.request('GET', `/api/v1/namespaces/${ns}`)).text)).toBe(false);
    expect(indented((await srv.request('GET', `/api/v1/namespaces/${ns}?pretty=1`)).text)).toBe(true);
    expect(indented((await srv.request('GET', `/api/v1/namespaces/${ns}`, { headers: { accept: 'application/json;pretty=1' } })).text)).toBe(true);
  });
});
