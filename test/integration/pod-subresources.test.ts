/**
 * The pods' subresources beyond status against the real server and etcd, as kube-apiserver 1.32
 * answers them with no scheduler or kubelet: binding (and the legacy bindings collection),
 * eviction, ephemeralcontainers (kubectl debug), log (kubectl logs), exec, attach, portforward and
 * proxy, their discovery and OpenAPI.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { startAdmissionWebhookServer, type AdmissionWebhookServer } from '../support/admission-webhook-server';
import { apiClient } from '../support/client-node';
import { namespaceMaker } from '../support/namespaces';
import { PROTOBUF, protobufWire, rawRequest } from '../support/protobuf-wire';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

const { srv } = useTestServer();

const fresh = namespaceMaker(srv, 'podsub', { forPods: true });

const pod = (name: string, containers: string[] = ['app'], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })), ...extra },
});

const createPod = async (ns: string, body: Record<string, unknown>): Promise<Record<string, any>> => {
  const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, { body });
  expect(r.status).toBe(201);
  return r.json();
};

const binding = (name: string, node: string, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target: { kind: 'Node', name: node } });

describe('pods/binding', () => {
  test('binds a pod: nodeName, the binding annotations, PodScheduled; a second binding is kube 409', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-1', { annotations: { 'scheduler/by': 'test' } }) });
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const got = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json();
    expect(got.spec.nodeName).toBe('node-1');
    expect(got.metadata.annotations).toEqual({ 'scheduler/by': 'test' });
    expect(got.status.conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: expect.any(String) }]);

    const again = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-2') });
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"',
      details: { name: 'p', kind: 'pods/binding' },
    });
  });

  test('the legacy bindings collection binds the pod its Binding names (kubectl create --raw)', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const r = await srv.kubectl(['create', '--raw', `/api/v1/namespaces/${ns}/bindings`, '-f', '-'], { input: JSON.stringify(binding('p', 'node-1')) });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json().spec.nodeName).toBe('node-1');
    const again = await srv.kubectl(['create', '--raw', `/api/v1/namespaces/${ns}/pods/p/binding`, '-f', '-'], { input: JSON.stringify(binding('p', 'node-2')) });
    expect(again.stderr).toBe('Error from server (Conflict): Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"\n');
    // create only, as kube serves it
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/bindings`)).status).toBe(405);
  });

  test("kube's refusals: the URL's name, an invalid target (a 500, as kube), a missing or gated pod, preconditions", async () => {
    const ns = await fresh();
    const created = await createPod(ns, pod('p'));
    const post = (name: string, body: unknown) => srv.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/binding`, { body });

    const mismatch = await post('p', binding('q', 'n'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json().message).toBe('name in URL does not match name in Binding object');

    const invalid = await post('p', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Pod' } });
    expect(invalid.status).toBe(500);
    expect(invalid.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]',
      code: 500,
    });

    const missing = await post('nope', binding('nope', 'n'));
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe('pods "nope" not found');

    const uid = await post('p', binding('p', 'n', { uid: 'not-the-uid' }));
    expect(uid.status).toBe(409);
    expect(uid.json().message).toBe(
      `Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: ${srv.prefix}/pods/${ns}/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${created.metadata.uid}`,
    );

    await createPod(ns, pod('gated', ['app'], { schedulingGates: [{ name: 'example.com/wait' }] }));
    const gated = await post('gated', binding('gated', 'n'));
    expect(gated.status).toBe(409);
    expect(gated.json().message).toBe('Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates');

    // A dry run binds nothing; the uid and resourceVersion of the pod are good preconditions.
    const dry = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding?dryRun=All`, { body: binding('p', 'n') });
    expect(dry.status).toBe(201);
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json().spec.nodeName).toBeUndefined();
    const ok = await post('p', binding('p', 'n', { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion }));
    expect(ok.status).toBe(201);
  });

  test('a scheduler posts its Binding in protobuf', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const wire = await protobufWire(['k8s.io/api/core/v1/generated.proto']);
    const body = wire.wrap('v1', 'Binding', 'k8s.io.api.core.v1.Binding', { metadata: { name: 'p', namespace: ns }, target: { kind: 'Node', name: 'n1' } });
    const r = await rawRequest(srv, 'POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { 'content-type': PROTOBUF, accept: PROTOBUF }, body);
    expect(r.status).toBe(201);
    const status = wire.unwrap(r.body, 'k8s.io.apimachinery.pkg.apis.meta.v1.Status');
    expect(status.typeMeta).toEqual({ apiVersion: 'v1', kind: 'Status' });
    expect(status.obj).toMatchObject({ status: 'Success', code: 201 });
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json().spec.nodeName).toBe('n1');
  });
});

describe('pods/eviction', () => {
  let core: K8sModule.CoreV1Api;
  beforeAll(async () => {
    core = await apiClient(srv, (k8s) => k8s.CoreV1Api);
  });
  const eviction = (name: string, deleteOptions?: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...(deleteOptions ? { deleteOptions } : {}) });

  test('client-node evicts a pod: deleted, no budget to ask; kube answers a Success Status', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: eviction('p') });
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status).toBe(404);

    // kube takes the removed policy/v1beta1 Eviction too, and nothing else.
    await createPod(ns, pod('old'));
    const wrong = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/old/eviction`, { body: { ...eviction('old'), apiVersion: 'v1' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json().message).toBe('the API version in the data (v1) does not match the expected API version (policy/v1)');
    expect((await srv.request('POST', `/api/v1/namespaces/${ns}/pods/old/eviction`, { body: { ...eviction('old'), apiVersion: 'policy/v1beta1' } })).status).toBe(201);
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/old`)).status).toBe(404);

    await createPod(ns, pod('q'));
    // A running pod (as a kubelet would report it) goes the budget way: none here, so it is deleted too.
    const q = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/q`)).json();
    expect((await srv.request('PUT', `/api/v1/namespaces/${ns}/pods/q/status`, { body: { ...q, status: { ...q.status, phase: 'Running' } } })).status).toBe(200);
    await core.createNamespacedPodEviction({ name: 'q', namespace: ns, body: { metadata: { name: 'q', namespace: ns } } });
    await expect(core.readNamespacedPod({ name: 'q', namespace: ns })).rejects.toMatchObject({ code: 404 });
  });

  test("the DisruptionTarget condition is written before the delete (a watcher sees it); a dry run changes nothing", async () => {
    const ns = await fresh();
    const created = await createPod(ns, pod('p'));
    const dry = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction?dryRun=All`, { body: eviction('p') });
    expect(dry.status).toBe(201);
    const kept = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json();
    expect(kept.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    // The Eviction's own dryRun counts too.
    expect((await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: eviction('p', { dryRun: ['All'] }) })).status).toBe(201);
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status).toBe(200);

    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: eviction('p') });
    expect(r.status).toBe(201);
    const watched = await srv.request('GET', `/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${created.metadata.resourceVersion}&timeoutSeconds=1`);
    const frames = watched.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(frames.map((f) => f.type)).toEqual(['MODIFIED', 'DELETED']);
    expect(frames[0].object.status.conditions).toEqual([
      { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: expect.any(String), reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' },
    ]);
  });

  /**
   * Changes the pod (a label) right after the eviction reads it, `times` times: the read and the
   * eviction's write then disagree, as when a kubelet writes the pod in between. A hook on the pods
   * store's reads (what pods/eviction reads through); returns the resourceVersions read and the undo.
   */
  const changeAfterRead = (ns: string, name: string, times: number) => {
    const pods = srv.server.registry.get('', 'v1', 'pods')!;
    const read = pods.get.bind(pods);
    const versions: string[] = [];
    const spy = jest.spyOn(pods, 'get').mockImplementation(async (ctx, n, opts) => {
      const got = await read(ctx, n, opts);
      if (ctx.namespace !== ns || n !== name || versions.length >= times) return got;
      versions.push(got.metadata.resourceVersion ?? '');
      const change = { metadata: { labels: { changed: String(versions.length) } } };
      const r = await srv.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}`, { body: change, headers: { 'content-type': 'application/merge-patch+json' } });
      expect(r.status).toBe(200);
      return got;
    });
    return { versions, restore: () => spy.mockRestore() };
  };

  test("a pod changed between the eviction's read and its write: kube's conflict retry reads it again and evicts it", async () => {
    const ns = await fresh();
    const created = await createPod(ns, pod('p'));
    const hook = changeAfterRead(ns, 'p', 1);
    let r;
    try {
      r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: eviction('p') });
    } finally {
      hook.restore();
    }
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect(hook.versions).toEqual([created.metadata.resourceVersion]);
    // The first attempt wrote nothing (its condition update failed the version it read); the second
    // read the changed pod, marked it and deleted it.
    const watched = await srv.request('GET', `/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${created.metadata.resourceVersion}&timeoutSeconds=1`);
    const frames = watched.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(frames.map((f) => f.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(frames[0].object.metadata.labels).toEqual({ changed: '1' });
    expect(frames[0].object.status.conditions ?? []).toEqual([]);
    expect(frames[1].object.metadata.labels).toEqual({ changed: '1' });
    expect(frames[1].object.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' })]);
  });

  test('a pod that changes at every attempt: 20 attempts (kube’s EvictionsRetry), then the last conflict; the pod stays', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const hook = changeAfterRead(ns, 'p', Infinity);
    let r;
    try {
      r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: eviction('p') });
    } finally {
      hook.restore();
    }
    expect(hook.versions).toHaveLength(20);
    const now = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json();
    expect(now.metadata.labels).toEqual({ changed: '20' });
    expect(now.status.conditions ?? []).toEqual([]);
    expect({ status: r.status, body: r.json() }).toEqual({
      status: 409,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Operation cannot be fulfilled on Pod "p": the ResourceVersion in the precondition (${hook.versions[19]}) does not match the ResourceVersion in record (${now.metadata.resourceVersion}). The object might have been modified`,
        reason: 'Conflict',
        details: { name: 'p', kind: 'Pod' },
        code: 409,
      },
    });
  });

  test("kube's refusals: a missing pod, the URL's name, a resourceVersion precondition, dry-run options that disagree, delete options", async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const post = (name: string, body: unknown, query = '') => srv.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/eviction${query}`, { body });
    const missing = await post('nope', eviction('nope'));
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe('pods "nope" not found');
    const mismatch = await post('p', eviction('q'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json().message).toBe('name in URL does not match name in Eviction object');
    const stale = await post('p', eviction('p', { preconditions: { resourceVersion: '1' } }));
    expect(stale.status).toBe(409);
    expect(stale.json().message).toMatch(/^Operation cannot be fulfilled on Pod "p": the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record \(\d+\)\. The object might have been modified$/);
    const dry = await post('p', eviction('p', { dryRun: ['Foo'] }), '?dryRun=All');
    expect(dry.status).toBe(500);
    expect(dry.json().message).toBe('Non-matching dry-run options in request and content: [All] and [Foo]');
    const policy = await post('p', eviction('p', { propagationPolicy: 'Sideways', dryRun: ['All'] }));
    expect(policy.status).toBe(422);
    expect(policy.json().message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status).toBe(200);
  });
});

describe('pods/ephemeralcontainers', () => {
  test('kubectl debug adds an ephemeral container through the subresource', async () => {
    const ns = await fresh();
    await createPod(ns, { ...pod('p'), metadata: { name: 'p', labels: { app: 'x' } } });
    const r = await srv.kubectl(['-n', ns, 'debug', 'p', '--image=busybox', '-c', 'debugger', '--profile=general']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const got = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p/ephemeralcontainers`)).json();
    expect(got.kind).toBe('Pod');
    expect(got.spec.ephemeralContainers).toEqual([
      expect.objectContaining({ name: 'debugger', image: 'busybox', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }),
    ]);
    expect(got.metadata.labels).toEqual({ app: 'x' });
    // A second one with a generated name.
    const again = await srv.kubectl(['-n', ns, 'debug', 'p', '--image=busybox', '--profile=general']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    const names = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json().spec.ephemeralContainers.map((c: { name: string }) => c.name);
    expect(names).toEqual(['debugger', expect.stringMatching(/^debugger-[a-z0-9]{5}$/)]);
  });

  test('only ephemeral containers change; existing ones are neither removed nor changed; kube validates new ones', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const url = `/api/v1/namespaces/${ns}/pods/p/ephemeralcontainers`;
    const smp = { 'content-type': 'application/strategic-merge-patch+json' };
    const added = await srv.request('PATCH', url, { headers: smp, body: { metadata: { labels: { sneaky: 'yes' } }, spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }], activeDeadlineSeconds: 5 } } });
    expect(added.status).toBe(200);
    expect(added.json().metadata.labels).toBeUndefined();
    expect(added.json().spec.activeDeadlineSeconds).toBeUndefined();
    expect(added.json().spec.ephemeralContainers.map((c: { name: string }) => c.name)).toEqual(['dbg']);

    const current = (await srv.request('GET', url)).json();
    const removed = await srv.request('PUT', url, { body: { ...current, spec: { ...current.spec, ephemeralContainers: [] } } });
    expect(removed.status).toBe(422);
    expect(removed.json().message).toBe('Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n');

    const changed = await srv.request('PUT', url, { body: { ...current, spec: { ...current.spec, ephemeralContainers: [{ ...current.spec.ephemeralContainers[0], image: 'alpine' }] } } });
    expect(changed.status).toBe(422);
    expect(changed.json().message).toMatch(/^Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n/);

    const ports = await srv.request('PATCH', url, { headers: smp, body: { spec: { ephemeralContainers: [{ name: 'dbg2', image: 'busybox', ports: [{ containerPort: 80 }] }] } } });
    expect(ports.status).toBe(422);
    expect(ports.json().message).toBe('Pod "p" is invalid: spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container');
    const dup = await srv.request('PATCH', url, { headers: smp, body: { spec: { ephemeralContainers: [{ name: 'app', image: 'busybox' }] } } });
    expect(dup.status).toBe(422);
    expect(dup.json().message).toBe('Pod "p" is invalid: spec.ephemeralContainers[0].name: Duplicate value: "app"');

    // The main resource still refuses them.
    const main = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json();
    const direct = await srv.request('PUT', `/api/v1/namespaces/${ns}/pods/p`, { body: { ...main, spec: { ...main.spec, ephemeralContainers: [...main.spec.ephemeralContainers, { name: 'x', image: 'busybox' }] } } });
    expect(direct.status).toBe(422);
  });
});

