/**
 * The Pod strategy (kube's pkg/registry/core/pod and pkg/apis/core/validation): defaults, the
 * status a create gets (Pending, QoS class), validation messages with kube's field paths, the
 * frozen spec on update, the status subresource and the printer's columns.
 */
import { KubeObject, RequestContext, cloneJson, computePodQOS, fieldErrorString } from '../../src/api';
import { pods } from '../../src/registry/resources/core/pods';
import { imageTag } from '../../src/registry/resources/core/pod-defaults';
import type { Pod } from '../../src/registry/resources/core/pod-types';
import { podFeatureGates } from '../../src/registry/resources/core/pod-drop';
import { objectMetaCreationTimestampDescription, objectMetaNameDescription, toTable } from '../../src/registry/table';
import { knownFeatureGates } from '../../src/config';

const now = new Date('2024-05-01T10:00:00Z');
const ctx = (): RequestContext => ({ namespace: 'ns', warnings: [], dryRun: false, now: () => now });
const strategy = pods.strategy;
const statusStrategy = pods.subresources.find((s) => s.name === 'status')?.strategy ?? strategy;

type Spec = Record<string, unknown>;
const podOf = (spec: Spec, meta: Record<string, unknown> = {}): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...meta }, spec: cloneJson(spec) }) as Pod;
const basic = (extra: Spec = {}): Spec => ({ containers: [{ name: 'c', image: 'nginx:1.25' }], ...extra });

/** The pod as a create leaves it (the decoder's defaults, then prepareForCreate), and the validation errors as kube prints them. */
function create(spec: Spec, meta: Record<string, unknown> = {}): { pod: Pod; errors: string[] } {
  const pod = podOf(spec, meta);
  strategy.defaults?.(pod);
  strategy.prepareForCreate(ctx(), pod);
  return { pod, errors: strategy.validate(ctx(), pod).map(fieldErrorString) };
}
const errorsOf = (spec: Spec, meta?: Record<string, unknown>) => create(spec, meta).errors;

/** An update of a created pod by `change` (the decoder's defaults, prepareForUpdate, then validateUpdate), as the store runs them. */
function update(spec: Spec, change: (p: Pod) => void, strat = strategy): { pod: Pod; errors: string[] } {
  const old = create(spec).pod;
  strat.canonicalize(old);
  const next = cloneJson(old);
  change(next);
  strategy.defaults?.(next);
  strat.prepareForUpdate(ctx(), next, old);
  return { pod: next, errors: strat.validateUpdate(ctx(), next, old).map(fieldErrorString) };
}

