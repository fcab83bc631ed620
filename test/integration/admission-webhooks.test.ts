/**
 * Admission webhooks end to end: kubectl applies MutatingWebhookConfigurations and
 * ValidatingWebhookConfigurations naming an HTTPS test webhook (test/support/admission-webhook-server.ts),
 * then writes ConfigMaps and Secrets and sees what kube's would: the mutation, the denial, the
 * warnings, each failure policy with a webhook down, slow, answering garbage or the wrong uid, or
 * named by a Service, dry runs sent with `dryRun: true`, the selectors and matchConditions,
 * reinvocation (the ServiceAccount plugin run again for an injected container), a v1beta1 review,
 * DELETE admitted after the object is read, subresources (pods/status, serviceaccounts/token),
 * the request's deadline, Retry-After answers and the User-Agent. Every webhook is limited to namespaces labelled
 * `webhooks: on`, so nothing else the server writes reaches it.
 */
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { startAdmissionWebhookServer, addLabelsPatch, type AdmissionReviewRequest, type AdmissionWebhookServer } from '../support/admission-webhook-server';
import { webhookConfigurationLister } from '../../src/server/admission-webhooks';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

// Service account tokens are served: serviceaccounts/token reaches webhooks.
const { srv } = useTestServer({ serviceAccounts: { serviceAccountIssuers: ['https://issuer.test.example'], apiAudiences: ['api-a'] } });
let hooks: AdmissionWebhookServer;
let deadUrl: string;

const GROUP = 'admissionregistration.k8s.io';
type Kind = 'Mutating' | 'Validating';
const plural = (kind: Kind) => `${kind.toLowerCase()}webhookconfigurations`;

beforeAll(async () => {
  hooks = await startAdmissionWebhookServer();
  // A port nobody listens on.
  const dead = https.createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  deadUrl = `https://127.0.0.1:${(dead.address() as AddressInfo).port}/allow`;
  await new Promise((r) => dead.close(r));
  // The configuration kinds are served (and watched by the server) before anything is applied.
  await until('admissionregistration.k8s.io/v1 served', async () => (await srv.request('GET', `/apis/${GROUP}/v1/${plural('Validating')}`)).status === 200);
  for (const ns of ['hooked', 'plain']) {
    const labels = ns === 'hooked' ? { webhooks: 'on' } : {};
    const r = await srv.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels } }) });
    expect(r.code).toBe(0);
  }
});
afterAll(async () => {
  await hooks?.close();
});
afterEach(async () => {
  for (const kind of ['Mutating', 'Validating'] as const) {
    await srv.kubectl(['delete', plural(kind), '--all']);
    const indexer = srv.server.informers.forResource(GROUP, 'v1', plural(kind)).indexer;
    await until(`no ${plural(kind)} left in the server`, () => indexer.list().length === 0);
  }
});

/** A webhook on configmaps and secrets in the `webhooks: on` namespaces. */
const webhook = (name: string, path: string, over: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { url: path.startsWith('https:') ? path : hooks.url(path), caBundle: hooks.caBundle },
  rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'secrets'] }],
  namespaceSelector: { matchLabels: { webhooks: 'on' } },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  timeoutSeconds: 2,
  ...over,
});

