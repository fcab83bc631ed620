/**
 * Every write path through kubectl (issue 4): client- and server-side apply with managed fields and
 * conflicts, the three patch types, label/annotate, edit, diff, server dry-run and field validation.
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { useTestServer } from '../support/server-fixture';

const { srv } = useTestServer();
const ns = 'wp';

beforeAll(async () => {
  expect((await srv.kubectl(['create', 'namespace', ns])).code).toBe(0);
});

const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...extra }, data });
const k = (args: string[], input?: string) => srv.kubectl(args, { input });
const managed = async (name: string) =>
  JSON.parse((await k(['-n', ns, 'get', 'cm', name, '-o', 'json', '--show-managed-fields'])).stdout).metadata.managedFields as Array<{
    manager: string;
    operation: string;
    fieldsV1: Record<string, unknown>;
  }>;

test('apply --server-side twice, a conflict with another manager, then --force-conflicts moves ownership', async () => {
  expect(await k(['apply', '--server-side', '--field-manager=alice', '-f', '-'], cm('ssa', { a: '1', b: '2' }))).toMatchObject({
    code: 0,
    stdout: 'configmap/ssa serverside-applied\n',
  });
  expect((await k(['apply', '--server-side', '--field-manager=alice', '-f', '-'], cm('ssa', { a: '1', b: '2' }))).code).toBe(0);
  expect(await managed('ssa')).toEqual([
    expect.objectContaining({ manager: 'alice', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } }),
  ]);
  const conflict = await k(['apply', '--server-side', '--field-manager=bob', '-f', '-'], cm('ssa', { a: '9' }));
  expect(conflict.code).toBe(1);
  expect(conflict.stderr).toMatch(/^error: Apply failed with 1 conflict: conflict with "alice": \.data\.a\n/);
  // The same value is shared, not a conflict.
  expect((await k(['apply', '--server-side', '--field-manager=carol', '-f', '-'], cm('ssa', { b: '2' }))).code).toBe(0);
  expect((await k(['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', '-'], cm('ssa', { a: '9' }))).code).toBe(0);
  const owners = Object.fromEntries((await managed('ssa')).map((m) => [m.manager, m.fieldsV1]));
  expect(owners).toEqual({ alice: { 'f:data': { 'f:b': {} } }, bob: { 'f:data': { 'f:a': {} } }, carol: { 'f:data': { 'f:b': {} } } });
  expect((await k(['-n', ns, 'get', 'cm', 'ssa', '-o', 'jsonpath={.data}'])).stdout).toBe('{"a":"9","b":"2"}');
  // Dropping a field from alice's configuration keeps it while carol still owns it.
  expect((await k(['apply', '--server-side', '--field-manager=alice', '-f', '-'], cm('ssa', {}))).code).toBe(0);
  expect((await k(['-n', ns, 'get', 'cm', 'ssa', '-o', 'jsonpath={.data}'])).stdout).toBe('{"a":"9","b":"2"}');
  // Without another owner it goes.
  expect((await k(['apply', '--server-side', '--field-manager=carol', '-f', '-'], cm('ssa', {}))).code).toBe(0);
  expect((await k(['-n', ns, 'get', 'cm', 'ssa', '-o', 'jsonpath={.data}'])).stdout).toBe('{"a":"9"}');
});

test('apply without fieldManager over HTTP is 422 on PatchOptions; managedFields in an apply body is 400', async () => {
  const path_ = `/api/v1/namespaces/${ns}/configmaps/raw`;
  const headers = { 'content-type': 'application/apply-patch+yaml' };
  const noManager = await srv.request('PATCH', path_, { body: cm('raw', { a: '1' }), headers });
  expect(noManager.status).toBe(422);
  expect(noManager.json().message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const created = await srv.request('PATCH', `${path_}?fieldManager=m`, { body: cm('raw', { a: '1' }), headers });
  expect(created.status).toBe(201);
  const withMf = JSON.stringify({ ...JSON.parse(cm('raw', { a: '2' })), metadata: { name: 'raw', managedFields: [{ manager: 'x' }] } });
  const bad = await srv.request('PATCH', `${path_}?fieldManager=m`, { body: withMf, headers });
  expect(bad.status).toBe(400);
  const force = await srv.request('PATCH', `${path_}?force=true`, { body: { data: { a: '3' } }, headers: { 'content-type': 'application/merge-patch+json' } });
  expect(force.status).toBe(422);
  expect(force.json().message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
});

test('a repeated key in an apply body: the last wins; Strict is 400 and Warn a warning, after the apply, as kube', async () => {
  const path_ = (v: string) => `/api/v1/namespaces/${ns}/configmaps/applydup?fieldManager=m&fieldValidation=${v}`;
  const headers = { 'content-type': 'application/apply-patch+yaml' };
  const body = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: applydup', 'data:', '  a: "1"', '  a: "2"', ''].join('\n');
  const strict = await srv.request('PATCH', path_('Strict'), { body, headers });
  expect(strict.status).toBe(400);
  expect(strict.json().message).toBe('error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
  const warned = await srv.request('PATCH', path_('Warn'), { body, headers });
  expect(warned.status).toBe(201);
  expect(warned.json().data).toEqual({ a: '2' });
  expect(warned.headers.warning).toBe('299 - "line 7: key \\"a\\" already set in map"');
  const ignored = await srv.request('PATCH', path_('Ignore'), { body, headers });
  expect(ignored.status).toBe(200);
  expect(ignored.headers.warning).toBeUndefined();
  // Every repeat is reported, in document order.
  const twice = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: applydup', '  name: applydup', 'data:', '  a: "1"', '  a: "3"', ''].join('\n');
  const both = await srv.request('PATCH', path_('Strict'), { body: twice, headers });
  expect(both.json().message).toBe(
    'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key "name" already set in map\n  line 8: key "a" already set in map',
  );
});

test('patch --type json|merge|strategic, label and annotate record their managers', async () => {
  expect((await k(['apply', '-f', '-'], cm('p', { a: '1' }))).code).toBe(0);
  expect(await k(['-n', ns, 'patch', 'cm', 'p', '--type', 'json', '-p', '[{"op":"add","path":"/data/j","value":"J"}]'])).toMatchObject({
    code: 0,
    stdout: 'configmap/p patched\n',
  });
  expect((await k(['-n', ns, 'patch', 'cm', 'p', '--type', 'merge', '-p', '{"data":{"m":"M"}}'])).code).toBe(0);
  expect((await k(['-n', ns, 'patch', 'cm', 'p', '--type', 'strategic', '-p', '{"data":{"s":"S","a":null}}'])).code).toBe(0);
  expect((await k(['-n', ns, 'label', 'cm', 'p', 'tier=web'])).code).toBe(0);
  expect((await k(['-n', ns, 'annotate', 'cm', 'p', 'note=hi'])).code).toBe(0);
  expect((await k(['-n', ns, 'get', 'cm', 'p', '-o', 'jsonpath={.data}'])).stdout).toBe('{"j":"J","m":"M","s":"S"}');
  const managers = (await managed('p')).map((m) => `${m.manager}/${m.operation}`);
  expect(managers).toEqual(
    expect.arrayContaining(['kubectl-client-side-apply/Update', 'kubectl-patch/Update', 'kubectl-label/Update', 'kubectl-annotate/Update']),
  );
  const failedTest = await k(['-n', ns, 'patch', 'cm', 'p', '--type', 'json', '-p', '[{"op":"test","path":"/data/j","value":"nope"}]']);
  expect(failedTest.code).toBe(1);
  expect(failedTest.stderr).toContain('The request is invalid');
});

test('edit with EDITOR set to a script, diff (server dry-run) and create --dry-run=server persist only what they should', async () => {
  expect((await k(['apply', '-f', '-'], cm('e', { a: '1' }))).code).toBe(0);
  const editor = path.join(srv.dir, 'editor.sh');
  await writeFile(editor, `#!/bin/sh\nsed -i 's/a: "1"/a: "edited"/' "$1"\n`);
  await chmod(editor, 0o755);
  expect(await srv.kubectl(['-n', ns, 'edit', 'cm', 'e'], { env: { EDITOR: editor, KUBE_EDITOR: editor } })).toMatchObject({
    code: 0,
    stdout: 'configmap/e edited\n',
  });
  expect((await k(['-n', ns, 'get', 'cm', 'e', '-o', 'jsonpath={.data.a}'])).stdout).toBe('edited');

  const diff = await k(['diff', '-f', '-'], cm('e', { a: 'changed' }));
  expect(diff.code).toBe(1); // kubectl diff exits 1 when there are differences
  expect(diff.stdout).toMatch(/-\s+a: edited\n\+\s+a: changed/);
  expect((await k(['-n', ns, 'get', 'cm', 'e', '-o', 'jsonpath={.data.a}'])).stdout).toBe('edited');

  expect(await k(['-n', ns, 'create', 'cm', 'dry', '--from-literal=x=1', '--dry-run=server'])).toMatchObject({
    code: 0,
    stdout: 'configmap/dry created (server dry run)\n',
  });
  expect((await k(['-n', ns, 'get', 'cm', 'dry'])).code).toBe(1);
});

test('apply --validate=strict rejects unknown fields; --validate=warn warns and drops them', async () => {
  const bad = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'v', namespace: ns }, data: { a: '1' }, bogus: true });
  const strict = await k(['apply', '--validate=strict', '-f', '-'], bad);
  expect(strict.code).toBe(1);
  expect(strict.stderr).toContain('unknown field "bogus"');
  const warn = await k(['apply', '--validate=warn', '-f', '-'], bad);
  expect(warn.code).toBe(0);
  expect(warn.stderr).toContain('Warning: unknown field "bogus"');
  expect(JSON.parse((await k(['-n', ns, 'get', 'cm', 'v', '-o', 'json'])).stdout)).not.toHaveProperty('bogus');
});

test('duplicate fields in JSON and YAML bodies: Strict rejects naming them, Warn warns, Ignore is silent', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const json = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":"dup"},"data":{"a":"1","a":"2"}}';
  const strict = await srv.request('POST', `${base}?fieldValidation=Strict`, { body: json });
  expect(strict.status).toBe(400);
  expect(strict.json().message).toBe(
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "data.a"',
  );
  const warn = await srv.request('POST', base, { body: json });
  expect(warn.status).toBe(201);
  expect(warn.headers.warning).toBe('299 - "duplicate field \\"metadata.name\\"", 299 - "duplicate field \\"data.a\\""');
  expect(warn.json().data).toEqual({ a: '2' });
  const ignore = await srv.request('POST', `${base}?fieldValidation=Ignore`, { body: json.replace(/"dup"/g, '"dup2"') });
  expect(ignore.status).toBe(201);
  expect(ignore.headers.warning).toBeUndefined();

  const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dupy\ndata:\n  a: "1"\n  a: "2"\n';
  const headers = { 'content-type': 'application/yaml' };
  const ys = await srv.request('POST', `${base}?fieldValidation=Strict`, { body: yaml, headers });
  expect(ys.status).toBe(400);
  expect(ys.json().message).toBe(
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
  );
  const yw = await srv.request('POST', base, { body: yaml, headers });
  expect(yw.status).toBe(201);
  expect(yw.json().data).toEqual({ a: '2' });
});

test('managedFields reset: a JSON patch replacing them with [{}] clears them, [] does not', async () => {
  expect((await k(['apply', '--server-side', '--field-manager=m1', '-f', '-'], cm('reset', { a: '1' }))).code).toBe(0);
  const p = `/api/v1/namespaces/${ns}/configmaps/reset`;
  const jsonPatch = { 'content-type': 'application/json-patch+json' };
  const empty = await srv.request('PATCH', p, { body: [{ op: 'replace', path: '/metadata/managedFields', value: [] }], headers: jsonPatch });
  expect(empty.status).toBe(200);
  expect(empty.json().metadata.managedFields.map((m: { manager: string }) => m.manager)).toContain('m1');
  const reset = await srv.request('PATCH', p, { body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }], headers: jsonPatch });
  expect(reset.status).toBe(200);
  expect(reset.json().metadata.managedFields).toBeUndefined();
});

test('status writes through apply and merge patch keep their own managedFields entries (subresource: status)', async () => {
  const q = JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'sq', namespace: ns }, spec: { hard: { 'count/widgets.example.com': '3' } } });
  expect((await k(['apply', '--server-side', '--field-manager=spec-owner', '-f', '-'], q)).code).toBe(0);
  const status = `/api/v1/namespaces/${ns}/resourcequotas/sq/status`;
  const applied = await srv.request('PATCH', `${status}?fieldManager=status-owner`, {
    body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'sq' }, status: { hard: { 'count/widgets.example.com': '3' } } },
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  expect(applied.status).toBe(200);
  const entries = applied.json().metadata.managedFields as Array<{ manager: string; operation: string; subresource?: string }>;
  expect(entries).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ manager: 'spec-owner', operation: 'Apply' }),
      expect.objectContaining({ manager: 'status-owner', operation: 'Apply', subresource: 'status' }),
    ]),
  );
  expect(entries.find((e) => e.manager === 'spec-owner')).not.toHaveProperty('subresource');
  // The status subresource never changes spec, whatever the body says.
  const merged = await srv.request('PATCH', status, {
    body: { spec: { hard: { 'count/widgets.example.com': '99' } } },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  expect(merged.status).toBe(200);
  expect(merged.json().spec.hard).toEqual({ 'count/widgets.example.com': '3' });
});

test('dryRun=All on apply and deletecollection runs every stage and persists nothing', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const applied = await srv.request('PATCH', `${base}/dry-apply?fieldManager=m&dryRun=All`, {
    body: cm('dry-apply', { a: '1' }),
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  expect(applied.status).toBe(201);
  expect(applied.json().metadata.managedFields[0]).toMatchObject({ manager: 'm', operation: 'Apply' });
  expect((await srv.request('GET', `${base}/dry-apply`)).status).toBe(404);

  for (const name of ['dc1', 'dc2']) expect((await k(['apply', '-f', '-'], cm(name, { a: '1' }, { labels: { batch: 'dc' } }))).code).toBe(0);
  const dc = await srv.request('DELETE', `${base}?labelSelector=batch%3Ddc&dryRun=All`);
  expect(dc.status).toBe(200);
  expect(dc.json().items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()).toEqual(['dc1', 'dc2']);
  const left = (await srv.request('GET', `${base}?labelSelector=batch%3Ddc`)).json().items;
  expect(left).toHaveLength(2);
  const bad = await srv.request('DELETE', `${base}?labelSelector=batch%3Ddc&dryRun=Bogus`);
  expect(bad.status).toBe(422);
});