describe('defaults on create', () => {
  test('kube defaults of the spec and each container; status Pending with the QoS class', () => {
    const { pod, errors } = create({ containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] });
    expect(errors).toEqual([]);
    expect(pod.spec).toEqual({
      containers: [
        {
          name: 'web',
          image: 'nginx',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'Always',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
    });
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  test('imagePullPolicy follows the tag: latest or none → Always, a tag or digest → IfNotPresent', () => {
    const policy = (image: string) => create({ containers: [{ name: 'c', image }] }).pod.spec?.containers?.[0]?.imagePullPolicy;
    expect(policy('nginx')).toBe('Always');
    expect(policy('nginx:latest')).toBe('Always');
    expect(policy('registry.example.com:5000/team/app')).toBe('Always');
    expect(policy('nginx:1.25')).toBe('IfNotPresent');
    expect(policy(`nginx@sha256:${'a'.repeat(64)}`)).toBe('IfNotPresent');
    expect(policy('Nginx')).toBe('IfNotPresent'); // not a valid reference: kube's parse fails, no tag
    expect(imageTag('localhost:5000/x:v2')).toBe('v2');
  });

  test('requests default to limits, quantities are canonical and rounded up to milli', () => {
    const { pod } = create({ containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '0.5', memory: '128Mi' }, requests: { cpu: '0.0001' } } }] });
    strategy.canonicalize(pod);
    expect(pod.spec?.containers?.[0]?.resources).toEqual({ limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '1m', memory: '128Mi' } });
  });

  test('the defaults hook alone (what a mutating webhook is sent) gives the decoded shape: defaults, canonical quantities, Go structs', () => {
    const pod = podOf({
      containers: [
        { name: 'a', image: 'i' },
        { name: 'b', image: 'i', resources: { limits: { cpu: '0.5' } } },
      ],
      volumes: [{ name: 'e', ephemeral: { volumeClaimTemplate: { spec: { resources: { requests: { storage: '1536Mi' } } } } } }],
    });
    Object.assign(pod, { status: { containerStatuses: [{ name: 'a', resources: { requests: { cpu: '0.25' } } }] } });
    strategy.defaults?.(pod);
    expect(pod.spec?.containers?.map((c) => c.resources)).toEqual([{}, { limits: { cpu: '500m' }, requests: { cpu: '500m' } }]);
    expect(pod.spec?.volumes?.[0]?.ephemeral?.volumeClaimTemplate?.spec).toEqual({ volumeMode: 'Filesystem', resources: { requests: { storage: '1536Mi' } } });
    expect(pod.status?.containerStatuses?.[0]).toEqual({ name: 'a', resources: { requests: { cpu: '250m' } }, state: {}, lastState: {} });
  });

  test('probes, volumes, hostNetwork ports and env field refs get their defaults', () => {
    const { pod, errors } = create({
      hostNetwork: true,
      volumes: [{ name: 'a' }, { name: 's', secret: { secretName: 'x' } }, { name: 'cm', configMap: { name: 'y' } }],
      containers: [
        {
          name: 'c',
          image: 'i',
          ports: [{ containerPort: 8080 }],
          env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          livenessProbe: { httpGet: { port: 8080 } },
        },
      ],
    });
    expect(errors).toEqual([]);
    const c = pod.spec?.containers?.[0];
    expect(c?.ports).toEqual([{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
    expect(c?.env?.[0]?.valueFrom?.fieldRef).toEqual({ apiVersion: 'v1', fieldPath: 'metadata.name' });
    expect(c?.livenessProbe).toEqual({ httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(pod.spec?.volumes).toEqual([
      { name: 'a', emptyDir: {} },
      { name: 's', secret: { secretName: 'x', defaultMode: 420 } },
      { name: 'cm', configMap: { name: 'y', defaultMode: 420 } },
    ]);
  });

  test('a client status is replaced; a scheduling-gated pod gets PodScheduled=False', () => {
    const { pod } = create({ ...basic(), schedulingGates: [{ name: 'example.com/gate' }] });
    expect(pod.status).toEqual({
      phase: 'Pending',
      qosClass: 'BestEffort',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: '2024-05-01T10:00:00Z',
          reason: 'SchedulingGated',
          message: 'Scheduling is blocked due to non-empty scheduling gates',
        },
      ],
    });
  });

  test('fields of features off in 1.32 are dropped (hostUsers, resizePolicy, pod-level resources)', () => {
    const { pod } = create({ ...basic(), hostUsers: false, resources: { limits: { cpu: '1' } } });
    expect(pod.spec?.hostUsers).toBeUndefined();
    expect(pod.spec?.resources).toBeUndefined();
  });

  test('procMount (ProcMountType off in 1.32) is forced to Default, so Unmasked is accepted as Default', () => {
    const { pod, errors } = create({ containers: [{ name: 'c', image: 'i', securityContext: { procMount: 'Unmasked' } }, { name: 'd', image: 'i' }] });
    expect(errors).toEqual([]);
    expect(pod.spec?.containers?.map((c) => c.securityContext)).toEqual([{ procMount: 'Default' }, undefined]);
  });
});

describe('QoS class', () => {
  const qos = (containers: Spec[], initContainers?: Spec[]) => {
    const { pod } = create({ containers, ...(initContainers ? { initContainers } : {}) });
    return [pod.status?.qosClass, computePodQOS(pod)];
  };
  test.each<[string, Spec[], string]>([
    ['no requests or limits', [{ name: 'a', image: 'i' }], 'BestEffort'],
    ['zero requests only', [{ name: 'a', image: 'i', resources: { requests: { cpu: '0' } } }], 'BestEffort'],
    ['limits of cpu and memory (requests defaulted)', [{ name: 'a', image: 'i', resources: { limits: { cpu: '1', memory: '1Gi' } } }], 'Guaranteed'],
    ['requests below limits', [{ name: 'a', image: 'i', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }], 'Burstable'],
    ['only a cpu limit', [{ name: 'a', image: 'i', resources: { limits: { cpu: '1' } } }], 'Burstable'],
    ['one guaranteed container, one without anything', [{ name: 'a', image: 'i', resources: { limits: { cpu: '1', memory: '1Gi' } } }, { name: 'b', image: 'i' }], 'Burstable'],
    ['extended resources do not count', [{ name: 'a', image: 'i', resources: { limits: { 'example.com/gpu': '1' } } }], 'BestEffort'],
  ])('%s → %s', (_name, containers, expected) => {
    expect(qos(containers)).toEqual([expected, expected]);
  });

  test('init containers count', () => {
    expect(qos([{ name: 'a', image: 'i' }], [{ name: 'i', image: 'i', resources: { requests: { memory: '1Mi' } } }])).toEqual(['Burstable', 'Burstable']);
  });

  test('a qosClass the client sent on create is kept (kube reads it before computing)', () => {
    const pod = podOf(basic());
    pod.status = { qosClass: 'Guaranteed', phase: 'Running' };
    strategy.prepareForCreate(ctx(), pod);
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
  });
});

describe('validation on create', () => {
  const label = (v: string) =>
    `Invalid value: "${v}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;

  test('a valid pod has no errors', () => {
    expect(errorsOf(basic())).toEqual([]);
  });

  test.each<[string, Spec, string[]]>([
    ['no containers', {}, ['spec.containers: Required value']],
    ['an empty container list', { containers: [] }, ['spec.containers: Required value']],
    ['container without name and image', { containers: [{}] }, ['spec.containers[0].name: Required value', 'spec.containers[0].image: Required value']],
    ['a container name that is no DNS label', { containers: [{ name: 'Web_1', image: 'i' }] }, [`spec.containers[0].name: ${label('Web_1')}`]],
    ['duplicate container names', { containers: [{ name: 'a', image: 'i' }, { name: 'a', image: 'i' }] }, ['spec.containers[1].name: Duplicate value: "a"']],
    [
      'an init container named like a container',
      { containers: [{ name: 'a', image: 'i' }], initContainers: [{ name: 'a', image: 'i' }] },
      ['spec.initContainers[0].name: Duplicate value: "a"'],
    ],
    ['image with whitespace', { containers: [{ name: 'a', image: ' nginx' }] }, ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace']],
    [
      'bad ports',
      { containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 70000, name: 'HTTP' }, { containerPort: 80, protocol: 'ICMP' }, { containerPort: 0 }] }] },
      [
        'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain at least one letter (a-z)',
        'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'spec.containers[0].ports[2].containerPort: Required value',
      ],
    ],
    [
      'duplicate port names and host ports',
      { containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 80, name: 'web', hostPort: 8080 }, { containerPort: 81, name: 'web', hostPort: 8080 }] }] },
      ['spec.containers[0].ports[1].name: Duplicate value: "web"', 'spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//8080"'],
    ],
    [
      'env names and sources',
      {
        containers: [
          {
            name: 'a',
            image: 'i',
            env: [{ name: '' }, { name: 'A=B' }, { name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'Y', valueFrom: {} }, { name: 'Z', valueFrom: { fieldRef: { fieldPath: 'spec.foo' } } }],
          },
        ],
      },
      [
        'spec.containers[0].env[0].name: Required value',
        "spec.containers[0].env[1].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
        'spec.containers[0].env[2].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
        'spec.containers[0].env[3].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        'spec.containers[0].env[4].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.foo": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
      ],
    ],
    [
      'resources: bad names, negative, requests above limits',
      { containers: [{ name: 'a', image: 'i', resources: { limits: { cpu: '1', foo: '1' }, requests: { cpu: '2', memory: '-1' } } }] },
      [
        'spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
        // requests[foo] is defaulted from limits[foo], so kube reports it twice too.
        'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0',
      ],
    ],
    [
      // A standard name (a quota's hugepages name), but not one a container may use.
      'requests.hugepages-<size> is standard but not for containers',
      { containers: [{ name: 'a', image: 'i', resources: { requests: { 'requests.hugepages-2Mi': '2Mi' } } }] },
      ['spec.containers[0].resources.requests[requests.hugepages-2Mi]: Invalid value: "requests.hugepages-2Mi": must be a standard resource for containers'],
    ],
    [
      'extended resources must be whole and limited equally',
      { containers: [{ name: 'a', image: 'i', resources: { limits: { 'example.com/gpu': '2' }, requests: { 'example.com/gpu': '1' } } }] },
      ['spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'],
    ],
    ['restartPolicy', basic({ restartPolicy: 'Sometimes' }), ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']],
    ['dnsPolicy', basic({ dnsPolicy: 'Cluster' }), ['spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"']],
    ['dnsPolicy None needs a config', basic({ dnsPolicy: 'None' }), ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']],
    [
      'volumes: duplicate names, two sources, missing fields',
      {
        ...basic(),
        volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {}, hostPath: { path: '/x' } }, { name: 's', secret: {} }, { name: 'Bad' }],
      },
      [
        'spec.volumes[1].name: Duplicate value: "v"',
        'spec.volumes[2].hostPath: Forbidden: may not specify more than 1 volume type',
        'spec.volumes[3].secret.secretName: Required value',
        `spec.volumes[4].name: ${label('Bad')}`,
      ],
    ],
    [
      'volume mounts must name a volume, once per path',
      { volumes: [{ name: 'data' }], containers: [{ name: 'a', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/d' }, { name: 'nope', mountPath: '/d' }] }] },
      ['spec.containers[0].volumeMounts[1].name: Not found: "nope"', 'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/d": must be unique'],
    ],
    [
      'nodeSelector, tolerations, priorityClassName, serviceAccountName, hostname',
      basic({
        nodeSelector: { 'bad key!': 'v' },
        tolerations: [{ operator: 'Equal', value: 'x' }, { key: 'k', operator: 'Exists', value: 'v' }, { key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }, { key: 'k', effect: 'Sometimes' }],
        priorityClassName: 'High',
        serviceAccountName: 'Robot',
        hostname: 'a.b',
      }),
      [
        `spec.nodeSelector: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        'spec.serviceAccountName: Invalid value: "Robot": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
        'spec.hostname: Invalid value: "a.b": must not contain dots',
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
        "spec.tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
        "spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
        'spec.tolerations[3].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        'spec.priorityClassName: Invalid value: "High": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      ],
    ],
    ['activeDeadlineSeconds', basic({ activeDeadlineSeconds: 0 }), ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive']],
    ['ephemeral containers on create', basic({ ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] }), ['spec.ephemeralContainers: Forbidden: cannot be set on create']],
    [
      'probes: no handler, two handlers, successThreshold',
      { containers: [{ name: 'a', image: 'i', livenessProbe: { successThreshold: 2, exec: { command: ['x'] } }, readinessProbe: {}, startupProbe: { exec: { command: ['x'] }, tcpSocket: { port: 80 } } }] },
      [
        'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
        'spec.containers[0].readinessProbe: Required value: must specify a handler type',
        'spec.containers[0].startupProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
      ],
    ],
    [
      'init container probes need restartPolicy Always; regular containers may not set it',
      { containers: [{ name: 'a', image: 'i', restartPolicy: 'Always' }], initContainers: [{ name: 'i', image: 'i', readinessProbe: { exec: { command: ['x'] } } }] },
      ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers', 'spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always'],
    ],
    ['privileged containers (kube-apiserver --allow-privileged=false)', { containers: [{ name: 'a', image: 'i', securityContext: { privileged: true } }] }, ['spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy']],
    [
      'affinity terms, topology spread, dnsConfig',
      basic({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Near', values: ['a'] }, { key: 'k', operator: 'Gt', values: ['1', '2'] }] }] },
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }],
          },
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } } }] },
        },
        topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'Maybe' }],
        dnsConfig: { nameservers: ['1.1.1.1', 'not-an-ip'], options: [{ value: 'x' }] },
      }),
      [
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
        'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
        `spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty`,
        `spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
        'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
        'spec.dnsConfig.nameservers[1]: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        'spec.dnsConfig.options[0]: Required value: must not be empty',
      ],
    ],
    [
      'security contexts: ids, seccomp, apparmor, privilege escalation',
      {
        securityContext: { runAsUser: -1, seccompProfile: { type: 'Localhost' } },
        containers: [{ name: 'a', image: 'i', securityContext: { runAsGroup: 4294967296, appArmorProfile: { type: 'RuntimeDefault', localhostProfile: 'x' }, seccompProfile: { type: 'Strict' } } }],
      },
      [
        'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
        'spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost',
        'spec.containers[0].securityContext.runAsGroup: Invalid value: 4294967296: must be between 0 and 2147483647, inclusive',
        'spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
        'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: "x": can only be set when AppArmor type is Localhost',
      ],
    ],
    [
      'volume sources: projected paths, downward API, nfs, host path',
      {
        ...basic({ serviceAccountName: 'sa' }),
        volumes: [
          { name: 'p', projected: { sources: [{ serviceAccountToken: { path: '../t', expirationSeconds: 60 } }, { configMap: { name: 'c', items: [{ key: 'k', path: '/abs' }] }, secret: { name: 's' } }] } },
          { name: 'd', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'spec.nodeName' } }] } },
          { name: 'n', nfs: { server: 'nfs.example', path: 'rel' } },
          { name: 'h', hostPath: { path: '/a/../b', type: 'Pipe' } },
        ],
      },
      [
        'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
        "spec.volumes[0].projected.path: Invalid value: \"../t\": must not contain '..'",
        'spec.volumes[0].projected.sources[1].configMap.items[0].path: Invalid value: "/abs": must be a relative path',
        'spec.volumes[0].projected.sources[1]: Forbidden: may not specify more than 1 volume type per source',
        'spec.volumes[1].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
        'spec.volumes[2].nfs.path: Invalid value: "rel": must be an absolute path',
        "spec.volumes[3].hostPath.path: Invalid value: \"/a/../b\": must not contain '..'",
        'spec.volumes[3].hostPath.type: Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
      ],
    ],
    [
      'nodeName with scheduling gates, a bad nodeName',
      basic({ nodeName: 'Node_1', schedulingGates: [{ name: 'g' }, { name: 'g' }] }),
      [
        'spec.schedulingGates[1]: Duplicate value: "g"',
        'spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared',
        "spec.nodeName: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    ['a projected token without a service account', { ...basic(), volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] }, ['spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set']],
  ])('%s', (_name, spec, expected) => {
    expect(errorsOf(spec).sort()).toEqual([...expected].sort());
  });

  test('a name that is no DNS label is accepted with kube\'s warning', () => {
    const { pod } = create(basic(), { name: 'web.example' });
    expect(strategy.warningsOnCreate(ctx(), pod)).toEqual([
      "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
    ]);
  });
});

describe('what PrepareForCreate adds to the spec', () => {
  const term = (extra: Spec) => ({ topologyKey: 'zone', labelSelector: { matchLabels: { app: 'web' } }, ...extra });

  test('matchLabelKeys and mismatchLabelKeys become requirements on the pod’s own labels', () => {
    const { pod, errors } = create(
      basic({
        affinity: {
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ matchLabelKeys: ['rev', 'absent'] })] },
          podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term({ mismatchLabelKeys: ['tier'] }) }] },
        },
      }),
      { labels: { app: 'web', rev: 'abc', tier: 'front' } },
    );
    expect(errors).toEqual([]);
    const aff = pod.spec?.affinity as { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: Spec[] }; podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: Array<{ podAffinityTerm: Spec }> } };
    expect(aff.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]?.labelSelector).toEqual({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'rev', operator: 'In', values: ['abc'] }] });
    expect(aff.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]?.podAffinityTerm.labelSelector).toEqual({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }],
    });
    // An update does not add them again.
    expect(update(basic({ affinity: pod.spec?.affinity }), (p) => (p.spec!.activeDeadlineSeconds = 5)).errors).toEqual([]);
  });

  test('matchLabelKeys are validated as kube does', () => {
    const path = 'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]';
    const affinity = (t: Spec) => basic({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } } });
    expect(errorsOf(affinity({ topologyKey: 'zone', matchLabelKeys: ['app'] }), { labels: { app: 'web' } })).toEqual([`${path}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`]);
    expect(errorsOf(affinity(term({ matchLabelKeys: ['app', 'other'], mismatchLabelKeys: ['other', 'bad key!'] })), { labels: { app: 'web' } }).sort()).toEqual(
      [
        // kube's path for this one is the term's, indexed by the key's position.
        `${path}[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`,
        `${path}.matchLabelKeys[1]: Invalid value: "other": exists in both matchLabelKeys and mismatchLabelKeys`,
        `${path}.mismatchLabelKeys[1]: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ].sort(),
    );
  });

  test('AppArmor: a profile gets the deprecated annotation, an annotation gets the profile and a warning', () => {
    const c = ctx();
    const pod = podOf(
      {
        securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
        containers: [
          { name: 'a', image: 'i', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'prof' } } },
          { name: 'b', image: 'i' },
          { name: 'c', image: 'i' },
          { name: 'd', image: 'i' },
        ],
      },
      { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/d': 'runtime/default' } },
    );
    strategy.defaults?.(pod);
    strategy.prepareForCreate(c, pod);
    expect(pod.metadata.annotations).toEqual({
      'container.apparmor.security.beta.kubernetes.io/a': 'localhost/prof',
      'container.apparmor.security.beta.kubernetes.io/b': 'runtime/default',
      'container.apparmor.security.beta.kubernetes.io/c': 'unconfined',
      'container.apparmor.security.beta.kubernetes.io/d': 'runtime/default',
    });
    // c's annotation differs from the pod's profile, so it becomes c's own; d's is the pod's already.
    expect(pod.spec?.containers?.map((x) => x.securityContext?.appArmorProfile)).toEqual([{ type: 'Localhost', localhostProfile: 'prof' }, undefined, { type: 'Unconfined' }, undefined]);
    expect(c.warnings).toEqual(['metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead']);
    expect(strategy.validate(c, pod)).toEqual([]);
  });

  test('AppArmor annotations must name a container and a profile, and agree with the fields', () => {
    const key = (n: string) => `container.apparmor.security.beta.kubernetes.io/${n}`;
    expect(errorsOf(basic(), { annotations: { [key('nope')]: 'runtime/default', [key('c')]: 'bogus' } }).sort()).toEqual(
      [
        `metadata.annotations[${key('nope')}]: Invalid value: "nope": container not found`,
        `metadata.annotations[${key('c')}]: Invalid value: "bogus": invalid AppArmor profile name: "bogus"`,
      ].sort(),
    );
    const withProfile = { containers: [{ name: 'c', image: 'i', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } } }] };
    expect(errorsOf(withProfile, { annotations: { [key('c')]: 'unconfined' } })).toEqual(['spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match']);
    expect(errorsOf(withProfile, { annotations: { [key('c')]: 'localhost/q' } })).toEqual([
      'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match',
    ]);
  });
});