/** kubectl applies the configuration; resolves once the server's informer (what admission reads) holds that version. */
async function applyWebhooks(kind: Kind, name: string, webhooks: unknown[]): Promise<void> {
  const obj = { apiVersion: `${GROUP}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks };
  const r = await srv.kubectl(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  expect(r).toMatchObject({ code: 0 });
  const rv = (await srv.request('GET', `/apis/${GROUP}/v1/${plural(kind)}/${name}`)).json().metadata.resourceVersion as string;
  const indexer = srv.server.informers.forResource(GROUP, 'v1', plural(kind)).indexer;
  await until(`${name} at ${rv} in the server`, () => indexer.get('', name)?.metadata.resourceVersion === rv);
}

const configMap = (name: string, labels: Record<string, string> = {}, ns = 'hooked') =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data: { a: '1' } });
const create = (name: string, labels: Record<string, string> = {}, ns = 'hooked') => srv.kubectl(['create', '-f', '-'], { input: configMap(name, labels, ns) });
const reviewOf = (path: string, name: string, operation = 'CREATE') => hooks.reviews(path).find((r) => r.request.name === name && r.request.operation === operation);

test('a mutating webhook: every field of the review, the patch applied, updates and dry runs', async () => {
  await applyWebhooks('Mutating', 'mutate', [webhook('mutate.webhooks.test', '/mutate')]);
  expect(await srv.kubectl(['create', 'configmap', 'm1', '-n', 'hooked', '--from-literal=a=b'])).toMatchObject({ code: 0 });
  const stored = JSON.parse((await srv.kubectl(['get', 'configmap', 'm1', '-n', 'hooked', '-o', 'json'])).stdout);
  expect(stored.metadata.labels).toEqual({ 'mutated-by': 'test-webhook' });

  const recorded = hooks.requests.find((r) => r.path === '/mutate' && r.review.request.name === 'm1');
  expect(recorded?.query).toBe('timeout=2s');
  // kube's admission webhook client names itself so.
  expect(recorded?.userAgent).toBe('kube-apiserver-admission');
  const review = recorded!.review;
  expect(review.apiVersion).toBe('admission.k8s.io/v1');
  expect(review.request).toMatchObject({
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
    requestResource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'm1',
    namespace: 'hooked',
    operation: 'CREATE',
    userInfo: { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] },
    object: { kind: 'ConfigMap', apiVersion: 'v1', data: { a: 'b' } },
    oldObject: null,
    dryRun: false,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-create' },
  });
  expect(review.request.uid).toMatch(/^[0-9a-f-]{36}$/);

  // An update (a patch: UpdateOptions) shows the stored object as oldObject.
  expect(await srv.kubectl(['label', 'configmap', 'm1', '-n', 'hooked', 'x=y'])).toMatchObject({ code: 0 });
  expect(reviewOf('/mutate', 'm1', 'UPDATE')?.request).toMatchObject({
    operation: 'UPDATE',
    object: { metadata: { labels: { x: 'y' } } },
    oldObject: { metadata: { labels: { 'mutated-by': 'test-webhook' } } },
    options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-label' },
  });

  // A dry run is sent as one, and nothing is stored.
  const dry = await srv.kubectl(['create', 'configmap', 'm2', '-n', 'hooked', '--dry-run=server', '-o', 'json']);
  expect(dry.code).toBe(0);
  expect(JSON.parse(dry.stdout).metadata.labels).toEqual({ 'mutated-by': 'test-webhook' });
  expect(reviewOf('/mutate', 'm2')?.request).toMatchObject({ dryRun: true, options: { dryRun: ['All'] } });
  expect((await srv.kubectl(['get', 'configmap', 'm2', '-n', 'hooked'])).code).toBe(1);

  // Outside the selected namespaces nothing is called.
  expect(await create('m3', {}, 'plain')).toMatchObject({ code: 0 });
  expect(reviewOf('/mutate', 'm3')).toBeUndefined();

  // As kube's: a create's webhooks run before the store readies the object, so a generateName create
  // has no name in the review yet, and the object carries no uid or creationTimestamp (even if sent).
  const generated = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-', uid: 'client-made', creationTimestamp: '2020-01-01T00:00:00Z' }, data: { g: 'h' } },
  });
  expect(generated.status).toBe(201);
  const genReview = hooks.requests.find((q) => q.path === '/mutate' && q.review.request.object?.data?.g === 'h')?.review.request;
  expect(genReview).toBeDefined();
  expect(genReview!.name).toBeUndefined();
  expect(genReview!.object.metadata).toMatchObject({ generateName: 'gen-', namespace: 'hooked' });
  for (const field of ['name', 'uid', 'creationTimestamp']) expect(genReview!.object.metadata).not.toHaveProperty(field);
  expect(generated.json().metadata).toMatchObject({ name: expect.stringMatching(/^gen-[a-z0-9]{5}$/), labels: { 'mutated-by': 'test-webhook' } });
  expect(generated.json().metadata.uid).not.toBe('client-made');
});

test('a patch whose result has the wrong type is kube’s 500; unknown fields a patch adds are dropped', async () => {
  hooks.on('/bad-type', () => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/n', value: 5 }])).toString('base64') }));
  hooks.on('/unknown-field', () => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/bogus', value: 'x' }, { op: 'add', path: '/data/added', value: 'yes' }])).toString('base64') }));
  await applyWebhooks('Mutating', 'types', [
    webhook('bad-type.webhooks.test', '/bad-type', { objectSelector: { matchLabels: { case: 'bad-type' } } }),
    webhook('unknown-field.webhooks.test', '/unknown-field', { objectSelector: { matchLabels: { case: 'unknown' } } }),
  ]);
  const bad = await create('t1', { case: 'bad-type' });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  expect(await create('t2', { case: 'unknown' })).toMatchObject({ code: 0 });
  const stored = JSON.parse((await srv.kubectl(['get', 'configmap', 't2', '-n', 'hooked', '-o', 'json'])).stdout);
  expect(stored.data).toEqual({ a: '1', added: 'yes' });
  expect(stored.bogus).toBeUndefined();
});

test('validating webhooks: a denial with kube’s message, warnings printed by kubectl, DELETE reviewed with the old object', async () => {
  await applyWebhooks('Validating', 'checks', [
    webhook('deny.webhooks.test', '/deny', { objectSelector: { matchLabels: { deny: 'yes' } } }),
    webhook('warn.webhooks.test', '/warnings'),
  ]);
  const ok = await create('w1');
  expect(ok.code).toBe(0);
  expect(ok.stderr).toContain('Warning: first warning from the test webhook\nWarning: second warning from the test webhook\n');
  const denied = await create('w2', { deny: 'yes' });
  expect(denied.code).toBe(1);
  expect(denied.stderr).toContain('Error from server (Forbidden): error when creating "STDIN": admission webhook "deny.webhooks.test" denied the request: denied by the test webhook');
  // The denial's own Status reaches the client as the webhook wrote it.
  const raw = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: JSON.parse(configMap('w3', { deny: 'yes' })) });
  expect(raw.status).toBe(403);
  expect(raw.json()).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'admission webhook "deny.webhooks.test" denied the request: denied by the test webhook',
    reason: 'Forbidden',
    code: 403,
  });
  expect(raw.headers.warning).toBeDefined();
  expect(await srv.kubectl(['delete', 'configmap', 'w1', '-n', 'hooked'])).toMatchObject({ code: 0 });
  expect(reviewOf('/warnings', 'w1', 'DELETE')?.request).toMatchObject({ object: null, oldObject: { metadata: { name: 'w1' } }, options: { kind: 'DeleteOptions' } });
});

describe('failure policies', () => {
  const failing = (policy: 'Fail' | 'Ignore') => [
    webhook(`down.webhooks.test`, deadUrl, { failurePolicy: policy, objectSelector: { matchLabels: { case: 'down' } } }),
    webhook(`slow.webhooks.test`, '/slow', { failurePolicy: policy, timeoutSeconds: 1, objectSelector: { matchLabels: { case: 'slow' } } }),
    webhook(`garbage.webhooks.test`, '/garbage', { failurePolicy: policy, objectSelector: { matchLabels: { case: 'garbage' } } }),
    webhook(`wrong-uid.webhooks.test`, '/wrong-uid', { failurePolicy: policy, objectSelector: { matchLabels: { case: 'uid' } } }),
    {
      ...webhook(`service.webhooks.test`, '/allow', { failurePolicy: policy, objectSelector: { matchLabels: { case: 'service' } } }),
      clientConfig: { service: { namespace: 'default', name: 'missing', path: '/admit' }, caBundle: hooks.caBundle },
    },
    {
      ...webhook(`bad-ca.webhooks.test`, '/allow', { failurePolicy: policy, objectSelector: { matchLabels: { case: 'bad-ca' } } }),
      clientConfig: { url: hooks.url('/allow'), caBundle: Buffer.from('not a certificate').toString('base64') },
    },
    {
      ...webhook(`other-ca.webhooks.test`, '/allow', { failurePolicy: policy, objectSelector: { matchLabels: { case: 'other-ca' } } }),
      clientConfig: { url: hooks.url('/allow'), caBundle: Buffer.from(srv.caCert).toString('base64') },
    },
  ];

  test('Fail: kube’s 500 naming the webhook and what went wrong', async () => {
    await applyWebhooks('Validating', 'failing', failing('Fail'));
    const port = new URL(deadUrl).port;
    const cases: Array<[string, string | RegExp]> = [
      ['down', `Internal error occurred: failed calling webhook "down.webhooks.test": failed to call webhook: Post "${deadUrl}?timeout=2s": dial tcp 127.0.0.1:${port}: connect: connection refused`],
      ['slow', `Internal error occurred: failed calling webhook "slow.webhooks.test": failed to call webhook: Post "${hooks.url('/slow')}?timeout=1s": context deadline exceeded`],
      [
        'garbage',
        'Internal error occurred: failed calling webhook "garbage.webhooks.test": failed to call webhook: couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
      ],
      ['uid', /Internal error occurred: failed calling webhook "wrong-uid.webhooks.test": received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got "not-the-request-uid"/],
      ['service', 'Internal error occurred: failed calling webhook "service.webhooks.test": failed to call webhook: Post "https://missing.default.svc:443/admit?timeout=2s": service "missing" not found'],
      ['bad-ca', 'Internal error occurred: failed calling webhook "bad-ca.webhooks.test": could not get REST client: unable to load root certificates: unable to parse bytes as PEM block'],
      [
        'other-ca',
        `Internal error occurred: failed calling webhook "other-ca.webhooks.test": failed to call webhook: Post "${hooks.url('/allow')}?timeout=2s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
      ],
    ];
    // The slow webhook answers "allowed" after 5 s: its `context deadline exceeded` (a 500, not a
    // 201) shows it was cut off at its 1 s timeout, whatever the time the machine took.
    for (const [c, message] of cases) {
      const r = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: JSON.parse(configMap(`fail-${c}`, { case: c })) });
      expect({ c, status: r.status, reason: r.json().reason }).toEqual({ c, status: 500, reason: 'InternalError' });
      if (typeof message === 'string') expect(r.json().message).toBe(message);
      else expect(r.json().message).toMatch(message);
    }
    const k = await create('fail-k', { case: 'garbage' });
    expect(k.stderr).toContain('Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "garbage.webhooks.test"');
  });

  test('Ignore: the request goes on', async () => {
    await applyWebhooks('Validating', 'ignoring', failing('Ignore'));
    for (const c of ['down', 'slow', 'garbage', 'uid', 'service', 'bad-ca', 'other-ca']) {
      expect({ c, r: await create(`ignore-${c}`, { case: c }) }).toMatchObject({ c, r: { code: 0 } });
    }
  });

  test('a slow webhook does not hold other requests', async () => {
    // The slow webhook answers after 5 s (inside its 10 s timeout): the quick create is done while
    // the slow one still waits on it.
    await applyWebhooks('Validating', 'slow', [webhook('slow.webhooks.test', '/slow', { failurePolicy: 'Ignore', timeoutSeconds: 10, objectSelector: { matchLabels: { case: 'slow' } } })]);
    const done: string[] = [];
    const slow = create('slow-1', { case: 'slow' }).then((r) => (done.push('slow'), r));
    expect(await create('quick-1')).toMatchObject({ code: 0 });
    expect(done).toEqual([]);
    expect(await slow).toMatchObject({ code: 0 });
  });
});