describe('pods/log', () => {
  test('kubectl logs of a pod no node runs: kube answers 204, kubectl prints nothing', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const r = await srv.kubectl(['-n', ns, 'logs', 'p']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const raw = await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p/log`);
    expect(raw.status).toBe(204);
    expect(raw.text).toBe('');
    expect(raw.headers['content-type']).toBeUndefined();
  });

  test("the container and options checks, in kube's order, and a bound pod's missing node", async () => {
    const ns = await fresh();
    await createPod(ns, { ...pod('two', ['a', 'b'], { initContainers: [{ name: 'init', image: 'busybox' }] }) });
    const get = (q: string, name = 'two') => srv.request('GET', `/api/v1/namespaces/${ns}/pods/${name}/log${q}`);
    const several = await get('');
    expect(several.status).toBe(400);
    expect(several.json().message).toBe('a container name must be specified for pod two, choose one of: [init a b]');
    const unknown = await get('?container=c');
    expect(unknown.status).toBe(400);
    expect(unknown.json().message).toBe('container c is not valid for pod two');
    expect((await get('?container=init')).status).toBe(204);
    const tail = await get('?container=a&tailLines=-1');
    expect(tail.status).toBe(422);
    expect(tail.json().message).toBe('PodLogOptions "two" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0');
    const bad = await get('?container=a&limitBytes=x');
    expect(bad.status).toBe(400);
    expect(bad.json().message).toBe('strconv.ParseInt: parsing "x": invalid syntax');
    const since = await get('?container=a&sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z');
    expect(since.json().message).toBe('PodLogOptions "two" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
    expect((await get('', 'nope')).json().message).toBe('pods "nope" not found');

    await createPod(ns, pod('bound'));
    expect((await srv.request('POST', `/api/v1/namespaces/${ns}/pods/bound/binding`, { body: binding('bound', 'node-7') })).status).toBe(201);
    const r = await srv.kubectl(['-n', ns, 'logs', 'bound']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error from server (NotFound): nodes "node-7" not found\n');
  });
});

describe('pods/exec, attach, portforward and proxy', () => {
  test('kubectl exec into a pod no node runs: kube\'s 400', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    const r = await srv.kubectl(['-n', ns, 'exec', 'p', '--', 'ls']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error from server (BadRequest): pod p does not have a host assigned\n');
  });

  test('exec and attach check the container first, then the host; dryRun is refused; a bound pod needs its node', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p', ['a', 'b']));
    const post = (sub: string, q: string, name = 'p') => srv.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/${sub}${q}`);
    expect((await post('exec', '?command=ls')).json().message).toBe('a container name must be specified for pod p, choose one of: [a b]');
    expect((await post('exec', '?command=ls&container=z')).json().message).toBe('container z is not valid for pod p');
    const host = await post('attach', '?container=a&stdout=true');
    expect(host.status).toBe(400);
    expect(host.json()).toMatchObject({ reason: 'BadRequest', message: 'pod p does not have a host assigned' });
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p/exec?command=ls&container=a`)).json().message).toBe('pod p does not have a host assigned');
    expect((await post('exec', '?command=ls&dryRun=All')).json().message).toBe('dryRun is not supported');
    expect((await post('exec', '?command=ls', 'nope')).json().message).toBe('pods "nope" not found');
    expect((await post('portforward', '?ports=80')).json().message).toBe('pod p does not have a host assigned');
    expect((await post('portforward', '?ports=http')).json().message).toBe('cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax');

    expect((await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-3') })).status).toBe(201);
    const bound = await post('exec', '?command=ls&container=a');
    expect(bound.status).toBe(404);
    expect(bound.json()).toMatchObject({ reason: 'NotFound', message: 'nodes "node-3" not found', details: { name: 'node-3', kind: 'nodes' } });
    expect((await post('portforward', '?ports=80')).json().message).toBe('nodes "node-3" not found');
    // Methods kube does not route: 405.
    expect((await srv.request('PUT', `/api/v1/namespaces/${ns}/pods/p/exec`)).status).toBe(405);
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p/exec/extra`)).status).toBe(404);
  });

  test('proxy: a pod without an IP is an address not allowed; ids and subpaths as kube parses them', async () => {
    const ns = await fresh();
    await createPod(ns, pod('p'));
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await srv.request(method, `/api/v1/namespaces/${ns}/pods/p/proxy/some/path?x=1`);
      expect([method, r.status, r.json().message]).toEqual([method, 400, 'address not allowed']);
    }
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/http:p:8080/proxy/`)).json().message).toBe('address not allowed');
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/ftp:p:80/proxy`)).json().message).toBe('invalid pod request "ftp:p:80"');
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/nope/proxy`)).json().message).toBe('pods "nope" not found');
    const r = await srv.kubectl(['get', '--raw', `/api/v1/namespaces/${ns}/pods/p/proxy/`]);
    expect(r.stderr).toBe('Error from server (BadRequest): address not allowed\n');
  });
});

describe('pods/proxy to a pod with an IP', () => {
  // A global unicast address of this machine stands for the pod network (kube refuses loopback).
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  let backend: http.Server;
  let port = 0;
  beforeAll(async () => {
    backend = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(202, { 'content-type': 'text/plain', 'x-from': 'pod' }).end(`hello from ${req.url}`);
      });
    });
    await new Promise<void>((r) => backend.listen(0, '0.0.0.0', r));
    port = (backend.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => backend.close(r));
  });

  (address ? test : test.skip)('the request goes to the pod IP and the port its container declares, without the credentials; an unreachable one is kube\'s dial error', async () => {
    const ns = await fresh();
    await createPod(ns, { ...pod('p'), spec: { containers: [{ name: 'app', image: 'busybox', ports: [{ containerPort: port }] }] } });
    const cur = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json();
    const status = { ...cur.status, phase: 'Running', podIP: address, podIPs: [{ ip: address }] };
    expect((await srv.request('PUT', `/api/v1/namespaces/${ns}/pods/p/status`, { body: { ...cur, status } })).status).toBe(200);

    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/proxy/a/../b/?q=1&q=2`, { body: { some: 'body' } });
    expect(r.status).toBe(202);
    expect(r.text).toBe('hello from /b/?q=1&q=2');
    expect(r.headers['x-from']).toBe('pod');
    const got = seen.at(-1);
    expect(got).toMatchObject({ method: 'POST', url: '/b/?q=1&q=2', body: '{"some":"body"}' });
    expect(got?.headers.authorization).toBeUndefined();
    expect(got?.headers['x-forwarded-for']).toBeDefined();
    const viaKubectl = await srv.kubectl(['get', '--raw', `/api/v1/namespaces/${ns}/pods/p:${port}/proxy/`]);
    expect(viaKubectl.stdout).toBe('hello from /');

    const closed = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, '0.0.0.0', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const refused = await srv.request('GET', `/api/v1/namespaces/${ns}/pods/p:${closed}/proxy/`);
    expect(refused.status).toBe(500);
    expect(refused.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `dial tcp ${address}:${closed}: connect: connection refused`, code: 500 });
  });
});