describe('updates', () => {
  const forbiddenPrefix =
    'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';

  test('the image, activeDeadlineSeconds and added tolerations may change', () => {
    const { errors, pod } = update(basic({ tolerations: [{ key: 'a', operator: 'Exists' }] }), (p) => {
      const spec = p.spec ?? {};
      (spec.containers ?? [])[0]!.image = 'nginx:1.26';
      spec.activeDeadlineSeconds = 100;
      spec.tolerations = [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }];
    });
    expect(errors).toEqual([]);
    expect(pod.spec?.containers?.[0]?.image).toBe('nginx:1.26');
  });

  test('any other spec change is refused with kube\'s message and a diff', () => {
    const { errors } = update(basic(), (p) => {
      p.spec!.restartPolicy = 'Never';
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.startsWith(forbiddenPrefix)).toBe(true);
    expect(errors[0]).toContain('- \tRestartPolicy: "Always",\n+ \tRestartPolicy: "Never",');
  });

  test('containers cannot be added, tolerations not removed, the deadline not raised', () => {
    expect(update(basic(), (p) => p.spec!.containers!.push({ name: 'b', image: 'i' })).errors).toEqual(['spec.containers: Forbidden: pod updates may not add or remove containers']);
    expect(update(basic({ tolerations: [{ key: 'a', operator: 'Exists' }] }), (p) => (p.spec!.tolerations = [])).errors).toEqual([
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
    expect(update(basic({ activeDeadlineSeconds: 10 }), (p) => (p.spec!.activeDeadlineSeconds = 20)).errors).toEqual([
      'spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value',
    ]);
    expect(update(basic({ activeDeadlineSeconds: 10 }), (p) => delete p.spec!.activeDeadlineSeconds).errors).toEqual([
      'spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value',
    ]);
  });

  test('an update keeps the stored status; defaults make an unchanged spec equal', () => {
    const { errors, pod } = update(basic(), (p) => {
      p.status = { phase: 'Running' };
      delete p.spec!.dnsPolicy;
      p.metadata.labels = { a: 'b' };
    });
    expect(errors).toEqual([]);
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  test('status writes keep the spec and refuse a changed qosClass', () => {
    const ok = update(
      basic(),
      (p) => {
        p.spec!.restartPolicy = 'Never';
        p.status = { phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }], containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'nginx:1.25', imageID: '', state: { running: { startedAt: '2024-05-01T10:00:01Z' } } }] };
      },
      statusStrategy,
    );
    expect(ok.errors).toEqual([]);
    expect(ok.pod.spec?.restartPolicy).toBe('Always');
    expect(ok.pod.status?.qosClass).toBe('BestEffort');
    expect(ok.pod.status?.containerStatuses?.[0]?.lastState).toEqual({});
    const bad = update(basic(), (p) => (p.status = { qosClass: 'Guaranteed', podIPs: [{ ip: 'x' }], conditions: [{ type: 'bad type!', status: 'True' }] }), statusStrategy);
    expect(bad.errors.sort()).toEqual(
      [
        'status.qosClass: Invalid value: "Guaranteed": field is immutable',
        'status.podIPs[0]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        `metadata.conditions[0].Type: Invalid value: "bad type!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ].sort(),
    );
  });

  test('a status write cannot set deletionTimestamp (kube clears it; the stored one is put back by the store)', () => {
    const { pod, errors } = update(basic(), (p) => (p.metadata.deletionTimestamp = '2024-05-01T10:00:00Z'), statusStrategy);
    expect(errors).toEqual([]);
    expect(pod.metadata.deletionTimestamp).toBeUndefined();
  });

  test('a terminated container of a Never pod may not run again', () => {
    const term = { name: 'c', ready: false, restartCount: 0, image: 'i', imageID: '', state: { terminated: { exitCode: 0 } } };
    const old = create(basic({ restartPolicy: 'Never' })).pod;
    old.status = { ...old.status, containerStatuses: [term] };
    const next = cloneJson(old);
    next.status!.containerStatuses = [{ ...term, state: { running: {} } }];
    statusStrategy.prepareForUpdate(ctx(), next, old);
    expect(statusStrategy.validateUpdate(ctx(), next, old).map(fieldErrorString)).toEqual([
      'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
    ]);
  });
});

describe('table and field selectors', () => {
  const row = (pod: Pod) => Object.fromEntries((pods.tableColumns ?? []).map((c) => [c.name, c.cell(pod as KubeObject, now)]));

  test('a pending pod, and a running one with restarts', () => {
    const { pod } = create(basic(), { creationTimestamp: '2024-05-01T09:58:00Z' });
    expect(row(pod)).toEqual({ Name: 'p', Ready: '0/1', Status: 'Pending', Restarts: '0', Age: '2m', IP: '<none>', Node: '<none>', 'Nominated Node': '<none>', 'Readiness Gates': '<none>' });
    pod.spec!.nodeName = 'node-1';
    pod.spec!.readinessGates = [{ conditionType: 'example.com/ready' }];
    pod.status = {
      phase: 'Running',
      podIPs: [{ ip: '10.0.0.7' }],
      conditions: [{ type: 'example.com/ready', status: 'True' }],
      containerStatuses: [{ name: 'c', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: '2024-05-01T09:59:00Z' } } }],
    };
    expect(row(pod)).toMatchObject({ Ready: '1/1', Status: 'Running', Restarts: '2 (60s ago)', IP: '10.0.0.7', Node: 'node-1', 'Readiness Gates': '1/1' });
  });

  test('waiting reasons, init containers and deletion show as kube prints them', () => {
    const { pod } = create({ ...basic(), initContainers: [{ name: 'i', image: 'i' }] });
    pod.status = { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'PodInitializing' } } }] };
    expect(row(pod).Status).toBe('Init:0/1');
    pod.status = { phase: 'Pending', containerStatuses: [{ name: 'c', state: { waiting: { reason: 'ImagePullBackOff' } } }] };
    expect(row(pod).Status).toBe('ImagePullBackOff');
    pod.metadata.deletionTimestamp = '2024-05-01T10:00:00Z';
    expect(row(pod).Status).toBe('Terminating');
  });

  test('selectable fields', () => {
    const { pod } = create(basic({ nodeName: 'n1', serviceAccountName: 'sa' }));
    const fields = Object.fromEntries(Object.entries(pods.selectableFields).map(([k, f]) => [k, f(pod)]));
    expect(fields).toEqual({
      'spec.nodeName': 'n1',
      'spec.host': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'sa',
      'spec.hostNetwork': 'false',
      'status.phase': 'Pending',
      'status.podIP': '',
      'status.podIPs': '',
      'status.nominatedNodeName': '',
    });
    expect(pods.fieldSelectorError('spec.containers')).toBe('field label not supported: spec.containers');
  });
});

