/**
 * Large YAML bodies are decoded in a worker thread (endpoints/body-worker.ts): a thread that dies
 * fails only its request with a 500, and the server goes on serving — the next large body gets a
 * fresh thread.
 */
import { namespace } from '../support/factories';
import { useTestServer } from '../support/server-fixture';
import { stopBodyWorkers, bodyWorkerInternals, bodyWorkerLimits, bodyWorkerThreshold } from '../../src/endpoints/body-worker';

const ns = 'body-worker';
const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
const yamlHeaders = { 'content-type': 'application/yaml' };
const saved = { ...bodyWorkerLimits };

const { srv } = useTestServer({
  beforeStop: async () => {
    Object.assign(bodyWorkerLimits, saved);
    await stopBodyWorkers();
  },
});
beforeAll(async () => {
  const r = await srv.request('POST', '/api/v1/namespaces', { body: namespace(ns) });
  expect(r.status).toBe(201);
});

/** A ConfigMap of about `size` characters: worker-sized when size ≥ the threshold. */
function bigConfigMap(name: string, size: number): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, 'data:'];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const l = `  key${i}: "value ${i}"`;
    lines.push(l);
    n += l.length + 1;
  }
  return lines.join('\n') + '\n';
}

test('a large body is decoded in the worker and stored', async () => {
  const body = bigConfigMap('big', bodyWorkerThreshold + 1000);
  expect((await srv.request('POST', configmaps, { body, headers: yamlHeaders })).status).toBe(201);
  const r = await srv.request('GET', `${configmaps}/big`);
  expect((r.json() as { data: Record<string, string> }).data.key1234).toBe('value 1234');
});

