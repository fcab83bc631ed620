/** The admission plugin registry: named factories, kube v1.32's order and defaults, handles(), the two phases, configuration. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiError, KubeObject, RequestContext } from '../../../src/api';
import {
  AdmissionAttributes,
  AdmissionChain,
  AdmissionDeps,
  AdmissionPlugin,
  Operation,
  PluginConfigError,
  PluginFactory,
  Plugins,
  allOperations,
  handlesOperations,
  kubeAdmissionPluginOrder,
  kubeDefaultOffAdmissionPlugins,
  kubeDefaultOnAdmissionPlugins,
  newAdmissionPlugins,
} from '../../../src/admission';

const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };
const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'secrets',
  subresource: '',
  kind: 'Secret',
  namespace: 'ns',
  name: 's',
  namespaced: true,
  dryRun: false,
  ...over,
});

/** A plugin that records its calls in `log`. */
function recorder(
  log: string[],
  name: string,
  phases: { admit?: boolean; validate?: boolean; ops?: Operation[]; fail?: 'admit' | 'validate' } = { admit: true, validate: true },
): AdmissionPlugin {
  const p: AdmissionPlugin = { name, handles: handlesOperations(...(phases.ops ?? allOperations)) };
  if (phases.admit)
    p.admit = async (_c, a) => {
      log.push(`${name}.admit ${a.operation}`);
      if (phases.fail === 'admit') throw new Error(`${name} says no`);
    };
  if (phases.validate)
    p.validate = async (_c, a) => {
      log.push(`${name}.validate ${a.operation}`);
      if (phases.fail === 'validate') throw new Error(`${name} says no`);
    };
  return p;
}

/** An Error with exactly this message (whatever its cause), for toThrow. */
const message = (m: string) => expect.objectContaining({ message: m });

const factoryOf =
  (log: string[], phases?: Parameters<typeof recorder>[2]): ((name: string) => PluginFactory) =>
  (name) =>
  () =>
    recorder(log, name, phases);