describe('validation tied to spec.os and Windows (kube validateOS, validateLinux, validateWindows, HostProcess)', () => {
  const winForbidden = (path: string) => `${path}: Forbidden: cannot be set for a windows pod`;

  test.each<[string, Spec, string[]]>([
    ['an os without a name', basic({ os: {} }), ['spec.os.name: Required value: cannot be empty']],
    ['an unknown os', basic({ os: { name: 'mac' } }), ['spec.os: Unsupported value: "mac": supported values: "linux", "windows"']],
    [
      'a linux pod with Windows options, on the pod and on containers',
      {
        os: { name: 'linux' },
        securityContext: { windowsOptions: { runAsUserName: 'u' } },
        initContainers: [{ name: 'i', image: 'i', securityContext: { windowsOptions: {} } }],
        containers: [{ name: 'c', image: 'i', securityContext: { windowsOptions: { hostProcess: false } } }],
      },
      [
        'spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
        'spec.initContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
        'spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
      ],
    ],
    [
      'a windows pod with Linux-only pod and container fields',
      {
        os: { name: 'windows' },
        hostPID: true,
        hostIPC: true,
        shareProcessNamespace: false,
        securityContext: { runAsUser: 1, runAsGroup: 2, fsGroup: 3, supplementalGroups: [], fsGroupChangePolicy: 'Always', seccompProfile: { type: 'RuntimeDefault' }, seLinuxOptions: { level: 's0' }, sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] },
        containers: [{ name: 'c', image: 'i', securityContext: { privileged: false, capabilities: {}, readOnlyRootFilesystem: true, allowPrivilegeEscalation: true, runAsUser: 1, runAsGroup: 2, seccompProfile: { type: 'RuntimeDefault' } } }],
      },
      [
        // The host IPC namespace also refuses an IPC sysctl.
        "spec.securityContext.sysctls[0].name: Invalid value: \"kernel.shm_rmid_forced\": may not be specified when 'hostIPC' is true",
        winForbidden('spec.securityContext.seLinuxOptions'),
        winForbidden('spec.hostPID'),
        winForbidden('spec.hostIPC'),
        winForbidden('spec.securityContext.seccompProfile'),
        winForbidden('spec.securityContext.fsGroup'),
        winForbidden('spec.securityContext.fsGroupChangePolicy'),
        winForbidden('spec.securityContext.sysctls'),
        winForbidden('spec.shareProcessNamespace'),
        winForbidden('spec.securityContext.runAsUser'),
        winForbidden('spec.securityContext.runAsGroup'),
        winForbidden('spec.securityContext.supplementalGroups'),
        winForbidden('spec.containers[0].securityContext.seccompProfile'),
        winForbidden('spec.containers[0].securityContext.capabilities'),
        winForbidden('spec.containers[0].securityContext.readOnlyRootFilesystem'),
        winForbidden('spec.containers[0].securityContext.privileged'),
        winForbidden('spec.containers[0].securityContext.allowPrivilegeEscalation'),
        winForbidden('spec.containers[0].securityContext.runAsUser'),
        winForbidden('spec.containers[0].securityContext.runAsGroup'),
      ],
    ],
    ['a windows pod with Windows options only', { os: { name: 'windows' }, securityContext: { windowsOptions: { runAsUserName: 'ContainerUser' } }, containers: [{ name: 'c', image: 'i' }] }, []],
    [
      'HostProcess: mixed containers, no host network, and the cluster policy',
      {
        os: { name: 'windows' },
        securityContext: { windowsOptions: { hostProcess: true } },
        containers: [
          { name: 'a', image: 'i' },
          { name: 'b', image: 'i', securityContext: { windowsOptions: { hostProcess: false } } },
        ],
      },
      [
        'spec.containers[1].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
        'spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers',
        'spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
        'spec: Forbidden: hostProcess containers are disallowed by cluster policy',
      ],
    ],
    [
      'HostProcess on the host network: only the cluster policy (kube-apiserver without --allow-privileged)',
      { hostNetwork: true, containers: [{ name: 'a', image: 'i', securityContext: { windowsOptions: { hostProcess: true } } }] },
      ['spec: Forbidden: hostProcess containers are disallowed by cluster policy'],
    ],
  ])('%s', (_name, spec, expected) => {
    expect(errorsOf(spec).sort()).toEqual([...expected].sort());
  });

  test('windowsOptions: gMSA spec name and contents, runAsUserName rules', () => {
    const user = (name: string) => errorsOf({ containers: [{ name: 'c', image: 'i', securityContext: { windowsOptions: { runAsUserName: name } } }] });
    const at = 'spec.containers[0].securityContext.windowsOptions.runAsUserName';
    expect(user('CONTOSO\\svc-web')).toEqual([]);
    expect(user('example.com\\svc')).toEqual([]);
    expect(user('')).toEqual([`${at}: Invalid value: "": runAsUserName cannot be an empty string`]);
    expect(user('a\tb')).toEqual([`${at}: Invalid value: "a\\tb": runAsUserName cannot contain control characters`]);
    expect(user('a\\b\\c')).toEqual([`${at}: Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash`]);
    expect(user('dom\\')).toEqual([`${at}: Invalid value: "dom\\\\": runAsUserName's User cannot be empty`]);
    expect(user('...')).toEqual([`${at}: Invalid value: "...": runAsUserName's User cannot contain only periods or spaces`]);
    expect(user('us:er')).toEqual([`${at}: Invalid value: "us:er": runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`]);
    expect(user('u'.repeat(105))).toEqual([`${at}: Invalid value: "${'u'.repeat(105)}": runAsUserName's User length must not be longer than 104 characters`]);
    expect(user('.bad_domain!\\u')).toEqual([`${at}: Invalid value: ".bad_domain!\\\\u": runAsUserName's Domain doesn't match the NetBios nor the DNS format`]);
    const long = `${'d'.repeat(256)}\\u`;
    expect(user(long)).toEqual([
      `${at}: Invalid value: "${'d'.repeat(256)}\\\\u": runAsUserName's Domain length must be under 256 characters`,
      `${at}: Invalid value: "${'d'.repeat(256)}\\\\u": runAsUserName's Domain doesn't match the NetBios nor the DNS format`,
    ]);
    const pod = errorsOf(basic({ securityContext: { windowsOptions: { gmsaCredentialSpecName: 'Web_Spec', gmsaCredentialSpec: '' } } }));
    expect(pod).toEqual([
      "spec.securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: \"Web_Spec\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string',
    ]);
    const big = errorsOf(basic({ securityContext: { windowsOptions: { gmsaCredentialSpec: 'x'.repeat(64 * 1024 + 1) } } }));
    expect(big).toHaveLength(1);
    expect(big[0]?.endsWith(': gmsaCredentialSpec size must be under 64 KiB')).toBe(true);
  });
});

