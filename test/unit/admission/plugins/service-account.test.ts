/** ServiceAccount admission (kube's plugin/pkg/admission/serviceaccount): defaulting, lookup, token volume, mirror pods, mountable secrets. */
import { ApiError, KubeObject, RequestContext } from '../../../../src/api';
import { Plugins } from '../../../../src/admission/plugin-registry';
import { registerAllAdmissionPlugins } from '../../../../src/admission/register-all';
import { ServiceAccountGetter } from '../../../../src/admission/deps';
import { serviceAccountAdmission, tokenVolumeSource } from '../../../../src/admission/plugins/service-account';
import { podAttributes } from '../../../support/admission';

const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };

const sa = (name: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(annotations ? { annotations } : {}) }, ...extra }) as KubeObject;

/** A getter over fixed accounts; `live` counts its reads, and may find accounts the cache lacks. */
function getter(cached: KubeObject[], live: KubeObject[] = cached): ServiceAccountGetter & { liveReads: number } {
  const g = {
    liveReads: 0,
    cached: (ns: string, name: string) => cached.find((o) => o.metadata.namespace === ns && o.metadata.name === name),
    live: async (ns: string, name: string) => {
      g.liveReads++;
      return live.find((o) => o.metadata.namespace === ns && o.metadata.name === name);
    },
  };
  return g;
}

const pod = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
  }) as KubeObject;


const plugin = (g: ServiceAccountGetter, sleeps: number[] = []) =>
  serviceAccountAdmission({ serviceAccounts: g, generateName: (p) => `${p}abcde`, sleep: async (ms) => void sleeps.push(ms) });

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e.status;
    throw e;
  }
  throw new Error('admitted');
}

const spec = (o: KubeObject) => o.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const tokenMount = { name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };

describe('ServiceAccount admission', () => {
  test('is registered, on by default, and mutates and validates', () => {
    const plugins = new Plugins();
    registerAllAdmissionPlugins(plugins);
    expect(plugins.enabledPluginNames(undefined)).toContain('ServiceAccount');
    const p = plugin(getter([]));
    expect(p.handles('CREATE') && p.handles('UPDATE') && !p.handles('DELETE') && !p.handles('CONNECT')).toBe(true);
  });

  test('defaults serviceAccountName to default and mounts the projected token volume in every (init) container', async () => {
    const o = pod({ initContainers: [{ name: 'i', image: 'busybox' }], ephemeralContainers: [{ name: 'e', image: 'busybox' }] });
    await plugin(getter([sa('default')])).admit!(ctx, podAttributes(o));
    expect(spec(o).serviceAccountName).toBe('default');
    expect(spec(o).serviceAccount).toBe('default');
    expect(spec(o).containers[0].volumeMounts).toEqual([tokenMount]);
    expect(spec(o).initContainers[0].volumeMounts).toEqual([tokenMount]);
    // Ephemeral containers are left alone, as in kube.
    expect(spec(o).ephemeralContainers[0].volumeMounts).toBeUndefined();
    expect(spec(o).volumes).toEqual([
      {
        name: 'kube-api-access-abcde',
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      },
    ]);
    expect(spec(o).imagePullSecrets).toBeUndefined();
  });

  test('a named account is used as it is; its imagePullSecrets fill a pod without any', async () => {
    const o = pod({ serviceAccountName: 'builder' });
    await plugin(getter([sa('builder', { imagePullSecrets: [{ name: 'reg' }] })])).admit!(ctx, podAttributes(o));
    expect(spec(o).serviceAccountName).toBe('builder');
    expect(spec(o).imagePullSecrets).toEqual([{ name: 'reg' }]);
    const own = pod({ serviceAccountName: 'builder', imagePullSecrets: [{ name: 'mine' }] });
    await plugin(getter([sa('builder', { imagePullSecrets: [{ name: 'reg' }] })])).admit!(ctx, podAttributes(own));
    expect(spec(own).imagePullSecrets).toEqual([{ name: 'mine' }]);
  });

  test('a missing account is 403 with kube\'s message; a named one is read live once, default ten times', async () => {
    const g = getter([]);
    const st = await failure(plugin(g).admit!(ctx, podAttributes(pod({ serviceAccountName: 'nope' }))));
    expect(st).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'pods "p" is forbidden: error looking up service account ns/nope: serviceaccount "nope" not found',
      details: { name: 'p', kind: 'pods' },
    });
    expect(g.liveReads).toBe(1);
    const sleeps: number[] = [];
    const g2 = getter([]);
    const st2 = await failure(plugin(g2, sleeps).admit!(ctx, podAttributes(pod())));
    expect(st2?.message).toBe('pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found');
    expect(g2.liveReads).toBe(10);
    expect(sleeps).toHaveLength(9);
    for (const ms of sleeps) expect(ms >= 100 && ms < 200).toBe(true);
  });

  test('an account the informer lacks is found by the live read', async () => {
    const g = getter([], [sa('default')]);
    const o = pod();
    await plugin(g).admit!(ctx, podAttributes(o));
    expect(spec(o).serviceAccountName).toBe('default');
    // Admit, then its own Validate: two reads.
    expect(g.liveReads).toBe(2);
  });

  test('a generateName pod is named by its prefix in the message', async () => {
    const o = pod({ serviceAccountName: 'nope' });
    o.metadata = { generateName: 'web-', namespace: 'ns' };
    const st = await failure(plugin(getter([])).admit!(ctx, podAttributes(o, { name: '' })));
    expect(st?.message).toMatch(/^pods "web-" is forbidden: /);
  });

  test.each([
    ['the pod', { automountServiceAccountToken: false }, {}, false],
    ['the account', {}, { automountServiceAccountToken: false }, false],
    ['the pod over the account', { automountServiceAccountToken: true }, { automountServiceAccountToken: false }, true],
    ['the account true', {}, { automountServiceAccountToken: true }, true],
  ])('automount decided by %s', async (_what, podSpec, account, mounted) => {
    const o = pod(podSpec);
    await plugin(getter([sa('default', account)])).admit!(ctx, podAttributes(o));
    expect(spec(o).volumes === undefined).toBe(!mounted);
    expect(spec(o).containers[0].volumeMounts === undefined).toBe(!mounted);
  });

  test('a container with a mount at the token path keeps it; the volume is added only if another container needs it', async () => {
    const own = { name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    const o = pod({ containers: [{ name: 'c', image: 'x', volumeMounts: [own] }], volumes: [{ name: 'mine', emptyDir: {} }] });
    await plugin(getter([sa('default')])).admit!(ctx, podAttributes(o));
    expect(spec(o).containers[0].volumeMounts).toEqual([own]);
    expect(spec(o).volumes).toEqual([{ name: 'mine', emptyDir: {} }]);

    const two = pod({ containers: [{ name: 'a', image: 'x', volumeMounts: [own] }, { name: 'b', image: 'x' }], volumes: [{ name: 'mine', emptyDir: {} }] });
    await plugin(getter([sa('default')])).admit!(ctx, podAttributes(two));
    expect(spec(two).containers[1].volumeMounts).toEqual([tokenMount]);
    expect(spec(two).volumes.map((v: { name: string }) => v.name)).toEqual(['mine', 'kube-api-access-abcde']);
  });

  test('an existing kube-api-access-* volume is reused, not added again', async () => {
    const o = pod({ volumes: [{ name: 'kube-api-access-zzzzz', projected: tokenVolumeSource() }] });
    await plugin(getter([sa('default')])).admit!(ctx, podAttributes(o));
    expect(spec(o).volumes.map((v: { name: string }) => v.name)).toEqual(['kube-api-access-zzzzz']);
    expect(spec(o).containers[0].volumeMounts).toEqual([{ ...tokenMount, name: 'kube-api-access-zzzzz' }]);
  });

  describe('mirror pods', () => {
    const mirror = { 'kubernetes.io/config.mirror': 'abc' };
    test('are left unchanged and need no account', async () => {
      const o = pod({}, mirror);
      const g = getter([]);
      await plugin(g).admit!(ctx, podAttributes(o));
      await plugin(g).validate!(ctx, podAttributes(o));
      expect(spec(o).serviceAccountName).toBeUndefined();
      expect(spec(o).volumes).toBeUndefined();
      expect(g.liveReads).toBe(0);
    });
    test.each([
      [{ serviceAccountName: 'default' }, 'a mirror pod may not reference service accounts'],
      [{ imagePullSecrets: [{ name: 'reg' }] }, 'a mirror pod may not reference secrets'],
      [{ containers: [{ name: 'c', image: 'x', envFrom: [{ secretRef: { name: 's' } }] }] }, 'a mirror pod may not reference secrets'],
      [{ volumes: [{ name: 'v', secret: { secretName: 's' } }] }, 'a mirror pod may not reference secrets'],
      [{ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
    ])('refused: %j', async (podSpec, message) => {
      const st = await failure(plugin(getter([sa('default')])).admit!(ctx, podAttributes(pod(podSpec, mirror))));
      expect(st).toMatchObject({ code: 403, message: `pods "p" is forbidden: ${message}` });
    });
  });

  describe('validate', () => {
    test('a pod without an account (a webhook removed it) is refused', async () => {
      const st = await failure(plugin(getter([sa('default')])).validate!(ctx, podAttributes(pod())));
      expect(st?.message).toBe('pods "p" is forbidden: no service account specified for pod ns/p');
    });

    test('an account that went away meanwhile is refused', async () => {
      const st = await failure(plugin(getter([])).validate!(ctx, podAttributes(pod({ serviceAccountName: 'gone' }))));
      expect(st?.message).toBe('pods "p" is forbidden: error looking up service account ns/gone: serviceaccount "gone" not found');
    });

    test('updates other than ephemeral containers and other resources are not looked at', async () => {
      const g = getter([]);
      await plugin(g).validate!(ctx, podAttributes(pod(), { operation: 'UPDATE' }));
      await plugin(g).admit!(ctx, podAttributes(pod(), { operation: 'UPDATE' }));
      await plugin(g).admit!(ctx, podAttributes(pod(), { subresource: 'status' }));
      await plugin(g).admit!(ctx, podAttributes(pod(), { resource: 'secrets', kind: 'Secret' }));
      expect(g.liveReads).toBe(0);
    });

    describe('kubernetes.io/enforce-mountable-secrets', () => {
      const enforcing = (extra: Record<string, unknown> = {}, value = 'true') =>
        getter([sa('default', { secrets: [{ name: 'ok' }], ...extra }, { 'kubernetes.io/enforce-mountable-secrets': value })]);
      test.each([
        [{ volumes: [{ name: 'v', secret: { secretName: 'no' } }] }, 'volume with secret.secretName="no" is not allowed because service account default does not reference that secret'],
        [
          { containers: [{ name: 'c', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'no', key: 'k' } } }] }] },
          'container c with envVar E referencing secret.secretName="no" is not allowed because service account default does not reference that secret',
        ],
        [
          { containers: [{ name: 'c', image: 'x' }], initContainers: [{ name: 'i', image: 'x', envFrom: [{ secretRef: { name: 'no' } }] }] },
          'init container i with envFrom referencing secret.secretName="no" is not allowed because service account default does not reference that secret',
        ],
        [{ imagePullSecrets: [{ name: 'no' }] }, 'imagePullSecrets[0].name="no" is not allowed because service account default does not reference that imagePullSecret'],
      ])('refuses %j', async (podSpec, message) => {
        const st = await failure(plugin(enforcing()).admit!(ctx, podAttributes(pod(podSpec))));
        expect(st).toMatchObject({ code: 403, message: `pods "p" is forbidden: ${message}` });
      });

      test('allows the account\'s own secrets; a false or unparsable annotation enforces nothing', async () => {
        await plugin(enforcing()).admit!(ctx, podAttributes(pod({ volumes: [{ name: 'v', secret: { secretName: 'ok' } }] })));
        await plugin(enforcing({}, 'false')).admit!(ctx, podAttributes(pod({ volumes: [{ name: 'v', secret: { secretName: 'no' } }] })));
        await plugin(enforcing({}, 'yes')).admit!(ctx, podAttributes(pod({ volumes: [{ name: 'v', secret: { secretName: 'no' } }] })));
      });

      test('ephemeral containers: checked on their update, a 500 as kube answers it', async () => {
        const o = pod({ serviceAccountName: 'default', ephemeralContainers: [{ name: 'dbg', image: 'x', envFrom: [{ secretRef: { name: 'no' } }] }] });
        const st = await failure(plugin(enforcing()).validate!(ctx, podAttributes(o, { operation: 'UPDATE', subresource: 'ephemeralcontainers' })));
        expect(st).toMatchObject({
          code: 500,
          message: 'ephemeral container dbg with envFrom referencing secret.secretName="no" is not allowed because service account default does not reference that secret',
        });
        const none = pod({ ephemeralContainers: [{ name: 'dbg', image: 'x' }] });
        const st2 = await failure(plugin(enforcing()).validate!(ctx, podAttributes(none, { operation: 'UPDATE', subresource: 'ephemeralcontainers' })));
        expect(st2?.message).toBe('pods "p" is forbidden: no service account specified for pod ns/p');
      });
    });
  });
});
