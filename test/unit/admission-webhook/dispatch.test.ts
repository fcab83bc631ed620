/**
 * The two dispatchers over a fake webhook transport: which webhooks are called and with what,
 * patches applied and decoded again, reinvocation, denials, failure policies, dry run, selectors,
 * matchConditions, equivalent resources, warnings and audit annotations, with kube's messages.
 */
import { ApiError, KubeObject, type RequestContext } from '../../../src/api';
import { WebhookCallError } from '../../../src/api/webhook-client';
import { AdmissionChain, type AdmissionAttributes, type AdmissionDeps, type AdmissionPlugin, type EquivalentResource } from '../../../src/admission';
import { WebhookSource, type WebhookJson } from '../../../src/admission/plugins/webhook/accessor';
import type { WebhookClients } from '../../../src/admission/plugins/webhook/clients';
import type { DispatchEnv } from '../../../src/admission/plugins/webhook/match';
import { dispatchMutating } from '../../../src/admission/plugins/webhook/mutating';
import { dispatchValidating } from '../../../src/admission/plugins/webhook/validating';

type Review = { apiVersion: string; request: Record<string, any> };
type Handler = (review: Review) => unknown | Promise<unknown>;

/** What each URL was sent, in order. */
let sent: Array<{ url: string; review: Review; timeoutMs: number; urlTimeoutMs: number }>;
let handlers: Record<string, Handler>;

const fakeClients = {
  endpointFor: (cc: { url?: string | null }) => ({
    post: async (body: string, timeoutMs: number, urlTimeoutMs = timeoutMs) => {
      const url = cc.url ?? '';
      const review = JSON.parse(body) as Review;
      sent.push({ url, review, timeoutMs, urlTimeoutMs });
      const h = handlers[url];
      if (!h) throw new WebhookCallError(`Post "${url}?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`, false);
      const answer = await h(review);
      return { code: 200, contentType: 'application/json', body: typeof answer === 'string' ? answer : JSON.stringify(answer) };
    },
  }),
} as unknown as WebhookClients;

/** An answer to `review` (v1 carries the uid back). */
const answer = (review: Review, response: Record<string, unknown>) => ({
  apiVersion: review.apiVersion,
  kind: 'AdmissionReview',
  response: { uid: review.request.uid, ...response },
});
const allow: Handler = (r) => answer(r, { allowed: true });
const patchWith = (ops: unknown[]): Handler => (r) => answer(r, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });

const hook = (name: string, url: string, over: WebhookJson = {}): WebhookJson => ({
  name,
  clientConfig: { url },
  rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
  failurePolicy: 'Fail',
  matchPolicy: 'Equivalent',
  namespaceSelector: {},
  objectSelector: {},
  sideEffects: 'None',
  timeoutSeconds: 10,
  admissionReviewVersions: ['v1'],
  ...over,
});
const configuration = (name: string, webhooks: WebhookJson[], rv = '1'): KubeObject => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'X', metadata: { name, resourceVersion: rv }, webhooks });

let mutating: KubeObject[];
let validating: KubeObject[];
let namespaces: Record<string, KubeObject>;
let equivalents: EquivalentResource[];

const deps: AdmissionDeps = {
  getNamespace: async (name) => namespaces[name] ?? null,
  equivalentResources: () => equivalents,
  authorize: async (a) => ({ decision: a.user.name === 'alice' && a.verb === 'get' ? 'allow' : 'no-opinion' }),
};
const env = (type: 'mutating' | 'validating'): DispatchEnv => {
  const source = new WebhookSource(type, () => (type === 'mutating' ? mutating : validating));
  return { hooks: () => source.webhooks(), clients: fakeClients, deps };
};

