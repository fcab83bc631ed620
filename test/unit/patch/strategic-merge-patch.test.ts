/**
 * Strategic merge patch on built-in-shaped objects, with patches shaped like those kubectl
 * apply (client-side, three-way) and kubectl edit send, plus kube's error mapping
 * (apiserver@v0.32.13 handlers/patch.go interpretStrategicMergePatchError; apimachinery
 * strategicpatch/patch.go). Schemas mirror kube's OpenAPI v3 (allOf-wrapped refs, SMP markers).
 */
import { ApiError, isApiError } from '../../../src/api';
import { Schema, applyStrategicMergePatch, componentsResolver, patchTypeFromContentType } from '../../../src/patch';

const ref = (name: string): Schema => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], default: {} });
const str: Schema = { type: 'string' };
const strMap: Schema = { type: 'object', additionalProperties: { type: 'string', default: '' } };

const schemas: Record<string, Schema> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    properties: {
      name: str,
      labels: strMap,
      annotations: strMap,
      finalizers: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      ownerReferences: {
        type: 'array',
        items: ref('io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference'),
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference': { type: 'object', properties: { uid: str, name: str, kind: str } },
  'io.k8s.api.core.v1.Secret': {
    type: 'object',
    properties: { apiVersion: str, kind: str, metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'), data: strMap, stringData: strMap, type: str },
  },
  'io.k8s.api.core.v1.Pod': {
    type: 'object',
    properties: { metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'), spec: ref('io.k8s.api.core.v1.PodSpec') },
  },
  'io.k8s.api.core.v1.PodSpec': {
    type: 'object',
    properties: {
      containers: {
        type: 'array',
        items: ref('io.k8s.api.core.v1.Container'),
        'x-kubernetes-list-map-keys': ['name'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge',
      },
      volumes: {
        type: 'array',
        items: ref('io.k8s.api.core.v1.Volume'),
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
      },
      nodeSelector: strMap,
      tolerations: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'atomic' },
    },
  },
  'io.k8s.api.core.v1.Container': {
    type: 'object',
    properties: {
      name: str,
      image: str,
      args: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
      env: { type: 'array', items: ref('io.k8s.api.core.v1.EnvVar'), 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
      ports: {
        type: 'array',
        items: ref('io.k8s.api.core.v1.ContainerPort'),
        'x-kubernetes-patch-merge-key': 'containerPort',
        'x-kubernetes-patch-strategy': 'merge',
      },
    },
  },
  'io.k8s.api.core.v1.EnvVar': { type: 'object', properties: { name: str, value: str } },
  'io.k8s.api.core.v1.ContainerPort': { type: 'object', properties: { containerPort: { type: 'integer' }, protocol: str } },
  'io.k8s.api.core.v1.Volume': { type: 'object', properties: { name: str, emptyDir: { type: 'object' }, configMap: { type: 'object' } } },
};
const resolve = componentsResolver(schemas);
const SECRET: Schema = { $ref: '#/components/schemas/io.k8s.api.core.v1.Secret' };
const POD: Schema = { $ref: '#/components/schemas/io.k8s.api.core.v1.Pod' };

const smpSecret = (orig: unknown, patch: unknown) => applyStrategicMergePatch(orig, patch, SECRET, resolve);
const smpPod = (orig: unknown, patch: unknown) => applyStrategicMergePatch(orig, patch, POD, resolve);

function caught(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (isApiError(e)) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const secret = () => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', labels: { app: 'web' }, annotations: { [LAST_APPLIED]: '{"old":true}\n' }, finalizers: ['a.io/x', 'b.io/y'] },
  data: { user: 'dQ==', pass: 'cA==' },
  type: 'Opaque',
});

const pod = () => ({
  metadata: { name: 'p' },
  spec: {
    containers: [
      { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] },
      { name: 'side', image: 'side:1', args: ['--a', '--b'] },
    ],
    volumes: [{ name: 'v', emptyDir: {} }],
    nodeSelector: { disk: 'ssd' },
    tolerations: [{ key: 'k1' }, { key: 'k2' }],
  },
});

describe('applyStrategicMergePatch: kubectl apply / edit shaped patches', () => {
  it('kubectl apply: new data key plus the refreshed last-applied annotation', () => {
    const patch = { data: { token: 'dA==' }, metadata: { annotations: { [LAST_APPLIED]: '{"new":true}\n' } } };
    const expected = secret();
    expected.data = { ...expected.data, token: 'dA==' } as never;
    expected.metadata.annotations[LAST_APPLIED] = '{"new":true}\n';
    expect(smpSecret(secret(), patch)).toEqual(expected);
  });

  it('kubectl apply: a key removed from the manifest is sent as null and deleted', () => {
    const out = smpSecret(secret(), { data: { pass: null }, metadata: { labels: { app: null } } }) as ReturnType<typeof secret>;
    expect(out.data).toEqual({ user: 'dQ==' });
    expect(out.metadata.labels).toEqual({});
  });

  it('kubectl apply: $setElementOrder/finalizers with an added finalizer keeps the requested order', () => {
    const patch = { metadata: { '$setElementOrder/finalizers': ['a.io/x', 'c.io/z', 'b.io/y'], finalizers: ['c.io/z'] } };
    expect((smpSecret(secret(), patch) as ReturnType<typeof secret>).metadata.finalizers).toEqual(['a.io/x', 'c.io/z', 'b.io/y']);
  });

  it('kubectl apply: $deleteFromPrimitiveList/finalizers removes a finalizer', () => {
    const patch = { metadata: { '$setElementOrder/finalizers': ['b.io/y'], '$deleteFromPrimitiveList/finalizers': ['a.io/x'] } };
    expect((smpSecret(secret(), patch) as ReturnType<typeof secret>).metadata.finalizers).toEqual(['b.io/y']);
  });

  it('merge strategy on a primitive list unions without duplicates', () => {
    expect((smpSecret(secret(), { metadata: { finalizers: ['b.io/y', 'c.io/z'] } }) as ReturnType<typeof secret>).metadata.finalizers).toEqual([
      'a.io/x',
      'b.io/y',
      'c.io/z',
    ]);
  });

  it('list-map with merge key name: one container changes, the other is kept', () => {
    const out = smpPod(pod(), { spec: { containers: [{ name: 'side', image: 'side:2' }] } }) as ReturnType<typeof pod>;
    expect(out.spec.containers.map((c) => [c.name, c.image])).toEqual([
      ['app', 'app:1'],
      ['side', 'side:2'],
    ]);
    expect(out.spec.containers[1]?.args).toEqual(['--a', '--b']);
  });

  it('nested merge: env var by name, port by containerPort', () => {
    const out = smpPod(pod(), {
      spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }], ports: [{ containerPort: 80, protocol: 'UDP' }] }] },
    }) as ReturnType<typeof pod>;
    const app = out.spec.containers[0];
    expect(app?.env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '3' }, { name: 'C', value: '4' }]);
    expect(app?.ports).toEqual([{ containerPort: 80, protocol: 'UDP' }]);
  });

  it('kubectl apply: renamed container = $patch: delete item plus a new item under $setElementOrder', () => {
    const patch = {
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }, { name: 'proxy' }],
        containers: [{ name: 'proxy', image: 'proxy:1' }, { $patch: 'delete', name: 'side' }],
      },
    };
    const out = smpPod(pod(), patch) as ReturnType<typeof pod>;
    expect(out.spec.containers.map((c) => c.name)).toEqual(['app', 'proxy']);
  });

  it('$patch: replace inside a list replaces the whole list', () => {
    const out = smpPod(pod(), { spec: { containers: [{ name: 'only', image: 'o:1' }, { $patch: 'replace' }] } }) as ReturnType<typeof pod>;
    expect(out.spec.containers).toEqual([{ name: 'only', image: 'o:1' }]);
  });

  it('$patch: replace / delete on maps', () => {
    expect((smpPod(pod(), { spec: { nodeSelector: { $patch: 'replace', zone: 'a' } } }) as ReturnType<typeof pod>).spec.nodeSelector).toEqual({ zone: 'a' });
    expect((smpPod(pod(), { spec: { nodeSelector: { $patch: 'delete' } } }) as ReturnType<typeof pod>).spec.nodeSelector).toEqual({});
  });

  it('lists without merge strategy are replaced', () => {
    const out = smpPod(pod(), { spec: { tolerations: [{ key: 'k3' }], containers: [{ name: 'side', args: ['--c'] }] } }) as ReturnType<typeof pod>;
    expect(out.spec.tolerations).toEqual([{ key: 'k3' }]);
    expect(out.spec.containers[1]?.args).toEqual(['--c']);
  });

  it('retainKeys strategy: $retainKeys clears the volume source not listed', () => {
    const patch = { spec: { volumes: [{ name: 'v', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] } };
    expect((smpPod(pod(), patch) as ReturnType<typeof pod>).spec.volumes).toEqual([{ name: 'v', configMap: { name: 'cm' } }]);
  });

  it('fields without schema merge like a JSON merge patch', () => {
    const orig = { ...secret(), extra: { a: 1, list: [1, 2], nested: { x: 1 } } };
    const out = smpSecret(orig, { extra: { b: 2, list: [3], nested: { x: null } } }) as typeof orig;
    expect(out.extra).toEqual({ a: 1, b: 2, list: [3], nested: {} });
  });

  it('works with no schema at all', () => {
    expect(applyStrategicMergePatch({ a: { b: 1 }, l: [1] }, { a: { c: 2 }, l: [2] }, undefined, () => undefined)).toEqual({ a: { b: 1, c: 2 }, l: [2] });
  });

  it('nulls in a new subtree are dropped and a null body is a no-op', () => {
    expect(smpSecret({}, { metadata: { labels: { a: '1', b: null } } })).toEqual({ metadata: { labels: { a: '1' } } });
    expect(smpSecret(secret(), null)).toEqual(secret());
  });

  it('never mutates its inputs', () => {
    const original = pod();
    const patch = { spec: { containers: [{ name: 'app', env: [{ name: 'Z', value: '9' }] }, { name: 'side', $patch: 'delete' }] } };
    const patchCopy = JSON.parse(JSON.stringify(patch)) as unknown;
    smpPod(original, patch);
    expect(original).toEqual(pod());
    expect(patch).toEqual(patchCopy);
  });
});

