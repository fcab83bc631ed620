/**
 * scheduling.k8s.io/v1 PriorityClass and the two pod admission plugins kube 1.32 runs by default,
 * through kubectl and HTTP: the system classes made at start (and their post-start health check),
 * kube's table, validation and 403s; the Priority plugin giving pods their priority and preemption
 * policy (a missing class is kube's 403, a client's own priority refused, the global default);
 * DefaultTolerationSeconds adding the not-ready/unreachable tolerations.
 */
import { cause, expectStatus, failure } from '../support/kube-status';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

const { srv } = useTestServer();

const PC = '/apis/scheduling.k8s.io/v1/priorityclasses';
const notReady = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const unreachable = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec },
});
const createPod = (ns: string, name: string, spec: Record<string, unknown> = {}, query = '') =>
  srv.request('POST', `/api/v1/namespaces/${ns}/pods${query}`, { body: pod(name, spec) });
const kubectlCreate = (args: string[], obj: unknown) => srv.kubectl([...args, 'create', '-f', '-'], { input: JSON.stringify(obj) });

beforeAll(async () => {
  await srv.server.systemPriorityClassesBootstrapped();
  for (const ns of ['prio', 'tol']) expect((await srv.kubectl(['create', 'namespace', ns])).code).toBe(0);
});

describe('PriorityClass', () => {
  test('the system classes exist from the start, behind a post-start health check', async () => {
    const table = await srv.kubectl(['get', 'priorityclasses']);
    expect(table.stderr).toBe('');
    expect(table.stdout).toMatch(
      /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\nsystem-cluster-critical\s+2000000000\s+false\s+\d+s\s+PreemptLowerPriority\nsystem-node-critical\s+2000001000\s+false\s+\d+s\s+PreemptLowerPriority\n$/,
    );
    const pc = JSON.parse((await srv.kubectl(['get', 'pc', 'system-node-critical', '-o', 'json'])).stdout);
    expect(pc).toMatchObject({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'system-node-critical', generation: 1 },
      value: 2000001000,
      description: 'Used for system critical pods that must not be moved from their current node.',
      preemptionPolicy: 'PreemptLowerPriority',
    });
    expect(pc.globalDefault).toBeUndefined();
    expect((await srv.request('GET', '/readyz?verbose')).text).toContain('[+]poststarthook/scheduling/bootstrap-system-priority-classes ok\n');
    expect((await srv.request('GET', '/livez/poststarthook/scheduling/bootstrap-system-priority-classes')).text).toBe('ok');
  });

  test('a system class cannot be deleted (kube’s 403), nor made with another value', async () => {
    const r = await srv.kubectl(['delete', 'priorityclass', 'system-node-critical']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted\n',
    );
    expectStatus(
      await srv.request('DELETE', `${PC}/system-cluster-critical`),
      failure(403, 'Forbidden', 'priorityclasses.scheduling.k8s.io "system-cluster-critical" is forbidden: this is a system priority class and cannot be deleted', {
        name: 'system-cluster-critical',
        group: 'scheduling.k8s.io',
        kind: 'priorityclasses',
      }),
    );
    const own = await srv.kubectl(['create', 'priorityclass', 'system-mine', '--value=10']);
    expect(own.stderr).toBe(
      "error: failed to create priorityclass: PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class\n",
    );
    // Its description may change; its value may not.
    const described = await srv.kubectl(['patch', 'pc', 'system-cluster-critical', '--type=merge', '-p', '{"description":"ours"}']);
    expect(described.stdout).toBe('priorityclass.scheduling.k8s.io/system-cluster-critical patched\n');
    const revalued = await srv.kubectl(['patch', 'pc', 'system-cluster-critical', '--type=merge', '-p', '{"value":1}']);
    expect(revalued.stderr).toBe('The PriorityClass "system-cluster-critical" is invalid: value: Forbidden: may not be changed in an update.\n');
  });

  test('kubectl create priorityclass, with kube’s defaults and checks', async () => {
    const r = await srv.kubectl(['create', 'priorityclass', 'high', '--value=1000', '--description=for the important ones']);
    expect(r).toMatchObject({ code: 0, stdout: 'priorityclass.scheduling.k8s.io/high created\n' });
    const never = await srv.kubectl(['create', 'priorityclass', 'polite', '--value=500', '--preemption-policy=Never']);
    expect(never.stdout).toBe('priorityclass.scheduling.k8s.io/polite created\n');
    const high = (await srv.request('GET', `${PC}/high`)).json();
    expect(high).toMatchObject({ value: 1000, description: 'for the important ones', preemptionPolicy: 'PreemptLowerPriority', metadata: { generation: 1 } });
    expect(Object.keys(high)).toEqual(['kind', 'apiVersion', 'metadata', 'value', 'description', 'preemptionPolicy']);

    const huge = await srv.kubectl(['create', 'priorityclass', 'huge', '--value=1000000001']);
    expect(huge.stderr).toBe(
      'error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000\n',
    );
    expectStatus(
      await srv.request('POST', PC, { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'odd' }, value: 1, preemptionPolicy: 'Sometimes' } }),
      failure(422, 'Invalid', 'PriorityClass.scheduling.k8s.io "odd" is invalid: preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"', {
        name: 'odd',
        group: 'scheduling.k8s.io',
        kind: 'PriorityClass',
        causes: [cause('FieldValueNotSupported', 'preemptionPolicy', 'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"')],
      }),
    );
    const repolicied = await srv.kubectl(['patch', 'pc', 'polite', '--type=merge', '-p', '{"preemptionPolicy":"PreemptLowerPriority"}']);
    expect(repolicied.stderr).toBe('The PriorityClass "polite" is invalid: preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable\n');
  });
});

