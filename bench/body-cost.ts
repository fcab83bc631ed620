/**
 * What one largest-legal body (3 MiB) costs the event loop, per body shape and write verb (issue 25,
 * item 3): the server runs in-process, so the longest event-loop block during a request is the
 * longest stretch its handling held the loop. Prints one line per shape × verb: status, total ms,
 * longest block ms. No assertions.
 *
 *   npx tsc -p bench/tsconfig.json && node dist/bench/body-cost.js [filter] [--small N] [--parallel N]
 *
 * `--parallel N` sends N of each request at once (creates under N names), as N hostile clients
 * would: the longest block should stay about one stage of one request (api/turns.ts).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from '../test/support/api-server';
import { startTestEtcd } from '../test/support/etcd';

const MiB = 1024 * 1024;
const target = 3 * MiB - 4096;

interface Shape {
  label: string;
  media: 'json' | 'yaml';
  /** The whole object's text for the given name. */
  full(name: string): string;
  /** A JSON-patch body equivalent (JSON shapes only). */
  jsonPatch?: string;
}

function fill(unit: (i: number) => string, sep: string, budget: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < budget; i++) {
    const u = unit(i);
    parts.push(u);
    n += u.length + sep.length;
  }
  return parts.join(sep);
}

const head = (name: string) => `"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"}`;

function jsonShape(label: string, field: 'junk' | 'data' | 'top', payload: string): Shape {
  return {
    label,
    media: 'json',
    full: (name) => (field === 'top' ? `{${head(name)},${payload}}` : `{${head(name)},"${field}":${payload}}`),
    jsonPatch:
      field === 'top'
        ? `[${fill((i) => `{"op":"add","path":"/u${i}","value":1}`, ',', target - 200)}]`
        : `[{"op":"add","path":"/${field}","value":${payload}}]`,
  };
}

