import { parseFlags } from '../../../../src/config';
import { newServerRunOptions, optionsGroups } from '../../../../src/config/options';
import { parseArgs } from '../../../../src/config/pflag';
import { ctx } from './support';

describe('the options groups together', () => {
  const groups = optionsGroups(newServerRunOptions());

  it('registers the groups in kube-apiserver AddFlags order, sections included', () => {
    expect(groups.map((g) => [g.constructor.name, g.section])).toEqual([
      ['GenericServerRunOptions', 'generic'],
      ['EtcdOptions', 'etcd'],
      ['EncryptionOptions', 'etcd'],
      ['SecureServingOptions', 'secure serving'],
      ['AuditOptions', 'auditing'],
      ['FeatureOptions', 'features'],
      ['BuiltInAuthenticationOptions', 'authentication'],
      ['BuiltInAuthorizationOptions', 'authorization'],
      ['APIEnablementOptions', 'API enablement'],
      ['AdmissionOptions', 'admission'],
      // kube-apiserver's custom global flags, added to its generic flag set.
      ['DefaultTolerationSecondsOptions', 'generic'],
      ['MetricsOptions', 'metrics'],
      ['LogsOptions', 'logs'],
      ['MiscOptions', 'misc'],
      ['StandaloneOptions', 'standalone'],
    ]);
  });

  it('keeps the groups of later issues empty: no flags, nothing to validate or apply', () => {
    const empty = groups.filter((g) => ['auditing', 'features', 'metrics'].includes(g.section));
    expect(empty).toHaveLength(3);
    for (const g of empty) {
      expect(g.flags()).toEqual([]);
      expect(g.validate()).toEqual([]);
    }
  });

  it('defines each flag once (pflag refuses a redefinition)', () => {
    const names = groups.flatMap((g) => g.flags().map((f) => f.name));
    expect(new Set(names).size).toBe(names.length);
    const twice = [...groups[0]!.flags(), ...groups[0]!.flags()];
    expect(() => parseArgs(twice, [])).toThrow('flag redefined: feature-gates');
  });

  it('writes every ServerConfig field from exactly one group', () => {
    const owners = new Map<string, string[]>();
    for (const g of optionsGroups(newServerRunOptions())) {
      const config = {} as Record<string, unknown>;
      g.applyTo(config as never, ctx);
      for (const key of Object.keys(config)) owners.set(key, [...(owners.get(key) ?? []), g.constructor.name]);
    }
    const fields = Object.keys(parseFlags([], { cwd: '/srv' })).filter((k) => k !== 'help');
    expect([...owners.keys()].sort()).toEqual(fields.sort());
    expect([...owners.values()].filter((o) => o.length > 1)).toEqual([]);
  });

  it('gives each parse fresh values (no state shared between parses)', () => {
    expect(parseFlags(['--feature-gates=A=true', '--etcd-servers=http://a:1']).featureGates.size).toBe(1);
    const again = parseFlags([]);
    expect([again.featureGates.size, again.etcdServers, again.runtimeConfig.size]).toEqual([0, [], 0]);
  });
});
