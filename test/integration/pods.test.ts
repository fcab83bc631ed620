/**
 * Pods against the real server and etcd, driven by kubectl and @kubernetes/client-node: defaults and
 * status on create, kube's printer columns, apply, explain, a refused pod's 422, the status
 * subresource, field selectors, protobuf and deletion.
 */
import { apiClient } from '../support/client-node';
import { namespaceMaker } from '../support/namespaces';
import { PROTOBUF, protobufWire, rawRequest } from '../support/protobuf-wire';
import { useTestServer } from '../support/server-fixture';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

const { srv } = useTestServer();

const fresh = namespaceMaker(srv, 'pods', { forPods: true });

const podYaml = (name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels:
    app: web
spec:
  containers:
  - name: web
    image: nginx:1.25
    ports:
    - containerPort: 80
${extra}`;

describe('Pod resource with kubectl', () => {
  test('kubectl run creates a defaulted Pending pod; get shows kube columns, -o wide too', async () => {
    const ns = await fresh();
    const run = await srv.kubectl(['-n', ns, 'run', 'web', '--image=nginx']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('pod/web created\n');
    const pod = JSON.parse((await srv.kubectl(['-n', ns, 'get', 'pod', 'web', '-o', 'json'])).stdout);
    expect(pod.metadata.labels).toEqual({ run: 'web' });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
      // The ServiceAccount admission plugin: the default account and its token volume.
      serviceAccountName: 'default',
      serviceAccount: 'default',
    });
    const volume = pod.spec.volumes[0].name;
    expect(volume).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod.spec.containers[0]).toEqual({
      name: 'web',
      image: 'nginx',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'Always',
      volumeMounts: [{ name: volume, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
    });
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(pod.metadata.generation).toBeUndefined();

    const table = await srv.kubectl(['-n', ns, 'get', 'pods']);
    expect(table.stderr).toBe('');
    expect(table.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb\s+0\/1\s+Pending\s+0\s+\d+s\n$/);
    const wide = await srv.kubectl(['-n', ns, 'get', 'po', '-o', 'wide']);
    expect(wide.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\nweb\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+<none>\n$/);
    // Category `all` and the short name.
    expect((await srv.kubectl(['-n', ns, 'get', 'all', '-o', 'name'])).stdout).toContain('pod/web\n');
  });

  test('kubectl apply creates, then changes the image; a spec change is refused with kube\'s message', async () => {
    const ns = await fresh();
    const applied = await srv.kubectl(['-n', ns, 'apply', '-f', '-'], { input: podYaml('app') });
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toBe('pod/app created\n');
    const again = await srv.kubectl(['-n', ns, 'apply', '-f', '-'], { input: podYaml('app').replace('nginx:1.25', 'nginx:1.26') });
    expect(again.stderr).toBe('');
    expect(again.stdout).toBe('pod/app configured\n');
    const image = await srv.kubectl(['-n', ns, 'get', 'pod', 'app', '-o', 'jsonpath={.spec.containers[0].image} {.spec.containers[0].imagePullPolicy}']);
    expect(image.stdout).toBe('nginx:1.26 IfNotPresent');

    const refused = await srv.kubectl(['-n', ns, 'apply', '-f', '-'], { input: podYaml('app', '  restartPolicy: Never\n').replace('nginx:1.25', 'nginx:1.26') });
    expect(refused.stderr).toContain('The Pod "app" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
  });

  test('a bad pod is refused with kube\'s 422 text', async () => {
    const ns = await fresh();
    const bad = `apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  restartPolicy: Sometimes
  containers:
  - name: Web
    image: nginx
    resources:
      limits:
        cpu: "1"
      requests:
        cpu: "2"
`;
    const r = await srv.kubectl(['-n', ns, 'create', '-f', '-'], { input: bad });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('The Pod "bad" is invalid: \n');
    expect(r.stderr).toContain(
      "* spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
    expect(r.stderr).toContain('* spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1');
    expect(r.stderr).toContain('* spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"');

    const raw = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'empty' }, spec: { containers: [] } } });
    expect(raw.status).toBe(422);
    expect(raw.json()).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      message: 'Pod "empty" is invalid: spec.containers: Required value',
      details: { name: 'empty', kind: 'Pod', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }] },
    });
  });

  test('kubectl patch --subresource=status writes the status only; get shows it', async () => {
    const ns = await fresh();
    expect((await srv.kubectl(['-n', ns, 'run', 'web', '--image=nginx:1.25'])).stderr).toBe('');
    const status = {
      status: {
        phase: 'Running',
        podIP: '10.1.2.3',
        podIPs: [{ ip: '10.1.2.3' }],
        hostIP: '192.168.0.10',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'web', ready: true, restartCount: 1, image: 'nginx:1.25', imageID: 'docker.io/library/nginx@sha256:0', started: true, state: { running: { startedAt: '2024-05-01T10:00:00Z' } } }],
      },
      spec: { restartPolicy: 'Never' },
    };
    const patched = await srv.kubectl(['-n', ns, 'patch', 'pod', 'web', '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
    expect(patched.stderr).toBe('');
    expect(patched.stdout).toBe('pod/web patched\n');
    const pod = JSON.parse((await srv.kubectl(['-n', ns, 'get', 'pod', 'web', '-o', 'json'])).stdout);
    expect(pod.spec.restartPolicy).toBe('Always');
    expect(pod.status).toMatchObject({ phase: 'Running', qosClass: 'BestEffort', podIP: '10.1.2.3' });
    expect(pod.status.containerStatuses[0].lastState).toEqual({});
    const wide = await srv.kubectl(['-n', ns, 'get', 'pods', '-o', 'wide']);
    expect(wide.stdout).toMatch(/\nweb\s+1\/1\s+Running\s+1\s+\d+s\s+10\.1\.2\.3\s+<none>\s+<none>\s+<none>\n$/);

    const running = await srv.kubectl(['-n', ns, 'get', 'pods', '--field-selector', 'status.phase=Running', '-o', 'name']);
    expect(running.stdout).toBe('pod/web\n');
    const pending = await srv.kubectl(['-n', ns, 'get', 'pods', '--field-selector', 'status.phase=Pending,spec.restartPolicy=Always', '-o', 'name']);
    expect(pending.stdout).toBe('');
    const byIP = await srv.kubectl(['-n', ns, 'get', 'pods', '--field-selector', 'status.podIP=10.1.2.3', '-o', 'name']);
    expect(byIP.stdout).toBe('pod/web\n');
    const unsupported = await srv.request('GET', `/api/v1/namespaces/${ns}/pods?fieldSelector=spec.image%3Dx`);
    expect(unsupported.status).toBe(400);
    expect(unsupported.json().message).toBe('field label not supported: spec.image');

    const badStatus = await srv.kubectl(['-n', ns, 'patch', 'pod', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"qosClass":"Guaranteed"}}']);
    expect(badStatus.stderr).toContain('The Pod "web" is invalid: status.qosClass: Invalid value: "Guaranteed": field is immutable');
  });

  test('finished pods: kubectl get lists them; their Table rows carry kube\'s Completed condition; status fields of disabled features are dropped', async () => {
    const ns = await fresh();
    for (const name of ['done', 'broken', 'waiting']) expect((await srv.kubectl(['-n', ns, 'run', name, '--image=nginx:1.25', '--restart=Never'])).stderr).toBe('');
    const finish = (phase: string, exitCode: number, reason: string) => ({
      status: {
        phase,
        resize: 'InProgress',
        containerStatuses: [
          {
            name: 'web',
            ready: false,
            restartCount: 0,
            image: 'nginx:1.25',
            imageID: '',
            state: { terminated: { exitCode, reason, startedAt: '2024-05-01T10:00:00Z', finishedAt: '2024-05-01T10:00:05Z' } },
            allocatedResources: { cpu: '100m' },
            user: { linux: { uid: 0, gid: 0 } },
          },
        ],
      },
    });
    for (const [name, body] of [
      ['done', finish('Succeeded', 0, 'Completed')],
      ['broken', finish('Failed', 1, 'Error')],
    ] as const) {
      const r = await srv.kubectl(['-n', ns, 'patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify(body)]);
      expect(r.stderr).toBe('');
    }
    const done = JSON.parse((await srv.kubectl(['-n', ns, 'get', 'pod', 'done', '-o', 'json'])).stdout);
    expect(done.status.resize).toBeUndefined();
    expect(done.status.containerStatuses[0]).not.toHaveProperty('allocatedResources');
    expect(done.status.containerStatuses[0]).not.toHaveProperty('user');

    // kubectl 1.32 shows finished pods by default.
    const listed = await srv.kubectl(['-n', ns, 'get', 'pods']);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nbroken\s+0\/1\s+Error\s+0\s+\d+s\ndone\s+0\/1\s+Completed\s+0\s+\d+s\nwaiting\s+0\/1\s+Pending\s+0\s+\d+s\n$/);

    const table = await srv.request('GET', `/api/v1/namespaces/${ns}/pods`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.status).toBe(200);
    const t = table.json();
    expect(t.rows.map((r: { cells: unknown[]; conditions?: unknown }) => [r.cells[0], r.conditions])).toEqual([
      ['broken', [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]],
      ['done', [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]],
      ['waiting', undefined],
    ]);
    expect(Object.keys(t.rows[0])).toEqual(['cells', 'conditions', 'object']);
    const described = Object.fromEntries(t.columnDefinitions.map((c: { name: string; description: string }) => [c.name, c.description]));
    expect(Object.keys(described)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    for (const text of Object.values(described)) expect(text).toMatch(/^\S.{10,}/);
    // A single pod's Table too.
    const one = await srv.request('GET', `/api/v1/namespaces/${ns}/pods/done`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(one.json().rows[0].conditions).toEqual([{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  });

  test('kube\'s OS, sysctl and annotation rules reach kubectl as its 422 text', async () => {
    const ns = await fresh();
    const linux = podYaml(
      'linux',
      `  os:
    name: linux
  hostNetwork: true
  securityContext:
    windowsOptions:
      runAsUserName: "a\\\\b\\\\c"
    sysctls:
    - name: net.core.somaxconn
      value: "1024"
`,
    );
    const r = await srv.kubectl(['-n', ns, 'create', '-f', '-'], { input: linux });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('The Pod "linux" is invalid: \n');
    expect(r.stderr).toContain("* spec.securityContext.sysctls[0].name: Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true");
    expect(r.stderr).toContain('* spec.securityContext.windowsOptions.runAsUserName: Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash');
    expect(r.stderr).toContain('* spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod');

    const annotated = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'annotated', annotations: { 'scheduler.alpha.kubernetes.io/tolerations': '[{"key":1}]' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    expect(annotated.status).toBe(422);
    expect(annotated.json().message).toBe(
      'Pod "annotated" is invalid: metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": json: cannot unmarshal number into Go struct field Toleration.key of type string',
    );
  });

  test('kubectl explain pod.spec.containers reads the served OpenAPI', async () => {
    const r = await srv.kubectl(['explain', 'pod.spec.containers']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('KIND:       Pod');
    expect(r.stdout).toContain('FIELD: containers <[]Container>');
    expect(r.stdout).toMatch(/\n {2}image\t<string>\n/);
    expect(r.stdout).toMatch(/\n {2}name\t<string> -required-\n/);
    const spec = await srv.kubectl(['explain', 'pods.spec.restartPolicy']);
    expect(spec.stdout).toContain('FIELD: restartPolicy <string>');
  });

  test('kubectl delete removes an unbound pod at once', async () => {
    const ns = await fresh();
    await srv.kubectl(['-n', ns, 'run', 'web', '--image=nginx']);
    const del = await srv.kubectl(['-n', ns, 'delete', 'pod', 'web']);
    expect(del.stderr).toBe('');
    expect(del.stdout).toBe('pod "web" deleted\n');
    expect((await srv.request('GET', `/api/v1/namespaces/${ns}/pods/web`)).status).toBe(404);
    // DELETE answers the pod (kube's pod storage returns the deleted object).
    await srv.kubectl(['-n', ns, 'run', 'two', '--image=nginx']);
    const raw = await srv.request('DELETE', `/api/v1/namespaces/${ns}/pods/two`);
    expect(raw.status).toBe(200);
    expect(raw.json()).toMatchObject({ kind: 'Pod', metadata: { name: 'two' } });
  });

  test('create: matchLabelKeys become selector requirements; AppArmor annotations and fields are synced with kube\'s warning', async () => {
    const ns = await fresh();
    const yaml = `apiVersion: v1
kind: Pod
metadata:
  name: skew
  labels: {app: web, rev: r1}
  annotations:
    container.apparmor.security.beta.kubernetes.io/old: unconfined
spec:
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: zone
        labelSelector: {matchLabels: {app: web}}
        matchLabelKeys: [rev]
  containers:
  - name: new
    image: nginx
    securityContext:
      appArmorProfile: {type: RuntimeDefault}
  - name: old
    image: nginx
`;
    const r = await srv.kubectl(['-n', ns, 'create', '-f', '-'], { input: yaml });
    expect(r.stdout).toBe('pod/skew created\n');
    expect(r.stderr).toBe('Warning: metadata.annotations[container.apparmor.security.beta.kubernetes.io/old]: deprecated since v1.30; use the "appArmorProfile" field instead\n');
    const pod = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/skew`)).json();
    expect(pod.metadata.annotations).toEqual({
      'container.apparmor.security.beta.kubernetes.io/new': 'runtime/default',
      'container.apparmor.security.beta.kubernetes.io/old': 'unconfined',
    });
    expect(pod.spec.containers[1].securityContext).toEqual({ appArmorProfile: { type: 'Unconfined' } });
    expect(pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector).toEqual({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'rev', operator: 'In', values: ['r1'] }],
    });
    // An annotation for no container is kube's 422.
    const bad = await srv.kubectl(['-n', ns, 'create', '-f', '-'], { input: yaml.replace('name: skew', 'name: bad').replace('beta.kubernetes.io/old', 'beta.kubernetes.io/gone') });
    expect(bad.stderr).toContain('metadata.annotations[container.apparmor.security.beta.kubernetes.io/gone]: Invalid value: "gone": container not found');
  });

  test('discovery: pods, po, category all, the status subresource', async () => {
    const resources = (await srv.request('GET', '/api/v1')).json().resources as Array<Record<string, unknown>>;
    expect(resources.find((r) => r.name === 'pods')).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'], singularName: 'pod' });
    expect(resources.find((r) => r.name === 'pods/status')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  });
});