test('objectSelector and matchConditions', async () => {
  await applyWebhooks('Validating', 'conditional', [
    webhook('selected.webhooks.test', '/deny', { objectSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['red'] }] } }),
    webhook('conditioned.webhooks.test', '/deny', {
      matchConditions: [
        { name: 'checked-only', expression: "object.metadata.name.startsWith('checked-')" },
        { name: 'not-by-bob', expression: "request.userInfo.username != 'bob'" },
      ],
    }),
  ]);
  expect((await create('free-1', { team: 'blue' })).code).toBe(0);
  expect((await create('free-2', { team: 'red' })).stderr).toContain('admission webhook "selected.webhooks.test" denied the request');
  expect((await create('checked-1')).stderr).toContain('admission webhook "conditioned.webhooks.test" denied the request');
  // An UPDATE is matched on the old object's labels too.
  expect(await srv.kubectl(['label', 'configmap', 'free-1', '-n', 'hooked', 'team=red', '--overwrite'])).toMatchObject({ code: 1 });
});

test('reinvocation: an IfNeeded webhook is called again after a later webhook changed the object', async () => {
  hooks.on('/first', () => ({ allowed: true }));
  hooks.on('/second', (r) => ({ allowed: true, ...addLabelsPatch(r, { second: 'was-here' }) }));
  await applyWebhooks('Mutating', 'reinvoke', [
    webhook('first.webhooks.test', '/first', { reinvocationPolicy: 'IfNeeded' }),
    webhook('second.webhooks.test', '/second'),
  ]);
  expect(await create('r1')).toMatchObject({ code: 0 });
  const firsts = hooks.reviews('/first').filter((r) => r.request.name === 'r1');
  expect(firsts.map((r) => r.request.object.metadata.labels ?? {})).toEqual([{}, { second: 'was-here' }]);
  expect(hooks.reviews('/second').filter((r) => r.request.name === 'r1')).toHaveLength(1);
});