describe('PriorityClass with kubectl apply, describe and explain', () => {
  const yaml = (description: string) => `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: applied
value: 250
description: ${description}
`;

  test('apply creates, then configures; describe and explain read it', async () => {
    expect((await srv.kubectl(['apply', '-f', '-'], { input: yaml('first') })).stdout).toBe('priorityclass.scheduling.k8s.io/applied created\n');
    expect((await srv.kubectl(['apply', '-f', '-'], { input: yaml('second') })).stdout).toBe('priorityclass.scheduling.k8s.io/applied configured\n');
    expect((await srv.kubectl(['apply', '--server-side', '-f', '-'], { input: yaml('third') })).stdout).toBe('priorityclass.scheduling.k8s.io/applied serverside-applied\n');
    const described = await srv.kubectl(['describe', 'pc', 'applied']);
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/^Name:\s+applied\nValue:\s+250\nGlobalDefault:\s+false\nPreemptionPolicy:\s+PreemptLowerPriority\nDescription:\s+third\n/);
    const explained = await srv.kubectl(['explain', 'priorityclass.value']);
    expect(explained.stdout).toMatch(/^GROUP:\s+scheduling.k8s.io\nKIND:\s+PriorityClass\nVERSION:\s+v1\n\nFIELD: value <integer>/);
    expect((await srv.kubectl(['delete', 'pc', 'applied'])).code).toBe(0);
  });
});

