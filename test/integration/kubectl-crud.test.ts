/** kubectl against the real server and a real etcd: the commands the foundation issue lists. */
import { useTestServer } from '../support/server-fixture';

const { srv } = useTestServer();

test('create, get and describe a namespace', async () => {
  expect(await srv.kubectl(['create', 'namespace', 'demo'])).toMatchObject({ code: 0, stdout: 'namespace/demo created\n' });
  const r = await srv.kubectl(['get', 'namespace', 'demo']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^NAME\s+STATUS\s+AGE\ndemo\s+Active\s+\d+s\n$/);
  const y = await srv.kubectl(['get', 'ns', 'demo', '-o', 'jsonpath={.metadata.labels.kubernetes\\.io/metadata\\.name} {.status.phase} {.spec.finalizers[0]}']);
  expect(y.stdout).toBe('demo Active kubernetes');
});

test('system namespaces exist', async () => {
  const r = await srv.kubectl(['get', 'namespaces', '-o', 'name']);
  expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(
    ['namespace/default', 'namespace/demo', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system'].sort(),
  );
});

test('create secret generic --from-literal, get as table, yaml, json, jsonpath, name', async () => {
  expect(await srv.kubectl(['-n', 'demo', 'create', 'secret', 'generic', 's1', '--from-literal=password=hunter2', '--from-literal=user=admin'])).toMatchObject({
    code: 0,
    stdout: 'secret/s1 created\n',
  });
  const table = await srv.kubectl(['-n', 'demo', 'get', 'secrets']);
  expect(table.stdout).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE\ns1\s+Opaque\s+2\s+\d+s\n$/);
  const jp = await srv.kubectl(['-n', 'demo', 'get', 'secret', 's1', '-o', 'jsonpath={.data.password}']);
  expect(Buffer.from(jp.stdout, 'base64').toString()).toBe('hunter2');
  const json = JSON.parse((await srv.kubectl(['-n', 'demo', 'get', 'secret', 's1', '-o', 'json'])).stdout);
  expect(json).toMatchObject({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 's1', namespace: 'demo' } });
  expect(json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  expect(json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const yaml = await srv.kubectl(['-n', 'demo', 'get', 'secret', 's1', '-o', 'yaml']);
  expect(yaml.stdout).toContain('kind: Secret');
  expect((await srv.kubectl(['-n', 'demo', 'get', 'secret', '-o', 'name'])).stdout).toBe('secret/s1\n');
});

test('create quota --hard shows REQUEST and LIMIT columns', async () => {
  expect(await srv.kubectl(['-n', 'demo', 'create', 'quota', 'q1', '--hard=secrets=10,limits.cpu=2'])).toMatchObject({
    code: 0,
    stdout: 'resourcequota/q1 created\n',
  });
  const r = await srv.kubectl(['-n', 'demo', 'get', 'quota', 'q1', '-o', 'jsonpath={.spec.hard}']);
  expect(JSON.parse(r.stdout)).toEqual({ secrets: '10', 'limits.cpu': '2' });
  const t = await srv.kubectl(['-n', 'demo', 'get', 'quota']);
  expect(t.stdout.split('\n')[0]).toMatch(/^NAME\s+AGE\s+REQUEST\s+LIMIT$/);
});

test('configmaps: create from literal, label and annotate, select by label and field', async () => {
  expect((await srv.kubectl(['-n', 'demo', 'create', 'configmap', 'c1', '--from-literal=a=1'])).code).toBe(0);
  expect((await srv.kubectl(['-n', 'demo', 'create', 'configmap', 'c2', '--from-literal=b=2'])).code).toBe(0);
  expect(await srv.kubectl(['-n', 'demo', 'label', 'configmap', 'c1', 'tier=web'])).toMatchObject({ code: 0, stdout: 'configmap/c1 labeled\n' });
  expect(await srv.kubectl(['-n', 'demo', 'annotate', 'configmap', 'c1', 'owner=me'])).toMatchObject({ code: 0, stdout: 'configmap/c1 annotated\n' });
  expect((await srv.kubectl(['-n', 'demo', 'get', 'cm', '-l', 'tier=web', '-o', 'name'])).stdout).toBe('configmap/c1\n');
  expect((await srv.kubectl(['-n', 'demo', 'get', 'cm', '-l', 'tier!=web', '-o', 'name'])).stdout).toBe('configmap/c2\n');
  expect((await srv.kubectl(['-n', 'demo', 'get', 'cm', '--field-selector', 'metadata.name=c2', '-o', 'name'])).stdout).toBe('configmap/c2\n');
  const bad = await srv.kubectl(['-n', 'demo', 'get', 'cm', '--field-selector', 'data.a=1']);
  expect(bad.code).toBe(1);
  // kubectl wraps the server's message with the selectors it sent.
  expect(bad.stderr).toBe(
    'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "data.a=1": "data.a" is not a known field selector: only "metadata.name", "metadata.namespace"\n',
  );
  expect((await srv.kubectl(['-n', 'demo', 'get', 'cm', 'c1', '-o', 'jsonpath={.metadata.annotations.owner}'])).stdout).toBe('me');
});

test('get -A lists across namespaces with a NAMESPACE column', async () => {
  const r = await srv.kubectl(['get', 'secrets', '-A']);
  expect(r.stdout).toMatch(/^NAMESPACE\s+NAME\s+TYPE\s+DATA\s+AGE\ndemo\s+s1\s+Opaque\s+2\s+\d+s\n$/);
});

test('errors print exactly as against kube-apiserver', async () => {
  const nf = await srv.kubectl(['-n', 'demo', 'get', 'secret', 'nope']);
  expect(nf).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): secrets "nope" not found\n' });
  const dup = await srv.kubectl(['-n', 'demo', 'create', 'secret', 'generic', 's1']);
  expect(dup).toMatchObject({ code: 1, stderr: 'error: failed to create secret secrets "s1" already exists\n' });
  const nons = await srv.kubectl(['-n', 'missing', 'create', 'configmap', 'x']);
  expect(nons.stderr).toContain('namespaces "missing" not found');
});