describe('kube v1.32 plugin order and defaults', () => {
  test('35 distinct names; quota last but AlwaysDeny; webhooks after everything else', () => {
    expect(kubeAdmissionPluginOrder).toHaveLength(35);
    expect(new Set(kubeAdmissionPluginOrder).size).toBe(35);
    expect(kubeAdmissionPluginOrder.slice(-6)).toEqual([
      'MutatingAdmissionPolicy',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
      'AlwaysDeny',
    ]);
    expect(kubeAdmissionPluginOrder.indexOf('NamespaceLifecycle')).toBe(2);
    expect(kubeAdmissionPluginOrder.indexOf('EventRateLimit')).toBeLessThan(kubeAdmissionPluginOrder.indexOf('MutatingAdmissionWebhook'));
    expect(kubeAdmissionPluginOrder.indexOf('ImagePolicyWebhook')).toBeLessThan(kubeAdmissionPluginOrder.indexOf('EventRateLimit'));
  });

  test('default on: 21 plugins, all in the order; default off: the other 14', () => {
    expect(kubeDefaultOnAdmissionPlugins.size).toBe(21);
    for (const n of kubeDefaultOnAdmissionPlugins) expect(kubeAdmissionPluginOrder).toContain(n);
    const off = kubeDefaultOffAdmissionPlugins();
    expect(off.size).toBe(14);
    for (const n of ['EventRateLimit', 'ImagePolicyWebhook', 'AlwaysAdmit', 'AlwaysDeny', 'NamespaceExists', 'NodeRestriction']) expect(off.has(n)).toBe(true);
    for (const n of ['NamespaceLifecycle', 'ResourceQuota', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook']) expect(off.has(n)).toBe(false);
  });
});

describe('Plugins', () => {
  test('registering a name twice is an Error naming it', () => {
    const plugins = new Plugins();
    plugins.register('LimitRanger', () => null);
    expect(() => plugins.register('LimitRanger', () => null)).toThrow('admission plugin "LimitRanger" was registered twice');
  });

  test('a name with no place in the order cannot be registered; an empty name neither', () => {
    const plugins = new Plugins();
    expect(() => plugins.register('MadeUp', () => null)).toThrow('admission plugin "MadeUp" has no place in the plugin order');
    expect(() => plugins.register('', () => null)).toThrow('needs a name');
    expect(() => new Plugins({ order: ['MadeUp'] }).register('MadeUp', () => null)).not.toThrow();
  });

  test('registered() is sorted', () => {
    const plugins = new Plugins();
    for (const n of ['ResourceQuota', 'EventRateLimit', 'NamespaceLifecycle']) plugins.register(n, () => null);
    expect(plugins.registered()).toEqual(['EventRateLimit', 'NamespaceLifecycle', 'ResourceQuota']);
    expect(plugins.isRegistered('EventRateLimit')).toBe(true);
    expect(plugins.isRegistered('LimitRanger')).toBe(false);
  });

  test("an unknown name is an Error naming it (a startup error); a plugin kube has and this server does not is said to be so", () => {
    const plugins = new Plugins();
    plugins.register('NamespaceLifecycle', () => null);
    expect(() => plugins.newFromPlugins(['NamespaceLifecycle', 'NodeRestriction'])).toThrow(
      new Error('admission plugin "NodeRestriction" is a kube-apiserver plugin this server does not implement (it has: NamespaceLifecycle)'),
    );
    expect(() => plugins.newFromPlugins(['Nope'])).toThrow(new Error('unknown admission plugin: Nope'));
  });

  test("the chain is in kube's order whatever the order names are given in; duplicates and empty names drop out", () => {
    const log: string[] = [];
    const plugins = new Plugins();
    const make = factoryOf(log);
    for (const n of ['ValidatingAdmissionWebhook', 'ResourceQuota', 'EventRateLimit', 'MutatingAdmissionWebhook', 'NamespaceLifecycle']) plugins.register(n, make(n));
    const chain = plugins.newFromPlugins(['ResourceQuota', 'ValidatingAdmissionWebhook', '', 'NamespaceLifecycle', 'MutatingAdmissionWebhook', 'EventRateLimit', 'ResourceQuota']);
    expect(chain.names).toEqual(['NamespaceLifecycle', 'EventRateLimit', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota']);
    expect(plugins.ordered(['ResourceQuota', 'NamespaceLifecycle'])).toEqual(['NamespaceLifecycle', 'ResourceQuota']);
  });

  test('a custom order is honoured', () => {
    const plugins = new Plugins({ order: ['C', 'B', 'A'], defaultOn: new Set(['A', 'C']) });
    const log: string[] = [];
    for (const n of ['A', 'B', 'C']) plugins.register(n, factoryOf(log)(n));
    expect(plugins.newFromPlugins(['A', 'B', 'C']).names).toEqual(['C', 'B', 'A']);
    expect(plugins.enabledPluginNames()).toEqual(['C', 'A']);
  });

  describe('enabledPluginNames (kube --enable-admission-plugins / --disable-admission-plugins)', () => {
    const plugins = new Plugins();
    const built: string[] = [];
    for (const n of ['ResourceQuota', 'AlwaysPullImages', 'NamespaceLifecycle', 'LimitRanger', 'EventRateLimit'])
      plugins.register(n, () => {
        built.push(n);
        return recorder([], n);
      });
    beforeEach(() => (built.length = 0));

    test('defaults: the registered default-on plugins, in order', () => {
      expect(plugins.enabledPluginNames()).toEqual(['NamespaceLifecycle', 'LimitRanger', 'ResourceQuota']);
    });

    test('enable adds default-off plugins in their place, whatever the flag order', () => {
      expect(plugins.enabledPluginNames({ enable: ['EventRateLimit', 'AlwaysPullImages'] })).toEqual([
        'NamespaceLifecycle',
        'LimitRanger',
        'AlwaysPullImages',
        'EventRateLimit',
        'ResourceQuota',
      ]);
    });

    test('disabled plugins are skipped: never built, never run', () => {
      const names = plugins.enabledPluginNames({ disable: ['LimitRanger', 'ResourceQuota'] });
      expect(names).toEqual(['NamespaceLifecycle']);
      expect(plugins.newFromPlugins(names).names).toEqual(['NamespaceLifecycle']);
      expect(built).toEqual(['NamespaceLifecycle']);
    });

    test("unknown names and names in both lists are Errors with kube's messages, several as kube's aggregate", () => {
      expect(() => plugins.enabledPluginNames({ enable: ['Nope'] })).toThrow(new Error('enable-admission-plugins plugin "Nope" is unknown'));
      expect(() => plugins.enabledPluginNames({ disable: ['Nope'] })).toThrow(new Error('disable-admission-plugins plugin "Nope" is unknown'));
      expect(() => plugins.enabledPluginNames({ enable: ['EventRateLimit'], disable: ['EventRateLimit'] })).toThrow(
        new Error('[EventRateLimit] in enable-admission-plugins and disable-admission-plugins overlapped'),
      );
      // kube-apiserver's Validate errors are one aggregate: `[a, b]`.
      expect(() => plugins.enabledPluginNames({ enable: ['A', 'B', 'EventRateLimit'], disable: ['EventRateLimit', 'C'] })).toThrow(
        new Error(
          '[enable-admission-plugins plugin "A" is unknown, enable-admission-plugins plugin "B" is unknown, disable-admission-plugins plugin "C" is unknown, ' +
            '[EventRateLimit] in enable-admission-plugins and disable-admission-plugins overlapped]',
        ),
      );
    });

    test('a plugin kube-apiserver has and this server does not: enabling it says so; disabling it is what already is', () => {
      expect(() => plugins.enabledPluginNames({ enable: ['NodeRestriction', 'PodSecurity'] })).toThrow(
        new Error(
          '[enable-admission-plugins plugin "NodeRestriction" is a kube-apiserver plugin this server does not implement (it has: AlwaysPullImages, EventRateLimit, LimitRanger, NamespaceLifecycle, ResourceQuota), ' +
            'enable-admission-plugins plugin "PodSecurity" is a kube-apiserver plugin this server does not implement (it has: AlwaysPullImages, EventRateLimit, LimitRanger, NamespaceLifecycle, ResourceQuota)]',
        ),
      );
      expect(plugins.enabledPluginNames({ disable: ['PodSecurity', 'NodeRestriction'] })).toEqual(['NamespaceLifecycle', 'LimitRanger', 'ResourceQuota']);
    });
  });

  describe("configure and apply (kube's AdmissionOptions.ApplyTo): kube's prefixes, and where a refused configuration was", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'plugin-registry-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** A registry whose EventRateLimit refuses any configuration it gets, with `error`. */
    const refusing = (error: () => Error) => {
      const plugins = new Plugins();
      plugins.register('EventRateLimit', (config) => {
        if (config) throw error();
        return recorder([], 'EventRateLimit');
      });
      return plugins;
    };
    const admissionFile = (name: string, plugins: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n${plugins}`);
      return file;
    };

    test('a flag error comes bare; an AdmissionConfiguration that cannot be read after "failed to read plugin config"', () => {
      const plugins = refusing(() => new Error('no'));
      expect(() => plugins.configure({ enable: ['Nope'] })).toThrow(message('enable-admission-plugins plugin "Nope" is unknown'));
      const missing = path.join(dir, 'missing.yaml');
      expect(() => plugins.apply({ enable: ['EventRateLimit'], configFile: missing })).toThrow(
        message(`failed to apply admission: failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`),
      );
      expect(plugins.configure({ enable: ['EventRateLimit'] }).names).toEqual(['EventRateLimit']);
      expect(plugins.apply({ enable: ['EventRateLimit'] }).names).toEqual(['EventRateLimit']);
    });

    test('embedded: the file and the entry follow the message; a field the plugin names is added to the entry', () => {
      const file = admissionFile('embedded.yaml', '- name: Other\n- name: EventRateLimit\n  configuration: {limits: []}\n');
      expect(() => refusing(() => new Error('limits: Invalid value: 0: must be positive')).apply({ enable: ['EventRateLimit'], configFile: file })).toThrow(
        message(`failed to apply admission: couldn't init admission plugin "EventRateLimit": limits: Invalid value: 0: must be positive (in "${file}" at plugins[1].configuration)`),
      );
      expect(() => refusing(() => new PluginConfigError('valid value is between 1s and 30m0s, got 1h0m0s', 'spec.ttl')).apply({ enable: ['EventRateLimit'], configFile: file })).toThrow(
        message(`failed to apply admission: couldn't init admission plugin "EventRateLimit": valid value is between 1s and 30m0s, got 1h0m0s (in "${file}" at plugins[1].configuration.spec.ttl)`),
      );
    });

    test("by path: the plugin's own file, and the field; a message that names the file already gets only the field", () => {
      const own = path.join(dir, 'erl.yaml');
      writeFileSync(own, 'anything');
      const file = admissionFile('by-path.yaml', '- name: EventRateLimit\n  path: erl.yaml\n');
      const apply = (e: () => Error) => () => refusing(e).apply({ enable: ['EventRateLimit'], configFile: file });
      expect(apply(() => new Error('bad'))).toThrow(message(`failed to apply admission: couldn't init admission plugin "EventRateLimit": bad (in "${own}")`));
      expect(apply(() => new PluginConfigError('bad', 'spec.ttl'))).toThrow(message(`failed to apply admission: couldn't init admission plugin "EventRateLimit": bad (in "${own}" at spec.ttl)`));
      expect(apply(() => new Error(`failed to load X from file "${own}": bad`))).toThrow(message(`failed to apply admission: couldn't init admission plugin "EventRateLimit": failed to load X from file "${own}": bad`));
      expect(apply(() => new PluginConfigError(`cannot read ${own}`, 'spec.ttl'))).toThrow(message(`failed to apply admission: couldn't init admission plugin "EventRateLimit": cannot read ${own} (at spec.ttl)`));
    });
  });

  test('a staged factory: its configuration read and refused at configure, with no dependencies; the chain built from what it read, never read again', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plugin-registry-staged-'));
    try {
      const file = path.join(dir, 'admission.yaml');
      writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  configuration: {qps: 5}\n');
      const reads: unknown[] = [];
      const built: Array<{ config: unknown; deps: AdmissionDeps }> = [];
      const plugins = new Plugins();
      plugins.register('EventRateLimit', {
        readConfig: (source) => {
          reads.push(source);
          const text = source && 'text' in source ? String(source.text) : '{}';
          const qps = (JSON.parse(text) as { qps?: number }).qps ?? 0;
          if (qps <= 0) throw new PluginConfigError('must be positive', 'qps');
          return { qps };
        },
        build: (config, deps) => {
          built.push({ config, deps });
          return recorder([], 'EventRateLimit');
        },
      });
      const setup = plugins.configure({ enable: ['EventRateLimit'], configFile: file });
      expect(setup.configs.get('EventRateLimit')).toEqual({ qps: 5 });
      expect(reads).toHaveLength(1);
      expect(built).toEqual([]);
      const deps: AdmissionDeps = { quotaTimeoutMs: 1 };
      expect(plugins.applyConfigured(setup, deps).names).toEqual(['EventRateLimit']);
      expect(reads).toHaveLength(1);
      expect(built).toEqual([{ config: { qps: 5 }, deps }]);
      // A refusal comes from configure, worded as apply's, before any dependency exists.
      writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  configuration: {qps: 0}\n');
      expect(() => plugins.configure({ enable: ['EventRateLimit'], configFile: file })).toThrow(
        message(`failed to apply admission: couldn't init admission plugin "EventRateLimit": must be positive (in "${file}" at plugins[0].configuration.qps)`),
      );
      expect(built).toHaveLength(1);
      // newFromPlugins reads and builds at once.
      expect(plugins.newFromPlugins(['EventRateLimit'], { EventRateLimit: { text: '{"qps":2}' } }).names).toEqual(['EventRateLimit']);
      expect(built[1]?.config).toEqual({ qps: 2 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('each factory gets its own configuration (function or record) and the dependencies', () => {
    const seen: Record<string, { config: unknown; deps: AdmissionDeps }> = {};
    const plugins = new Plugins();
    for (const n of ['EventRateLimit', 'ImagePolicyWebhook', 'NamespaceLifecycle'])
      plugins.register(n, (config, deps) => {
        seen[n] = { config, deps };
        return recorder([], n);
      });
    const deps: AdmissionDeps = { quotaTimeoutMs: 5 };
    const erl = { text: JSON.stringify({ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Server', qps: 50, burst: 100 }] }), path: '/etc/admission.yaml' };
    plugins.newFromPlugins(['EventRateLimit', 'ImagePolicyWebhook', 'NamespaceLifecycle'], (n) => (n === 'EventRateLimit' ? erl : undefined), deps);
    expect(seen.EventRateLimit).toEqual({ config: erl, deps });
    expect(seen.ImagePolicyWebhook?.config).toBeUndefined();
    expect(seen.NamespaceLifecycle?.deps).toBe(deps);

    plugins.newFromPlugins(['ImagePolicyWebhook', 'EventRateLimit'], { ImagePolicyWebhook: { path: '/etc/image-policy.yaml' } });
    expect(seen.ImagePolicyWebhook?.config).toEqual({ path: '/etc/image-policy.yaml' });
    expect(seen.EventRateLimit?.config).toBeUndefined();
    expect(seen.EventRateLimit?.deps).toEqual({});
  });

  test('a failing factory is an Error naming the plugin; null leaves the plugin out; a misnamed plugin is refused', () => {
    const plugins = new Plugins();
    plugins.register('EventRateLimit', () => {
      throw new Error('limits: Required value');
    });
    plugins.register('AlwaysAdmit', () => null);
    plugins.register('AlwaysDeny', () => recorder([], 'Deny'));
    expect(() => plugins.newFromPlugins(['EventRateLimit'])).toThrow('couldn\'t init admission plugin "EventRateLimit": limits: Required value');
    expect(plugins.newFromPlugins(['AlwaysAdmit']).names).toEqual([]);
    expect(() => plugins.newFromPlugins(['AlwaysDeny'])).toThrow('admission plugin "AlwaysDeny" was built with the name "Deny"');
  });
});

describe('AdmissionChain', () => {
  test('admit runs the mutating plugins in order, validate the validating ones in order', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      recorder(log, 'M1', { admit: true }),
      recorder(log, 'V1', { validate: true }),
      recorder(log, 'Both', { admit: true, validate: true }),
      recorder(log, 'M2', { admit: true }),
    ]);
    expect(chain.mutating).toEqual(['M1', 'Both', 'M2']);
    expect(chain.validating).toEqual(['V1', 'Both']);
    await chain.admit(ctx, attrs());
    log.push('-- registry validation --');
    await chain.validate(ctx, attrs());
    expect(log).toEqual(['M1.admit CREATE', 'Both.admit CREATE', 'M2.admit CREATE', '-- registry validation --', 'V1.validate CREATE', 'Both.validate CREATE']);
  });

  test('a plugin is asked only about the operations it handles, in both phases', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder(log, 'DeleteOnly', { admit: true, validate: true, ops: ['DELETE'] }), recorder(log, 'All')]);
    for (const operation of ['CREATE', 'DELETE'] as const) {
      await chain.admit(ctx, attrs({ operation }));
      await chain.validate(ctx, attrs({ operation }));
    }
    expect(log).toEqual([
      'All.admit CREATE',
      'All.validate CREATE',
      'DeleteOnly.admit DELETE',
      'All.admit DELETE',
      'DeleteOnly.validate DELETE',
      'All.validate DELETE',
    ]);
  });

  test('the first plugin to throw ends the phase', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder(log, 'A', { admit: true, fail: 'admit' }), recorder(log, 'B')]);
    await expect(chain.admit(ctx, attrs())).rejects.toThrow('A says no');
    expect(log).toEqual(['A.admit CREATE']);
  });

  test('reinvocation: a plugin asking for it makes every mutating plugin run once more (validating ones still once); a fresh context per admit', async () => {
    const log: string[] = [];
    const asks: AdmissionPlugin = {
      name: 'Asks',
      handles: () => true,
      admit: async (_ctx, a) => {
        log.push(`Asks.admit ${a.reinvocation?.isReinvoke ? 'again' : 'first'}`);
        if (!a.reinvocation?.isReinvoke) (a.reinvocation as NonNullable<typeof a.reinvocation>).shouldReinvoke = true;
      },
    };
    const chain = new AdmissionChain([recorder(log, 'A'), asks, recorder(log, 'B', { validate: true })]);
    const a = attrs();
    await chain.admit(ctx, a);
    await chain.validate(ctx, a);
    expect(log).toEqual(['A.admit CREATE', 'Asks.admit first', 'A.admit CREATE', 'Asks.admit again', 'A.validate CREATE', 'B.validate CREATE']);
    // Nobody asks: one pass.
    log.length = 0;
    await new AdmissionChain([recorder(log, 'A')]).admit(ctx, attrs());
    expect(log).toEqual(['A.admit CREATE']);
  });

  test('handlesOperations is kube NewHandler', () => {
    const h = handlesOperations('CREATE', 'UPDATE');
    expect(allOperations.filter(h)).toEqual(['CREATE', 'UPDATE']);
  });
});

