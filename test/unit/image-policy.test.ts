/**
 * ImagePolicyWebhook (admission/plugins/image-policy): kube's configuration rules and messages, the
 * ImageReview it builds and sends, and its decisions against a real HTTPS backend (its own CA and a
 * required client certificate): denials with kube's message, the allow and deny caches on an
 * injected clock, audit annotations, and every way the backend can fail, with and without
 * defaultAllow.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApiError, type KubeObject, type RequestContext } from '../../src/api';
import { kubeDefaultOnAdmissionPlugins, newAdmissionPlugins, type AdmissionAttributes } from '../../src/admission';
import { decodeImagePolicyConfig, loadImagePolicyConfig } from '../../src/admission/plugins/image-policy/config';
import { ImagePolicyWebhook, imagePolicyFailedOpenKey, newImagePolicyWebhook } from '../../src/admission/plugins/image-policy';
import { decodeImageReviewResponse, encodeImageReviewRequest, encodeImageReviewSpec, imagePolicyAnnotations, imageReviewSpecFor } from '../../src/admission/plugins/image-policy/review';
import { readAdmissionConfiguration } from '../../src/config/kinds/admission';
import { startImageReviewBackend, type ImageReviewBackend, type ReviewAnswer } from '../support/image-review-backend';
import { podAttributes } from '../support/admission';

let dir: string;
let backend: ImageReviewBackend;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-image-policy-'));
  backend = await startImageReviewBackend(dir);
});
afterAll(async () => {
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

/** The configuration document of the plugin, as YAML. */
const yamlConfig = (fields: Record<string, unknown>): string =>
  `imagePolicy:\n${Object.entries(fields)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
    .join('')}`;