test('a v1beta1 review, answered without uid, kind or patchType', async () => {
  hooks.on('/beta', () => ({ allowed: true, uid: '', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/beta', value: 'yes' }])).toString('base64') }));
  await applyWebhooks('Mutating', 'beta', [webhook('beta.webhooks.test', '/beta', { admissionReviewVersions: ['v1beta1'] })]);
  expect(await create('b1')).toMatchObject({ code: 0 });
  expect(reviewOf('/beta', 'b1')).toMatchObject({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview' });
  const stored = JSON.parse((await srv.kubectl(['get', 'configmap', 'b1', '-n', 'hooked', '-o', 'json'])).stdout);
  expect(stored.data).toEqual({ a: '1', beta: 'yes' });
});

test('matchPolicy Equivalent: a webhook on events.k8s.io/v1 events sees a core/v1 Event in its own form', async () => {
  hooks.on('/events', () => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'replace', path: '/note', value: 'rewritten' }])).toString('base64') }));
  const rules = [{ operations: ['CREATE'], apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }];
  await applyWebhooks('Mutating', 'events', [webhook('events.webhooks.test', '/events', { rules }), webhook('exact.webhooks.test', '/allow', { rules, matchPolicy: 'Exact' })]);
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e1', namespace: 'hooked' },
    involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'hooked' },
    reason: 'Tested',
    message: 'original',
    type: 'Normal',
  };
  expect(await srv.kubectl(['create', '-f', '-'], { input: JSON.stringify(event) })).toMatchObject({ code: 0 });
  expect(reviewOf('/events', 'e1')?.request).toMatchObject({
    kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
    resource: { group: 'events.k8s.io', version: 'v1', resource: 'events' },
    requestKind: { group: '', version: 'v1', kind: 'Event' },
    requestResource: { group: '', version: 'v1', resource: 'events' },
    object: { apiVersion: 'events.k8s.io/v1', kind: 'Event', note: 'original', regarding: { kind: 'ConfigMap', name: 'x' } },
  });
  expect(reviewOf('/allow', 'e1')).toBeUndefined();
  const stored = JSON.parse((await srv.kubectl(['get', 'events.v1.', 'e1', '-n', 'hooked', '-o', 'json'])).stdout);
  expect(stored).toMatchObject({ apiVersion: 'v1', kind: 'Event', message: 'rewritten' });
});

test('webhook configurations themselves never reach a webhook', async () => {
  const everything = { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }], namespaceSelector: {} };
  await applyWebhooks('Validating', 'deny-all', [webhook('deny-all.webhooks.test', '/deny', everything)]);
  // The configuration can still be changed and removed (afterEach deletes it).
  await applyWebhooks('Validating', 'deny-all', [webhook('deny-all.webhooks.test', '/deny', { ...everything, timeoutSeconds: 3 })]);
  expect((await create('x1')).code).toBe(1);
});

test('what admission reads: one array per state of the configurations, the same one for every write in between', async () => {
  const lister = webhookConfigurationLister(srv.server.registry, srv.server.informers);
  const none = lister.validating();
  expect(none).toEqual([]);
  expect(lister.validating()).toBe(none);
  await applyWebhooks('Validating', 'listed', [webhook('listed.webhooks.test', '/allow')]);
  const one = lister.validating();
  expect(one.map((o) => o.metadata.name)).toEqual(['listed']);
  expect(lister.validating()).toBe(one);
  await applyWebhooks('Validating', 'listed', [webhook('listed.webhooks.test', '/allow', { timeoutSeconds: 3 })]);
  expect(lister.validating()).not.toBe(one);
  expect((lister.validating()[0] as unknown as { webhooks: Array<{ timeoutSeconds: number }> }).webhooks[0]?.timeoutSeconds).toBe(3);
});

const b64 = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString('base64');
const onlyRules = (operations: string[], resources: string[]) => [{ operations, apiGroups: [''], apiVersions: ['v1'], resources }];
const reviewsWhere = (path: string, pred: (r: AdmissionReviewRequest['request']) => boolean) => hooks.reviews(path).filter((r) => pred(r.request));

