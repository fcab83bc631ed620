/**
 * rbac.authorization.k8s.io/v1 served against a real etcd: Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding through kubectl (create, get -o wide, apply client- and server-side), kube's
 * 422s, protobuf, discovery and OpenAPI, @kubernetes/client-node's RbacAuthorizationV1Api, and the
 * escalation hook (a fake RbacEscalationChecks refusing and allowing).
 */
import type { PolicyRule, RbacEscalationChecks, RoleRef } from '../../src/api';
import { apiClient } from '../support/client-node';
import { namespaceMaker } from '../support/namespaces';
import { PROTOBUF, protobufWire, rawRequest } from '../support/protobuf-wire';
import { useTestServer } from '../support/server-fixture';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

const RBAC = 'rbac.authorization.k8s.io';
const base = `/apis/${RBAC}/v1`;

/** The fake checker: every call is recorded; users named "bob" are refused, everyone else allowed. */
const calls: Array<{ check: 'role' | 'binding'; user: string; namespace: string; name: string; rules?: PolicyRule[]; roleRef?: RoleRef }> = [];
const reason = (user: string) => `user "${user}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held`;
const rbacEscalation: RbacEscalationChecks = {
  roleRefused: async (user, t) => {
    calls.push({ check: 'role', user: user.name, ...t });
    return user.name === 'bob' ? reason(user.name) : undefined;
  },
  bindingRefused: async (user, t) => {
    calls.push({ check: 'binding', user: user.name, ...t });
    return user.name === 'bob' ? reason(user.name) : undefined;
  },
};

const { srv } = useTestServer({ rbacEscalation });

const fresh = namespaceMaker(srv, 'rbac');

const ok = async (args: string[], input?: string): Promise<string> => {
  const r = await srv.kubectl(args, input === undefined ? undefined : { input });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

/** Splits kubectl's table output into rows of cells (columns are separated by 2+ spaces). */
const table = (out: string): string[][] => out.trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));