const context = (over: Partial<RequestContext> = {}): RequestContext => ({
  namespace: 'ns',
  warnings: [],
  dryRun: false,
  now: () => new Date(),
  user: { name: 'alice', uid: 'a-1', groups: ['staff'] },
  ...over,
});
const configMap = (labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels }, data: { a: '1' } });
/** The schema decoder stand-in: drops `unknown`, refuses a number in data. */
const decode = (raw: unknown): KubeObject => {
  const o = JSON.parse(JSON.stringify(raw)) as KubeObject & { unknown?: unknown; data?: Record<string, unknown> };
  delete o.unknown;
  for (const v of Object.values(o.data ?? {})) if (typeof v !== 'string') throw new Error('json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  return o;
};
const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'configmaps',
  subresource: '',
  kind: 'ConfigMap',
  namespace: 'ns',
  name: 'cm',
  namespaced: true,
  object: configMap(),
  dryRun: false,
  decode,
  ...over,
});

/** The chain of `inTree` plugins then the mutating webhooks (kube's order), as the registry runs it. */
const chainOf = (...inTree: AdmissionPlugin[]): AdmissionChain =>
  new AdmissionChain([...inTree, { name: 'MutatingAdmissionWebhook', handles: () => true, admit: (ctx, a) => dispatchMutating(env('mutating'), ctx, a) }]);

const statusOf = async (p: Promise<void>): Promise<Record<string, unknown>> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e.status as unknown as Record<string, unknown>;
    throw e;
  }
  throw new Error('admitted');
};

beforeEach(() => {
  sent = [];
  handlers = {};
  mutating = [];
  validating = [];
  namespaces = { ns: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { env: 'prod' } } } };
  equivalents = [];
});