const configError = (text: string): string => {
  try {
    loadImagePolicyConfig({ text });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the configuration loaded');
};

describe('configuration', () => {
  test("kube's defaults: allow 5m, deny 30s, backoff 500ms, defaultAllow false", () => {
    expect(loadImagePolicyConfig({ text: yamlConfig({ kubeConfigFile: '/k' }) })).toEqual({
      kubeConfigFile: '/k',
      allowTtlMs: 300_000,
      denyTtlMs: 30_000,
      retryBackoffMs: 500,
      defaultAllow: false,
    });
  });

  test('TTLs are seconds, the backoff milliseconds; -1 turns each off', () => {
    expect(loadImagePolicyConfig({ text: yamlConfig({ kubeConfigFile: '/k', allowTTL: 50, denyTTL: 1800, retryBackoff: 1, defaultAllow: true }) })).toEqual({
      kubeConfigFile: '/k',
      allowTtlMs: 50_000,
      denyTtlMs: 1_800_000,
      retryBackoffMs: 1,
      defaultAllow: true,
    });
    expect(loadImagePolicyConfig({ text: '{"imagePolicy":{"allowTTL":-1,"denyTTL":-1,"retryBackoff":-1}}' })).toMatchObject({ allowTtlMs: 0, denyTtlMs: 0, retryBackoffMs: 0 });
  });

  test('a file that cannot be read is named, with Go\'s open error', () => {
    const missing = path.join(os.tmpdir(), `papi-image-policy-missing-${process.pid}.yaml`);
    expect(() => loadImagePolicyConfig({ path: missing })).toThrow(`couldn't open admission plugin configuration ${missing}: open ${missing}: no such file or directory`);
  });

  test("values out of bounds: kube's message, backoff checked first", () => {
    expect(configError(yamlConfig({ allowTTL: 3600 }))).toBe('valid value is between 1s and 30m0s, got 1h0m0s');
    expect(configError(yamlConfig({ denyTTL: -5 }))).toBe('valid value is between 1s and 30m0s, got -5s');
    expect(configError(yamlConfig({ retryBackoff: 600_000, allowTTL: 3600 }))).toBe('valid value is between 1ns and 5m0s, got 10m0s');
    expect(configError(yamlConfig({ retryBackoff: -2 }))).toBe('valid value is between 1ns and 5m0s, got -2ms');
    // Go's int64 multiplication wraps.
    expect(configError(yamlConfig({ allowTTL: 9_223_372_037 }))).toBe('valid value is between 1s and 30m0s, got -2562047h47m16.709551616s');
  });

  test("decode errors in Go's words, YAML and JSON", () => {
    expect(configError(yamlConfig({ allowTTL: '30s' }))).toBe(
      'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.allowTTL of type time.Duration',
    );
    expect(configError('{"imagePolicy":{"denyTTL":1.5}}')).toBe('json: cannot unmarshal number 1.5 into Go struct field imagePolicyWebhookConfig.imagePolicy.denyTTL of type time.Duration');
    expect(configError('{"imagePolicy":{"defaultAllow":"yes"}}')).toBe('json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.defaultAllow of type bool');
    expect(configError('{"imagePolicy":[]}')).toBe('json: cannot unmarshal array into Go struct field AdmissionConfig.imagePolicy of type imagepolicy.imagePolicyWebhookConfig');
    expect(configError('{"imagePolicy": x}')).toBe("json: offset 17: invalid character 'x' looking for beginning of value");
    expect(configError('{"imagePolicy":"\\q"}')).toBe("json: offset 18: invalid character 'q' in string escape code");
    expect(configError('{"imagePolicy":"\u0001"}')).toBe("json: offset 17: invalid character '\\x01' in string literal");
    expect(configError('{"imagePolicy": {')).toBe('unexpected EOF');
    expect(configError('just text')).toBe('error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type imagepolicy.AdmissionConfig');
    expect(configError('imagePolicy: [a\n')).toMatch(/^error converting YAML to JSON: yaml: /);
    expect(configError('--- nope\nimagePolicy: {}\n')).toBe('invalid Yaml document separator: nope');
    expect(configError('')).toBe('EOF');
    expect(configError(`{"imagePolicy":${'['.repeat(100_000)}`)).toMatch(/depth|nesting/);
  });

  test('encoding/json rules: names matched without case, unknown fields ignored, only the first document read', () => {
    expect(decodeImagePolicyConfig('ImagePolicy:\n  KUBECONFIGFILE: /a\n  allowttl: 7\n  other: x\nunknown: 1\n')).toEqual({
      kubeConfigFile: '/a',
      allowTTL: 7n,
      denyTTL: 0n,
      retryBackoff: 0n,
      defaultAllow: false,
    });
    expect(decodeImagePolicyConfig('---\nimagePolicy: {allowTTL: 2}\n---\nimagePolicy: {allowTTL: x}\n').allowTTL).toBe(2n);
    expect(decodeImagePolicyConfig('{"imagePolicy":{"denyTTL":3}} trailing').denyTTL).toBe(3n);
    // YAML's conversion to JSON turns a number meant for a string into its text.
    expect(decodeImagePolicyConfig('imagePolicy: {kubeConfigFile: 123}').kubeConfigFile).toBe('123');
    expect(() => decodeImagePolicyConfig('{"imagePolicy":{"kubeConfigFile":123}}')).toThrow(
      'json: cannot unmarshal number into Go struct field imagePolicyWebhookConfig.imagePolicy.kubeConfigFile of type string',
    );
  });

  test("no configuration, no kubeconfig, a bad kubeconfig: startup errors naming the plugin", () => {
    const plugins = newAdmissionPlugins();
    const build = (config?: { text: string } | { path: string }) => () => plugins.newFromPlugins(['ImagePolicyWebhook'], config ? { ImagePolicyWebhook: config } : {});
    expect(build()).toThrow('couldn\'t init admission plugin "ImagePolicyWebhook": no config specified');
    expect(build({ text: yamlConfig({ allowTTL: 5 }) })).toThrow(
      'couldn\'t init admission plugin "ImagePolicyWebhook": invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    );
    const missing = path.join(dir, 'missing.kubeconfig');
    expect(build({ text: yamlConfig({ kubeConfigFile: missing }) })).toThrow(`couldn't init admission plugin "ImagePolicyWebhook": open ${missing}: no such file or directory`);
    expect(build({ path: path.join(dir, 'nope.yaml') })).toThrow(/couldn't open admission plugin configuration .*nope\.yaml: open .*nope\.yaml: no such file or directory/);
    expect(plugins.newFromPlugins(['ImagePolicyWebhook'], { ImagePolicyWebhook: { text: yamlConfig({ kubeConfigFile: backend.kubeconfig }) } }).validating).toEqual(['ImagePolicyWebhook']);
  });

  test("a refused configuration: kube's message, then the file it came from and the field kube's message leaves out", async () => {
    const plugins = newAdmissionPlugins();
    const admission = path.join(dir, 'admission-bounds.yaml');
    await writeFile(admission, `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  configuration:\n    imagePolicy: {kubeConfigFile: /k, denyTTL: 3600}\n`);
    // The default plugins need the server; only ImagePolicyWebhook is built here.
    const disable = [...kubeDefaultOnAdmissionPlugins];
    const apply = (configFile: string) => () => plugins.apply({ enable: ['ImagePolicyWebhook'], disable, configFile });
    expect(apply(admission)).toThrow(
      `failed to apply admission: couldn't init admission plugin "ImagePolicyWebhook": valid value is between 1s and 30m0s, got 1h0m0s (in "${admission}" at plugins[0].configuration.imagePolicy.denyTTL)`,
    );
    // Its own file, by path.
    const own = path.join(dir, 'image-policy-bounds.yaml');
    await writeFile(own, yamlConfig({ kubeConfigFile: '/k', retryBackoff: 600_000 }));
    const byPath = path.join(dir, 'admission-by-path.yaml');
    await writeFile(byPath, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: image-policy-bounds.yaml\n');
    expect(apply(byPath)).toThrow(`couldn't init admission plugin "ImagePolicyWebhook": valid value is between 1ns and 5m0s, got 10m0s (in "${own}" at imagePolicy.retryBackoff)`);
    // kube's legacy form: the whole file is the plugin's.
    const legacy = path.join(dir, 'admission-legacy.yaml');
    const missing = path.join(dir, 'gone.kubeconfig');
    await writeFile(legacy, yamlConfig({ kubeConfigFile: missing }));
    expect(apply(legacy)).toThrow(`couldn't init admission plugin "ImagePolicyWebhook": open ${missing}: no such file or directory (in "${legacy}" at imagePolicy.kubeConfigFile)`);
    // A decode error names its field in Go's words already; the file follows.
    await writeFile(legacy, yamlConfig({ allowTTL: '30s' }));
    expect(apply(legacy)).toThrow(
      `couldn't init admission plugin "ImagePolicyWebhook": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.allowTTL of type time.Duration (in "${legacy}")`,
    );
  });

  test('off by default; its place in the order is before PodSecurity', () => {
    const plugins = newAdmissionPlugins();
    expect(plugins.isRegistered('ImagePolicyWebhook')).toBe(true);
    expect(plugins.enabledPluginNames()).not.toContain('ImagePolicyWebhook');
    expect(plugins.enabledPluginNames({ enable: ['ImagePolicyWebhook'] })).toContain('ImagePolicyWebhook');
  });

  test('the AdmissionConfiguration forms: embedded, a file, and the legacy whole-file form', async () => {
    const own = path.join(dir, 'own.yaml');
    await writeFile(own, yamlConfig({ kubeConfigFile: backend.kubeconfig, denyTTL: 9 }));
    const embedded = path.join(dir, 'admission-embedded.yaml');
    await writeFile(
      embedded,
      `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  configuration:\n    imagePolicy:\n      kubeConfigFile: ${backend.kubeconfig}\n      allowTTL: 8\n`,
    );
    const byPath = path.join(dir, 'admission-path.yaml');
    await writeFile(byPath, 'apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: own.yaml\n');
    const legacy = path.join(dir, 'admission-legacy.yaml');
    await writeFile(legacy, yamlConfig({ kubeConfigFile: backend.kubeconfig, retryBackoff: 7 }));
    const load = (file: string) => loadImagePolicyConfig(readAdmissionConfiguration(['ImagePolicyWebhook'], file)('ImagePolicyWebhook'));
    expect(load(embedded)).toMatchObject({ allowTtlMs: 8000, denyTtlMs: 30_000 });
    expect(load(byPath)).toMatchObject({ allowTtlMs: 300_000, denyTtlMs: 9000 });
    expect(load(legacy)).toMatchObject({ retryBackoffMs: 7 });
  });
});

describe('the ImageReview', () => {
  test("annotations: only keys matching kube's *.image-policy.k8s.io/*", () => {
    expect(
      imagePolicyAnnotations({
        'mycluster.image-policy.k8s.io/ticket-1234': 'break-glass',
        'a.b.image-policy.k8s.io/x/y': 'nested',
        'image-policy.k8s.io/no-dot-before': 'no',
        'x.image-policy.k8s.io': 'no slash',
        'x.image-policy.k8s.io.evil/y': 'no',
        app: 'web',
      }),
    ).toEqual({ 'mycluster.image-policy.k8s.io/ticket-1234': 'break-glass', 'a.b.image-policy.k8s.io/x/y': 'nested' });
  });

  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', annotations: { 'z.image-policy.k8s.io/b': '2', 'a.image-policy.k8s.io/a': '<1>', other: 'x' } },
    spec: {
      containers: [{ name: 'a', image: 'web:1' }, { name: 'b' }],
      initContainers: [{ name: 'i', image: 'init@sha256:00' }],
      ephemeralContainers: [{ name: 'e', image: 'debug' }],
    },
  };

  test('containers then init containers; ephemeral containers alone for their subresource', () => {
    expect(imageReviewSpecFor(pod, '', 'ns')).toEqual({
      containers: ['web:1', '', 'init@sha256:00'],
      annotations: { 'z.image-policy.k8s.io/b': '2', 'a.image-policy.k8s.io/a': '<1>' },
      namespace: 'ns',
    });
    expect(imageReviewSpecFor(pod, 'ephemeralcontainers', 'ns').containers).toEqual(['debug']);
  });

  test("the body is Go's JSON of the typed object: omitempty, sorted keys, HTML-safe escapes", () => {
    const spec = encodeImageReviewSpec(imageReviewSpecFor(pod, '', 'ns'));
    expect(spec).toBe('{"containers":[{"image":"web:1"},{},{"image":"init@sha256:00"}],"annotations":{"a.image-policy.k8s.io/a":"\\u003c1\\u003e","z.image-policy.k8s.io/b":"2"},"namespace":"ns"}');
    expect(encodeImageReviewSpec({ containers: [], annotations: {}, namespace: '' })).toBe('{}');
    expect(encodeImageReviewRequest('{}')).toBe('{"kind":"ImageReview","apiVersion":"imagepolicy.k8s.io/v1alpha1","metadata":{"creationTimestamp":null},"spec":{},"status":{"allowed":false}}\n');
  });

  test('answers decode as kube decodes them into an ImageReview', () => {
    expect(decodeImageReviewResponse('{"status":{"allowed":true,"auditAnnotations":{"k":"v","n":null}}}')).toEqual({ allowed: true, reason: '', auditAnnotations: { k: 'v', n: '' } });
    expect(decodeImageReviewResponse('kind: ImageReview\nstatus:\n  allowed: false\n  reason: yaml too\n')).toEqual({ allowed: false, reason: 'yaml too', auditAnnotations: {} });
    expect(decodeImageReviewResponse('{}').allowed).toBe(false);
    const fails = (body: string) => () => decodeImageReviewResponse(body);
    expect(fails('{"status":{"allowed":"true"}}')).toThrow('json: cannot unmarshal string into Go struct field ImageReviewStatus.status.allowed of type bool');
    expect(fails('{"status":[]}')).toThrow('json: cannot unmarshal array into Go struct field ImageReview.status of type v1alpha1.ImageReviewStatus');
    expect(fails('{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1"}')).toThrow(
      'no kind "SubjectAccessReview" is registered for version "authorization.k8s.io/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
    );
    expect(fails('{"status": nope}')).toThrow("couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')");
    // Hostile answers fail as decode errors, never as a crash.
    expect(fails(`{"status":${'['.repeat(100_000)}`)).toThrow(/^couldn't get version\/kind; json parse error: /);
    expect(fails(`${'- '.repeat(5000)}x`)).toThrow(/^yaml: /);
    expect(fails('<html>oops</html>')).toThrow(
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
  });
});

describe('decisions against an HTTPS backend', () => {
  let clock = 1_000_000;
  const now = () => clock;

  const ctx = (): RequestContext => ({ namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() });
  const podAttrs = (images: string[], over: Partial<AdmissionAttributes> = {}, annotations?: Record<string, string>): AdmissionAttributes =>
    podAttributes(
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) } },
      over,
    );

  /** A plugin on the backend (or the dead port) with the given settings. */
  const plugin = (o: { allowTTL?: number; denyTTL?: number; defaultAllow?: boolean; dead?: boolean; timeoutMs?: number; retryBackoff?: number } = {}) =>
    newImagePolicyWebhook(
      {
        text: yamlConfig({
          kubeConfigFile: o.dead ? backend.deadKubeconfig : backend.kubeconfig,
          allowTTL: o.allowTTL ?? 60,
          denyTTL: o.denyTTL ?? 10,
          retryBackoff: o.retryBackoff ?? 1,
          defaultAllow: o.defaultAllow ?? false,
        }),
      },
      { now, ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}) },
    );

  /** What validate() threw (an ApiError), or undefined when it allowed. */
  const verdict = async (p: ImagePolicyWebhook, a: AdmissionAttributes, c = ctx()): Promise<ApiError | undefined> => {
    try {
      await p.validate(c, a);
      return undefined;
    } catch (e) {
      if (e instanceof ApiError) return e;
      throw e;
    }
  };

  /** The policy: images under `evil/` denied with a reason, `quiet/` denied without one, the rest allowed. */
  const images = (review: { spec: { containers?: Array<{ image?: string }> } }): ReviewAnswer => {
    const all = (review.spec.containers ?? []).map((c) => c.image ?? '');
    if (all.some((i) => i.startsWith('evil/'))) return { status: { allowed: false, reason: 'evil images are not allowed', auditAnnotations: { verdict: 'evil' } } };
    if (all.some((i) => i.startsWith('quiet/'))) return { status: { allowed: false } };
    return { status: { allowed: true, auditAnnotations: { verdict: 'ok', 'bad/key': 'x', 'ticket-id': '42' } } };
  };

  beforeEach(() => {
    backend.calls.length = 0;
    backend.policy = images;
  });

  test('allowed: the review is posted as client-go posts it, with the client certificate; audit annotations prefixed', async () => {
    const p = plugin();
    const c = ctx();
    expect(await verdict(p, podAttrs(['web:1']), c)).toBeUndefined();
    expect(backend.calls).toHaveLength(1);
    const call = backend.calls[0]!;
    expect(call.url).toBe('/review?timeout=30s');
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.clientCN).toBe('admin');
    expect(call.body).toBe(encodeImageReviewRequest('{"containers":[{"image":"web:1"}],"namespace":"ns"}'));
    // `bad/key` would make an invalid audit key: dropped, as kube's AddAnnotation refuses it.
    expect(Object.fromEntries(c.auditAnnotations ?? [])).toEqual({
      'imagepolicywebhook.image-policy.k8s.io/verdict': 'ok',
      'imagepolicywebhook.image-policy.k8s.io/ticket-id': '42',
    });
    p.close();
  });

  test("denied: kube's 403, with the backend's reason or without one", async () => {
    const p = plugin();
    const denied = await verdict(p, podAttrs(['web:1', 'evil/miner']));
    expect(denied?.status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'pods "p" is forbidden: image policy webhook backend denied one or more images: evil images are not allowed',
      details: { name: 'p', kind: 'pods' },
    });
    expect((await verdict(p, podAttrs(['quiet/x'])))?.status.message).toBe('pods "p" is forbidden: one or more images rejected by webhook backend');
    // A generated name not yet set: the generateName, as kube's NewForbidden.
    const unnamed = podAttrs(['quiet/x'], { name: '' });
    unnamed.object!.metadata = { generateName: 'web-' };
    expect((await verdict(p, unnamed))?.status.message).toBe('pods "web-" is forbidden: one or more images rejected by webhook backend');
    p.close();
  });

  test('allowed answers are cached for allowTTL, denied ones for denyTTL, keyed on the whole spec', async () => {
    const p = plugin({ allowTTL: 60, denyTTL: 10 });
    const c = ctx();
    await verdict(p, podAttrs(['web:1']));
    expect(await verdict(p, podAttrs(['web:1']), c)).toBeUndefined();
    expect(backend.calls).toHaveLength(1);
    // A cached answer still annotates the request.
    expect(c.auditAnnotations?.get('imagepolicywebhook.image-policy.k8s.io/verdict')).toBe('ok');
    // Another namespace, another annotation, another image: other keys.
    await verdict(p, podAttrs(['web:1'], { namespace: 'other' }));
    await verdict(p, podAttrs(['web:1'], {}, { 'x.image-policy.k8s.io/why': 'test' }));
    await verdict(p, podAttrs(['web:1'], {}, { unrelated: 'annotation' }));
    expect(backend.calls).toHaveLength(3);
    expect(backend.calls[2]!.review.spec.annotations).toEqual({ 'x.image-policy.k8s.io/why': 'test' });

    expect(await verdict(p, podAttrs(['evil/x']))).toBeDefined();
    expect(await verdict(p, podAttrs(['evil/x']))).toBeDefined();
    expect(backend.calls).toHaveLength(4);

    clock += 9_999;
    await verdict(p, podAttrs(['evil/x']));
    expect(backend.calls).toHaveLength(4);
    clock += 2;
    await verdict(p, podAttrs(['evil/x']));
    expect(backend.calls).toHaveLength(5);
    await verdict(p, podAttrs(['web:1']));
    expect(backend.calls).toHaveLength(5);
    clock += 50_000;
    await verdict(p, podAttrs(['web:1']));
    expect(backend.calls).toHaveLength(6);
    p.close();
  });

  test('TTL -1: nothing cached', async () => {
    const p = plugin({ allowTTL: -1, denyTTL: -1 });
    for (let i = 0; i < 2; i++) {
      await verdict(p, podAttrs(['web:1']));
      await verdict(p, podAttrs(['evil/x']));
    }
    expect(backend.calls).toHaveLength(4);
    p.close();
  });

  test('only pods and their ephemeralcontainers; other resources, subresources and operations pass untouched', async () => {
    const p = plugin();
    expect(p.handles('CREATE') && p.handles('UPDATE')).toBe(true);
    expect(p.handles('DELETE') || p.handles('CONNECT')).toBe(false);
    for (const over of [{ subresource: 'status' }, { resource: 'configmaps' }, { group: 'apps', resource: 'pods' }]) {
      expect(await verdict(p, podAttrs(['evil/x'], over))).toBeUndefined();
    }
    expect(backend.calls).toHaveLength(0);
    const a = podAttrs(['web:1'], { operation: 'UPDATE', subresource: 'ephemeralcontainers' });
    (a.object!.spec as Record<string, unknown>).ephemeralContainers = [{ name: 'dbg', image: 'evil/debugger' }];
    expect((await verdict(p, a))?.status.message).toBe('pods "p" is forbidden: image policy webhook backend denied one or more images: evil images are not allowed');
    expect(backend.calls.map((c) => c.review.spec.containers)).toEqual([[{ image: 'evil/debugger' }]]);
    p.close();
  });

  describe('a failing backend', () => {
    const failures: Array<[string, ReviewAnswer, RegExp | string]> = [
      ['garbage', { code: 200, body: 'not a review', contentType: 'text/plain' }, /json parse error: json: cannot unmarshal string into Go value of type struct/],
      ['a wrong type', { code: 200, body: '{"status":{"allowed":1}}' }, 'json: cannot unmarshal number into Go struct field ImageReviewStatus.status.allowed of type bool'],
      ['a 404 Status', { code: 404, body: '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no such review","reason":"NotFound","code":404}' }, 'no such review'],
      ['a 401 page', { code: 401, body: 'who are you', contentType: 'text/plain' }, 'the server has asked for the client to provide credentials'],
      ['an empty answer', { code: 200, body: '' }, '0-length response with status code: 200 and content type: application/json'],
    ];

    test.each(failures)('%s: 403 with the failure as the reason; nothing cached', async (_what, answer, message) => {
      backend.policy = () => answer;
      const p = plugin({ allowTTL: 60, denyTTL: 60 });
      const err = await verdict(p, podAttrs(['web:1']));
      expect(err?.status.code).toBe(403);
      expect(err?.status.message?.startsWith('pods "p" is forbidden: ')).toBe(true);
      expect(err?.status.message?.slice('pods "p" is forbidden: '.length)).toMatch(message);
      await verdict(p, podAttrs(['web:1']));
      expect(backend.calls).toHaveLength(2);
      p.close();
    });

    test("the backend's own Forbidden reaches the client as it is (kube's NewForbidden does not wrap it again)", async () => {
      const p = plugin();
      const banned = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'registry banned', reason: 'Forbidden', details: { name: 'r' }, code: 403 };
      backend.policy = () => ({ code: 403, body: JSON.stringify(banned) });
      expect((await verdict(p, podAttrs(['web:1'])))?.status).toEqual(banned);
      // A page that is no Status: client-go's generic error, its text kept as the message.
      backend.policy = () => ({ code: 403, body: 'go away\n', contentType: 'text/plain' });
      expect((await verdict(p, podAttrs(['web:1'])))?.status).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'go away',
        reason: 'Forbidden',
        details: { causes: [{ reason: 'UnexpectedServerResponse', message: 'go away' }] },
        code: 403,
      });
      // An unknown reason counts as Forbidden by its code; a known other reason is wrapped.
      backend.policy = () => ({ code: 403, body: '{"kind":"Status","status":"Failure","message":"odd","reason":"Odd","code":403}' });
      expect((await verdict(p, podAttrs(['web:1'])))?.status).toMatchObject({ code: 403, reason: 'Odd', message: 'odd' });
      backend.policy = () => ({ code: 403, body: '{"kind":"Status","status":"Failure","message":"gone","reason":"NotFound","code":404}' });
      expect((await verdict(p, podAttrs(['web:1'])))?.status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'pods "p" is forbidden: gone' });
      p.close();
      // defaultAllow still fails open.
      backend.policy = () => ({ code: 403, body: JSON.stringify(banned) });
      const open = plugin({ defaultAllow: true });
      const c = ctx();
      expect(await verdict(open, podAttrs(['web:1']), c)).toBeUndefined();
      expect(c.auditAnnotations?.get(imagePolicyFailedOpenKey)).toBe('true');
      open.close();
    });

    test('a 500 is retried with the backoff (5 attempts), then fails', async () => {
      backend.policy = () => ({ code: 500, body: 'boom', contentType: 'text/plain' });
      const p = plugin({ retryBackoff: 1 });
      const err = await verdict(p, podAttrs(['web:1']));
      expect(err?.status.message).toBe('pods "p" is forbidden: an error on the server ("boom") has prevented the request from succeeding');
      expect(backend.calls).toHaveLength(5);
      p.close();
    });

    test("a Status of no known reason is judged by its code, as kube's DefaultShouldRetry does; a text answer is quoted up to 2,048 bytes", async () => {
      backend.policy = () => ({ code: 500, body: '{"kind":"Status","status":"Failure","message":"odd","code":500}' });
      const p = plugin({ retryBackoff: 1 });
      expect((await verdict(p, podAttrs(['web:1'])))?.status.message).toBe('pods "p" is forbidden: odd');
      expect(backend.calls).toHaveLength(5);
      backend.policy = () => ({ code: 403, body: 'x'.repeat(3000), contentType: 'text/plain' });
      expect((await verdict(p, podAttrs(['web:1'])))?.status.message).toBe('x'.repeat(2048));
      p.close();
    });

    test('a transient failure then an answer: the answer decides', async () => {
      let n = 0;
      backend.policy = (review) => (++n === 1 ? { code: 503, body: '', contentType: 'text/plain' } : images(review));
      // 503 without Retry-After is not retried by kube: the call fails.
      const p = plugin({ retryBackoff: 1 });
      expect((await verdict(p, podAttrs(['web:1'])))?.status.message).toBe('pods "p" is forbidden: the server is currently unable to handle the request');
      n = 0;
      backend.policy = (review) => (++n === 1 ? { code: 429, body: '', contentType: 'text/plain' } : images(review));
      expect(await verdict(p, podAttrs(['web:1']))).toBeUndefined();
      p.close();
    });

    test("client-go's own retry: a 503 or 429 with Retry-After is posted again (no backoff configured); every call says kube-apiserver's User-Agent", async () => {
      let n = 0;
      backend.policy = (review) => (++n <= 3 ? { code: n === 2 ? 429 : 503, body: '', contentType: 'text/plain', headers: { 'Retry-After': '0' } } : images(review));
      const p = plugin({ retryBackoff: -1 });
      expect(await verdict(p, podAttrs(['web:1']))).toBeUndefined();
      expect(backend.calls).toHaveLength(4);
      for (const c of backend.calls) expect(c.headers['user-agent']).toMatch(/^kube-apiserver\/v1\.32\.\d+ \(linux\/amd64\) kubernetes\/[0-9a-f]{7}$/);
      p.close();
    });

    test('a backend that does not answer in time', async () => {
      backend.policy = () => 'hang';
      const p = plugin({ timeoutMs: 300 });
      const err = await verdict(p, podAttrs(['web:1']));
      expect(err?.status.message).toMatch(/^pods "p" is forbidden: Post "https:\/\/127\.0\.0\.1:\d+\/review\?timeout=300ms": context deadline exceeded$/);
      p.close();
    });

    test('the connection closed without an answer', async () => {
      backend.policy = () => 'reset';
      const p = plugin();
      expect((await verdict(p, podAttrs(['web:1'])))?.status.message).toMatch(/^pods "p" is forbidden: Post "https:\/\/127\.0\.0\.1:\d+\/review\?timeout=30s": EOF$/);
      p.close();
    });

    test('the backend down: 403 with the dial error; with defaultAllow, allowed and annotated failed-open', async () => {
      const closed = plugin({ dead: true });
      const err = await verdict(closed, podAttrs(['evil/x']));
      expect(err?.status.message).toMatch(/^pods "p" is forbidden: Post "https:\/\/127\.0\.0\.1:(\d+)\/review\?timeout=30s": dial tcp 127\.0\.0\.1:\1: connect: connection refused$/);
      closed.close();

      const open = plugin({ dead: true, defaultAllow: true });
      const c = ctx();
      expect(await verdict(open, podAttrs(['evil/x']), c)).toBeUndefined();
      expect(Object.fromEntries(c.auditAnnotations ?? [])).toEqual({ [imagePolicyFailedOpenKey]: 'true' });
      expect(imagePolicyFailedOpenKey).toBe('imagepolicywebhook.image-policy.k8s.io/failed-open');
      open.close();
    });

    test('defaultAllow does not overrule an answer: a denial stays a denial', async () => {
      const p = plugin({ defaultAllow: true });
      expect((await verdict(p, podAttrs(['evil/x'])))?.status.code).toBe(403);
      backend.policy = () => ({ code: 200, body: '[]' });
      const c = ctx();
      expect(await verdict(p, podAttrs(['other']), c)).toBeUndefined();
      expect(c.auditAnnotations?.get(imagePolicyFailedOpenKey)).toBe('true');
      p.close();
    });
  });

  test('a pod object missing: kube\'s BadRequest', async () => {
    const p = plugin();
    const a = podAttrs([]);
    delete a.object;
    expect((await verdict(p, a))?.status).toMatchObject({ code: 400, message: 'Resource was marked with kind Pod but was unable to be converted' });
    p.close();
  });
});