describe('Pod resource with @kubernetes/client-node and protobuf', () => {
  let core: K8sModule.CoreV1Api;

  beforeAll(async () => {
    core = await apiClient(srv, (k8s) => k8s.CoreV1Api);
  });

  test('CoreV1Api create, read, list, status replace and delete', async () => {
    const ns = await fresh();
    const created = await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'cn', labels: { app: 'x' } },
        spec: { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'], resources: { limits: { cpu: '500m', memory: '64Mi' } } }] },
      },
    });
    expect(created.status?.qosClass).toBe('Guaranteed');
    expect(created.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '500m', memory: '64Mi' });
    const read = await core.readNamespacedPod({ name: 'cn', namespace: ns });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    const list = await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=x' });
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['cn']);
    read.status = { ...read.status, phase: 'Succeeded' };
    const replaced = await core.replaceNamespacedPodStatus({ name: 'cn', namespace: ns, body: read });
    expect(replaced.status?.phase).toBe('Succeeded');
    await core.deleteNamespacedPod({ name: 'cn', namespace: ns });
    await expect(core.readNamespacedPod({ name: 'cn', namespace: ns })).rejects.toMatchObject({ code: 404 });
  });

  test('protobuf: create and read a pod with probes (IntOrString ports), pointers and quantities', async () => {
    const ns = await fresh();
    const wire = await protobufWire(['k8s.io/api/core/v1/generated.proto']);
    const M = 'k8s.io.api.core.v1.Pod';
    const body = wire.wrap('v1', 'Pod', M, {
      metadata: { name: 'pb' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            resources: { requests: { cpu: { string: '250m' } } },
            livenessProbe: { handler: { httpGet: { path: '/healthz', port: { type: 1, strVal: 'http' } } } },
            readinessProbe: { handler: { tcpSocket: { port: { type: 0, intVal: 8080 } } } },
            ports: [{ name: 'http', containerPort: 8080 }],
          },
        ],
        activeDeadlineSeconds: 0,
      },
    });
    // activeDeadlineSeconds 0 is a set pointer on the wire: kube refuses it, as here.
    const refused = await rawRequest(srv, 'POST', `/api/v1/namespaces/${ns}/pods`, { 'content-type': PROTOBUF, accept: 'application/json' }, body);
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.body.toString()).message).toBe('Pod "pb" is invalid: spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive');

    const okBody = wire.wrap('v1', 'Pod', M, {
      metadata: { name: 'pb' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            resources: { requests: { cpu: { string: '250m' } } },
            livenessProbe: { handler: { httpGet: { path: '/healthz', port: { type: 1, strVal: 'http' } } } },
            readinessProbe: { handler: { tcpSocket: { port: { type: 0, intVal: 8080 } } } },
            ports: [{ name: 'http', containerPort: 8080 }],
          },
        ],
      },
    });
    const created = await rawRequest(srv, 'POST', `/api/v1/namespaces/${ns}/pods`, { 'content-type': PROTOBUF, accept: PROTOBUF }, okBody);
    expect(created.status).toBe(201);
    const { typeMeta, obj } = wire.unwrap(created.body, M);
    expect(typeMeta).toEqual({ apiVersion: 'v1', kind: 'Pod' });
    const c = obj.spec.containers[0];
    expect(String(c.livenessProbe.handler.httpGet.port.type)).toBe('1');
    expect(c.livenessProbe.handler.httpGet.port.strVal).toBe('http');
    expect(c.readinessProbe.handler.tcpSocket.port).toMatchObject({ intVal: 8080 });
    expect(obj.spec.terminationGracePeriodSeconds.toString()).toBe('30');
    expect(obj.spec.activeDeadlineSeconds).toBeUndefined();
    expect(obj.status).toMatchObject({ phase: 'Pending', qosClass: 'Burstable' });

    // The JSON view of the same pod: IntOrString as a bare string or number.
    const json = (await srv.request('GET', `/api/v1/namespaces/${ns}/pods/pb`)).json();
    expect(json.spec.containers[0].livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http', scheme: 'HTTP' });
    expect(json.spec.containers[0].readinessProbe.tcpSocket).toEqual({ port: 8080 });
    expect(json.spec.containers[0].resources).toEqual({ requests: { cpu: '250m' } });

    const list = await rawRequest(srv, 'GET', `/api/v1/namespaces/${ns}/pods`, { accept: PROTOBUF });
    expect(list.status).toBe(200);
    const decoded = wire.unwrap(list.body, 'k8s.io.api.core.v1.PodList');
    expect(decoded.typeMeta.kind).toBe('PodList');
    expect(decoded.obj.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['pb']);
  });
});