describe('DELETE', () => {
  test('webhooks run once the object is read and the preconditions hold, with the stored object as oldObject', async () => {
    hooks.on('/on-delete', () => ({ allowed: true }));
    await applyWebhooks('Mutating', 'on-delete', [
      webhook('on-delete.webhooks.test', '/on-delete', {
        rules: onlyRules(['DELETE'], ['configmaps']),
        objectSelector: { matchLabels: { del: 'yes' } },
        matchConditions: [{ name: 'old-object', expression: "oldObject.metadata.name.startsWith('d')" }],
      }),
    ]);
    for (const [name, labels] of [['d1', { del: 'yes' }], ['d2', { del: 'no' }], ['d3', { del: 'yes' }], ['x1', { del: 'yes' }]] as const) {
      expect(await create(name, labels)).toMatchObject({ code: 0 });
    }
    // The mutating webhook sees the object being deleted: its objectSelector and matchConditions match on it.
    expect(await srv.kubectl(['delete', 'configmap', 'd1', '-n', 'hooked'])).toMatchObject({ code: 0 });
    expect(reviewOf('/on-delete', 'd1', 'DELETE')?.request).toMatchObject({
      operation: 'DELETE',
      object: null,
      oldObject: { kind: 'ConfigMap', metadata: { name: 'd1', labels: { del: 'yes' } } },
      options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    for (const name of ['d2', 'x1']) expect(await srv.kubectl(['delete', 'configmap', name, '-n', 'hooked'])).toMatchObject({ code: 0 });
    expect(hooks.reviews('/on-delete').map((r) => r.request.name)).toEqual(['d1']);

    // What fails before admission in kube never reaches a webhook: a missing object is its own 404,
    // in a missing namespace too (not the namespace's), and a failed precondition its 409.
    const missing = await srv.kubectl(['delete', 'configmap', 'ghost', '-n', 'hooked']);
    expect(missing.stderr).toContain('Error from server (NotFound): configmaps "ghost" not found');
    const nowhere = await srv.request('DELETE', '/api/v1/namespaces/nowhere/configmaps/d3');
    expect({ status: nowhere.status, message: nowhere.json().message }).toEqual({ status: 404, message: 'configmaps "d3" not found' });
    const conflict = await srv.request('DELETE', '/api/v1/namespaces/hooked/configmaps/d3', { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-its-uid' } } });
    expect(conflict.status).toBe(409);
    expect(hooks.reviews('/on-delete').map((r) => r.request.name)).toEqual(['d1']);
  });

  test('a mutating webhook denying a DELETE keeps the object', async () => {
    await applyWebhooks('Mutating', 'deny-delete', [webhook('deny-delete.webhooks.test', '/deny', { rules: onlyRules(['DELETE'], ['configmaps']), objectSelector: { matchLabels: { keep: 'yes' } } })]);
    expect(await create('kept', { keep: 'yes' })).toMatchObject({ code: 0 });
    const r = await srv.kubectl(['delete', 'configmap', 'kept', '-n', 'hooked']);
    expect(r.stderr).toContain('admission webhook "deny-delete.webhooks.test" denied the request: denied by the test webhook');
    expect((await srv.kubectl(['get', 'configmap', 'kept', '-n', 'hooked'])).code).toBe(0);
  });

  test('deletecollection: each item is reviewed with the collection’s attributes (no name) and its own oldObject', async () => {
    hooks.on('/collection', () => ({ allowed: true }));
    await applyWebhooks('Mutating', 'collection', [webhook('collection.webhooks.test', '/collection', { rules: onlyRules(['DELETE'], ['configmaps']), objectSelector: { matchLabels: { batch: 'one' } } })]);
    for (const name of ['c1', 'c2']) expect(await create(name, { batch: 'one' })).toMatchObject({ code: 0 });
    const r = await srv.request('DELETE', '/api/v1/namespaces/hooked/configmaps?labelSelector=batch%3Done');
    expect(r.status).toBe(200);
    expect(r.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c1', 'c2']);
    const reviews = hooks.reviews('/collection');
    expect(reviews.map((v) => [v.request.name, v.request.namespace, v.request.oldObject.metadata.name])).toEqual([
      [undefined, 'hooked', 'c1'],
      [undefined, 'hooked', 'c2'],
    ]);
  });
});

describe('pods', () => {
  beforeAll(async () => {
    await until('the default service account of hooked', async () => (await srv.request('GET', '/api/v1/namespaces/hooked/serviceaccounts/default')).status === 200);
  });

  test('a container a webhook injects gets the service account token mounted: the in-tree plugins run again', async () => {
    hooks.on('/sidecar', (r) =>
      r.request.object.spec.containers.some((c: { name: string }) => c.name === 'sidecar')
        ? { allowed: true }
        : { allowed: true, patchType: 'JSONPatch', patch: b64([{ op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'busybox' } }]) },
    );
    await applyWebhooks('Mutating', 'sidecar', [webhook('sidecar.webhooks.test', '/sidecar', { rules: onlyRules(['CREATE'], ['pods']) })]);
    expect(await srv.kubectl(['run', 'injected', '--image=nginx', '-n', 'hooked'])).toMatchObject({ code: 0 });
    const pod = JSON.parse((await srv.kubectl(['get', 'pod', 'injected', '-n', 'hooked', '-o', 'json'])).stdout);
    const volumes = pod.spec.volumes.filter((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    expect(volumes).toHaveLength(1);
    const mount = { name: volumes[0].name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    expect(pod.spec.containers.map((c: { name: string; volumeMounts?: unknown[] }) => [c.name, c.volumeMounts])).toEqual([
      ['injected', [mount]],
      ['sidecar', [mount]],
    ]);
    // reinvocationPolicy Never: the webhook itself is called once.
    expect(reviewsWhere('/sidecar', (q) => q.name === 'injected')).toHaveLength(1);
  });

  test('a webhook on pods/status: matched by its subresource, reviewed with the Pod and its stored state', async () => {
    hooks.on('/pod-status', (r) => (r.request.object.status?.phase === 'Failed' ? { allowed: false, status: { code: 422, reason: 'Invalid', message: 'no failing here' } } : { allowed: true }));
    await applyWebhooks('Validating', 'pod-status', [webhook('pod-status.webhooks.test', '/pod-status', { rules: onlyRules(['UPDATE'], ['pods/status']) })]);
    expect(await srv.kubectl(['run', 'st', '--image=nginx', '-n', 'hooked'])).toMatchObject({ code: 0 });
    // A write to the pod itself is not the subresource.
    expect(await srv.kubectl(['label', 'pod', 'st', '-n', 'hooked', 'x=y'])).toMatchObject({ code: 0 });
    expect(hooks.reviews('/pod-status')).toHaveLength(0);
    const ok = await srv.kubectl(['patch', 'pod', 'st', '-n', 'hooked', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}']);
    expect(ok).toMatchObject({ code: 0 });
    expect(reviewOf('/pod-status', 'st', 'UPDATE')?.request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'status',
      requestSubResource: 'status',
      object: { status: { phase: 'Running' } },
      oldObject: { metadata: { labels: { x: 'y' } } },
      options: { kind: 'UpdateOptions' },
    });
    const denied = await srv.kubectl(['patch', 'pod', 'st', '-n', 'hooked', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Failed"}}']);
    expect(denied.stderr).toContain('admission webhook "pod-status.webhooks.test" denied the request: no failing here');
    expect(JSON.parse((await srv.kubectl(['get', 'pod', 'st', '-n', 'hooked', '-o', 'json'])).stdout).status.phase).toBe('Running');
  });
});

test('serviceaccounts/token is reviewed as what it is: an authentication.k8s.io/v1 TokenRequest', async () => {
  await until('the default service account of hooked', async () => (await srv.request('GET', '/api/v1/namespaces/hooked/serviceaccounts/default')).status === 200);
  await applyWebhooks('Validating', 'tokens', [webhook('tokens.webhooks.test', '/allow', { rules: onlyRules(['CREATE'], ['serviceaccounts/token']) })]);
  const r = await srv.kubectl(['create', 'token', 'default', '-n', 'hooked']);
  expect(r.code).toBe(0);
  expect(reviewOf('/allow', 'default')?.request).toMatchObject({
    kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
    resource: { group: '', version: 'v1', resource: 'serviceaccounts' },
    subResource: 'token',
    requestKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
    requestResource: { group: '', version: 'v1', resource: 'serviceaccounts' },
    requestSubResource: 'token',
    object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' },
  });
});

describe('a generated name already taken (kube 1.32 RetryGenerateName)', () => {
  /**
   * A validating webhook that, before allowing, takes the name the review carries (an unlabelled
   * ConfigMap no webhook selects): the create it reviews then collides, deterministically.
   */
  const takeNameThenAllow = (times: number) => async (r: AdmissionReviewRequest, call: number) => {
    if (call <= times) {
      const taken = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: r.request.name } } });
      expect(taken.status).toBe(201);
    }
    return { allowed: true };
  };
  const generated = (label: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'retry-', labels: { case: label } }, data: { a: '1' } });
  const hooksFor = async (label: string, validatingPath: string) => {
    await applyWebhooks('Mutating', `gen-${label}`, [webhook('mutate.webhooks.test', '/mutate', { objectSelector: { matchLabels: { case: label } } })]);
    await applyWebhooks('Validating', `gen-${label}`, [webhook('take.webhooks.test', validatingPath, { objectSelector: { matchLabels: { case: label } } })]);
  };
  const mutatingReviews = (label: string) => hooks.reviews('/mutate').filter((r) => r.request.object?.metadata?.labels?.case === label);

  test('the store’s create runs again with a new name: validating admission sees each attempt, mutating admission the request once', async () => {
    hooks.on('/take-once', takeNameThenAllow(1));
    await hooksFor('gen-once', '/take-once');
    const r = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: generated('gen-once') });
    expect(r.status).toBe(201);
    const attempts = hooks.reviews('/take-once');
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts.map((a) => a.request);
    // Each attempt is a new object: its own generated name, uid and the mutation made once before.
    expect(first!.name).toMatch(/^retry-[a-z0-9]{5}$/);
    expect(second!.name).toMatch(/^retry-[a-z0-9]{5}$/);
    expect(second!.name).not.toBe(first!.name);
    expect(second!.object.metadata.uid).not.toBe(first!.object.metadata.uid);
    for (const a of [first!, second!]) expect(a.object.metadata.labels).toEqual({ case: 'gen-once', 'mutated-by': 'test-webhook' });
    expect(r.json().metadata).toMatchObject({ name: second!.name, uid: second!.object.metadata.uid, labels: { 'mutated-by': 'test-webhook' } });
    // kube's handler runs mutating admission once, before the store's retries.
    expect(mutatingReviews('gen-once')).toHaveLength(1);
    expect(mutatingReviews('gen-once')[0]!.request.name).toBeUndefined();
    // The name the webhook took holds its own object, unchanged.
    expect((await srv.request('GET', `/api/v1/namespaces/hooked/configmaps/${first!.name}`)).json().metadata.labels).toBeUndefined();
  });

  test('eight attempts in all, then the generated-name conflict of the last one (409, retry after 1 s)', async () => {
    hooks.on('/take-always', takeNameThenAllow(Infinity));
    await hooksFor('gen-always', '/take-always');
    const r = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: generated('gen-always') });
    const attempts = hooks.reviews('/take-always').map((a) => a.request.name);
    expect(attempts).toHaveLength(8);
    expect(new Set(attempts).size).toBe(8);
    expect({ status: r.status, body: r.json() }).toEqual({
      status: 409,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `configmaps "${attempts[7]}" already exists, the server was not able to generate a unique name for the object`,
        reason: 'AlreadyExists',
        details: { name: attempts[7], kind: 'configmaps', retryAfterSeconds: 1 },
        code: 409,
      },
    });
    expect(mutatingReviews('gen-always')).toHaveLength(1);
    // A dry run collides as a write would (the name is read) and is retried the same way.
    const dry = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps?dryRun=All', { body: generated('gen-always') });
    expect(dry.status).toBe(409);
    expect(hooks.reviews('/take-always')).toHaveLength(16);
  });
});