describe('mutating', () => {
  test('the AdmissionReview a webhook gets: every field, the user, options, uid', async () => {
    handlers = { a: allow };
    mutating = [configuration('c', [hook('a.example.com', 'a')])];
    const ctx = context({ writeOptions: { fieldManager: 'kubectl' } });
    await dispatchMutating(env('mutating'), ctx, attrs());
    expect(sent).toHaveLength(1);
    const { review, timeoutMs } = sent[0]!;
    expect(timeoutMs).toBe(10_000);
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.request).toEqual({
      uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'cm',
      namespace: 'ns',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'a-1', groups: ['staff'] },
      object: configMap(),
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl' },
    });
    expect(ctx.auditAnnotations).toEqual(new Map([['mutation.webhook.admission.k8s.io/round_0_index_0', '{"configuration":"c","webhook":"a.example.com","mutated":false}']]));
  });

  test('patches apply in order, each on the last one’s result, decoded again into the kind', async () => {
    handlers = {
      a: patchWith([{ op: 'add', path: '/metadata/labels/a', value: 'x' }, { op: 'add', path: '/unknown', value: 1 }]),
      b: (r) => {
        expect(r.request.object.metadata.labels).toEqual({ a: 'x' });
        expect(r.request.object.unknown).toBeUndefined();
        return patchWith([{ op: 'replace', path: '/data/a', value: '2' }])(r);
      },
    };
    // Configurations run by name; webhooks in their order.
    mutating = [configuration('z', [hook('b.example.com', 'b')]), configuration('a', [hook('a.example.com', 'a')])];
    const a = attrs();
    const ctx = context();
    await dispatchMutating(env('mutating'), ctx, a);
    expect(sent.map((s) => s.url)).toEqual(['a', 'b']);
    expect(a.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels: { a: 'x' } }, data: { a: '2' } });
    expect(ctx.auditAnnotations?.get('mutation.webhook.admission.k8s.io/round_0_index_1')).toBe('{"configuration":"z","webhook":"b.example.com","mutated":true}');
  });

  test('a patched object of the wrong type, a patch that cannot apply, a patch on DELETE: kube’s 500 whatever the policy', async () => {
    mutating = [configuration('c', [hook('a.example.com', 'a', { failurePolicy: 'Ignore' })])];
    handlers = { a: patchWith([{ op: 'replace', path: '/data/a', value: 5 }]) };
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    });
    handlers = { a: patchWith([{ op: 'remove', path: '/data/missing' }]) };
    expect((await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).message).toMatch(/^Internal error occurred: Unable to remove nonexistent key: missing/);
    handlers = { a: (r) => answer(r, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('{"op":"add"}').toString('base64') }) };
    expect((await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).message).toBe('Internal error occurred: json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    handlers = { a: patchWith([{ op: 'add', path: '/x', value: 1 }]) };
    expect((await statusOf(dispatchMutating(env('mutating'), context(), attrs({ operation: 'DELETE', object: undefined, oldObject: configMap() }))))).toMatchObject({
      code: 500,
      message: 'Internal error occurred: admission webhook "a.example.com" attempted to modify the object, which is not supported for this operation',
    });
  });

  test('a patch type other than JSONPatch is a webhook failure (the policy decides)', async () => {
    handlers = { a: (r) => answer(r, { allowed: true, patchType: 'JSONMergePatch', patch: Buffer.from('[{"op":"add","path":"/x","value":1}]').toString('base64') }) };
    mutating = [configuration('c', [hook('a.example.com', 'a')])];
    expect((await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).message).toBe('Internal error occurred: failed calling webhook "a.example.com": unsupported patch type "JSONMergePatch"');
    mutating = [configuration('c', [hook('a.example.com', 'a', { failurePolicy: 'Ignore' })])];
    const ctx = context();
    await dispatchMutating(env('mutating'), ctx, attrs());
    expect(ctx.auditAnnotations?.get('failed-open.mutation.webhook.admission.k8s.io/round_0_index_0')).toBe('a.example.com');
  });

  test('reinvocation: an IfNeeded webhook runs again after a later one changed the object', async () => {
    let aCalls = 0;
    handlers = {
      a: (r) => {
        aCalls++;
        return answer(r, { allowed: true });
      },
      b: patchWith([{ op: 'add', path: '/metadata/labels/b', value: 'y' }]),
      c: allow,
    };
    mutating = [configuration('c', [hook('a.example.com', 'a', { reinvocationPolicy: 'IfNeeded' }), hook('b.example.com', 'b'), hook('c.example.com', 'c', { reinvocationPolicy: 'IfNeeded' })])];
    const ctx = context();
    await chainOf().admit(ctx, attrs());
    // a again (b changed the object after it); c ran after the change, so not again.
    expect(sent.map((s) => s.url)).toEqual(['a', 'b', 'c', 'a']);
    expect(aCalls).toBe(2);
    expect(sent[3]!.review.request.object.metadata.labels).toEqual({ b: 'y' });
    expect([...(ctx.auditAnnotations?.keys() ?? [])]).toEqual([
      'mutation.webhook.admission.k8s.io/round_0_index_0',
      'mutation.webhook.admission.k8s.io/round_0_index_1',
      'mutation.webhook.admission.k8s.io/round_0_index_2',
      'mutation.webhook.admission.k8s.io/round_1_index_0',
    ]);
  });

  test('reinvocationPolicy Never: no second round', async () => {
    handlers = { a: allow, b: patchWith([{ op: 'add', path: '/metadata/labels/b', value: 'y' }]) };
    mutating = [configuration('c', [hook('a.example.com', 'a'), hook('b.example.com', 'b')])];
    await chainOf().admit(context(), attrs());
    expect(sent.map((s) => s.url)).toEqual(['a', 'b']);
  });

  test('reinvocation runs the in-tree mutating plugins again, only when a webhook changed the object', async () => {
    const seen: string[] = [];
    const inTree: AdmissionPlugin = { name: 'InTree', handles: () => true, admit: async (_ctx, a) => void seen.push(JSON.stringify(a.object?.metadata.labels ?? {})) };
    handlers = { a: allow };
    mutating = [configuration('c', [hook('a.example.com', 'a', { reinvocationPolicy: 'IfNeeded' })])];
    await chainOf(inTree).admit(context(), attrs());
    expect(seen).toEqual(['{}']);
    handlers = { a: patchWith([{ op: 'add', path: '/metadata/labels/a', value: 'x' }]) };
    await chainOf(inTree).admit(context(), attrs());
    // The second pass: the in-tree plugin sees the webhook's change; a changed nothing since it ran, so it is not due.
    expect(seen).toEqual(['{}', '{}', '{"a":"x"}']);
    expect(sent.map((s) => s.url)).toEqual(['a', 'a']);
  });

  test('an in-tree plugin changing the object in the second pass makes every IfNeeded webhook called so far due', async () => {
    const addsLabel = (a: AdmissionAttributes) => {
      if (a.reinvocation?.isReinvoke) a.object!.metadata.labels = { ...a.object!.metadata.labels, intree: 'y' };
    };
    handlers = {
      a: (r) => (r.request.object.metadata.labels?.a ? allow(r) : patchWith([{ op: 'add', path: '/metadata/labels/a', value: 'x' }])(r)),
      b: allow,
    };
    mutating = [configuration('c', [hook('a.example.com', 'a', { reinvocationPolicy: 'IfNeeded' }), hook('b.example.com', 'b', { reinvocationPolicy: 'IfNeeded' })])];
    const still: AdmissionPlugin = { name: 'Still', handles: () => true, admit: async () => undefined };
    await chainOf(still).admit(context(), attrs());
    // a changed the object but nothing called before it is IfNeeded, and nothing changed after it.
    expect(sent.map((s) => s.url)).toEqual(['a', 'b']);
    sent = [];
    const obj = attrs();
    await chainOf({ name: 'Changes', handles: () => true, admit: async (_ctx, a) => addsLabel(a) }).admit(context(), obj);
    expect(sent.map((s) => s.url)).toEqual(['a', 'b', 'a', 'b']);
    expect(sent[2]!.review.request.object.metadata.labels).toEqual({ a: 'x', intree: 'y' });
    expect(obj.object?.metadata.labels).toEqual({ a: 'x', intree: 'y' });
  });

  test('a denial: the webhook’s status, at least 400, message prefixed; warnings and annotations kept', async () => {
    handlers = {
      a: (r) => answer(r, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no configmaps here' }, warnings: ['careful'], auditAnnotations: { why: 'policy', 'bad/key': 'x' } }),
    };
    mutating = [configuration('c', [hook('a.example.com', 'a')])];
    const ctx = context();
    expect(await statusOf(dispatchMutating(env('mutating'), ctx, attrs()))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'admission webhook "a.example.com" denied the request: no configmaps here',
      reason: 'Forbidden',
      code: 403,
    });
    expect(ctx.warnings).toEqual(['careful']);
    expect(ctx.auditAnnotations?.get('a.example.com/why')).toBe('policy');
    expect(ctx.auditAnnotations?.has('a.example.com/bad/key')).toBe(false);
    handlers = { a: (r) => answer(r, { allowed: false, status: { code: 200 } }) };
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toMatchObject({ code: 400, message: 'admission webhook "a.example.com" denied the request without explanation' });
    handlers = { a: (r) => answer(r, {}) };
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toMatchObject({ code: 400, message: 'admission webhook "a.example.com" denied the request without explanation' });
    handlers = { a: (r) => answer(r, { allowed: false, status: { reason: 'Nope' } }) };
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toMatchObject({ code: 400, reason: 'Nope', message: 'admission webhook "a.example.com" denied the request: Nope' });
     // The status word: empty or Success becomes Failure, any other is the webhook's; its metadata stays.
    handlers = { a: (r) => answer(r, { allowed: false, status: { status: 'Success', code: 409 } }) };
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toMatchObject({ status: 'Failure', code: 409 });
    handlers = { a: (r) => answer(r, { allowed: false, status: { status: 'Pending', code: 422, message: 'later', metadata: { resourceVersion: '7', continue: '' } } }) };
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: { resourceVersion: '7' },
      status: 'Pending',
      message: 'admission webhook "a.example.com" denied the request: later',
      code: 422,
    });
  });

  test('the call is bounded by the request’s deadline too; `?timeout=` tells the time left in whole seconds, rounded up', async () => {
    handlers = { a: allow };
    mutating = [configuration('c', [hook('a.example.com', 'a')])];
    await dispatchMutating(env('mutating'), context({ deadlineAt: performance.now() + 60_000 }), attrs());
    expect(sent[0]).toMatchObject({ timeoutMs: 10_000, urlTimeoutMs: 10_000 });
    await dispatchMutating(env('mutating'), context({ deadlineAt: performance.now() + 5500 }), attrs());
    const { timeoutMs, urlTimeoutMs } = sent[1]!;
    expect(timeoutMs).toBeLessThanOrEqual(5500);
    expect(urlTimeoutMs % 1000).toBe(0);
    expect(urlTimeoutMs - timeoutMs).toBeGreaterThanOrEqual(0);
    expect(urlTimeoutMs - timeoutMs).toBeLessThan(1000);
    // Past the deadline nothing is sent: the failure policy decides, and Ignore ends the request there.
    expect((await statusOf(dispatchMutating(env('mutating'), context({ deadlineAt: performance.now() - 1 }), attrs()))).message).toBe(
      'Internal error occurred: failed calling webhook "a.example.com": failed to call webhook: context deadline exceeded',
    );
    mutating = [configuration('c', [hook('a.example.com', 'a', { failurePolicy: 'Ignore' })])];
    expect(await statusOf(dispatchMutating(env('mutating'), context({ deadlineAt: performance.now() - 1 }), attrs()))).toMatchObject({
      code: 504,
      reason: 'Timeout',
      message: 'Timeout: request did not complete within requested timeout',
    });
    expect(sent).toHaveLength(2);
  });

  test('a subresource answered in another group’s kind is reviewed as that kind', async () => {
    handlers = { a: allow };
    const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts/token'], scope: '*' as const }];
    mutating = [configuration('c', [hook('a.example.com', 'a', { rules })])];
    const tokenRequest = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'sa', namespace: 'ns' }, spec: {} } as KubeObject;
    await dispatchMutating(
      env('mutating'),
      context(),
      attrs({ resource: 'serviceaccounts', subresource: 'token', kind: 'TokenRequest', kindGroupVersion: { group: 'authentication.k8s.io', version: 'v1' }, name: 'sa', object: tokenRequest }),
    );
    expect(sent[0]!.review.request).toMatchObject({
      kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      resource: { group: '', version: 'v1', resource: 'serviceaccounts' },
      subResource: 'token',
      requestKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      requestResource: { group: '', version: 'v1', resource: 'serviceaccounts' },
      requestSubResource: 'token',
    });
  });

  test('an answer with a million warnings is admitted, its warnings recorded', async () => {
    const warnings = Array.from({ length: 1_000_000 }, (_, i) => `w${i % 10}`);
    handlers = { a: (r) => answer(r, { allowed: true, warnings }) };
    mutating = [configuration('c', [hook('a.example.com', 'a')])];
    const ctx = context();
    await dispatchMutating(env('mutating'), ctx, attrs());
    expect(ctx.warnings).toHaveLength(1_000_000);
  });

  test('a webhook that cannot be reached: Fail is kube’s 500, Ignore goes on', async () => {
    mutating = [configuration('c', [hook('down.example.com', 'nowhere')])];
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "nowhere?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused',
      reason: 'InternalError',
      details: { causes: [{ message: 'failed calling webhook "down.example.com": failed to call webhook: Post "nowhere?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused' }] },
      code: 500,
    });
    mutating = [configuration('c', [hook('down.example.com', 'nowhere', { failurePolicy: 'Ignore' }), hook('a.example.com', 'a')])];
    handlers = { a: allow };
    sent = [];
    await dispatchMutating(env('mutating'), context(), attrs());
    expect(sent.map((s) => s.url)).toEqual(['nowhere', 'a']);
  });

  test('garbage, the wrong uid: webhook failures', async () => {
    mutating = [configuration('c', [hook('a.example.com', 'a')])];
    handlers = { a: () => 'error response' };
    expect((await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).message).toMatch(
      /^Internal error occurred: failed calling webhook "a.example.com": failed to call webhook: couldn't get version\/kind; json parse error: json: cannot unmarshal string into Go value of type struct/,
    );
    handlers = { a: (r) => ({ ...answer(r, { allowed: true }), response: { uid: 'nope', allowed: true } }) };
    expect((await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).message).toMatch(
      /^Internal error occurred: failed calling webhook "a.example.com": received invalid webhook response: expected response.uid="[0-9a-f-]+", got "nope"$/,
    );
  });

  test('dry run: sent with dryRun true; a webhook with side effects refuses it (400, whatever the policy)', async () => {
    handlers = { a: allow, b: allow };
    mutating = [configuration('c', [hook('a.example.com', 'a', { sideEffects: 'NoneOnDryRun' })])];
    await dispatchMutating(env('mutating'), context({ dryRun: true }), attrs({ dryRun: true }));
    expect(sent[0]!.review.request.dryRun).toBe(true);
    expect(sent[0]!.review.request.options).toEqual({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
    mutating = [configuration('c', [hook('b.example.com', 'b', { sideEffects: 'Some', failurePolicy: 'Ignore' })])];
    expect(await statusOf(dispatchMutating(env('mutating'), context({ dryRun: true }), attrs({ dryRun: true })))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'admission webhook "b.example.com" does not support dry run',
    });
    expect(sent).toHaveLength(1);
  });

  test('v1beta1 when the webhook asks for it first', async () => {
    handlers = { a: () => ({ response: { allowed: true, patch: Buffer.from('[{"op":"add","path":"/metadata/labels/v","value":"b1"}]').toString('base64') } }) };
    mutating = [configuration('c', [hook('a.example.com', 'a', { admissionReviewVersions: ['v1beta1', 'v1'] })])];
    const a = attrs();
    await dispatchMutating(env('mutating'), context(), a);
    expect(sent[0]!.review.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(a.object?.metadata.labels).toEqual({ v: 'b1' });
  });

  test('the webhook configuration kinds never reach a webhook', async () => {
    mutating = [configuration('c', [hook('a.example.com', 'a', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] })])];
    await dispatchMutating(env('mutating'), context(), attrs({ group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespace: '' }));
    expect(sent).toHaveLength(0);
  });
});

