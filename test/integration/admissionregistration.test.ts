/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration
 * against a real etcd: kubectl apply, get (table and JSON with kube's defaults), explain and delete;
 * kube's 422s; update rules (resourceVersion required, no create on PUT, generation); discovery and
 * the api-extensions category; protobuf (the inlined Rule, pointer fields); and
 * @kubernetes/client-node's AdmissionregistrationV1Api create, list and watch.
 */
import { PROTOBUF, protobufWire, rawRequest } from '../support/protobuf-wire';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

const GROUP = 'admissionregistration.k8s.io';
const base = `/apis/${GROUP}/v1`;

const { srv } = useTestServer();

let n = 0;
/** A name of its own for each object, so tests do not meet each other's (the kinds are cluster-scoped). */
const fresh = (prefix: string): string => `${prefix}-${process.pid}-${++n}`;

const ok = async (args: string[], input?: string): Promise<string> => {
  const r = await srv.kubectl(args, input === undefined ? undefined : { input });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

/** Splits kubectl's table output into rows of cells (columns are separated by 2+ spaces). */
const table = (out: string): string[][] => out.trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));

const mutatingYaml = (name: string, hooks = 2) => `apiVersion: ${GROUP}/v1
kind: MutatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: pods.defaulter.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  clientConfig:
    service:
      namespace: webhooks
      name: defaulter
      path: /mutate
  rules:
  - operations: ["CREATE", "UPDATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods", "pods/status"]
${
  hooks > 1
    ? `- name: configmaps.defaulter.example.com
  admissionReviewVersions: ["v1", "v1beta1"]
  sideEffects: NoneOnDryRun
  timeoutSeconds: 5
  reinvocationPolicy: IfNeeded
  clientConfig:
    url: https://defaulter.example.com:8443/mutate
  matchConditions:
  - name: not-kube-system
    expression: "request.namespace != 'kube-system'"
`
    : ''
}`;

const validatingBody = (name: string, hook: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks: [
    {
      name: 'policy.example.com',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: { url: 'https://policy.example.com/validate' },
      rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
      ...hook,
    },
  ],
});