describe('discovery', () => {
  test("/api/v1 lists the pods' subresources with kube's kinds and verbs, and the bindings collection", async () => {
    const list = (await srv.request('GET', '/api/v1')).json();
    const subs = list.resources.filter((r: { name: string }) => r.name.startsWith('pods/'));
    expect(subs).toEqual([
      { name: 'pods/attach', singularName: '', namespaced: true, kind: 'PodAttachOptions', verbs: ['create', 'get'] },
      { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
      { name: 'pods/ephemeralcontainers', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
      { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
      { name: 'pods/portforward', singularName: '', namespaced: true, kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      { name: 'pods/proxy', singularName: '', namespaced: true, kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
      { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
    ]);
    expect(list.resources.find((r: { name: string }) => r.name === 'bindings')).toEqual({ name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });

    const aggregated = await srv.request('GET', '/api', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const pods = aggregated.json().items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'pods');
    expect(pods.subresources.find((r: { subresource: string }) => r.subresource === 'eviction')).toEqual({ subresource: 'eviction', responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] });
    expect(pods.subresources.find((r: { subresource: string }) => r.subresource === 'exec')).toEqual({ subresource: 'exec', responseKind: { group: '', version: '', kind: 'PodExecOptions' }, verbs: ['create', 'get'] });

    const api = await srv.kubectl(['api-resources', '--api-group=']);
    expect(api.stdout).toMatch(/\npods\s+po\s+v1\s+true\s+Pod\n/);
    expect(api.stdout).toMatch(/\nbindings\s+v1\s+true\s+Binding\n/);
  });
});

describe('admission webhooks see the subresources as kube sends them', () => {
  const GROUP = 'admissionregistration.k8s.io';
  let hooks: AdmissionWebhookServer;
  beforeAll(async () => {
    hooks = await startAdmissionWebhookServer();
  });
  afterAll(async () => {
    await srv.kubectl(['delete', 'validatingwebhookconfigurations', '--all']);
    await hooks?.close();
  });

  test('CONNECT of pods/exec with the PodExecOptions, CREATE of pods/eviction and pods/binding with their kinds, UPDATE of pods/ephemeralcontainers', async () => {
    const ns = await fresh();
    expect((await srv.kubectl(['label', 'namespace', ns, 'podsub-hooks=on'])).code).toBe(0);
    const hook = (name: string, path: string, operations: string[], resources: string[]) => ({
      name,
      clientConfig: { url: hooks.url(path), caBundle: hooks.caBundle },
      rules: [{ operations, apiGroups: [''], apiVersions: ['v1'], resources }],
      namespaceSelector: { matchLabels: { 'podsub-hooks': 'on' } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 5,
    });
    const config = {
      apiVersion: `${GROUP}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'podsub' },
      webhooks: [
        hook('exec.podsub.test', '/deny', ['CONNECT'], ['pods/exec']),
        hook('writes.podsub.test', '/allow', ['CREATE', 'UPDATE'], ['pods/eviction', 'pods/binding', 'pods/ephemeralcontainers']),
      ],
    };
    expect((await srv.kubectl(['apply', '-f', '-'], { input: JSON.stringify(config) })).code).toBe(0);
    const rv = (await srv.request('GET', `/apis/${GROUP}/v1/validatingwebhookconfigurations/podsub`)).json().metadata.resourceVersion as string;
    const indexer = srv.server.informers.forResource(GROUP, 'v1', 'validatingwebhookconfigurations').indexer;
    await until('the webhook configuration in the server', () => indexer.get('', 'podsub')?.metadata.resourceVersion === rv);

    await createPod(ns, pod('p'));
    const exec = await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/exec?command=ls&command=-l&stdout=true`);
    expect(exec.status).toBe(403);
    expect(exec.json().message).toBe('admission webhook "exec.podsub.test" denied the request: denied by the test webhook');
    const connect = hooks.reviews('/deny').find((r) => r.request.namespace === ns);
    expect(connect?.request).toMatchObject({
      operation: 'CONNECT',
      kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'exec',
      name: 'p',
      object: { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, command: ['ls', '-l'] },
      options: null,
    });

    expect((await srv.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/ephemeralcontainers`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } } })).status).toBe(200);
    expect((await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'n') })).status).toBe(201);
    expect((await srv.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } } })).status).toBe(201);
    const seen = hooks.reviews('/allow').filter((r) => r.request.namespace === ns).map((r) => [r.request.operation, r.request.subResource, r.request.kind]);
    expect(seen).toEqual([
      ['UPDATE', 'ephemeralcontainers', { group: '', version: 'v1', kind: 'Pod' }],
      ['CREATE', 'binding', { group: '', version: 'v1', kind: 'Binding' }],
      ['CREATE', 'eviction', { group: 'policy', version: 'v1', kind: 'Eviction' }],
    ]);
  });
});