test('a patch that makes the object invalid: the registry’s own 422', async () => {
  hooks.on('/invalidate', () => ({ allowed: true, patchType: 'JSONPatch', patch: b64([{ op: 'add', path: '/metadata/labels', value: { 'not a key!': 'v' } }]) }));
  await applyWebhooks('Mutating', 'invalidate', [webhook('invalidate.webhooks.test', '/invalidate', { objectSelector: { matchLabels: { case: 'invalidate' } } })]);
  const r = await create('inv', { case: 'invalidate' });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('The ConfigMap "inv" is invalid: metadata.labels: Invalid value: "not a key!"');
  const raw = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: JSON.parse(configMap('inv2', { case: 'invalidate' })) });
  expect({ status: raw.status, reason: raw.json().reason }).toEqual({ status: 422, reason: 'Invalid' });
});

test('the call is bounded by the request’s own deadline, which `?timeout=` tells the webhook', async () => {
  await applyWebhooks('Validating', 'deadline', [webhook('deadline.webhooks.test', '/allow', { timeoutSeconds: 10, objectSelector: { matchLabels: { case: 'deadline' } } })]);
  expect(await create('dl1', { case: 'deadline' })).toMatchObject({ code: 0 });
  // 8 s: short of the webhook's 10 s, long enough that a loaded machine does not run out of it.
  expect(await srv.kubectl(['create', '-f', '-', '--request-timeout=8s'], { input: configMap('dl2', { case: 'deadline' }) })).toMatchObject({ code: 0 });
  const queries = hooks.requests.filter((q) => q.path === '/allow' && ['dl1', 'dl2'].includes(q.review.request.name ?? '')).map((q) => [q.review.request.name, q.query]);
  expect(queries[0]).toEqual(['dl1', 'timeout=10s']);
  // The time left of 8 s, rounded up to whole seconds (less if the request waited before the call).
  expect(queries[1]?.[0]).toBe('dl2');
  expect(queries[1]?.[1]).toMatch(/^timeout=[1-8]s$/);
  // A slow mutating webhook under a short request deadline: cut off there; Ignore then ends the request as timed out.
  await applyWebhooks('Mutating', 'deadline', [webhook('deadline.webhooks.test', '/slow', { timeoutSeconds: 10, failurePolicy: 'Ignore', objectSelector: { matchLabels: { case: 'deadline' } } })]);
  const slow = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps?timeout=1s', { body: JSON.parse(configMap('dl3', { case: 'deadline' })) });
  expect(slow.status).toBe(504);
  expect((await srv.kubectl(['get', 'configmap', 'dl3', '-n', 'hooked'])).code).toBe(1);
});