describe('sysctls in host namespaces (kube validateSysctls, ValidateHostSysctl)', () => {
  const sysctls = (...names: string[]) => ({ sysctls: names.map((name) => ({ name, value: '1' })) });

  test('the host network refuses net.* sysctls, the host IPC namespace kernel.sem/shm*/msg* and fs.mqueue.*', () => {
    expect(errorsOf(basic({ hostNetwork: true, securityContext: sysctls('net.core.somaxconn', 'net/ipv4/ip_forward', 'kernel.shm_rmid_forced', 'vm.swappiness') }))).toEqual([
      "spec.securityContext.sysctls[0].name: Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true",
      "spec.securityContext.sysctls[1].name: Invalid value: \"net/ipv4/ip_forward\": may not be specified when 'hostNetwork' is true",
    ]);
    expect(errorsOf(basic({ hostIPC: true, securityContext: sysctls('kernel.sem', 'kernel.msgmax', 'fs.mqueue.msg_max', 'kernel.shmmax', 'net.ipv4.ping_group_range', 'kernel.shm') }))).toEqual(
      ['kernel.sem', 'kernel.msgmax', 'fs.mqueue.msg_max', 'kernel.shmmax', 'kernel.shm'].map(
        (n, i) => `spec.securityContext.sysctls[${i < 4 ? i : 5}].name: Invalid value: "${n}": may not be specified when 'hostIPC' is true`,
      ),
    );
    // Without the host namespaces, the same names are fine.
    expect(errorsOf(basic({ securityContext: sysctls('net.core.somaxconn', 'kernel.sem') }))).toEqual([]);
  });

  test('a name that repeats or is malformed is reported before the namespace check', () => {
    expect(errorsOf(basic({ hostNetwork: true, securityContext: sysctls('net.a', 'net.a', '') }))).toEqual([
      "spec.securityContext.sysctls[0].name: Invalid value: \"net.a\": may not be specified when 'hostNetwork' is true",
      'spec.securityContext.sysctls[1].name: Duplicate value: "net.a"',
      "spec.securityContext.sysctls[1].name: Invalid value: \"net.a\": may not be specified when 'hostNetwork' is true",
      'spec.securityContext.sysctls[2].name: Required value',
    ]);
  });

  test('an update keeps a pod that already broke the rule (AllowNamespacedSysctlsForHostNetAndHostIPC)', () => {
    const { errors } = update(basic({ hostNetwork: true, securityContext: sysctls('net.core.somaxconn') }), (p) => (p.spec!.containers![0]!.image = 'nginx:1.26'));
    expect(errors).toEqual([]);
  });

  test('hostUsers: false shares no other host namespace (kube names HostPID and HostIPC by their Go fields)', () => {
    // The field is dropped while UserNamespacesSupport is off, unless the stored pod already has it.
    const old = create(basic({ hostNetwork: true, hostPID: true, hostIPC: true })).pod;
    old.spec!.hostUsers = false;
    const next = cloneJson(old);
    strategy.prepareForUpdate(ctx(), next, old);
    expect(strategy.validateUpdate(ctx(), next, old).map(fieldErrorString)).toEqual([
      'spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false',
      'spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false',
      'spec.HostIPC: Forbidden: when `pod.Spec.HostUsers` is false',
    ]);
  });
});