describe('kubectl', () => {
  test('apply a MutatingWebhookConfiguration: created with kube defaults and generation 1; get shows NAME, WEBHOOKS, AGE', async () => {
    const name = fresh('mwc');
    expect(await ok(['apply', '-f', '-'], mutatingYaml(name))).toBe(`mutatingwebhookconfiguration.${GROUP}/${name} created\n`);
    const got = JSON.parse(await ok(['get', 'mutatingwebhookconfiguration', name, '-o', 'json']));
    expect(got.metadata.generation).toBe(1);
    expect(got.metadata.namespace).toBeUndefined();
    const [svc, url] = got.webhooks;
    // Every default, in kube's key order (kubectl sorts keys when it prints JSON: read the server's own text).
    const raw = JSON.parse((await srv.request('GET', `${base}/mutatingwebhookconfigurations/${name}`)).text);
    expect(raw.webhooks[0]).toEqual(svc);
    expect(JSON.stringify(raw.webhooks[0])).toBe(
      JSON.stringify({
        name: 'pods.defaulter.example.com',
        clientConfig: { service: { namespace: 'webhooks', name: 'defaulter', path: '/mutate', port: 443 } },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'], scope: '*' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: 'None',
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
        reinvocationPolicy: 'Never',
      }),
    );
    expect(url).toMatchObject({ timeoutSeconds: 5, reinvocationPolicy: 'IfNeeded', clientConfig: { url: 'https://defaulter.example.com:8443/mutate' } });
    expect(url.matchConditions).toEqual([{ name: 'not-kube-system', expression: "request.namespace != 'kube-system'" }]);

    const rows = table(await ok(['get', 'mutatingwebhookconfigurations', name]));
    expect(rows[0]).toEqual(['NAME', 'WEBHOOKS', 'AGE']);
    expect(rows[1]).toEqual([name, '2', expect.stringMatching(/^\d+s$/)]);

    // Applying again with one webhook fewer is a change of the webhooks: generation 2.
    expect(await ok(['apply', '-f', '-'], mutatingYaml(name, 1))).toBe(`mutatingwebhookconfiguration.${GROUP}/${name} configured\n`);
    const again = JSON.parse(await ok(['get', 'mutatingwebhookconfiguration', name, '-o', 'json']));
    expect(again.webhooks).toHaveLength(1);
    expect(again.metadata.generation).toBe(2);
    // A label is not: generation stays.
    await ok(['label', 'mutatingwebhookconfiguration', name, 'team=a']);
    expect(JSON.parse(await ok(['get', 'mutatingwebhookconfiguration', name, '-o', 'json'])).metadata.generation).toBe(2);

    expect(await ok(['delete', 'mutatingwebhookconfiguration', name])).toBe(`mutatingwebhookconfiguration.${GROUP} "${name}" deleted\n`);
    const gone = await srv.kubectl(['get', 'mutatingwebhookconfiguration', name]);
    expect(gone.stderr).toContain(`Error from server (NotFound): mutatingwebhookconfigurations.${GROUP} "${name}" not found`);
  });

  test('server-side apply of a ValidatingWebhookConfiguration; get by category; delete', async () => {
    const name = fresh('vwc');
    const yaml = `apiVersion: ${GROUP}/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: deny.example.com
  admissionReviewVersions: ["v1beta1"]
  sideEffects: None
  failurePolicy: Ignore
  matchPolicy: Exact
  objectSelector:
    matchLabels:
      checked: "yes"
  clientConfig:
    service: {namespace: ns, name: svc, port: 8443}
  rules:
  - operations: ["DELETE"]
    apiGroups: ["apps"]
    apiVersions: ["v1"]
    resources: ["deployments"]
    scope: Namespaced
`;
    expect(await ok(['apply', '--server-side', '-f', '-'], yaml)).toBe(`validatingwebhookconfiguration.${GROUP}/${name} serverside-applied\n`);
    const got = JSON.parse(await ok(['get', 'validatingwebhookconfiguration', name, '-o', 'json']));
    expect(got.webhooks[0]).toEqual({
      name: 'deny.example.com',
      clientConfig: { service: { namespace: 'ns', name: 'svc', port: 8443 } },
      rules: [{ operations: ['DELETE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], scope: 'Namespaced' }],
      failurePolicy: 'Ignore',
      matchPolicy: 'Exact',
      namespaceSelector: {},
      objectSelector: { matchLabels: { checked: 'yes' } },
      sideEffects: 'None',
      timeoutSeconds: 10,
      admissionReviewVersions: ['v1beta1'],
    });
    expect(got.webhooks[0].reinvocationPolicy).toBeUndefined();

    // kube's `api-extensions` category names both kinds.
    const other = fresh('mwc');
    await ok(['apply', '-f', '-'], mutatingYaml(other, 1));
    const listed = await ok(['get', 'api-extensions', '-o', 'name']);
    expect(listed).toContain(`validatingwebhookconfiguration.${GROUP}/${name}\n`);
    expect(listed).toContain(`mutatingwebhookconfiguration.${GROUP}/${other}\n`);

    expect(await ok(['delete', 'validatingwebhookconfiguration', name])).toBe(`validatingwebhookconfiguration.${GROUP} "${name}" deleted\n`);
    await ok(['delete', 'mutatingwebhookconfiguration', other]);
  });

  test('explain both kinds', async () => {
    expect(await ok(['explain', 'mutatingwebhookconfiguration.webhooks'])).toMatch(
      /^GROUP:\s+admissionregistration\.k8s\.io\nKIND:\s+MutatingWebhookConfiguration\nVERSION:\s+v1\n\nFIELD: webhooks <\[\]MutatingWebhook>[\s\S]*admissionReviewVersions\s+<\[\]string> -required-[\s\S]*reinvocationPolicy\s+<string>[\s\S]*sideEffects\s+<string> -required-/,
    );
    const clientConfig = await ok(['explain', 'validatingwebhookconfiguration.webhooks.clientConfig']);
    expect(clientConfig).toMatch(/FIELD: clientConfig <WebhookClientConfig>[\s\S]*caBundle\s+<string>[\s\S]*service\s+<ServiceReference>[\s\S]*url\s+<string>/);
    expect(await ok(['explain', 'validatingwebhookconfiguration.webhooks'])).not.toContain('reinvocationPolicy');
  });
});

describe("what kube refuses, with kube's 422", () => {
  const post = (resource: string, body: unknown) => srv.request('POST', `${base}/${resource}`, { body });

  test.each<[string, Record<string, unknown>, string]>([
    ['sideEffects Some', { sideEffects: 'Some' }, 'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
    ['timeoutSeconds 31', { timeoutSeconds: 31 }, 'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
    [
      'an http URL',
      { clientConfig: { url: 'http://policy.example.com/validate' } },
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    ],
    ['no admissionReviewVersions', { admissionReviewVersions: [] }, 'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1'],
    ['a two-segment name', { name: 'example.com' }, 'webhooks[0].name: Invalid value: "example.com": should be a domain with at least three segments separated by dots'],
  ])('%s', async (_what, hook, cause) => {
    const name = fresh('bad');
    const r = await post('validatingwebhookconfigurations', validatingBody(name, hook));
    expect(r.status).toBe(422);
    const [field, ...rest] = cause.split(': ');
    expect(r.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `ValidatingWebhookConfiguration.${GROUP} "${name}" is invalid: ${cause}`,
      reason: 'Invalid',
      details: { name, group: GROUP, kind: 'ValidatingWebhookConfiguration', causes: [{ reason: expect.any(String), message: rest.join(': '), field }] },
      code: 422,
    });
    expect((await srv.request('GET', `${base}/validatingwebhookconfigurations/${name}`)).status).toBe(404);
  });

  test('a matchCondition that does not compile, and several errors at once (kubectl shows them all)', async () => {
    const name = fresh('bad');
    const r = await post('mutatingwebhookconfigurations', {
      ...validatingBody(name, { matchConditions: [{ name: 'broken', expression: 'object.metadata.name ==' }] }),
      kind: 'MutatingWebhookConfiguration',
    });
    expect(r.status).toBe(422);
    expect(r.json().message).toMatch(
      new RegExp(`^MutatingWebhookConfiguration\\.${GROUP.replace(/\./g, '\\.')} "${name}" is invalid: webhooks\\[0\\]\\.matchConditions\\[0\\]\\.expression: Invalid value: "object\\.metadata\\.name ==": compilation failed: `),
    );

    const yaml = `apiVersion: ${GROUP}/v1
kind: MutatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: a.example.com
  sideEffects: Unknown
  clientConfig: {}
  admissionReviewVersions: ["v1"]
  rules:
  - operations: ["CREATE", "*"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods"]
    scope: Everywhere
- name: a.example.com
  sideEffects: None
  admissionReviewVersions: ["v1"]
  clientConfig:
    url: https://user@a.example.com/x?y=z
`;
    const refused = await srv.kubectl(['create', '-f', '-'], { input: yaml });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toBe(
      `The MutatingWebhookConfiguration "${name}" is invalid: \n` +
        [
          `* webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if '*' is present, must not specify other operations`,
          `* webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"`,
          `* webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"`,
          `* webhooks[0].clientConfig: Required value: exactly one of url or service is required`,
          `* webhooks[1].clientConfig.url: Invalid value: "user": user information is not permitted in the URL`,
          `* webhooks[1].clientConfig.url: Invalid value: "y=z": query parameters are not permitted in the URL`,
          `* webhooks[1].name: Duplicate value: "a.example.com"`,
        ].join('\n') +
        '\n',
    );
  });
});

describe('decoding', () => {
  test('a caBundle that is not base64 is a 400 (kube does not otherwise check the bundle)', async () => {
    const name = fresh('ca');
    const bad = await srv.request('POST', `${base}/validatingwebhookconfigurations`, {
      body: validatingBody(name, { clientConfig: { url: 'https://a.example.com', caBundle: 'not base64!' } }),
    });
    expect(bad.status).toBe(400);
    expect(bad.json().message).toContain('illegal base64 data at input byte 3');
    const pem = await srv.request('POST', `${base}/validatingwebhookconfigurations`, {
      body: validatingBody(name, { clientConfig: { url: 'https://a.example.com', caBundle: Buffer.from('no PEM inside').toString('base64') } }),
    });
    expect(pem.status).toBe(201);
  });

  test('a validating webhook has no reinvocationPolicy: kubectl (strict) refuses the field', async () => {
    const name = fresh('strict');
    const body = validatingBody(name, { reinvocationPolicy: 'Never' });
    const r = await srv.kubectl(['create', '-f', '-'], { input: JSON.stringify(body) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "webhooks[0].reinvocationPolicy"');
  });
});

describe('updates', () => {
  test('PUT needs a resourceVersion and never creates; a stale one conflicts; webhook changes bump the generation', async () => {
    const name = fresh('put');
    const p = `${base}/validatingwebhookconfigurations/${name}`;
    const missing = await srv.request('PUT', p, { body: validatingBody(name) });
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe(`validatingwebhookconfigurations.${GROUP} "${name}" not found`);

    const created = await srv.request('POST', `${base}/validatingwebhookconfigurations`, { body: validatingBody(name) });
    expect(created.status).toBe(201);
    const obj = created.json();
    expect(obj.metadata.generation).toBe(1);

    const noVersion = await srv.request('PUT', p, { body: validatingBody(name, { timeoutSeconds: 3 }) });
    expect(noVersion.status).toBe(422);
    expect(noVersion.json().message).toBe(
      `ValidatingWebhookConfiguration.${GROUP} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
    );

    const changed = await srv.request('PUT', p, { body: { ...obj, webhooks: [{ ...obj.webhooks[0], timeoutSeconds: 3 }] } });
    expect(changed.status).toBe(200);
    expect(changed.json().metadata.generation).toBe(2);
    expect(changed.json().webhooks[0].timeoutSeconds).toBe(3);

    const stale = await srv.request('PUT', p, { body: { ...obj, webhooks: [{ ...obj.webhooks[0], timeoutSeconds: 4 }] } });
    expect(stale.status).toBe(409);

    // An update is validated too: a JSON patch making the URL plain http is refused.
    const patched = await srv.request('PATCH', p, {
      body: [{ op: 'replace', path: '/webhooks/0/clientConfig/url', value: 'http://policy.example.com' }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(patched.status).toBe(422);
    expect(patched.json().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: "Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
        field: 'webhooks[0].clientConfig.url',
      },
    ]);
    // A strategic merge patch merges webhooks by name.
    const merged = await srv.request('PATCH', p, {
      body: { webhooks: [{ name: 'policy.example.com', failurePolicy: 'Ignore' }] },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    expect(merged.status).toBe(200);
    expect(merged.json().webhooks).toHaveLength(1);
    expect(merged.json().webhooks[0]).toMatchObject({ name: 'policy.example.com', failurePolicy: 'Ignore', timeoutSeconds: 3 });
    expect(merged.json().metadata.generation).toBe(3);
  });
});

describe('served forms', () => {
  test('discovery: two cluster-scoped resources, every verb, category api-extensions', async () => {
    const resources = (await srv.request('GET', base)).json().resources as Array<Record<string, unknown>>;
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    expect(resources.map((r) => r.name)).toEqual(['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']);
    expect(resources[0]).toMatchObject({ singularName: 'mutatingwebhookconfiguration', namespaced: false, kind: 'MutatingWebhookConfiguration', verbs, categories: ['api-extensions'] });
    expect(resources[1]).toMatchObject({ singularName: 'validatingwebhookconfiguration', namespaced: false, kind: 'ValidatingWebhookConfiguration', verbs, categories: ['api-extensions'] });
    expect(resources[0]?.shortNames).toBeUndefined();
    const groups = (await srv.request('GET', '/apis')).json().groups as Array<{ name: string }>;
    expect(groups.map((g) => g.name)).toContain(GROUP);
  });

  test('OpenAPI v3: the kinds, kube’s list-map markers and required fields', async () => {
    const schemas = (await srv.request('GET', `/openapi/v3${base}`)).json().components.schemas;
    const hook = schemas['io.k8s.api.admissionregistration.v1.MutatingWebhook'];
    expect(hook.required).toEqual(['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions']);
    expect(schemas['io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration'].properties.webhooks).toMatchObject({
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(schemas['io.k8s.api.admissionregistration.v1.WebhookClientConfig'].properties.caBundle).toMatchObject({ type: 'string', format: 'byte' });
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']).toBeDefined();
  });

  test('protobuf: posted and read back; the Rule travels nested, unset pointers stay unset', async () => {
    const wire = await protobufWire(['k8s.io/api/admissionregistration/v1/generated.proto']);
    const name = fresh('pb');
    const msg = 'k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration';
    const body = wire.wrap(`${GROUP}/v1`, 'MutatingWebhookConfiguration', msg, {
      metadata: { name },
      webhooks: [
        {
          name: 'pb.example.com',
          clientConfig: { service: { namespace: 'ns', name: 'svc' }, caBundle: Buffer.from('pem') },
          rules: [{ operations: ['CREATE'], rule: { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] } }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    const created = await rawRequest(srv, 'POST', `${base}/mutatingwebhookconfigurations`, { 'content-type': PROTOBUF, accept: 'application/json' }, body);
    expect(created.status).toBe(201);
    const json = JSON.parse(created.body.toString());
    expect(json.webhooks[0].clientConfig).toEqual({ service: { namespace: 'ns', name: 'svc', port: 443 }, caBundle: Buffer.from('pem').toString('base64') });
    expect(json.webhooks[0].clientConfig.url).toBeUndefined();
    expect(json.webhooks[0].rules).toEqual([{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }]);

    const got = await rawRequest(srv, 'GET', `${base}/mutatingwebhookconfigurations/${name}`, { accept: PROTOBUF });
    expect(got.status).toBe(200);
    const decoded = wire.unwrap(got.body, msg);
    expect(decoded.typeMeta).toEqual({ apiVersion: `${GROUP}/v1`, kind: 'MutatingWebhookConfiguration' });
    const hook = decoded.obj.webhooks[0];
    expect(hook.rules).toEqual([{ operations: ['CREATE'], rule: { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' } }]);
    expect(hook.clientConfig.url).toBeUndefined();
    expect(hook.clientConfig.service).toEqual({ namespace: 'ns', name: 'svc', port: 443 });
    expect(Buffer.from(hook.clientConfig.caBundle).toString()).toBe('pem');
    expect(hook).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, reinvocationPolicy: 'Never', namespaceSelector: {}, objectSelector: {} });

    const list = await rawRequest(srv, 'GET', `${base}/mutatingwebhookconfigurations`, { accept: PROTOBUF });
    const l = wire.unwrap(list.body, `${msg}List`);
    expect(l.typeMeta.kind).toBe('MutatingWebhookConfigurationList');
    expect(l.obj.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain(name);
  });
});

describe('@kubernetes/client-node AdmissionregistrationV1Api', () => {
  type K8s = typeof K8sModule;
  let k8s: K8s;
  let kc: K8sModule.KubeConfig;
  let api: K8sModule.AdmissionregistrationV1Api;

  beforeAll(async () => {
    k8s = await import('@kubernetes/client-node');
    kc = new k8s.KubeConfig();
    kc.loadFromFile(srv.kubeconfig);
    api = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  });

  const webhook = (hookName: string): K8sModule.V1ValidatingWebhook => ({
    name: hookName,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    clientConfig: { url: 'https://hooks.example.com/check' },
  });

  test('create, list, a refused create, and a watch seeing ADDED, MODIFIED and DELETED', async () => {
    const name = fresh('cn');
    const events: string[] = [];
    let wake = (): void => undefined;
    const watch = new k8s.Watch(kc);
    const list0 = await api.listValidatingWebhookConfiguration();
    const req = await watch.watch(
      `${base}/validatingwebhookconfigurations`,
      { resourceVersion: list0.metadata?.resourceVersion, fieldSelector: `metadata.name=${name}` },
      (type: string, obj: K8sModule.V1ValidatingWebhookConfiguration) => {
        events.push(`${type} ${obj.metadata?.name} ${obj.metadata?.generation} ${obj.webhooks?.length ?? 0}`);
        wake();
      },
      () => undefined,
    );
    const saw = (want: string) =>
      until(() => `watch event "${want}"; saw ${JSON.stringify(events)}`, () => events.includes(want), {
        timeoutMs: 5000,
        wakeOn: (w) => {
          wake = w;
          return () => (wake = () => undefined);
        },
      });
    try {
      const created = await api.createValidatingWebhookConfiguration({ body: { metadata: { name }, webhooks: [webhook('a.hooks.example.com')] } });
      expect(created.webhooks?.[0]).toMatchObject({ failurePolicy: 'Fail', timeoutSeconds: 10, matchPolicy: 'Equivalent' });
      await saw(`ADDED ${name} 1 1`);

      const listed = await api.listValidatingWebhookConfiguration({ fieldSelector: `metadata.name=${name}` });
      expect(listed.items.map((i) => i.metadata?.name)).toEqual([name]);

      const replaced = await api.replaceValidatingWebhookConfiguration({
        name,
        body: { ...created, webhooks: [...(created.webhooks ?? []), webhook('b.hooks.example.com')] },
      });
      expect(replaced.metadata?.generation).toBe(2);
      await saw(`MODIFIED ${name} 2 2`);

      let refused: unknown;
      try {
        await api.createMutatingWebhookConfiguration({ body: { metadata: { name: fresh('cn') }, webhooks: [{ ...webhook('c.hooks.example.com'), timeoutSeconds: 0 }] } });
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(k8s.ApiException);
      const err = refused as InstanceType<K8s['ApiException']>;
      expect(err.code).toBe(422);
      expect(JSON.parse(err.body as string).message).toContain('webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds');

      await api.deleteValidatingWebhookConfiguration({ name });
      await saw(`DELETED ${name} 2 2`);
      expect(events).toEqual([`ADDED ${name} 1 1`, `MODIFIED ${name} 2 2`, `DELETED ${name} 2 2`]);
    } finally {
      req.abort();
    }
  });
});