describe('matching', () => {
  test('namespaceSelector: the namespace’s labels; cluster-scoped objects always match; a Namespace its own labels', async () => {
    handlers = { a: allow };
    const everything = { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] };
    mutating = [configuration('c', [hook('a.example.com', 'a', { ...everything, namespaceSelector: { matchLabels: { env: 'prod' } } })])];
    await dispatchMutating(env('mutating'), context(), attrs());
    namespaces.ns!.metadata.labels = { env: 'dev' };
    await dispatchMutating(env('mutating'), context(), attrs());
    await dispatchMutating(env('mutating'), context({ namespace: '' }), attrs({ resource: 'clusterroles', group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespace: '' }));
    const ns = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels } });
    await dispatchMutating(env('mutating'), context({ namespace: '' }), attrs({ resource: 'namespaces', kind: 'Namespace', namespace: '', name: 'new', object: ns({ env: 'prod' }) }));
    await dispatchMutating(env('mutating'), context({ namespace: '' }), attrs({ resource: 'namespaces', kind: 'Namespace', namespace: '', name: 'new', object: ns({}) }));
    expect(sent.map((s) => s.review.request.resource.resource)).toEqual(['configmaps', 'clusterroles', 'namespaces']);
    // A Namespace named by the request is its namespace (kube's attributes), a DELETE reads its labels.
    namespaces.gone = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone', labels: { env: 'prod' } } };
    await dispatchMutating(env('mutating'), context({ namespace: '' }), attrs({ operation: 'DELETE', resource: 'namespaces', kind: 'Namespace', namespace: '', name: 'gone', object: undefined }));
    expect(sent[3]!.review.request).toMatchObject({ name: 'gone', namespace: 'gone', operation: 'DELETE', object: null, options: { kind: 'DeleteOptions' } });
    // A namespace that does not exist: kube's 404.
    expect(await statusOf(dispatchMutating(env('mutating'), context({ namespace: 'nowhere' }), attrs({ namespace: 'nowhere' })))).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
  });

  test('objectSelector: the object’s labels or the old object’s', async () => {
    handlers = { a: allow };
    mutating = [configuration('c', [hook('a.example.com', 'a', { objectSelector: { matchExpressions: [{ key: 'hook', operator: 'Exists' }] } })])];
    await dispatchMutating(env('mutating'), context(), attrs());
    await dispatchMutating(env('mutating'), context(), attrs({ object: configMap({ hook: '' }) }));
    await dispatchMutating(env('mutating'), context(), attrs({ operation: 'UPDATE', object: configMap(), oldObject: configMap({ hook: 'yes' }) }));
    expect(sent.map((s) => s.review.request.operation)).toEqual(['CREATE', 'UPDATE']);
  });

  test('a selector kube cannot convert: 500', async () => {
    mutating = [configuration('c', [hook('a.example.com', 'a', { objectSelector: { matchExpressions: [{ key: 'k', operator: 'Near' }] } })])];
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toMatchObject({ code: 500, message: 'Internal error occurred: "Near" is not a valid label selector operator' });
  });

  test('matchConditions: false skips, an error fails (403) or skips (Ignore); the authorizer is asked', async () => {
    handlers = { a: allow };
    const cond = (...expressions: string[]) => ({ matchConditions: expressions.map((expression, i) => ({ name: `c${i}`, expression })) });
    mutating = [configuration('c', [hook('a.example.com', 'a', cond("object.metadata.name == 'cm'", "request.userInfo.username == 'alice'"))])];
    await dispatchMutating(env('mutating'), context(), attrs());
    await dispatchMutating(env('mutating'), context({ user: { name: 'bob', uid: '', groups: [] } }), attrs());
    expect(sent).toHaveLength(1);
    mutating = [configuration('c', [hook('a.example.com', 'a', cond("authorizer.group('').resource('configmaps').namespace('ns').check('get').allowed()"))])];
    await dispatchMutating(env('mutating'), context(), attrs());
    await dispatchMutating(env('mutating'), context({ user: { name: 'bob', uid: '', groups: [] } }), attrs());
    expect(sent).toHaveLength(2);
    mutating = [configuration('c', [hook('a.example.com', 'a', cond('object.data.missing == "x"'))])];
    expect(await statusOf(dispatchMutating(env('mutating'), context(), attrs()))).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: expect.stringMatching(/^configmaps "cm" is forbidden: expression 'object.data.missing == "x"' resulted in error: no such key: missing$/),
    });
    mutating = [configuration('c', [hook('a.example.com', 'a', { ...cond('object.data.missing == "x"'), failurePolicy: 'Ignore' })])];
    await dispatchMutating(env('mutating'), context(), attrs());
    expect(sent).toHaveLength(2);
  });

  test('matchPolicy Equivalent: a rule on another form of the resource, the object sent in that form', async () => {
    const toEvents = (o: KubeObject): KubeObject => ({ ...o, apiVersion: 'events.k8s.io/v1', kind: 'Event', note: (o as { message?: string }).message });
    const fromEvents = (o: KubeObject): KubeObject => {
      const { note, ...rest } = o as KubeObject & { note?: string };
      return { ...rest, apiVersion: 'v1', kind: 'Event', message: note } as KubeObject;
    };
    equivalents = [{ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', fromRequest: toEvents, toRequest: fromEvents, decode: (o) => o as KubeObject }];
    handlers = { a: patchWith([{ op: 'replace', path: '/note', value: 'changed' }]) };
    const rules = [{ operations: ['CREATE'], apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }];
    mutating = [configuration('c', [hook('a.example.com', 'a', { rules })])];
    const event = (): KubeObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' }, message: 'hi' }) as KubeObject;
    const a = attrs({ resource: 'events', kind: 'Event', object: event(), decode: undefined });
    await dispatchMutating(env('mutating'), context(), a);
    expect(sent[0]!.review.request).toMatchObject({
      kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
      resource: { group: 'events.k8s.io', version: 'v1', resource: 'events' },
      requestKind: { group: '', version: 'v1', kind: 'Event' },
      requestResource: { group: '', version: 'v1', resource: 'events' },
      object: { apiVersion: 'events.k8s.io/v1', note: 'hi' },
    });
    expect(a.object).toMatchObject({ apiVersion: 'v1', kind: 'Event', message: 'changed' });
    // matchPolicy Exact: not called.
    mutating = [configuration('c', [hook('a.example.com', 'a', { rules, matchPolicy: 'Exact' })])];
    await dispatchMutating(env('mutating'), context(), attrs({ resource: 'events', kind: 'Event', object: event() }));
    expect(sent).toHaveLength(1);
  });
});

