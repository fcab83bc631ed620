/** kube's DefaultTolerationSeconds admission plugin: the not-ready and unreachable NoExecute tolerations. */
import { KubeObject, RequestContext } from '../../../../src/api';
import { AdmissionAttributes, newAdmissionPlugins } from '../../../../src/admission';
import { defaultTolerationSeconds } from '../../../../src/admission/plugins/default-toleration-seconds';
import { podAttributes } from '../../../support/admission';

const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };
const podAttrs = (spec: Record<string, unknown>, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes =>
  podAttributes({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }], ...spec } } as KubeObject, over);
const tolerationsOf = (a: AdmissionAttributes) => (a.object as KubeObject & { spec: { tolerations?: unknown[] } }).spec.tolerations;
const notReady = (s: number) => ({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s });
const unreachable = (s: number) => ({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s });

const plugin = defaultTolerationSeconds({ notReady: 300, unreachable: 300 });

test.each([
  ['none', [], [notReady(300), unreachable(300)]],
  ['another taint', [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' }], [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' }, notReady(300), unreachable(300)]],
  ['not-ready tolerated for 10 s', [notReady(10)], [notReady(10), unreachable(300)]],
  ['unreachable with no effect', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }], [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }, notReady(300)]],
  ['every key, NoExecute', [{ operator: 'Exists', effect: 'NoExecute' }], [{ operator: 'Exists', effect: 'NoExecute' }]],
  ['every key, NoSchedule only', [{ operator: 'Exists', effect: 'NoSchedule' }], [{ operator: 'Exists', effect: 'NoSchedule' }, notReady(300), unreachable(300)]],
])('tolerations: %s', async (_what, tolerations, expected) => {
  const a = podAttrs({ tolerations });
  await plugin.admit?.(ctx, a);
  expect(tolerationsOf(a)).toEqual(expected);
});

test('the flags’ seconds; updates too; never subresources or other resources', async () => {
  const a = podAttrs({});
  await defaultTolerationSeconds({ notReady: 60, unreachable: 0 }).admit?.(ctx, a);
  expect(tolerationsOf(a)).toEqual([notReady(60), unreachable(0)]);
  const update = podAttrs({}, { operation: 'UPDATE' });
  await plugin.admit?.(ctx, update);
  expect(tolerationsOf(update)).toEqual([notReady(300), unreachable(300)]);
  for (const over of [{ subresource: 'status' }, { resource: 'secrets', kind: 'Secret' }, { group: 'example.com' }]) {
    const other = podAttrs({}, over);
    await plugin.admit?.(ctx, other);
    expect(tolerationsOf(other)).toBeUndefined();
  }
  expect(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].filter((o) => plugin.handles(o as never))).toEqual(['CREATE', 'UPDATE']);
});

test('on by default, mutating only, with kube’s 300 s when the server gives no flags', async () => {
  const plugins = newAdmissionPlugins();
  expect(plugins.enabledPluginNames()).toContain('DefaultTolerationSeconds');
  const chain = plugins.newFromPlugins(['DefaultTolerationSeconds'], {}, {});
  expect([chain.mutating, chain.validating]).toEqual([['DefaultTolerationSeconds'], []]);
  const a = podAttrs({});
  await chain.admit(ctx, a);
  expect(tolerationsOf(a)).toEqual([notReady(300), unreachable(300)]);
  const set = plugins.newFromPlugins(['DefaultTolerationSeconds'], {}, { defaultTolerationSeconds: { notReady: 1, unreachable: 2 } });
  const b = podAttrs({});
  await set.admit(ctx, b);
  expect(tolerationsOf(b)).toEqual([notReady(1), unreachable(2)]);
});