describe('kubectl create and get', () => {
  test('role: --verb, --resource, --resource-name; get shows NAME, CREATED AT', async () => {
    const ns = await fresh();
    expect(await ok(['-n', ns, 'create', 'role', 'reader', '--verb=get,list', '--resource=secrets,configmaps', '--resource-name=a', '--resource-name=b'])).toBe(
      'role.rbac.authorization.k8s.io/reader created\n',
    );
    const role = JSON.parse(await ok(['-n', ns, 'get', 'role', 'reader', '-o', 'json']));
    expect(role.rules).toEqual([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets', 'configmaps'], resourceNames: ['a', 'b'] },
    ]);
    const rows = table(await ok(['-n', ns, 'get', 'roles']));
    expect(rows[0]).toEqual(['NAME', 'CREATED AT']);
    expect(rows[1]?.[0]).toBe('reader');
    expect(rows[1]?.[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('clusterrole: --non-resource-url, and --aggregation-rule', async () => {
    expect(await ok(['create', 'clusterrole', `logs-${process.pid}`, '--verb=get', '--non-resource-url=/logs/*', '--non-resource-url=/healthz'])).toBe(
      `clusterrole.rbac.authorization.k8s.io/logs-${process.pid} created\n`,
    );
    const logs = JSON.parse(await ok(['get', 'clusterrole', `logs-${process.pid}`, '-o', 'json']));
    expect(logs.rules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/logs/*', '/healthz'] }]);
    expect(logs.aggregationRule).toBeUndefined();
    expect(logs.metadata.namespace).toBeUndefined();

    await ok(['create', 'clusterrole', `agg-${process.pid}`, '--aggregation-rule=example.com/aggregate-to-x=true']);
    const agg = JSON.parse(await ok(['get', 'clusterrole', `agg-${process.pid}`, '-o', 'json']));
    expect(agg.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-x': 'true' } }] });
    const rows = table(await ok(['get', 'clusterroles', `agg-${process.pid}`, `logs-${process.pid}`]));
    expect(rows.map((r) => r[0])).toEqual(['NAME', `agg-${process.pid}`, `logs-${process.pid}`]);
    expect(rows[0]).toEqual(['NAME', 'CREATED AT']);
  });

  test('rolebinding: --user, --group, --serviceaccount; get -o wide shows ROLE and the subjects', async () => {
    const ns = await fresh();
    expect(
      await ok(['-n', ns, 'create', 'rolebinding', 'rb', '--clusterrole=view', '--user=alice', '--user=carol', '--group=devs', `--serviceaccount=${ns}:robot`]),
    ).toBe('rolebinding.rbac.authorization.k8s.io/rb created\n');
    await ok(['-n', ns, 'create', 'rolebinding', 'rb2', '--role=reader', '--group=ops']);
    const rb = JSON.parse(await ok(['-n', ns, 'get', 'rolebinding', 'rb', '-o', 'json']));
    expect(rb.roleRef).toEqual({ apiGroup: RBAC, kind: 'ClusterRole', name: 'view' });
    expect(rb.subjects).toEqual([
      { kind: 'User', apiGroup: RBAC, name: 'alice' },
      { kind: 'User', apiGroup: RBAC, name: 'carol' },
      { kind: 'Group', apiGroup: RBAC, name: 'devs' },
      { kind: 'ServiceAccount', name: 'robot', namespace: ns },
    ]);
    const narrow = table(await ok(['-n', ns, 'get', 'rolebindings']));
    expect(narrow[0]).toEqual(['NAME', 'ROLE', 'AGE']);
    expect(narrow[1]?.slice(0, 2)).toEqual(['rb', 'ClusterRole/view']);
    const wide = table(await ok(['-n', ns, 'get', 'rolebindings', '-o', 'wide']));
    expect(wide[0]).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    expect(wide[1]).toEqual(['rb', 'ClusterRole/view', expect.stringMatching(/^\d+s$/), 'alice, carol', 'devs', `${ns}/robot`]);
    expect(wide[2]).toEqual(['rb2', 'Role/reader', expect.stringMatching(/^\d+s$/), 'ops']);
  });

  test('clusterrolebinding: get -o wide', async () => {
    const name = `crb-${process.pid}`;
    await ok(['create', 'clusterrolebinding', name, '--clusterrole=edit', '--user=dave', '--serviceaccount=kube-system:ctl']);
    const wide = table(await ok(['get', 'clusterrolebinding', name, '-o', 'wide']));
    expect(wide[0]).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    expect(wide[1]).toEqual([name, 'ClusterRole/edit', expect.stringMatching(/^\d+s$/), 'dave', 'kube-system/ctl']);
  });

  test('describe works on each kind', async () => {
    const ns = await fresh();
    await ok(['-n', ns, 'create', 'role', 'r', '--verb=get', '--resource=secrets']);
    await ok(['-n', ns, 'create', 'rolebinding', 'b', '--role=r', '--user=u']);
    expect(await ok(['-n', ns, 'describe', 'role', 'r'])).toMatch(/Name:\s+r\n[\s\S]*secrets\s+\[\]\s+\[\]\s+\[get\]/);
    expect(await ok(['-n', ns, 'describe', 'rolebinding', 'b'])).toMatch(/Role:\n\s+Kind:\s+Role\n\s+Name:\s+r\nSubjects:\n[\s\S]*User\s+u/);
  });
});

describe('apply, and what kube refuses', () => {
  const binding = (ns: string, role: string, users: string[]) => `apiVersion: ${RBAC}/v1
kind: RoleBinding
metadata:
  name: applied
  namespace: ${ns}
roleRef:
  apiGroup: ${RBAC}
  kind: ClusterRole
  name: ${role}
subjects:
${users.map((u) => `- kind: User\n  name: ${u}`).join('\n')}
`;

  test('client-side apply creates, updates subjects, and cannot change roleRef', async () => {
    const ns = await fresh();
    expect(await ok(['apply', '-f', '-'], binding(ns, 'view', ['a']))).toBe('rolebinding.rbac.authorization.k8s.io/applied created\n');
    expect(await ok(['apply', '-f', '-'], binding(ns, 'view', ['a', 'b']))).toBe('rolebinding.rbac.authorization.k8s.io/applied configured\n');
    const got = JSON.parse(await ok(['-n', ns, 'get', 'rolebinding', 'applied', '-o', 'json']));
    // The subjects' apiGroup is defaulted, as kube's SetDefaults_Subject does.
    expect(got.subjects).toEqual([{ kind: 'User', apiGroup: RBAC, name: 'a' }, { kind: 'User', apiGroup: RBAC, name: 'b' }]);
    expect(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"name":"view"');
    // roleRef is an atomic struct and subjects an atomic list: each is owned whole.
    const managed = JSON.parse(await ok(['-n', ns, 'get', 'rolebinding', 'applied', '-o', 'json', '--show-managed-fields'])).metadata.managedFields;
    expect(managed[0].fieldsV1).toEqual({
      'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
      'f:roleRef': {},
      'f:subjects': {},
    });

    const r = await srv.kubectl(['apply', '-f', '-'], { input: binding(ns, 'edit', ['a']) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `The RoleBinding "applied" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"${RBAC}", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef`,
    );
  });

  test('server-side apply of a Role and a ClusterRoleBinding; a roleRef change is a 422 there too', async () => {
    const ns = await fresh();
    const role = (verbs: string[]) => `apiVersion: ${RBAC}/v1
kind: Role
metadata:
  name: ssa
  namespace: ${ns}
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: [${verbs.map((v) => `"${v}"`).join(', ')}]
`;
    expect(await ok(['apply', '--server-side', '-f', '-'], role(['get']))).toBe('role.rbac.authorization.k8s.io/ssa serverside-applied\n');
    await ok(['apply', '--server-side', '-f', '-'], role(['get', 'watch']));
    const got = JSON.parse(await ok(['-n', ns, 'get', 'role', 'ssa', '-o', 'json', '--show-managed-fields']));
    expect(got.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'watch'] }]);
    expect(got.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:rules': {} } })]);

    const crb = (role: string) => `apiVersion: ${RBAC}/v1
kind: ClusterRoleBinding
metadata:
  name: ssa-${process.pid}
roleRef:
  kind: ClusterRole
  name: ${role}
  apiGroup: ${RBAC}
subjects:
- kind: ServiceAccount
  name: default
  namespace: ${ns}
`;
    await ok(['apply', '--server-side', '-f', '-'], crb('view'));
    const refused = await srv.kubectl(['apply', '--server-side', '-f', '-'], { input: crb('admin') });
    expect(refused.stderr).toContain(
      `The ClusterRoleBinding "ssa-${process.pid}" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"${RBAC}", Kind:"ClusterRole", Name:"admin"}: cannot change roleRef`,
    );
  });

  test("invalid rules and bindings: kube's 422 with causes", async () => {
    const ns = await fresh();
    const post = (p: string, body: unknown) => srv.request('POST', p, { body });
    const nonResource = await post(`${base}/namespaces/${ns}/roles`, { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'bad' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] });
    expect(nonResource.status).toBe(422);
    expect(nonResource.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: 'Role.rbac.authorization.k8s.io "bad" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
      details: {
        name: 'bad',
        group: RBAC,
        kind: 'Role',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs', field: 'rules[0].nonResourceURLs' }],
      },
    });
    const noVerbs = await post(`${base}/clusterroles`, { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: `bad-${process.pid}` }, rules: [{ apiGroups: [''], resources: ['secrets'], nonResourceURLs: ['/y'] }] });
    expect(noVerbs.json().message).toBe(
      `ClusterRole.rbac.authorization.k8s.io "bad-${process.pid}" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].nonResourceURLs: Invalid value: []string{"/y"}: rules cannot apply to both regular resources and non-resource URLs]`,
    );
    const kubectlRefused = await srv.kubectl(['-n', ns, 'create', 'rolebinding', 'x', '--clusterrole=view', '--serviceaccount=robot']);
    expect(kubectlRefused.stderr).toContain('serviceaccount must be <namespace>:<name>');
    const crb = await post(`${base}/clusterrolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: `bad-${process.pid}` },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot' }, { kind: 'Robot', name: 'r2' }],
    });
    expect(crb.status).toBe(422);
    expect(crb.json().message).toBe(
      `ClusterRoleBinding.rbac.authorization.k8s.io "bad-${process.pid}" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value, subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]`,
    );
    const badName = await post(`${base}/namespaces/${ns}/roles`, { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: '..' } });
    expect(badName.status).toBe(422);
    expect(badName.json().message).toBe(`Role.rbac.authorization.k8s.io ".." is invalid: metadata.name: Invalid value: "..": may not be '..'`);
    // Names that are not DNS subdomains are fine (kube's path-segment rule).
    expect((await post(`${base}/namespaces/${ns}/roles`, { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'system:Odd_Name' } })).status).toBe(201);
  });

  test('kubectl auth reconcile creates, then adds missing rules and subjects', async () => {
    const ns = await fresh();
    const doc = (verbs: string[], users: string[]) => `apiVersion: ${RBAC}/v1
kind: Role
metadata:
  name: rec
  namespace: ${ns}
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: [${verbs.map((v) => `"${v}"`).join(', ')}]
---
apiVersion: ${RBAC}/v1
kind: RoleBinding
metadata:
  name: rec
  namespace: ${ns}
roleRef:
  apiGroup: ${RBAC}
  kind: Role
  name: rec
subjects:
${users.map((u) => `- apiGroup: ${RBAC}\n  kind: User\n  name: ${u}`).join('\n')}
`;
    // reconcile reports what it changed on stderr.
    const first = await srv.kubectl(['auth', 'reconcile', '-f', '-'], { input: doc(['get'], ['a']) });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('role.rbac.authorization.k8s.io/rec reconciled\nrolebinding.rbac.authorization.k8s.io/rec reconciled\n');
    expect(first.stderr).toContain('reconciliation required create');
    const second = await srv.kubectl(['auth', 'reconcile', '-f', '-'], { input: doc(['list'], ['b']) });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('missing rules added:\n\t\t{Verbs:[list] APIGroups:[] Resources:[secrets]');
    expect(second.stderr).toContain('missing subjects added:\n\t\t{Kind:User APIGroup:rbac.authorization.k8s.io Name:b Namespace:}');
    const role = JSON.parse(await ok(['-n', ns, 'get', 'role', 'rec', '-o', 'json']));
    expect(role.rules.flatMap((r: { verbs: string[] }) => r.verbs).sort()).toEqual(['get', 'list']);
    const rb = JSON.parse(await ok(['-n', ns, 'get', 'rolebinding', 'rec', '-o', 'json']));
    expect(rb.subjects.map((s: { name: string }) => s.name).sort()).toEqual(['a', 'b']);
  });

  test('a PUT may create (AllowCreateOnUpdate) and needs no resourceVersion', async () => {
    const ns = await fresh();
    const p = `${base}/namespaces/${ns}/roles/put`;
    const body = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'put' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] };
    expect((await srv.request('PUT', p, { body })).status).toBe(201);
    const again = await srv.request('PUT', p, { body: { ...body, rules: [] } });
    expect(again.status).toBe(200);
    expect(again.json().rules ?? []).toEqual([]);
  });
});

describe('served forms', () => {
  test('discovery: four resources, no short names or categories, every verb', async () => {
    const r = await srv.request('GET', base);
    const resources = r.json().resources as Array<Record<string, unknown>>;
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    expect(resources.map((x) => x.name)).toEqual(['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']);
    expect(resources.find((x) => x.name === 'roles')).toMatchObject({ singularName: 'role', namespaced: true, kind: 'Role', verbs });
    expect(resources.find((x) => x.name === 'clusterrolebindings')).toMatchObject({ singularName: 'clusterrolebinding', namespaced: false, kind: 'ClusterRoleBinding', verbs });
    for (const x of resources) {
      expect(x.shortNames).toBeUndefined();
      expect(x.categories).toBeUndefined();
    }
    expect(await ok(['api-resources', `--api-group=${RBAC}`, '--no-headers'])).toMatch(/^clusterrolebindings\s+rbac\.authorization\.k8s\.io\/v1\s+false\s+ClusterRoleBinding\n/);
  });

  test('OpenAPI v3 and kubectl explain', async () => {
    const doc = (await srv.request('GET', `/openapi/v3${base}`)).json();
    const schemas = doc.components.schemas;
    expect(schemas['io.k8s.api.rbac.v1.PolicyRule'].required).toEqual(['verbs']);
    expect(schemas['io.k8s.api.rbac.v1.Subject']['x-kubernetes-map-type']).toBe('atomic');
    expect(schemas['io.k8s.api.rbac.v1.Role'].properties.rules['x-kubernetes-list-type']).toBe('atomic');
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']).toBeDefined();
    expect(await ok(['explain', 'clusterrole.aggregationRule'])).toMatch(/FIELD: aggregationRule <AggregationRule>[\s\S]*clusterRoleSelectors\s+<\[\]LabelSelector>/);
  });

  test('protobuf: a ClusterRoleBinding posted and read back, a Role and a list read', async () => {
    const ns = await fresh();
    await ok(['-n', ns, 'create', 'role', 'pb', '--verb=get', '--resource=secrets', '--resource-name=s']);
    const wire = await protobufWire(['k8s.io/api/rbac/v1/generated.proto']);
    const unwrap = (b: Buffer, msg: string) => wire.unwrap(b, msg);
    const PB = PROTOBUF;

    const role = await rawRequest(srv, 'GET', `${base}/namespaces/${ns}/roles/pb`, { accept: PB });
    expect(role.status).toBe(200);
    expect(role.headers['content-type']).toBe(PB);
    const decoded = unwrap(role.body, 'k8s.io.api.rbac.v1.Role');
    expect(decoded.typeMeta).toEqual({ apiVersion: `${RBAC}/v1`, kind: 'Role' });
    expect(decoded.obj.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s'] }]);

    const list = await rawRequest(srv, 'GET', `${base}/namespaces/${ns}/roles`, { accept: PB });
    const l = unwrap(list.body, 'k8s.io.api.rbac.v1.RoleList');
    expect(l.typeMeta.kind).toBe('RoleList');
    expect(l.obj.items.map((i: any) => i.metadata.name)).toEqual(['pb']);

    const name = `pb-${process.pid}`;
    const body = wire.wrap(`${RBAC}/v1`, 'ClusterRoleBinding', 'k8s.io.api.rbac.v1.ClusterRoleBinding', { metadata: { name }, subjects: [{ kind: 'Group', name: 'g' }], roleRef: { kind: 'ClusterRole', name: 'view' } });
    const created = await rawRequest(srv, 'POST', `${base}/clusterrolebindings`, { 'content-type': PB, accept: 'application/json' }, body);
    expect(created.status).toBe(201);
    const json = JSON.parse(created.body.toString());
    // Defaults applied (roleRef.apiGroup, the Group's apiGroup), no aggregationRule-like empty structs invented.
    expect(json.roleRef).toEqual({ apiGroup: RBAC, kind: 'ClusterRole', name: 'view' });
    expect(json.subjects).toEqual([{ kind: 'Group', apiGroup: RBAC, name: 'g' }]);

    const cr = await rawRequest(srv, 'GET', `${base}/clusterroles/admin-${process.pid}`, { accept: PB });
    expect(cr.status).toBe(404);
    await ok(['create', 'clusterrole', `admin-${process.pid}`, '--verb=*', '--resource=secrets']);
    const crPb = await rawRequest(srv, 'GET', `${base}/clusterroles/admin-${process.pid}`, { accept: PB });
    const crObj = unwrap(crPb.body, 'k8s.io.api.rbac.v1.ClusterRole').obj;
    expect(crObj.aggregationRule).toBeUndefined();
    expect(crObj.rules).toEqual([{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }]);
  });
});

describe('escalation prevention hook', () => {
  test('bob is refused creating a role, patching it and applying it; the admin is allowed', async () => {
    const ns = await fresh();
    calls.length = 0;
    const refused = await srv.kubectl(['--as=bob', '-n', ns, 'create', 'role', 'esc', '--verb=get', '--resource=secrets']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`Error from server (Forbidden): roles.rbac.authorization.k8s.io "esc" is forbidden: ${reason('bob')}`);
    expect(calls).toEqual([
      // A POST names no object in its request: the checker's escalate check gets no name.
      { check: 'role', user: 'bob', namespace: ns, name: '', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] },
    ]);
    expect((await srv.request('GET', `${base}/namespaces/${ns}/roles/esc`)).status).toBe(404);

    await ok(['-n', ns, 'create', 'role', 'esc', '--verb=get', '--resource=secrets']);
    expect(calls.at(-1)).toMatchObject({ check: 'role', user: 'admin', namespace: ns, name: '' });

    const patch = await srv.kubectl(['--as=bob', '-n', ns, 'patch', 'role', 'esc', '--type=json', '-p', '[{"op":"add","path":"/rules/0/verbs/-","value":"delete"}]']);
    expect(patch.stderr).toContain(`roles.rbac.authorization.k8s.io "esc" is forbidden: ${reason('bob')}`);
    expect(calls.at(-1)).toMatchObject({ name: 'esc', rules: [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['secrets'] }] });

    const ssa = await srv.kubectl(['--as=bob', 'apply', '--server-side', '-f', '-'], {
      input: `apiVersion: ${RBAC}/v1\nkind: Role\nmetadata:\n  name: esc2\n  namespace: ${ns}\nrules:\n- apiGroups: [""]\n  resources: ["configmaps"]\n  verbs: ["*"]\n`,
    });
    expect(ssa.stderr).toContain(`roles.rbac.authorization.k8s.io "esc2" is forbidden: ${reason('bob')}`);

    const stored = JSON.parse(await ok(['-n', ns, 'get', 'role', 'esc', '-o', 'json']));
    expect(stored.rules[0].verbs).toEqual(['get']);
  });

  test('bindings: the roleRef and namespace reach the checker; a refusal names the binding', async () => {
    const ns = await fresh();
    calls.length = 0;
    const refused = await srv.kubectl(['--as=bob', '-n', ns, 'create', 'rolebinding', 'rb', '--clusterrole=admin', '--user=bob']);
    expect(refused.stderr).toContain(`rolebindings.rbac.authorization.k8s.io "rb" is forbidden: ${reason('bob')}`);
    expect(calls).toEqual([{ check: 'binding', user: 'bob', namespace: ns, name: '', roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'admin' } }]);
    const crb = await srv.kubectl(['--as=bob', 'create', 'clusterrolebinding', `esc-${process.pid}`, '--clusterrole=admin', '--user=bob']);
    expect(crb.stderr).toContain(`clusterrolebindings.rbac.authorization.k8s.io "esc-${process.pid}" is forbidden`);
    expect(calls.at(-1)).toMatchObject({ check: 'binding', namespace: '', name: '' });
    await ok(['--as=alice', '-n', ns, 'create', 'rolebinding', 'rb', '--clusterrole=admin', '--user=bob']);
  });

  test('the check comes before validation, as kube’s wrapper runs before the strategy', async () => {
    const ns = await fresh();
    const r = await srv.request('POST', `${base}/namespaces/${ns}/roles`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'invalid' }, rules: [{ nonResourceURLs: ['/x'] }] },
      headers: { 'Impersonate-User': 'bob' },
    });
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({ reason: 'Forbidden', details: { name: 'invalid', group: RBAC, kind: 'roles' } });
  });

  test('a stale update by a writer the check refuses is 403, not 409: the check runs before the resourceVersion one, as kube’s', async () => {
    const ns = await fresh();
    await ok(['-n', ns, 'create', 'role', 'stale', '--verb=get', '--resource=secrets']);
    const role = JSON.parse(await ok(['-n', ns, 'get', 'role', 'stale', '-o', 'json']));
    const r = await srv.request('PUT', `${base}/namespaces/${ns}/roles/stale`, {
      body: { ...role, metadata: { ...role.metadata, resourceVersion: '1' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }] },
      headers: { 'Impersonate-User': 'bob' },
    });
    expect(r.status).toBe(403);
    // The admin (allowed by the check) gets the conflict.
    const admin = await srv.request('PUT', `${base}/namespaces/${ns}/roles/stale`, { body: { ...role, metadata: { ...role.metadata, resourceVersion: '1' } } });
    expect(admin.status).toBe(409);
  });

  test('an update changing only what the garbage collector edits is not checked; a label with an empty value is a change', async () => {
    const ns = await fresh();
    await ok(['-n', ns, 'create', 'role', 'gc', '--verb=get', '--resource=secrets']);
    await ok(['-n', ns, 'label', 'role', 'gc', 'team=a']);
    calls.length = 0;
    await ok(['--as=bob', '-n', ns, 'patch', 'role', 'gc', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/keep"]}}']);
    expect(calls).toEqual([]);
    // Go keeps a map key whose value is empty: kube's IsOnlyMutatingGCFields sees the new label.
    const labelled = await srv.kubectl(['--as=bob', '-n', ns, 'label', 'role', 'gc', 'x=']);
    expect(labelled.stderr).toContain(`roles.rbac.authorization.k8s.io "gc" is forbidden: ${reason('bob')}`);
    expect(calls).toHaveLength(1);
  });

  test('an aggregated ClusterRole needs full authority: the hook asks for it', async () => {
    calls.length = 0;
    await ok(['--as=alice', 'create', 'clusterrole', `agg2-${process.pid}`, '--aggregation-rule=x=y']);
    expect(calls.map((c) => c.rules)).toEqual([[], [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]]);
  });
});

describe('@kubernetes/client-node RbacAuthorizationV1Api', () => {
  let rbac: K8sModule.RbacAuthorizationV1Api;
  beforeAll(async () => {
    rbac = await apiClient(srv, (k8s) => k8s.RbacAuthorizationV1Api);
  });

  test('create and read each kind', async () => {
    const ns = await fresh();
    const suffix = `cn-${process.pid}`;
    const rule = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
    await rbac.createNamespacedRole({ namespace: ns, body: { metadata: { name: 'r' }, rules: [rule] } });
    const role = await rbac.readNamespacedRole({ namespace: ns, name: 'r' });
    expect(role.rules).toEqual([rule]);
    expect(role.metadata?.creationTimestamp).toBeInstanceOf(Date);

    await rbac.createClusterRole({ body: { metadata: { name: suffix }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] } } });
    const cr = await rbac.readClusterRole({ name: suffix });
    expect(cr.aggregationRule?.clusterRoleSelectors).toEqual([{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }]);

    await rbac.createNamespacedRoleBinding({ namespace: ns, body: { metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u', apiGroup: RBAC }] } });
    const rb = await rbac.readNamespacedRoleBinding({ namespace: ns, name: 'b' });
    expect(rb.roleRef).toEqual({ apiGroup: RBAC, kind: 'Role', name: 'r' });

    await rbac.createClusterRoleBinding({ body: { metadata: { name: suffix }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: suffix }, subjects: [{ kind: 'Group', name: 'g', apiGroup: RBAC }] } });
    const crb = await rbac.readClusterRoleBinding({ name: suffix });
    expect(crb.subjects).toEqual([{ kind: 'Group', name: 'g', apiGroup: RBAC }]);
    const listed = await rbac.listClusterRoleBinding();
    expect(listed.items.map((i) => i.metadata?.name)).toContain(suffix);

    try {
      await rbac.createNamespacedRole({ namespace: ns, body: { metadata: { name: 'bad' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: [] }] } });
      throw new Error('expected a 422');
    } catch (e) {
      expect((e as { code?: number }).code).toBe(422);
    }
  });
});