describe("this server's plugins", () => {
  const namespaces: Record<string, KubeObject> = { ns: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } } as KubeObject };
  const getNamespace = async (n: string) => namespaces[n] ?? null;
  const quotaCalls: string[] = [];
  const deps: AdmissionDeps = {
    getNamespace,
    quotas: {
      // As the server's accessor answers a namespace whose quotas it knows: without I/O.
      getQuotas: (namespace) => {
        quotaCalls.push(namespace);
        return [];
      },
      updateQuotaStatus: async (q) => q,
    },
    serviceAccounts: { cached: () => undefined, live: async () => undefined },
    priorityClasses: { get: () => undefined, list: () => [] },
  };

  test("every plugin of this server is registered; kube's default-on ones are on, in kube's order", () => {
    const plugins = newAdmissionPlugins();
    expect(plugins.registered()).toEqual([
      'DefaultTolerationSeconds',
      'EventRateLimit',
      'ImagePolicyWebhook',
      'MutatingAdmissionWebhook',
      'NamespaceLifecycle',
      'Priority',
      'ResourceQuota',
      'ServiceAccount',
      'ValidatingAdmissionWebhook',
    ]);
    expect(plugins.enabledPluginNames()).toEqual([
      'NamespaceLifecycle',
      'ServiceAccount',
      'Priority',
      'DefaultTolerationSeconds',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ]);
    expect(
      plugins.enabledPluginNames({
        disable: ['ResourceQuota', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ServiceAccount', 'Priority', 'DefaultTolerationSeconds'],
      }),
    ).toEqual(['NamespaceLifecycle']);
    expect(plugins.enabledPluginNames({ enable: ['ImagePolicyWebhook', 'EventRateLimit'] })).toEqual([
      'NamespaceLifecycle',
      'ServiceAccount',
      'ImagePolicyWebhook',
      'Priority',
      'DefaultTolerationSeconds',
      'EventRateLimit',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ]);
    const chain = plugins.newFromPlugins(['ResourceQuota', 'NamespaceLifecycle'], {}, deps);
    expect(chain.mutating).toEqual(['NamespaceLifecycle']);
    expect(chain.validating).toEqual(['ResourceQuota']);
  });

  test("kube's handles(): lifecycle CREATE/UPDATE/DELETE, quota CREATE/UPDATE", () => {
    const chain = newAdmissionPlugins().newFromPlugins(['NamespaceLifecycle', 'ResourceQuota'], {}, deps);
    const [lifecycle, quota] = chain.plugins as [AdmissionPlugin, AdmissionPlugin];
    expect(allOperations.filter((o) => lifecycle.handles(o))).toEqual(['CREATE', 'UPDATE', 'DELETE']);
    expect(allOperations.filter((o) => quota.handles(o))).toEqual(['CREATE', 'UPDATE']);
  });

  test('built from the registry they behave as before: 404 for a missing namespace in admit, quota read in validate', async () => {
    const chain = newAdmissionPlugins().newFromPlugins(newAdmissionPlugins().enabledPluginNames(), {}, deps);
    await expect(chain.admit(ctx, attrs({ namespace: 'gone' }))).rejects.toBeInstanceOf(ApiError);
    await expect(chain.admit(ctx, attrs({ namespace: 'gone' }))).rejects.toMatchObject({ status: { code: 404 } });
    await expect(chain.admit(ctx, attrs({ operation: 'DELETE', resource: 'namespaces', name: 'kube-system', namespace: '', namespaced: false }))).rejects.toMatchObject({
      status: { code: 403 },
    });
    await chain.admit(ctx, attrs());
    quotaCalls.length = 0;
    await chain.validate(ctx, attrs());
    expect(quotaCalls).toEqual(['ns']);
  });

  test('a missing dependency is a startup Error naming the plugin and what it needs', () => {
    const plugins = newAdmissionPlugins();
    expect(() => plugins.newFromPlugins(['NamespaceLifecycle'], {}, {})).toThrow(
      'couldn\'t init admission plugin "NamespaceLifecycle": admission plugin "NamespaceLifecycle" needs getNamespace',
    );
    expect(() => plugins.newFromPlugins(['ResourceQuota'], {}, { getNamespace })).toThrow('admission plugin "ResourceQuota" needs quotas');
  });

  test('ResourceQuota reads kube\'s ResourceQuotaConfiguration in its three versions, with kube\'s errors', () => {
    const plugins = newAdmissionPlugins();
    const cfg = (c: unknown) => plugins.newFromPlugins(['ResourceQuota'], { ResourceQuota: { text: typeof c === 'string' ? c : JSON.stringify(c), path: '/etc/admission.yaml' } }, deps);
    const limited = [{ resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] }];
    expect(cfg({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration' }).names).toEqual(['ResourceQuota']);
    expect(cfg({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [] }).names).toEqual(['ResourceQuota']);
    expect(cfg({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: limited }).names).toEqual(['ResourceQuota']);
    expect(cfg({ apiVersion: 'resourcequota.admission.k8s.io/v1beta1', kind: 'Configuration', limitedResources: limited }).names).toEqual(['ResourceQuota']);
    expect(cfg('apiVersion: resourcequota.admission.k8s.io/v1alpha1\nkind: Configuration\nlimitedResources:\n- resource: pods\n  matchContains: [cpu]\n').names).toEqual(['ResourceQuota']);
    expect(() => cfg({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{ matchContains: ['cpu'] }, { resource: 'pods' }, {}] })).toThrow(
      'couldn\'t init admission plugin "ResourceQuota": [limitedResources[0].resource: Required value, limitedResources[2].resource: Required value]',
    );
    expect(() => cfg({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{ resource: 'pods', matchScope: [] }] })).toThrow(
      'strict decoding error: unknown field "limitedResources[0].matchScope"',
    );
    expect(() => cfg({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'Configuration' })).toThrow(
      'no kind "Configuration" is registered for version "apiserver.config.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/resourcequota/config.go:31"',
    );
    expect(() => cfg({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{ resource: 'pods', matchContains: 'cpu' }] })).toThrow(
      'json: cannot unmarshal string into Go struct field LimitedResource.limitedResources.matchContains of type []string',
    );
    expect(() => plugins.newFromPlugins(['ResourceQuota'], { ResourceQuota: { path: '/nonexistent/quota.yaml' } }, deps)).toThrow(
      'couldn\'t init admission plugin "ResourceQuota": open /nonexistent/quota.yaml: no such file or directory',
    );
  });

});