function yamlShape(label: string, body: string): Shape {
  return { label, media: 'yaml', full: (name) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${body}` };
}

const shapes: Shape[] = [
  jsonShape('wide array in unknown field', 'junk', `[${fill(() => '{}', ',', target - 200)}]`),
  jsonShape('200k keys in unknown field', 'junk', `{${fill((i) => `"k${i}":""`, ',', target - 200)}}`),
  jsonShape('250k keys in data', 'data', `{${fill((i) => `"k${i}":""`, ',', target - 200)}}`),
  jsonShape('repeated key in unknown field', 'junk', `{${fill(() => `"k":"v"`, ',', target - 200)}}`),
  jsonShape('repeated key in data', 'data', `{${fill(() => `"k":"v"`, ',', target - 200)}}`),
  jsonShape('300k unknown top-level fields', 'top', fill((i) => `"u${i}":1`, ',', target - 200)),
  yamlShape('yaml k: v repeated in data', `data:\n${fill(() => '  k: v', '\n', target - 200)}\n`),
  yamlShape('yaml list of small flow maps', `junk:\n${fill((i) => `- {a: ${i}}`, '\n', target - 200)}\n`),
  yamlShape('yaml empty values', `junk:\n${fill((i) => `  k${i}:`, '\n', target - 200)}\n`),
];

const verbs = ['create', 'update', 'merge', 'strategic', 'json-patch', 'apply'] as const;
type Verb = (typeof verbs)[number];

const base = '/api/v1/namespaces/default/configmaps';

async function measure(fn: () => Promise<{ status: number }>): Promise<{ status: number; totalMs: number; blockMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 2 });
  h.enable();
  const t0 = performance.now();
  const { status } = await fn();
  const totalMs = performance.now() - t0;
  // Let the histogram see the last stretch.
  await new Promise((r) => setTimeout(r, 20));
  h.disable();
  return { status, totalMs, blockMs: h.max / 1e6 };
}

let parallel = 1;

async function run(s: TestServer, shape: Shape, verb: Verb): Promise<string> {
  const ctype = shape.media === 'yaml' ? 'application/yaml' : 'application/json';
  await s.request('DELETE', `${base}/t`);
  for (let i = 1; i < parallel; i++) await s.request('DELETE', `${base}/t${i}`);
  const small = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 't' }, data: { a: 'b' } };
  if (verb !== 'create') {
    const r = await s.request('POST', base, { body: small });
    if (r.status !== 201) throw new Error(`setup ${r.status} ${r.text}`);
  }
  let body: Buffer;
  let method = 'PATCH';
  let path = `${base}/t`;
  let contentType: string;
  switch (verb) {
    case 'create':
      method = 'POST';
      path = base;
      body = Buffer.from(shape.full('t'));
      contentType = ctype;
      break;
    case 'update':
      method = 'PUT';
      body = Buffer.from(shape.full('t'));
      contentType = ctype;
      break;
    case 'merge':
    case 'strategic':
      if (shape.media === 'yaml') return 'n/a';
      body = Buffer.from(shape.full('t'));
      contentType = verb === 'merge' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json';
      break;
    case 'json-patch':
      if (!shape.jsonPatch) return 'n/a';
      body = Buffer.from(shape.jsonPatch);
      contentType = 'application/json-patch+json';
      break;
    case 'apply':
      path += '?fieldManager=bench&force=true';
      body = Buffer.from(shape.full('t'));
      contentType = 'application/apply-patch+yaml';
      break;
  }
  if (body.length > 3 * MiB) throw new Error(`${shape.label} ${verb}: body ${body.length}`);
  let text = '';
  // The same request N times at once; a create's copies are named t, t1, t2, …
  const bodies = [body];
  for (let i = 1; i < parallel; i++) bodies.push(verb === 'create' ? Buffer.from(shape.full(`t${i}`)) : body);
  const m = await measure(async () => {
    const rs = await Promise.all(bodies.map((b) => s.request(method, path, { body: b, headers: { 'content-type': contentType } })));
    const worst = rs.reduce((a, r) => (r.status > a.status ? r : a));
    text = worst.text;
    return worst;
  });
  if (m.status >= 413 && process.env.SHOW_ERRORS) console.error(`${shape.label} ${verb}: ${text.slice(0, 300)}`);
  return `${m.status} ${m.totalMs.toFixed(0)}/${m.blockMs.toFixed(0)}`;
}

async function smallCreates(s: TestServer, n: number): Promise<string> {
  const body = Buffer.from(
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'x'.repeat(900) } }),
  );
  for (let i = 0; i < 20; i++) await s.request('POST', base, { body: body.toString().replace('"x"', `"w${i}"`) });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await s.request('POST', base, { body: body.toString().replace('"x"', `"s${i}"`) });
    if (r.status !== 201) throw new Error(`small ${r.status}`);
  }
  const c = process.cpuUsage(c0);
  return `${n} x 1 KiB create: ${((performance.now() - t0) / n).toFixed(2)} ms wall, ${((c.user + c.system) / 1000 / n).toFixed(2)} ms CPU each`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const smallIdx = args.indexOf('--small');
  const small = smallIdx >= 0 ? Number(args.splice(smallIdx, 2)[1]) : 0;
  const parallelIdx = args.indexOf('--parallel');
  if (parallelIdx >= 0) parallel = Math.max(1, Number(args.splice(parallelIdx, 2)[1]));
  const filter = args[0] ? new RegExp(args[0]) : undefined;
  const etcd = await startTestEtcd();
  const s = await startTestServer({ etcdEndpoints: etcd.endpoints });
  try {
    if (small) console.log(await smallCreates(s, small));
    for (const shape of shapes) {
      const cells: string[] = [];
      for (const verb of verbs) {
        if (filter && !filter.test(`${shape.label} ${verb}`)) continue;
        cells.push(`${verb} ${await run(s, shape, verb)}`);
      }
      if (cells.length) console.log(`${shape.label.padEnd(32)} ${cells.join(' | ')}`);
    }
  } finally {
    await s.stop();
    await etcd.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