test('a decoder thread that dies: 500 for its request, the server and later requests unaffected', async () => {
  await stopBodyWorkers();
  // Too small a heap for the thread to live: it dies as it takes the body.
  bodyWorkerLimits.maxOldGenerationSizeMb = 4;
  const body = bigConfigMap('crash', bodyWorkerThreshold + 1000);
  const r = await srv.request('POST', configmaps, { body, headers: yamlHeaders });
  expect(r.status).toBe(500);
  expect(r.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
  expect((await srv.request('GET', `${configmaps}/crash`)).status).toBe(404);

  Object.assign(bodyWorkerLimits, saved);
  expect((await srv.request('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
  expect((await srv.request('POST', configmaps, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: small\n', headers: yamlHeaders })).status).toBe(201);
  expect((await srv.request('POST', configmaps, { body, headers: yamlHeaders })).status).toBe(201);
});

/**
 * Large JSON bodies are parsed and cut of their unknown fields in the worker: the client must get
 * the same answer as for the same body small enough to be decoded on the loop. Whitespace after
 * the value makes a body worker-sized without changing it.
 */
describe('the same answer from the worker as from the loop', () => {
  const pad = (text: string): string => text + ' '.repeat(bodyWorkerThreshold + 100);
  type Case = { name: string; method: 'POST' | 'PUT' | 'PATCH'; contentType: string; query?: string; body: (name: string) => string };
  const cm = (name: string, extra: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"${extra}}`;

  const cases: Case[] = [
    { name: 'create with unknown fields (Warn)', method: 'POST', contentType: 'application/json', body: (n) => `${cm(n, ',"zz":{"a":[1,2]}},"junk":[{}],"data":{"a":"b"},"q":1')}` },
    { name: 'create with unknown fields (Strict)', method: 'POST', contentType: 'application/json', query: 'fieldValidation=Strict', body: (n) => `${cm(n, ',"zz":1},"junk":[{}]')}` },
    { name: 'create with repeated keys (Strict)', method: 'POST', contentType: 'application/json', query: 'fieldValidation=Strict', body: (n) => `${cm(n, '},"data":{"a":"1","a":"2"},"junk":1')}` },
    { name: 'create with repeated keys (Warn)', method: 'POST', contentType: 'application/json', body: (n) => `${cm(n, '},"data":{"a":"1","a":"2"}')}` },
    { name: 'create with a type error', method: 'POST', contentType: 'application/json', body: (n) => `${cm(n, '},"junk":[1],"data":{"a":5}')}` },
    // (the parser quotes the text around the fault: more of the same follows it in both bodies)
    { name: 'create that is not JSON', method: 'POST', contentType: 'application/json', body: (n) => `{"data":{"a":},${cm(n, '}').slice(1)}` },
    { name: 'create with -0 and a huge exponent', method: 'POST', contentType: 'application/json', body: (n) => `${cm(n, ',"generation":-0},"immutable":false,"zz":1e400')}` },
    { name: 'create with a number JSON.stringify cannot give back (a long mantissa)', method: 'POST', contentType: 'application/json', body: (n) => `${cm(n, '},"junk":1,"data":{"a":1' + '0'.repeat(250) + 'e60}')}` },
    { name: 'create with a __proto__ data key and an unknown field', method: 'POST', contentType: 'application/json', body: (n) => `${cm(n, '},"junk":1,"data":{"__proto__":"v"}')}` },
    { name: 'JSON patch with a path not rooted at /', method: 'PATCH', contentType: 'application/json-patch+json', body: () => '[{"op":"add","path":"x/data","value":{"k":"v"}}]' },
    { name: 'create of the wrong kind', method: 'POST', contentType: 'application/json', body: (n) => `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${n}"},"junk":1}` },
    { name: 'YAML create with unknown fields', method: 'POST', contentType: 'application/yaml', body: (n) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\n  zz: 1\njunk: [1, 2]\ndata:\n  a: b\n` },
    { name: 'update with unknown fields', method: 'PUT', contentType: 'application/json', body: (n) => `${cm(n, ',"zz":[1]},"junk":{"a":{}},"data":{"x":"y"}')}` },
    { name: 'merge patch with unknown fields', method: 'PATCH', contentType: 'application/merge-patch+json', body: () => '{"junk":{"a":[1]},"metadata":{"zz":{"b":1},"labels":{"l":"v"}},"yy":null}' },
    { name: 'merge patch (Strict)', method: 'PATCH', contentType: 'application/merge-patch+json', query: 'fieldValidation=Strict', body: () => '{"junk":{"a":[1]},"metadata":{"zz":{"b":1}}}' },
    { name: 'strategic merge patch with unknown fields', method: 'PATCH', contentType: 'application/strategic-merge-patch+json', body: () => '{"junk":{"a":[1]},"metadata":{"finalizers":["x"],"zz":[2]}}' },
    { name: 'strategic merge patch with a bad directive', method: 'PATCH', contentType: 'application/strategic-merge-patch+json', body: () => '{"junk":{"$patch":"nope","a":[1]}}' },
    { name: 'JSON patch into unknown fields', method: 'PATCH', contentType: 'application/json-patch+json', body: () => '[{"op":"add","path":"/junk","value":[1,2]},{"op":"add","path":"/data/k","value":"v"}]' },
    { name: 'JSON patch that reads what it added', method: 'PATCH', contentType: 'application/json-patch+json', body: () => '[{"op":"add","path":"/junk","value":{"a":"b"}},{"op":"copy","from":"/junk","path":"/data"}]' },
    { name: 'apply with an undeclared field', method: 'PATCH', contentType: 'application/apply-patch+yaml', query: 'fieldManager=m', body: (n) => `${cm(n, '},"data":{"a":"b"},"junk":[1],"zz":{"c":1}')}` },
    { name: 'apply that is valid', method: 'PATCH', contentType: 'application/apply-patch+yaml', query: 'fieldManager=m', body: (n) => `${cm(n, ',"labels":{"a":"b"}},"data":{"a":"b"}')}` },
  ];

  /** What a client sees, minus what differs between two objects by nature (name, uid, times, versions). */
  function seen(r: { status: number; headers: Record<string, unknown>; text: string }, name: string): unknown {
    const text = r.text
      .split(name)
      .join('NAME')
      .replace(/"(uid|resourceVersion|creationTimestamp|time)":"[^"]*"/g, '"$1":"X"');
    return { status: r.status, warning: r.headers['warning'], body: text };
  }

  test.each(cases)('$name', async (c) => {
    const answers: unknown[] = [];
    for (const [i, size] of (['small', 'large'] as const).entries()) {
      const name = `same-${cases.indexOf(c)}-${i}`;
      const q = c.query ? `?${c.query}` : '';
      if (c.method !== 'POST') {
        const made = await srv.request('POST', configmaps, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } } });
        expect(made.status).toBe(201);
      }
      const text = c.body(name);
      const body = size === 'large' ? pad(c.contentType === 'application/yaml' ? `${text}#` : text) : text;
      const path = c.method === 'POST' ? `${configmaps}${q}` : `${configmaps}/${name}${q}`;
      const sent = bodyWorkerInternals.sent;
      const r = await srv.request(c.method, path, { body, headers: { 'content-type': c.contentType } });
      answers.push(seen(r, name));
      expect(bodyWorkerInternals.sent - sent).toBe(size === 'large' ? 1 : 0);
    }
    expect(answers[1]).toEqual(answers[0]);
  });
});