describe('a client gone while a webhook call is in flight', () => {
  /** A webhook that holds every review until its caller closes the connection, and says when each arrived and when it closed. */
  const holding = (path: string) => {
    const arrived: Array<() => void> = [];
    const closed: Array<() => void> = [];
    const arrival = new Promise<void>((r) => arrived.push(r));
    const closing = new Promise<void>((r) => closed.push(r));
    hooks.on(path, async (_r, _n, exchange) => {
      arrived.forEach((r) => r());
      await exchange.closed;
      closed.forEach((r) => r());
      return { allowed: true };
    });
    return { arrival, closing };
  };
  const body = (name: string, label: string) => Buffer.from(configMap(name, { case: label }));

  // Without the abort the webhook would see its connection close only at its 30 s timeout, past this test's own time.
  test.each([
    ['HTTP/1.1 connection closed', 'Mutating', 'Fail'],
    ['HTTP/2 stream reset', 'Validating', 'Ignore'],
  ] as const)(
    '%s: the %s webhook’s call (failurePolicy %s) is cut off, its connection closed; nothing is stored',
    async (how, kind, policy) => {
      const label = `gone-${kind.toLowerCase()}`;
      const name = `gone-${kind.toLowerCase()}`;
      const path = `/hold-${kind.toLowerCase()}`;
      const hold = holding(path);
      await applyWebhooks(kind, label, [webhook('hold.webhooks.test', path, { timeoutSeconds: 30, failurePolicy: policy, objectSelector: { matchLabels: { case: label } } })]);
      const target = '/api/v1/namespaces/hooked/configmaps';
      const payload = body(name, label);
      const headers = { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json', 'content-length': String(payload.length) };
      if (how.startsWith('HTTP/1.1')) {
        const req = https.request(`${srv.url}${target}`, { method: 'POST', headers, ca: srv.caCert });
        req.on('error', () => undefined);
        req.end(payload);
        await hold.arrival;
        req.destroy();
      } else {
        const session = http2.connect(srv.url, { ca: srv.caCert });
        session.on('error', () => undefined);
        try {
          const stream = session.request({ ':method': 'POST', ':path': target, ...headers });
          stream.on('error', () => undefined);
          stream.end(payload);
          await hold.arrival;
          stream.close(http2.constants.NGHTTP2_CANCEL);
          await hold.closing;
        } finally {
          session.close();
        }
      }
      await hold.closing;
      expect(hooks.reviews(path).map((r) => r.request.name)).toEqual([name]);
      expect((await srv.request('GET', `${target}/${name}`)).status).toBe(404);
    },
    20_000,
  );
});

test('a denial’s own status word other than Success is kept', async () => {
  hooks.on('/pending', () => ({ allowed: false, status: { status: 'Pending', code: 409, reason: 'Conflict', message: 'try later' } }));
  await applyWebhooks('Validating', 'pending', [webhook('pending.webhooks.test', '/pending', { objectSelector: { matchLabels: { case: 'pending' } } })]);
  const raw = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: JSON.parse(configMap('pe1', { case: 'pending' })) });
  expect({ status: raw.status, body: raw.json() }).toEqual({
    status: 409,
    body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Pending', message: 'admission webhook "pending.webhooks.test" denied the request: try later', reason: 'Conflict', code: 409 },
  });
  // client-go reads a Status as the error only when it says Failure: kubectl falls back to the code's generic words, as against kube.
  const k = await create('pe2', { case: 'pending' });
  expect(k.stderr).toContain('Error from server (AlreadyExists): error when creating "STDIN": the server reported a conflict (post configmaps)');
});