describe('validating', () => {
  test('all called at once; the first error to arrive wins', async () => {
    const release: Array<() => void> = [];
    const slowDeny = (message: string): Handler => (r) =>
      new Promise((resolve) => release.push(() => resolve(answer(r, { allowed: false, status: { message } }))));
    handlers = { a: slowDeny('first listed'), b: slowDeny('first answered'), c: allow };
    validating = [configuration('c', [hook('a.example.com', 'a'), hook('b.example.com', 'b'), hook('c.example.com', 'c')])];
    const p = statusOf(dispatchValidating(env('validating'), context(), attrs()));
    await new Promise((r) => setImmediate(r));
    // All three were sent before any answered.
    expect(sent.map((s) => s.url)).toEqual(['a', 'b', 'c']);
    release[1]!();
    await new Promise((r) => setImmediate(r));
    release[0]!();
    expect((await p).message).toBe('admission webhook "b.example.com" denied the request: first answered');
  });

  test('a patch from a validating webhook is a webhook failure; Ignore annotates by position among those called', async () => {
    handlers = { a: allow, b: patchWith([]) };
    validating = [configuration('c', [hook('a.example.com', 'a', { objectSelector: { matchLabels: { no: 'match' } } }), hook('a2.example.com', 'a'), hook('b.example.com', 'b', { failurePolicy: 'Ignore' })])];
    const ctx = context();
    await dispatchValidating(env('validating'), ctx, attrs());
    expect(ctx.auditAnnotations).toEqual(new Map([['failed-open.validating.webhook.admission.k8s.io/round_0_index_1', 'b.example.com']]));
    validating = [configuration('c', [hook('b.example.com', 'b')])];
    expect((await statusOf(dispatchValidating(env('validating'), context(), attrs()))).message).toBe(
      'Internal error occurred: failed calling webhook "b.example.com": received invalid webhook response: validating webhook may not return response.patch',
    );
  });

  test('a DELETE shows the stored object as oldObject', async () => {
    handlers = { a: allow };
    validating = [configuration('c', [hook('a.example.com', 'a')])];
    await dispatchValidating(env('validating'), context(), attrs({ operation: 'DELETE', object: undefined, oldObject: configMap() }));
    expect(sent[0]!.review.request).toMatchObject({ operation: 'DELETE', object: null, oldObject: configMap(), options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' } });
  });
});

describe('configurations', () => {
  test('kept per resourceVersion; duplicate webhook names get their own uid', () => {
    mutating = [configuration('b', [hook('x', 'x'), hook('x', 'x')], '1'), configuration('a', [hook('y', 'y')], '1')];
    const source = new WebhookSource('mutating', () => mutating);
    const first = source.webhooks();
    expect(first.map((h) => h.uid)).toEqual(['a/y/0', 'b/x/0', 'b/x/1']);
    expect(source.webhooks()).toBe(first);
    mutating = [mutating[0]!, configuration('a', [hook('z', 'z')], '2')];
    const second = source.webhooks();
    expect(second.map((h) => h.uid)).toEqual(['a/z/0', 'b/x/0', 'b/x/1']);
    expect(second[1]).toBe(first[1]);
  });
});
