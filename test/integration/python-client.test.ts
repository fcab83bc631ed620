/**
 * The official Kubernetes Python client (Debian's python3-kubernetes, installed by `make test`
 * through scripts/ensure-debian-package.sh) against the server: CRUD, label selectors, a watch (the
 * client sends watch=True), kube's errors as ApiException, quota. The script prints what it saw.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { useTestServer } from '../support/server-fixture';

const run = promisify(execFile);
const { srv } = useTestServer();

test('the Python client: CRUD, selectors, a watch from a list resourceVersion, errors and quota', async () => {
  const script = path.join(__dirname, '../support/python/client_smoke.py');
  // Debian's python3 (where python3-kubernetes lives), not whatever python3 comes first on the PATH.
  const { stdout } = await run('/usr/bin/python3', [script, srv.kubeconfig, 'py'], { timeout: 60_000, env: { ...process.env, HOME: srv.dir } });
  const seen = JSON.parse(stdout);
  expect(seen.namespaces).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system', 'py']);
  expect(seen.created).toEqual({ name: 's1', data: { password: Buffer.from('hunter2').toString('base64') }, type: 'Opaque', uid: true });
  expect(seen.duplicate).toEqual({ status: 409, reason: 'AlreadyExists', message: 'secrets "s1" already exists' });
  expect(seen.missing).toEqual({ status: 404, reason: 'NotFound', message: 'secrets "nope" not found' });
  expect(seen.invalid).toMatchObject({ status: 422, reason: 'Invalid' });
  expect(seen.invalid.message).toMatch(/^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  expect(seen.listed).toEqual(['c1']);
  expect(seen.events).toEqual([
    ['MODIFIED', 's1', { app: 'py', patched: 'yes' }],
    ['DELETED', 's1', { app: 'py', patched: 'yes' }],
  ]);
  expect(seen.quota).toEqual({ name: 'q', hard: { configmaps: '1' } });
  expect(seen.over_quota).toEqual({
    status: 403,
    reason: 'Forbidden',
    message: 'configmaps "c2" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
  });
});