describe('Priority admission', () => {
  test('a pod naming no class gets priority 0 and PreemptLowerPriority; a named class gives its value and policy', async () => {
    expect((await srv.kubectl(['-n', 'prio', 'run', 'plain', '--image=busybox'])).code).toBe(0);
    const plain = JSON.parse((await srv.kubectl(['-n', 'prio', 'get', 'pod', 'plain', '-o', 'json'])).stdout);
    expect(plain.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(plain.spec.priorityClassName).toBeUndefined();

    const high = await createPod('prio', 'important', { priorityClassName: 'high' });
    expect(high.status).toBe(201);
    expect(high.json().spec).toMatchObject({ priorityClassName: 'high', priority: 1000, preemptionPolicy: 'PreemptLowerPriority' });
    expect((await createPod('prio', 'polite', { priorityClassName: 'polite' })).json().spec).toMatchObject({ priority: 500, preemptionPolicy: 'Never' });
    // The system classes are open to any namespace in 1.32.
    expect((await createPod('prio', 'critical', { priorityClassName: 'system-node-critical' })).json().spec.priority).toBe(2000001000);
    // An update that leaves them out keeps them.
    const stored = (await srv.request('GET', '/api/v1/namespaces/prio/pods/important')).json();
    delete stored.spec.priority;
    delete stored.spec.preemptionPolicy;
    stored.spec.containers[0].image = 'busybox:1.36';
    const updated = await srv.request('PUT', '/api/v1/namespaces/prio/pods/important', { body: stored });
    expect(updated.status).toBe(200);
    expect(updated.json().spec).toMatchObject({ priority: 1000, preemptionPolicy: 'PreemptLowerPriority' });
  });

  test('a class that does not exist is kube’s 403', async () => {
    const r = await kubectlCreate(['-n', 'prio'], pod('lost', { priorityClassName: 'nope' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error from server (Forbidden): error when creating "STDIN": pods "lost" is forbidden: no PriorityClass with name nope was found\n');
    expectStatus(
      await createPod('prio', 'lost', { priorityClassName: 'nope' }),
      failure(403, 'Forbidden', 'pods "lost" is forbidden: no PriorityClass with name nope was found', { name: 'lost', kind: 'pods' }),
    );
  });

  test('a priority or policy the client set that differs from the class’s is refused; the same one is accepted', async () => {
    expectStatus(
      await createPod('prio', 'pushy', { priorityClassName: 'high', priority: 7 }),
      failure(
        403,
        'Forbidden',
        'pods "pushy" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
        { name: 'pushy', kind: 'pods' },
      ),
    );
    expect((await createPod('prio', 'pushy', { priority: 3 })).json().message).toBe(
      'pods "pushy" is forbidden: the integer value of priority (3) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    );
    expect((await createPod('prio', 'pushy', { priorityClassName: 'polite', preemptionPolicy: 'PreemptLowerPriority' })).json().message).toBe(
      'pods "pushy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
    expect((await createPod('prio', 'agreeing', { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'PreemptLowerPriority' })).status).toBe(201);
  });

  test('one global default: pods naming no class get it, a second default is refused', async () => {
    expect((await srv.kubectl(['create', 'priorityclass', 'usual', '--value=100', '--global-default'])).stdout).toBe('priorityclass.scheduling.k8s.io/usual created\n');
    const table = await srv.kubectl(['get', 'pc', 'usual', '--no-headers']);
    expect(table.stdout).toMatch(/^usual\s+100\s+true\s+\d+s\s+PreemptLowerPriority\n$/);
    // The plugin reads the server's informer: wait until it has the new default.
    const spec = await until('a pod naming no class to get the global default', async () => {
      const r = await createPod('prio', 'defaulted', {}, '?dryRun=All');
      return r.json().spec?.priority === 100 && r.json().spec;
    });
    expect(spec).toMatchObject({ priorityClassName: 'usual', priority: 100, preemptionPolicy: 'PreemptLowerPriority' });
    const second = await srv.kubectl(['create', 'priorityclass', 'other', '--value=5', '--global-default']);
    expect(second.stderr).toBe(
      'error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass usual is already marked as default. Only one default can exist\n',
    );
    const promoted = await srv.kubectl(['patch', 'pc', 'high', '--type=merge', '-p', '{"globalDefault":true}']);
    expect(promoted.stderr).toBe('Error from server (Forbidden): priorityclasses.scheduling.k8s.io "high" is forbidden: PriorityClass usual is already marked as default. Only one default can exist\n');
    // The default itself may be updated.
    expect((await srv.kubectl(['patch', 'pc', 'usual', '--type=merge', '-p', '{"description":"the default"}'])).code).toBe(0);
    expect((await srv.kubectl(['delete', 'pc', 'usual'])).stdout).toBe('priorityclass.scheduling.k8s.io "usual" deleted\n');
  });
});

describe('DefaultTolerationSeconds admission', () => {
  test('pods get the not-ready and unreachable NoExecute tolerations for 300 s', async () => {
    expect((await srv.kubectl(['-n', 'tol', 'run', 'plain', '--image=busybox'])).code).toBe(0);
    const tolerations = JSON.parse((await srv.kubectl(['-n', 'tol', 'get', 'pod', 'plain', '-o', 'jsonpath={.spec.tolerations}'])).stdout);
    expect(tolerations).toEqual([notReady, unreachable]);
  });

  test('a pod already tolerating a taint keeps its own toleration; an empty key or effect tolerates both', async () => {
    const own = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 };
    const mine = (await createPod('tol', 'own', { tolerations: [own] })).json();
    expect(mine.spec.tolerations).toEqual([own, unreachable]);
    const everything = { operator: 'Exists' };
    expect((await createPod('tol', 'everything', { tolerations: [everything] })).json().spec.tolerations).toEqual([everything]);
    const anyEffect = { key: 'node.kubernetes.io/unreachable', operator: 'Exists' };
    expect((await createPod('tol', 'any-effect', { tolerations: [anyEffect] })).json().spec.tolerations).toEqual([anyEffect, notReady]);
    // Another effect does not count.
    const noSchedule = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoSchedule' };
    expect((await createPod('tol', 'no-schedule', { tolerations: [noSchedule] })).json().spec.tolerations).toEqual([noSchedule, notReady, unreachable]);
  });
});

describe('collection deletes', () => {
  test('deleting the collection goes through the plain store, as kube’s: system classes go too', async () => {
    const r = await srv.request('DELETE', `${PC}?fieldSelector=metadata.name%3Dsystem-node-critical`);
    expect(r.status).toBe(200);
    expect(r.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['system-node-critical']);
    expect((await srv.request('GET', `${PC}/system-node-critical`)).status).toBe(404);
  });
});

describe('scheduling.k8s.io turned off (--runtime-config)', () => {
  const { srv: off } = useTestServer({ runtimeConfig: { 'scheduling.k8s.io/v1': 'false' } });

  test('no PriorityClasses, no post-start hook; pods get priority 0 and a named class is not found', async () => {
    expect((await off.request('GET', PC)).status).toBe(404);
    expect((await off.request('GET', '/readyz?verbose')).text).not.toContain('bootstrap-system-priority-classes');
    expect((await off.kubectl(['create', 'namespace', 'n'])).code).toBe(0);
    await until('the default service account', async () => (await off.request('GET', '/api/v1/namespaces/n/serviceaccounts/default')).status === 200);
    const created = await off.request('POST', '/api/v1/namespaces/n/pods', { body: pod('p') });
    expect(created.json().spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority', tolerations: [notReady, unreachable] });
    const named = await off.request('POST', '/api/v1/namespaces/n/pods', { body: pod('q', { priorityClassName: 'system-node-critical' }) });
    expect(named.json().message).toBe('pods "q" is forbidden: no PriorityClass with name system-node-critical was found');
  });
});
