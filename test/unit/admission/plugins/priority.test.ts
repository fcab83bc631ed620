/** kube's Priority admission plugin: pods' priority and preemptionPolicy from their class, the global default, PriorityClass writes. */
import { ApiError, KubeObject, RequestContext } from '../../../../src/api';
import { AdmissionAttributes, PriorityClassLister, newAdmissionPlugins } from '../../../../src/admission';
import { priorityPlugin } from '../../../../src/admission/plugins/priority';
import { podAttributes } from '../../../support/admission';

const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };
const pc = (name: string, value: number, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, preemptionPolicy: 'PreemptLowerPriority', ...extra }) as KubeObject;

function lister(classes: KubeObject[], live?: PriorityClassLister['live']): PriorityClassLister {
  return { get: (n) => classes.find((c) => c.metadata.name === n), list: () => classes, ...(live ? { live } : {}) };
}

const podAttrs = (spec: Record<string, unknown>, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes =>
  podAttributes({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c' }], ...spec } } as KubeObject, over);
const pcAttrs = (obj: KubeObject, operation: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionAttributes => ({
  operation,
  group: 'scheduling.k8s.io',
  version: 'v1',
  resource: 'priorityclasses',
  subresource: '',
  kind: 'PriorityClass',
  namespace: '',
  name: obj.metadata.name ?? '',
  namespaced: false,
  dryRun: false,
  object: obj,
});
const specOf = (a: AdmissionAttributes) => (a.object as KubeObject & { spec: Record<string, unknown> }).spec;

async function rejection(p: Promise<unknown> | undefined): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return (e as ApiError).status;
  }
  return undefined;
}

describe('pods', () => {
  test('no class and no default: priority 0, PreemptLowerPriority, no class name', async () => {
    const a = podAttrs({});
    await priorityPlugin(lister([])).admit?.(ctx, a);
    expect(specOf(a)).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(specOf(a).priorityClassName).toBeUndefined();
  });

  test('a named class gives its value and policy', async () => {
    const a = podAttrs({ priorityClassName: 'quiet' });
    await priorityPlugin(lister([pc('quiet', 42, { preemptionPolicy: 'Never' })])).admit?.(ctx, a);
    expect(specOf(a)).toMatchObject({ priorityClassName: 'quiet', priority: 42, preemptionPolicy: 'Never' });
  });

  test('the global default, the lowest of several, names itself on the pod', async () => {
    const classes = [pc('a', 300, { globalDefault: true }), pc('b', 200, { globalDefault: true, preemptionPolicy: 'Never' }), pc('c', 1)];
    const a = podAttrs({});
    await priorityPlugin(lister(classes)).admit?.(ctx, a);
    expect(specOf(a)).toMatchObject({ priorityClassName: 'b', priority: 200, preemptionPolicy: 'Never' });
  });

  test('a missing class is kube’s 403, after one live read', async () => {
    const asked: string[] = [];
    const plugin = priorityPlugin(lister([], async (n) => (asked.push(n), undefined)));
    expect(await rejection(plugin.admit?.(ctx, podAttrs({ priorityClassName: 'gone' })))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "p" is forbidden: no PriorityClass with name gone was found',
      reason: 'Forbidden',
      details: { name: 'p', kind: 'pods' },
      code: 403,
    });
    expect(asked).toEqual(['gone']);
    // A generated name: the request has none yet.
    const generated = podAttrs({ priorityClassName: 'gone' }, { name: '' });
    (generated.object as KubeObject).metadata = { generateName: 'web-' };
    expect(((await rejection(plugin.admit?.(ctx, generated))) as { message: string }).message).toBe('pods "web-" is forbidden: no PriorityClass with name gone was found');
  });

  test('a class the informer lacks yet is found by the live read; a failing read is a plain 500', async () => {
    const a = podAttrs({ priorityClassName: 'new' });
    await priorityPlugin(lister([], async () => pc('new', 7))).admit?.(ctx, a);
    expect(specOf(a).priority).toBe(7);
    const st = await rejection(priorityPlugin(lister([], async () => Promise.reject(new Error('etcd away')))).admit?.(ctx, podAttrs({ priorityClassName: 'new' })));
    expect(st).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'failed to get PriorityClass with name new: etcd away', code: 500 });
  });

  test('a client-set priority or policy must be the computed one', async () => {
    const plugin = priorityPlugin(lister([pc('quiet', 42, { preemptionPolicy: 'Never' })]));
    expect(((await rejection(plugin.admit?.(ctx, podAttrs({ priorityClassName: 'quiet', priority: 41 })))) as { message: string }).message).toBe(
      'pods "p" is forbidden: the integer value of priority (41) must not be provided in pod spec; priority admission controller computed 42 from the given PriorityClass name',
    );
    expect(((await rejection(plugin.admit?.(ctx, podAttrs({ priorityClassName: 'quiet', preemptionPolicy: 'PreemptLowerPriority' })))) as { message: string }).message).toBe(
      'pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
    const same = podAttrs({ priorityClassName: 'quiet', priority: 42, preemptionPolicy: 'Never' });
    await plugin.admit?.(ctx, same);
    expect(specOf(same)).toMatchObject({ priority: 42, preemptionPolicy: 'Never' });
  });

  test('an update keeps the old priority and policy when the new object lacks them; nothing is looked up', async () => {
    const old = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { priority: 5, preemptionPolicy: 'Never', priorityClassName: 'gone' } } as KubeObject;
    const a = podAttrs({ priorityClassName: 'gone' }, { operation: 'UPDATE', oldObject: old });
    await priorityPlugin(lister([])).admit?.(ctx, a);
    expect(specOf(a)).toMatchObject({ priority: 5, preemptionPolicy: 'Never' });
    const changed = podAttrs({ priority: 9 }, { operation: 'UPDATE', oldObject: old });
    await priorityPlugin(lister([])).admit?.(ctx, changed);
    // Validation refuses the change; the plugin leaves it.
    expect(specOf(changed).priority).toBe(9);
  });

  test('subresources and deletes are not looked at', async () => {
    const plugin = priorityPlugin(lister([]));
    const status = podAttrs({ priorityClassName: 'gone' }, { subresource: 'status' });
    await plugin.admit?.(ctx, status);
    expect(specOf(status).priority).toBeUndefined();
    await plugin.admit?.(ctx, podAttrs({}, { operation: 'DELETE', object: undefined }));
  });
});

