/** The system PriorityClasses made at start (kube's scheduling/bootstrap-system-priority-classes post-start hook). */
import { ApiError, KubeObject, errors } from '../../../src/api';
import { ensureSystemPriorityClasses } from '../../../src/controllers/system-priority-classes';
import type { Registry } from '../../../src/registry';

const gr = { group: 'scheduling.k8s.io', resource: 'priorityclasses' };

/** A priorityclasses store whose answers a test can script. */
function fakeRegistry(opts: { existing?: string[]; createFails?: Array<ApiError | undefined>; getFails?: Array<Error | undefined> } = {}) {
  const items = new Map<string, KubeObject>((opts.existing ?? []).map((n) => [n, { metadata: { name: n } } as KubeObject]));
  const created: KubeObject[] = [];
  const users: string[] = [];
  const store = {
    get: async (ctx: { user?: { name: string } }, name: string) => {
      users.push(ctx.user?.name ?? '');
      const failure = opts.getFails?.shift();
      if (failure) throw failure;
      const o = items.get(name);
      if (!o) throw errors.notFound(gr, name);
      return o;
    },
    create: async (_ctx: unknown, obj: KubeObject) => {
      const failure = opts.createFails?.shift();
      if (failure) throw failure;
      items.set(obj.metadata.name ?? '', obj);
      created.push(obj);
      return obj;
    },
  };
  const registry = { get: (g: string, v: string, r: string) => (g === gr.group && v === 'v1' && r === gr.resource ? store : undefined) } as unknown as Registry;
  return { registry, created, users };
}

const fast = { retryIntervalMs: 1, retryTimeoutMs: 1000 };

test('creates the missing classes as kube’s hook does, acting as the API server', async () => {
  const f = fakeRegistry({ existing: ['system-cluster-critical'] });
  expect(await ensureSystemPriorityClasses(f.registry, fast)).toEqual({ skipped: false, created: ['system-node-critical'] });
  expect(f.created).toEqual([
    {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'system-node-critical' },
      value: 2000001000,
      description: 'Used for system critical pods that must not be moved from their current node.',
    },
  ]);
  expect(new Set(f.users)).toEqual(new Set(['system:apiserver']));
  // Both there: nothing to do.
  expect(await ensureSystemPriorityClasses(f.registry, fast)).toEqual({ skipped: false, created: [] });
});

test('a failing read, a 5xx or a 429 is tried again; AlreadyExists is success', async () => {
  const f = fakeRegistry({
    getFails: [new Error('etcd away')],
    createFails: [
      errors.serviceUnavailable('not ready'),
      errors.serverTimeout(gr, 'create'),
      errors.tooManyRequests('later'),
      errors.alreadyExists(gr, 'system-node-critical'),
    ],
  });
  const r = await ensureSystemPriorityClasses(f.registry, fast);
  expect(r).toEqual({ skipped: false, created: ['system-cluster-critical'] });
});

test('a refusal ends the attempt, as it ends kube’s hook; so does a deadline, when given', async () => {
  const refused = fakeRegistry({ createFails: [errors.forbidden(gr, 'system-node-critical', 'no')] });
  expect((await ensureSystemPriorityClasses(refused.registry, fast)).error).toBe(
    'unable to add default system priority classes: unable to create PriorityClass system-node-critical: priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: no',
  );
  const down = fakeRegistry({ getFails: Array.from({ length: 1000 }, () => new Error('etcd away')) });
  const r = await ensureSystemPriorityClasses(down.registry, { retryIntervalMs: 1, retryTimeoutMs: 20 });
  expect(r.error).toBe('unable to add default system priority classes: unable to get PriorityClass system-node-critical: etcd away');
  expect(r.created).toEqual([]);
});

test('nothing to do when scheduling.k8s.io is not served', async () => {
  expect(await ensureSystemPriorityClasses({ get: () => undefined } as unknown as Registry)).toEqual({ skipped: true, created: [] });
});