describe('applyStrategicMergePatch: errors as kube reports them', () => {
  const status = (code: number, reason: string | undefined, message: string) => {
    const s: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
    if (reason) s.reason = reason;
    s.code = code;
    return s;
  };
  const cases: [string, () => unknown, Record<string, unknown>][] = [
    ['non-object body', () => smpSecret(secret(), ['x']), status(400, 'BadRequest', 'json: cannot unmarshal array into Go value of type map[string]interface {}')],
    ['unknown map directive', () => smpSecret(secret(), { metadata: { labels: { $patch: 'foo', a: 'b' } } }), status(500, undefined, 'unknown patch type: foo in map: map[$patch:foo a:b]')],
    ['$patch: merge on a map (kube rejects it)', () => smpSecret(secret(), { data: { $patch: 'merge' } }), status(500, undefined, 'unknown patch type: merge in map: map[$patch:merge]')],
    ['unknown list directive', () => smpPod(pod(), { spec: { containers: [{ name: 'app', $patch: 'bogus' }] } }), status(500, undefined, 'unknown patch type: bogus in map: map[$patch:bogus name:app]')],
    ['$patch: merge in a list', () => smpPod(pod(), { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }), status(500, undefined, 'merging lists cannot yet be specified in the patch')],
    ['missing merge key', () => smpPod(pod(), { spec: { containers: [{ image: 'x' }] } }), status(500, undefined, 'map: map[image:x] does not contain declared merge key: name')],
    ['$retainKeys not a list', () => smpPod(pod(), { spec: { volumes: [{ name: 'v', $retainKeys: 'name' }] } }), status(400, 'BadRequest', 'invalid patch format of retainKeys')],
    ['patch key outside $retainKeys', () => smpPod(pod(), { spec: { volumes: [{ name: 'v', $retainKeys: ['name'], configMap: {} }] } }), status(400, 'BadRequest', 'invalid patch format of retainKeys')],
    ['$deleteFromPrimitiveList without /', () => smpSecret(secret(), { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } }), status(400, 'BadRequest', 'invalid patch format of primitive list')],
    ['$setElementOrder without /', () => smpSecret(secret(), { metadata: { $setElementOrderfinalizers: ['a'] } }), status(400, 'BadRequest', 'invalid patch format of setElementOrder list')],
    ['$setElementOrder not a list', () => smpSecret(secret(), { metadata: { '$setElementOrder/finalizers': 'a' } }), status(500, undefined, 'expected a []interface {}, but received a string')],
    [
      '$setElementOrder disagreeing with the patch list',
      () => smpSecret(secret(), { metadata: { '$setElementOrder/finalizers': ['b.io/y', 'a.io/x'], finalizers: ['a.io/x', 'b.io/y'] } }),
      status(500, undefined, "The order in patch list:\n[a.io/x b.io/y]\n doesn't match $setElementOrder list:\n[b.io/y a.io/x]\n"),
    ],
    ['mixed element types in a merge list', () => smpSecret(secret(), { metadata: { finalizers: [1] } }), status(500, undefined, 'list element types are not identical: [[a.io/x b.io/y] [1]]')],
  ];
  it.each(cases)('%s', (_n, fn, expected) => {
    const e = caught(fn);
    expect(e.status).toEqual(expected);
  });

  it('a list of lists → 422 with the generic message', () => {
    const e = caught(() => smpSecret({ metadata: { finalizers: [['a']] } }, { metadata: { finalizers: [['b']] } }));
    expect(e.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });
});

describe('patchTypeFromContentType', () => {
  it.each([
    ['application/json-patch+json', 'application/json-patch+json'],
    ['application/merge-patch+json', 'application/merge-patch+json'],
    ['application/strategic-merge-patch+json', 'application/strategic-merge-patch+json'],
    ['application/apply-patch+yaml', 'application/apply-patch+yaml'],
    ['application/merge-patch+json; charset=utf-8', 'application/merge-patch+json'],
    ['application/json', undefined],
    ['application/apply-patch+cbor', undefined],
    ['Application/Merge-Patch+JSON', undefined],
    ['', undefined],
  ])('%j → %j', (ct, expected) => {
    expect(patchTypeFromContentType(ct)).toBe(expected);
  });
});