describe('PriorityClass writes', () => {
  const existing = [pc('usual', 100, { globalDefault: true }), pc('high', 1000)];

  test('a second global default is refused; the default itself may be updated', async () => {
    const plugin = priorityPlugin(lister(existing));
    expect(((await rejection(plugin.validate?.(ctx, pcAttrs(pc('other', 5, { globalDefault: true }))))) as { message: string }).message).toBe(
      'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass usual is already marked as default. Only one default can exist',
    );
    expect(await rejection(plugin.validate?.(ctx, pcAttrs(pc('high', 1000, { globalDefault: true }), 'UPDATE')))).toMatchObject({ code: 403 });
    await plugin.validate?.(ctx, pcAttrs(pc('usual', 100, { globalDefault: true, description: 'x' }), 'UPDATE'));
    // Recreating the default under its own name is a create: refused too.
    expect(await rejection(plugin.validate?.(ctx, pcAttrs(pc('usual', 100, { globalDefault: true }))))).toMatchObject({ code: 403 });
    await plugin.validate?.(ctx, pcAttrs(pc('plain', 5)));
    await priorityPlugin(lister([pc('high', 1000)])).validate?.(ctx, pcAttrs(pc('first', 5, { globalDefault: true })));
  });

  test('on by default, in kube’s place, with the informer it needs', () => {
    const plugins = newAdmissionPlugins();
    expect(plugins.enabledPluginNames()).toContain('Priority');
    expect(() => plugins.newFromPlugins(['Priority'], {}, {})).toThrow('admission plugin "Priority" needs priorityClasses');
    const chain = plugins.newFromPlugins(['Priority'], {}, { priorityClasses: lister([]) });
    expect([chain.mutating, chain.validating]).toEqual([['Priority'], ['Priority']]);
    expect(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].filter((o) => chain.plugins[0]?.handles(o as never))).toEqual(['CREATE', 'UPDATE', 'DELETE']);
  });
});
