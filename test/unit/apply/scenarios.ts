/**
 * Server-side apply scenarios as data, from kube's documented behaviour (kubernetes.io
 * "Server-Side Apply": conflicts, sharing, force, dropping fields, transferring ownership,
 * first apply, reset; kube-facts §1.8 and §17). Each step is an apply or update by a manager;
 * expectations are the object (metadata.managedFields aside), the managedFields entries
 * (manager, operation, apiVersion, fieldsV1 text, subresource) or the error.
 */
import type { kinds } from './schemas';

export interface Expected {
  object?: Record<string, unknown>;
  /** [manager, operation, apiVersion, fieldsV1 JSON, subresource?] in kube's order. */
  managedFields?: Array<[string, 'Apply' | 'Update', string, string, string?]> | null;
  /** Managers whose entry carries no time. */
  untimed?: string[];
  error?: { code: number; message: string; causes?: Array<{ reason: string; message: string; field: string }> };
}

export interface Step {
  op: 'apply' | 'update';
  manager: string;
  /** The apply configuration, or the full object written by an update (create when nothing exists). */
  object: Record<string, unknown>;
  force?: boolean;
  apiVersion?: string;
  subresource?: string;
  /** Paths (dotted) the strategy resets for this request. */
  resetFields?: string[];
  expect?: Expected;
}

export interface Scenario {
  name: string;
  kind: keyof typeof kinds;
  /** An object already stored (with uid), e.g. created before managedFields were tracked. */
  initial?: Record<string, unknown>;
  steps: Step[];
}

const cm = (data: Record<string, string>, labels?: Record<string, string>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'test-cm', namespace: 'default', ...(labels ? { labels } : {}) },
  data,
});
const cmObj = (data: Record<string, string> | undefined, labels?: Record<string, string>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'test-cm', namespace: 'default', ...(labels ? { labels } : {}) },
  ...(data ? { data } : {}),
});
const widget = (spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default' },
  spec,
});
const DATA_KEY = '{"f:data":{"f:key":{}}}';