describe('Retry-After answers (client-go retries them)', () => {
  test('a 429 with Retry-After is posted again, and the next answer decides', async () => {
    hooks.on('/busy-once', (_r, n) => (n === 1 ? { raw: '', status: 429, contentType: 'text/plain', headers: { 'Retry-After': '1' } } : { allowed: true, ...addLabelsPatch(_r, { retried: 'yes' }) }));
    // The retry after 1 s runs within the first post's timeout: 10 s, so that a loaded machine has room.
    await applyWebhooks('Mutating', 'busy', [webhook('busy.webhooks.test', '/busy-once', { timeoutSeconds: 10, objectSelector: { matchLabels: { case: 'busy' } } })]);
    expect(await create('busy1', { case: 'busy' })).toMatchObject({ code: 0 });
    const sent = hooks.requests.filter((q) => q.path === '/busy-once');
    expect(sent.map((q) => [q.review.request.name, q.query])).toEqual([
      ['busy1', 'timeout=10s'],
      ['busy1', 'timeout=10s'],
    ]);
    // The same review both times.
    expect(sent[1]?.review.request.uid).toBe(sent[0]?.review.request.uid);
    expect(JSON.parse((await srv.kubectl(['get', 'configmap', 'busy1', '-n', 'hooked', '-o', 'json'])).stdout).metadata.labels).toMatchObject({ retried: 'yes' });
  });

  test('ten retries at most, then the answer is the failure; a wait past the deadline is the deadline’s failure', async () => {
    hooks.on('/busy-always', () => ({ raw: '', status: 503, contentType: 'text/plain', headers: { 'Retry-After': '0' } }));
    hooks.on('/busy-long', () => ({ raw: '', status: 429, contentType: 'text/plain', headers: { 'Retry-After': '30' } }));
    hooks.on('/busy-no-wait', () => ({ raw: '', status: 429, contentType: 'text/plain' }));
    await applyWebhooks('Validating', 'busy', [
      // Eleven posts within one timeout: 10 s of it, so that a loaded machine cannot run out of it first.
      webhook('always.webhooks.test', '/busy-always', { timeoutSeconds: 10, objectSelector: { matchLabels: { case: 'always' } } }),
      webhook('long.webhooks.test', '/busy-long', { timeoutSeconds: 1, objectSelector: { matchLabels: { case: 'long' } } }),
      webhook('no-wait.webhooks.test', '/busy-no-wait', { objectSelector: { matchLabels: { case: 'no-wait' } } }),
    ]);
    const always = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: JSON.parse(configMap('ba1', { case: 'always' })) });
    expect({ status: always.status, message: always.json().message }).toEqual({
      status: 500,
      message: 'Internal error occurred: failed calling webhook "always.webhooks.test": failed to call webhook: the server is currently unable to handle the request',
    });
    expect(hooks.reviews('/busy-always')).toHaveLength(11);
    const long = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: JSON.parse(configMap('bl1', { case: 'long' })) });
    expect(long.json().message).toBe(`Internal error occurred: failed calling webhook "long.webhooks.test": failed to call webhook: Post "${hooks.url('/busy-long')}?timeout=1s": context deadline exceeded`);
    expect(hooks.reviews('/busy-long')).toHaveLength(1);
    // Without Retry-After, no retry.
    const noWait = await srv.request('POST', '/api/v1/namespaces/hooked/configmaps', { body: JSON.parse(configMap('bn1', { case: 'no-wait' })) });
    expect(noWait.json().message).toBe('Internal error occurred: failed calling webhook "no-wait.webhooks.test": failed to call webhook: the server has received too many requests and has asked us to try again later');
    expect(hooks.reviews('/busy-no-wait')).toHaveLength(1);
  });
});