describe('topology spread constraints (kube validateTopologySpreadConstraints)', () => {
  const spread = (...constraints: Spec[]) => errorsOf(basic({ topologySpreadConstraints: constraints }));
  const selector = { matchLabels: { app: 'web' } };

  test('a repeated {topologyKey, whenUnsatisfiable} is reported on the earlier constraint', () => {
    const c = { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' };
    expect(spread(c, { ...c, whenUnsatisfiable: 'ScheduleAnyway' }, c, c)).toEqual([
      'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"',
      'spec.topologySpreadConstraints[2].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"',
    ]);
  });

  test('minDomains: not positive and not with DoNotSchedule are two errors', () => {
    expect(spread({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 0 })).toEqual([
      'spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero',
      'spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway',
    ]);
    expect(spread({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 })).toEqual([]);
  });

  test('matchLabelKeys: label names, only beside a selector, not already in it; the topology key is only required', () => {
    expect(spread({ maxSkew: 1, topologyKey: 'any key!', whenUnsatisfiable: 'DoNotSchedule', matchLabelKeys: ['pod-template-hash'] })).toEqual([
      'spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set',
    ]);
    expect(spread({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector, matchLabelKeys: ['app', 'bad key!'] })).toEqual([
      'spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector',
      `spec.topologySpreadConstraints[0].matchLabelKeys[1]: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
    expect(spread({ maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'DoNotSchedule', nodeAffinityPolicy: 'Always' })).toEqual([
      'spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty',
      'spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: "Always": supported values: "Honor", "Ignore"',
    ]);
  });
});

describe('the scheduler.alpha.kubernetes.io/tolerations annotation (kube ValidateTolerationsInPodAnnotations)', () => {
  const withAnnotation = (value: string) => errorsOf(basic(), { annotations: { 'scheduler.alpha.kubernetes.io/tolerations': value } });
  const undecodable = (err: string) => [`metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": ${err}`];

  test.each<[string, string[]]>([
    ['[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":30}]', []],
    ['null', []],
    ['[]', []],
    ['nope', undecodable("invalid character 'o' in literal null (expecting 'u')")],
    ['[{"key":"k"}', undecodable('unexpected end of JSON input')],
    ['{}', undecodable('json: cannot unmarshal object into Go value of type []core.Toleration')],
    ['["x"]', undecodable('json: cannot unmarshal string into Go value of type core.Toleration')],
    ['[{"key":1}]', undecodable('json: cannot unmarshal number into Go struct field Toleration.key of type string')],
    ['[{"Operator":true}]', undecodable('json: cannot unmarshal bool into Go struct field Toleration.operator of type core.TolerationOperator')],
    ['[{"effect":["NoSchedule"]}]', undecodable('json: cannot unmarshal array into Go struct field Toleration.effect of type core.TaintEffect')],
    ['[{"tolerationSeconds":1.5}]', undecodable('json: cannot unmarshal number 1.5 into Go struct field Toleration.tolerationSeconds of type int64')],
    ['[{"tolerationSeconds":"5"}]', undecodable('json: cannot unmarshal string into Go struct field Toleration.tolerationSeconds of type int64')],
    [
      '[{"KEY":"k","operator":"Exists","value":"v","extra":{"a":[1]}},{"operator":"Exists","effect":"Sometimes"},{"key":"k","tolerationSeconds":9}]',
      [
        "metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
        'metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[1].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        "metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[2].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set",
      ],
    ],
  ])('%s', (value, expected) => {
    expect(withAnnotation(value)).toEqual(expected);
  });

  test('deeply nested values decode within Go\'s limit and without exhausting the stack', () => {
    expect(withAnnotation(`[{"operator":"Exists","extra":${'['.repeat(9000)}${']'.repeat(9000)}}]`)).toEqual([]);
    expect(withAnnotation(`[${'['.repeat(20000)}`)).toEqual(undecodable("invalid character '[' exceeded max depth"));
  });
});

describe('a gated pod may add to its nodeSelector and narrow its required node affinity (kube validateNodeAffinityMutation)', () => {
  const required = (terms: unknown[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
  const zone = { key: 'zone', operator: 'In', values: ['a'] };
  const gated = basic({ schedulingGates: [{ name: 'example.com/wait' }], nodeSelector: { disk: 'ssd' }, affinity: required([{ matchExpressions: [zone] }]) });
  const termsPath = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';

  test('additions are allowed, also with the gate removed in the same write', () => {
    const { errors, pod } = update(gated, (p) => {
      p.spec!.nodeSelector = { disk: 'ssd', arch: 'arm64' };
      p.spec!.affinity = required([{ matchExpressions: [zone, { key: 'rack', operator: 'Exists' }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]);
      (p.spec!.affinity as Record<string, unknown>).podAffinity = undefined;
      p.spec!.schedulingGates = [];
    });
    expect(errors).toEqual([]);
    expect(pod.spec?.nodeSelector).toEqual({ disk: 'ssd', arch: 'arm64' });
    // A gated pod without any affinity may be given one.
    expect(update(basic({ schedulingGates: [{ name: 'g' }] }), (p) => (p.spec!.affinity = required([{ matchExpressions: [zone] }]))).errors).toEqual([]);
  });

  test('changes to existing entries are refused with kube\'s messages and Go values', () => {
    expect(update(gated, (p) => (p.spec!.nodeSelector = { disk: 'hdd' })).errors).toEqual([
      'spec.nodeSelector: Invalid value: map[string]string{"disk":"hdd"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)',
    ]);
    expect(update(gated, (p) => (p.spec!.affinity = required([{ matchExpressions: [{ ...zone, values: ['b'] }] }]))).errors).toEqual([
      `${termsPath}[0]: Invalid value: core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"zone", Operator:"In", Values:[]string{"b"}}}, MatchFields:[]core.NodeSelectorRequirement(nil)}: only additions are allowed (no mutations or deletions)`,
    ]);
    expect(update(gated, (p) => (p.spec!.affinity = required([{ matchExpressions: [zone] }, {}]))).errors).toEqual([
      `${termsPath}: Invalid value: []core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"zone", Operator:"In", Values:[]string{"a"}}}, MatchFields:[]core.NodeSelectorRequirement(nil)}, core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement(nil), MatchFields:[]core.NodeSelectorRequirement(nil)}}: no additions/deletions to non-empty NodeSelectorTerms list are allowed`,
    ]);
    expect(update(gated, (p) => delete p.spec!.affinity).errors).toEqual([`${termsPath}: Invalid value: []core.NodeSelectorTerm(nil): no additions/deletions to non-empty NodeSelectorTerms list are allowed`]);
  });

  test('a pod without gates may change neither', () => {
    const { errors } = update(basic({ nodeSelector: { disk: 'ssd' } }), (p) => (p.spec!.nodeSelector = { disk: 'ssd', arch: 'arm64' }));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^spec: Forbidden: pod updates may not change fields other than/);
  });
});

describe('pods/status: disabled features\' status fields are dropped; resource claim statuses validated', () => {
  const richStatus = () => ({
    phase: 'Running',
    resize: 'InProgress',
    resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'p-gpu' }],
    containerStatuses: [
      {
        name: 'c',
        ready: true,
        restartCount: 0,
        image: 'nginx:1.25',
        imageID: '',
        state: { running: {} },
        resources: { requests: { cpu: '1' } },
        allocatedResources: { cpu: '1' },
        user: { linux: { uid: 0, gid: 0 } },
        allocatedResourcesStatus: [{ name: 'cpu', resources: [] }],
        volumeMounts: [{ name: 'v', mountPath: '/v' }],
      },
    ],
  });

  test('resources, resize, allocatedResources, user, allocatedResourcesStatus and resourceClaimStatuses go; volumeMounts stay (RecursiveReadOnlyMounts is on)', () => {
    const { pod, errors } = update(basic(), (p) => (p.status = richStatus() as Pod['status']), statusStrategy);
    expect(errors).toEqual([]);
    expect(pod.status).toEqual({
      phase: 'Running',
      qosClass: 'BestEffort',
      containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'nginx:1.25', imageID: '', state: { running: {} }, lastState: {}, volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
    });
  });

  test('a stored pod that uses a feature keeps its status fields (resize policy, resource claims)', () => {
    const old = create(basic()).pod;
    old.spec!.containers![0]!.resizePolicy = [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }];
    old.spec!.resourceClaims = [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }];
    const next = cloneJson(old);
    next.status = richStatus() as Pod['status'];
    statusStrategy.prepareForUpdate(ctx(), next, old);
    expect(statusStrategy.validateUpdate(ctx(), next, old).map(fieldErrorString)).toEqual([]);
    expect(next.status?.resize).toBe('InProgress');
    expect(next.status?.resourceClaimStatuses).toEqual([{ name: 'gpu', resourceClaimName: 'p-gpu' }]);
    expect(next.status?.containerStatuses?.[0]?.resources).toEqual({ requests: { cpu: '1' } });
    // allocatedResources also needs InPlacePodVerticalScalingAllocatedStatus, off in 1.32.
    expect(next.status?.containerStatuses?.[0]?.allocatedResources).toBeUndefined();
  });

  test('resourceClaimStatuses: a known claim, once, with a DNS subdomain name (at the entry\'s name, as kube reports it)', () => {
    const old = create(basic()).pod;
    old.spec!.resourceClaims = [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }];
    const next = cloneJson(old);
    next.status!.resourceClaimStatuses = [{ name: 'gpu', resourceClaimName: 'Bad_Name' }, { name: 'gpu' }, { name: 'other' }];
    statusStrategy.prepareForUpdate(ctx(), next, old);
    expect(statusStrategy.validateUpdate(ctx(), next, old).map(fieldErrorString)).toEqual([
      "status.resourceClaimStatuses[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'status.resourceClaimStatuses[1].name: Duplicate value: "gpu"',
      'status.resourceClaimStatuses[2].name: Invalid value: "other": must match the name of an entry in `spec.resourceClaims`',
    ]);
  });

  test('the gates the drop reads are kube-apiserver 1.32\'s defaults', () => {
    for (const [name, on] of Object.entries(podFeatureGates)) expect([name, knownFeatureGates.get(name)?.default]).toEqual([name, on]);
  });
});

describe('Table: kube\'s column descriptions and row conditions', () => {
  const table = (...phases: string[]) =>
    toTable(
      pods,
      phases.map((phase, i) => ({ ...create(basic(), { name: `p${i}`, creationTimestamp: '2024-05-01T09:00:00Z' }).pod, status: { phase } }) as KubeObject),
      { apiVersion: 'meta.k8s.io/v1', includeObject: 'None', listMeta: { resourceVersion: '5' }, now },
    ) as { columnDefinitions: Array<{ name: string; description: string }>; rows: Array<Record<string, unknown>> };

  test('a Succeeded or Failed pod\'s row is Completed; other rows carry no conditions', () => {
    const t = table('Succeeded', 'Failed', 'Running', 'Pending');
    expect(t.rows.map((r) => r.conditions)).toEqual([
      [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }],
      [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }],
      undefined,
      undefined,
    ]);
    // meta/v1 TableRow's field order.
    expect(Object.keys(t.rows[0] ?? {})).toEqual(['cells', 'conditions']);
  });

  test('every column is described; Name and Age share the descriptions of every other table', () => {
    const d = Object.fromEntries(table('Pending').columnDefinitions.map((c) => [c.name, c.description]));
    expect(Object.keys(d)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    for (const text of Object.values(d)) expect(text).toMatch(/^\S.{10,}/);
    expect(d.Name).toBe(objectMetaNameDescription);
    expect(d.Age).toBe(objectMetaCreationTimestampDescription);
  });
});

describe('the pod-deletion-cost annotation (kube GetDeletionCostFromPodAnnotations)', () => {
  const cost = (v: string) => ({ annotations: { 'controller.kubernetes.io/pod-deletion-cost': v } });
  const bad = (v: string) => `metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "${v}": must be a 32bit integer`;

  test('a 32-bit integer without a plus sign or leading zeros', () => {
    for (const v of ['0', '10', '-5', '-007', '2147483647', '-2147483648']) expect([v, errorsOf(basic(), cost(v))]).toEqual([v, []]);
    for (const v of ['+10', '008', '', '1.5', '2147483648', '-', 'x']) expect(errorsOf(basic(), cost(v))).toEqual([bad(v)]);
  });

  test('an update lists the error twice (kube validates the annotations twice); a stored bad value may stay', () => {
    const added = update(basic(), (p) => (p.metadata.annotations = { 'controller.kubernetes.io/pod-deletion-cost': '+1' }));
    expect(added.errors).toEqual([bad('+1'), bad('+1')]);
    const old = create(basic(), cost('+1')).pod;
    const next = cloneJson(old);
    next.spec!.containers![0]!.image = 'nginx:1.26';
    strategy.prepareForUpdate(ctx(), next, old);
    expect(strategy.validateUpdate(ctx(), next, old)).toEqual([]);
  });
});