test('replace -f and delete', async () => {
  const cm = JSON.parse((await srv.kubectl(['-n', 'demo', 'get', 'cm', 'c2', '-o', 'json'])).stdout);
  cm.data = { b: '3' };
  const rep = await srv.kubectl(['replace', '-f', '-'], { input: JSON.stringify(cm) });
  expect(rep).toMatchObject({ code: 0, stdout: 'configmap/c2 replaced\n' });
  const stale = await srv.kubectl(['replace', '-f', '-'], { input: JSON.stringify(cm) });
  expect(stale.code).toBe(1);
  expect(stale.stderr).toContain(
    'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "c2": the object has been modified; please apply your changes to the latest version and try again',
  );
  expect(await srv.kubectl(['-n', 'demo', 'delete', 'configmap', 'c2'])).toMatchObject({ code: 0, stdout: 'configmap "c2" deleted\n' });
  expect((await srv.kubectl(['-n', 'demo', 'get', 'cm', 'c2'])).code).toBe(1);
});

test('apply -f (client-side) creates, then configures; describe shows the object', async () => {
  const cm = (v: string) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'demo', labels: { app: 'x' } }, data: { k: v } });
  expect(await srv.kubectl(['apply', '-f', '-'], { input: cm('1') })).toEqual({ code: 0, stdout: 'configmap/applied created\n', stderr: '' });
  expect(await srv.kubectl(['apply', '-f', '-'], { input: cm('1') })).toMatchObject({ code: 0, stdout: 'configmap/applied unchanged\n' });
  expect(await srv.kubectl(['apply', '-f', '-'], { input: cm('2') })).toMatchObject({ code: 0, stdout: 'configmap/applied configured\n' });
  expect((await srv.kubectl(['-n', 'demo', 'get', 'cm', 'applied', '-o', 'jsonpath={.data.k}'])).stdout).toBe('2');
  const d = await srv.kubectl(['-n', 'demo', 'describe', 'configmap', 'applied']);
  expect(d.code).toBe(0);
  expect(d.stdout).toMatch(/^Name:\s+applied\nNamespace:\s+demo\nLabels:\s+app=x\n/);
  expect(d.stdout).toMatch(/\nk:\n----\n2\n/);
});

test('describe secret and quota', async () => {
  const s = await srv.kubectl(['-n', 'demo', 'describe', 'secret', 's1']);
  expect(s.stdout).toMatch(/^Name:\s+s1\nNamespace:\s+demo\n/);
  expect(s.stdout).toMatch(/\nType:\s+Opaque\n/);
  expect(s.stdout).toMatch(/\npassword:\s+7 bytes\n/);
  const q = await srv.kubectl(['-n', 'demo', 'describe', 'quota', 'q1']);
  expect(q.code).toBe(0);
  expect(q.stdout).toMatch(/^Name:\s+q1\nNamespace:\s+demo\nResource\s+Used\s+Hard\n/);
});

test('api-resources, api-versions and explain read discovery and OpenAPI', async () => {
  const r = await srv.kubectl(['api-resources']);
  expect(r.code).toBe(0);
  expect(r.stdout.split('\n')[0]).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/);
  expect(r.stdout).toMatch(/\nconfigmaps\s+cm\s+v1\s+true\s+ConfigMap\n/);
  expect(r.stdout).toMatch(/\nnamespaces\s+ns\s+v1\s+false\s+Namespace\n/);
  expect(r.stdout).toMatch(/\nresourcequotas\s+quota\s+v1\s+true\s+ResourceQuota\n/);
  expect(r.stdout).toMatch(/\nsecrets\s+v1\s+true\s+Secret\n/);
  expect((await srv.kubectl(['api-versions'])).stdout).toBe('admissionregistration.k8s.io/v1\nauthentication.k8s.io/v1\nauthorization.k8s.io/v1\nevents.k8s.io/v1\nrbac.authorization.k8s.io/v1\nscheduling.k8s.io/v1\nv1\n');
  const e = await srv.kubectl(['explain', 'secret.data']);
  expect(e.code).toBe(0);
  expect(e.stdout).toMatch(/^KIND:\s+Secret\nVERSION:\s+v1\n\nFIELD: data <map\[string\]string>\n/);
});