export const scenarios: Scenario[] = [
  {
    name: 'the documentation example: kubectl applies a ConfigMap (create through apply)',
    kind: 'ConfigMap',
    steps: [
      {
        op: 'apply',
        manager: 'kubectl',
        object: cm({ key: 'some value' }, { 'test-label': 'test' }),
        expect: {
          object: cmObj({ key: 'some value' }, { 'test-label': 'test' }),
          managedFields: [['kubectl', 'Apply', 'v1', '{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:test-label":{}}}}']],
        },
      },
    ],
  },
  {
    name: 'conflict with another applier; force moves ownership',
    kind: 'ConfigMap',
    steps: [
      { op: 'apply', manager: 'kubectl', object: cm({ key: 'a' }, { l: 'x' }) },
      {
        op: 'apply',
        manager: 'other',
        object: cm({ key: 'b' }),
        expect: {
          error: {
            code: 409,
            message: 'Apply failed with 1 conflict: conflict with "kubectl": .data.key',
            causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.data.key' }],
          },
        },
      },
      {
        op: 'apply',
        manager: 'other',
        object: cm({ key: 'b' }),
        force: true,
        expect: {
          object: cmObj({ key: 'b' }, { l: 'x' }),
          managedFields: [
            ['kubectl', 'Apply', 'v1', '{"f:metadata":{"f:labels":{"f:l":{}}}}'],
            ['other', 'Apply', 'v1', DATA_KEY],
          ],
        },
      },
    ],
  },
  {
    name: 'equal values are shared; a later change by either conflicts; dropping a shared field keeps it',
    kind: 'ConfigMap',
    steps: [
      { op: 'apply', manager: 'a', object: cm({ key: 'v' }) },
      {
        op: 'apply',
        manager: 'b',
        object: cm({ key: 'v' }),
        // kube quirk: an apply that changes nothing records no time, so its entry sorts first.
        expect: { object: cmObj({ key: 'v' }), managedFields: [['b', 'Apply', 'v1', DATA_KEY], ['a', 'Apply', 'v1', DATA_KEY]], untimed: ['b'] },
      },
      {
        op: 'apply',
        manager: 'a',
        object: cm({ key: 'w' }),
        expect: { error: { code: 409, message: 'Apply failed with 1 conflict: conflict with "b": .data.key' } },
      },
      {
        op: 'apply',
        manager: 'a',
        object: cmObj(undefined),
        expect: { object: cmObj({ key: 'v' }), managedFields: [['b', 'Apply', 'v1', DATA_KEY]], untimed: ['b'] },
      },
    ],
  },
  {
    name: 'a field dropped from a later apply is removed when no one else owns it',
    kind: 'ConfigMap',
    steps: [
      { op: 'apply', manager: 'kubectl', object: cm({ key: 'a', other: 'b' }, { l: 'x' }) },
      {
        op: 'apply',
        manager: 'kubectl',
        object: cm({ other: 'b' }),
        expect: { object: cmObj({ other: 'b' }), managedFields: [['kubectl', 'Apply', 'v1', '{"f:data":{"f:other":{}}}']] },
      },
      {
        op: 'apply',
        manager: 'kubectl',
        object: cmObj(undefined, { l: 'y' }),
        expect: { object: cmObj(undefined, { l: 'y' }), managedFields: [['kubectl', 'Apply', 'v1', '{"f:metadata":{"f:labels":{"f:l":{}}}}']] },
      },
    ],
  },
  {
    name: 'an update takes ownership of what it changes without conflict; the applier then conflicts with it',
    kind: 'ConfigMap',
    steps: [
      { op: 'apply', manager: 'kubectl', object: cm({ key: 'a' }, { l: 'x' }) },
      {
        op: 'update',
        manager: 'controller',
        object: cmObj({ key: 'b' }, { l: 'x' }),
        expect: {
          object: cmObj({ key: 'b' }, { l: 'x' }),
          managedFields: [
            ['kubectl', 'Apply', 'v1', '{"f:metadata":{"f:labels":{"f:l":{}}}}'],
            ['controller', 'Update', 'v1', DATA_KEY],
          ],
        },
      },
      {
        op: 'apply',
        manager: 'kubectl',
        object: cm({ key: 'a' }, { l: 'x' }),
        expect: { error: { code: 409, message: 'Apply failed with 1 conflict: conflict with "controller" using v1: .data.key' } },
      },
      {
        // Transferring ownership: the applier adopts the live value, then the updater can drop out.
        op: 'apply',
        manager: 'kubectl',
        object: cm({ key: 'b' }, { l: 'x' }),
        expect: {
          managedFields: [
            ['kubectl', 'Apply', 'v1', '{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:l":{}}}}'],
            ['controller', 'Update', 'v1', DATA_KEY],
          ],
        },
      },
    ],
  },
  {
    name: 'several conflicts are grouped by manager',
    kind: 'ConfigMap',
    steps: [
      { op: 'apply', manager: 'a', object: cm({ x: '1', y: '1' }) },
      { op: 'update', manager: 'b', object: cmObj({ x: '1', y: '1', z: '1' }) },
      {
        op: 'apply',
        manager: 'c',
        object: cm({ x: '2', y: '2', z: '2' }),
        expect: {
          error: {
            code: 409,
            message:
              'Apply failed with 3 conflicts: conflicts with "a":\n- .data.x\n- .data.y\nconflicts with "b" using v1:\n- .data.z',
          },
        },
      },
    ],
  },
  {
    name: 'create by update records every field (kube-facts §17 Secret example)',
    kind: 'Secret',
    steps: [
      {
        op: 'update',
        manager: 'kubectl-client-side-apply',
        object: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 's', namespace: 'default', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
          data: { password: 'cGFzcw==' },
          type: 'Opaque',
        },
        expect: {
          managedFields: [
            [
              'kubectl-client-side-apply',
              'Update',
              'v1',
              '{"f:data":{".":{},"f:password":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},"f:type":{}}',
            ],
          ],
        },
      },
    ],
  },
  {
    name: 'the first apply to an untracked object attributes existing fields to before-first-apply; updates do not start tracking',
    kind: 'ConfigMap',
    initial: { ...cmObj({ key: 'a' }), metadata: { name: 'test-cm', namespace: 'default', uid: 'u1' } },
    steps: [
      {
        op: 'update',
        manager: 'kubectl-edit',
        object: { ...cmObj({ key: 'b' }), metadata: { name: 'test-cm', namespace: 'default', uid: 'u1' } },
        expect: { managedFields: null },
      },
      {
        op: 'apply',
        manager: 'kubectl',
        object: cm({ other: 'c' }),
        expect: {
          object: { ...cmObj({ key: 'b', other: 'c' }), metadata: { name: 'test-cm', namespace: 'default', uid: 'u1' } },
          managedFields: [
            ['kubectl', 'Apply', 'v1', '{"f:data":{"f:other":{}}}'],
            // compared with the empty object, the data map itself was added
            ['before-first-apply', 'Update', 'v1', '{"f:data":{".":{},"f:key":{}}}'],
          ],
        },
      },
    ],
  },
  {
    name: 'Update entries are per manager and apiVersion; Apply entries per manager whatever the version',
    kind: 'Widget',
    steps: [
      { op: 'update', manager: 'm', object: widget({ replicas: 1 }), apiVersion: 'example.com/v1' },
      {
        op: 'update',
        manager: 'm',
        object: widget({ replicas: 1, args: ['x'] }),
        apiVersion: 'example.com/v2',
        expect: {
          managedFields: [
            ['m', 'Update', 'example.com/v1', '{"f:spec":{".":{},"f:replicas":{}}}'],
            ['m', 'Update', 'example.com/v2', '{"f:spec":{"f:args":{}}}'],
          ],
        },
      },
      { op: 'apply', manager: 'a', object: widget({ tags: ['t'] }), apiVersion: 'example.com/v1' },
      {
        op: 'apply',
        manager: 'a',
        object: widget({ tags: ['t', 'u'] }),
        apiVersion: 'example.com/v2',
        expect: {
          managedFields: [
            ['a', 'Apply', 'example.com/v2', '{"f:spec":{"f:tags":{"v:\\"t\\"":{},"v:\\"u\\"":{}}}}'],
            ['m', 'Update', 'example.com/v1', '{"f:spec":{".":{},"f:replicas":{}}}'],
            ['m', 'Update', 'example.com/v2', '{"f:spec":{"f:args":{}}}'],
          ],
        },
      },
    ],
  },
  {
    name: 'list maps merge by key: appliers own their items; the same key conflicts on changed fields',
    kind: 'Widget',
    steps: [
      { op: 'apply', manager: 'm1', object: widget({ containers: [{ name: 'a', image: 'x' }] }) },
      {
        op: 'apply',
        manager: 'm2',
        object: widget({ containers: [{ name: 'b', image: 'y' }] }),
        expect: {
          object: widget({ containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] }),
          managedFields: [
            ['m1', 'Apply', 'v1', '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:image":{},"f:name":{}}}}}'],
            ['m2', 'Apply', 'v1', '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"b\\"}":{".":{},"f:image":{},"f:name":{}}}}}'],
          ],
        },
      },
      {
        op: 'apply',
        manager: 'm2',
        object: widget({ containers: [{ name: 'b', image: 'y' }, { name: 'a', image: 'z' }] }),
        expect: { error: { code: 409, message: 'Apply failed with 1 conflict: conflict with "m1": .spec.containers[name="a"].image' } },
      },
      {
        op: 'apply',
        manager: 'm1',
        object: widget({}),
        expect: { object: widget({ containers: [{ name: 'b', image: 'y' }] }) },
      },
    ],
  },
  {
    name: 'atomic lists and maps are owned and replaced whole',
    kind: 'Widget',
    steps: [
      { op: 'apply', manager: 'm1', object: widget({ args: ['a', 'b'], selector: { x: '1' } }) },
      {
        op: 'apply',
        manager: 'm2',
        object: widget({ args: ['c'], selector: { x: '1' } }),
        expect: { error: { code: 409, message: 'Apply failed with 1 conflict: conflict with "m1": .spec.args' } },
      },
      {
        op: 'apply',
        manager: 'm2',
        object: widget({ args: ['c'] }),
        force: true,
        expect: {
          object: widget({ args: ['c'], selector: { x: '1' } }),
          managedFields: [
            ['m1', 'Apply', 'v1', '{"f:spec":{"f:selector":{}}}'],
            ['m2', 'Apply', 'v1', '{"f:spec":{"f:args":{}}}'],
          ],
        },
      },
    ],
  },
  {
    name: 'managedFields in an apply body are rejected',
    kind: 'ConfigMap',
    steps: [
      {
        op: 'apply',
        manager: 'kubectl',
        object: { ...cm({}), metadata: { name: 'test-cm', managedFields: [] } },
        expect: { error: { code: 400, message: 'metadata.managedFields must be nil' } },
      },
      {
        op: 'apply',
        manager: 'kubectl',
        object: { ...cm({}), spec: { x: 1 } },
        expect: { error: { code: 500, message: 'failed to create typed patch object (default/test-cm; /v1, Kind=ConfigMap): .spec: field not declared in schema' } },
      },
    ],
  },
  {
    name: 'a reset ([{}]) clears managedFields; an empty list does not',
    kind: 'ConfigMap',
    steps: [
      { op: 'apply', manager: 'kubectl', object: cm({ key: 'a' }) },
      {
        op: 'update',
        manager: 'kubectl-patch',
        object: { ...cmObj({ key: 'a' }), metadata: { name: 'test-cm', namespace: 'default', uid: 'u1', managedFields: [] } },
        expect: { managedFields: [['kubectl', 'Apply', 'v1', DATA_KEY]] },
      },
      {
        op: 'update',
        manager: 'kubectl-patch',
        object: { ...cmObj({ key: 'a' }), metadata: { name: 'test-cm', namespace: 'default', uid: 'u1', managedFields: [{}] } },
        expect: { managedFields: null },
      },
    ],
  },
  {
    name: 'status subresource writes get their own entries; reset fields are never owned',
    kind: 'ResourceQuota',
    steps: [
      {
        op: 'update',
        manager: 'kubectl-create',
        object: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { pods: '10' } }, status: {} },
        resetFields: ['status'],
        expect: { managedFields: [['kubectl-create', 'Update', 'v1', '{"f:spec":{"f:hard":{".":{},"f:pods":{}}}}']] },
      },
      {
        op: 'update',
        manager: 'kube-controller-manager',
        subresource: 'status',
        resetFields: ['spec'],
        object: {
          apiVersion: 'v1',
          kind: 'ResourceQuota',
          metadata: { name: 'q', namespace: 'default' },
          spec: { hard: { pods: '10' } },
          status: { hard: { pods: '10' }, used: { pods: '0' } },
        },
        expect: {
          managedFields: [
            ['kubectl-create', 'Update', 'v1', '{"f:spec":{"f:hard":{".":{},"f:pods":{}}}}'],
            ['kube-controller-manager', 'Update', 'v1', '{"f:status":{"f:hard":{".":{},"f:pods":{}},"f:used":{".":{},"f:pods":{}}}}', 'status'],
          ],
        },
      },
      {
        op: 'apply',
        manager: 'other',
        subresource: 'status',
        resetFields: ['spec'],
        object: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, status: { used: { pods: '5' } } },
        expect: {
          error: {
            code: 409,
            message: 'Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource "status" using v1: .status.used.pods',
          },
        },
      },
    ],
  },
];
