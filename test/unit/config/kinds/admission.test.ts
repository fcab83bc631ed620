import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readAdmissionConfiguration } from '../../../../src/config/kinds/admission';

describe('AdmissionConfiguration (--admission-control-config-file)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'admission-config-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    return file;
  };

  test('no file: no plugin has a configuration', () => {
    expect(readAdmissionConfiguration(['EventRateLimit'], undefined)('EventRateLimit')).toBeUndefined();
  });

  test.each(['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1'])('%s: embedded configuration as JSON text, path made absolute against the file', async (apiVersion) => {
    const file = await write(
      'admission.yaml',
      [
        `apiVersion: ${apiVersion}`,
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: EventRateLimit',
        '  configuration:',
        '    apiVersion: eventratelimit.admission.k8s.io/v1alpha1',
        '    kind: Configuration',
        '    limits: [{type: Server, qps: 5, burst: 10}]',
        '- name: ImagePolicyWebhook',
        '  path: conf/image-policy.yaml',
        '- name: ResourceQuota',
        '- name: EventRateLimit',
        '  path: ignored.yaml',
      ].join('\n'),
    );
    const configFor = readAdmissionConfiguration(['EventRateLimit', 'ImagePolicyWebhook'], file);
    const erl = configFor('EventRateLimit');
    // Where it was, for messages: the entry's field in the AdmissionConfiguration.
    expect(erl).toEqual({ text: expect.any(String), path: file, field: 'plugins[0].configuration' });
    expect(JSON.parse((erl as { text: string }).text)).toEqual({
      apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1',
      kind: 'Configuration',
      limits: [{ type: 'Server', qps: 5, burst: 10 }],
    });
    expect(configFor('ImagePolicyWebhook')).toEqual({ path: path.join(dir, 'conf/image-policy.yaml') });
    // Named with neither: no configuration; not named: none.
    expect(configFor('ResourceQuota')).toBeUndefined();
    expect(configFor('NamespaceLifecycle')).toBeUndefined();
  });

  test("kube's legacy form: a bare imagePolicy file configures ImagePolicyWebhook when it is enabled", async () => {
    const file = await write('legacy.yaml', 'imagePolicy:\n  kubeConfigFile: /x\n  allowTTL: 50\n');
    expect(readAdmissionConfiguration(['ImagePolicyWebhook', 'EventRateLimit'], file)('ImagePolicyWebhook')).toEqual({ text: expect.any(Buffer), path: file });
    expect(readAdmissionConfiguration(['ImagePolicyWebhook', 'EventRateLimit'], file)('EventRateLimit')).toBeUndefined();
    expect(readAdmissionConfiguration(['EventRateLimit'], file)('ImagePolicyWebhook')).toBeUndefined();
  });

  test('the entry index of an embedded configuration is the first entry naming the plugin', async () => {
    const file = await write('second.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: A\n- name: ImagePolicyWebhook\n  configuration: {imagePolicy: {}}\n- name: ImagePolicyWebhook\n  configuration: {}\n');
    expect(readAdmissionConfiguration([], file)('ImagePolicyWebhook')).toEqual({ text: '{"imagePolicy":{}}', path: file, field: 'plugins[1].configuration' });
  });

  test("errors name the file: missing file, bad YAML, unknown kind, after kube's own words", async () => {
    const missing = path.join(dir, 'nope.yaml');
    expect(() => readAdmissionConfiguration([], missing)).toThrow(`unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`);
    const bad = await write('bad.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: [\n');
    expect(() => readAdmissionConfiguration([], bad)).toThrow(new RegExp(`^yaml: .* \\(in "${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\)$`));
    const other = await write('other.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: Toy\n');
    expect(() => readAdmissionConfiguration([], other)).toThrow('no kind "Toy" is registered for version "apiserver.config.k8s.io/v1"');
    const noKind = await write('nokind.yaml', 'plugins: []\n');
    expect(() => readAdmissionConfiguration(['ImagePolicyWebhook'], noKind)).toThrow(`Object 'Kind' is missing in 'plugins: []\n' (in "${noKind}")`);
  });

  // kube decodes the AdmissionConfiguration with a strict codec factory (apiserver
  // pkg/admission/config.go, serializer.EnableStrict): unknown fields, fields spelled in another
  // case and repeated fields are errors. The embedded configurations are runtime.Unknown, not
  // looked into: each plugin decodes its own as strictly as kube's plugin does.
  test('decoded strictly: unknown, wrongly cased and repeated fields are refused; embedded configurations are not looked into', async () => {
    const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n';
    const unknown = await write('unknown.yaml', `${head}plugins:\n- name: X\n  pth: y\n`);
    expect(() => readAdmissionConfiguration([], unknown)).toThrow(new Error(`strict decoding error: unknown field "plugins[0].pth" (in "${unknown}")`));
    const cased = await write('cased.yaml', `${head}Plugins: []\n`);
    expect(() => readAdmissionConfiguration([], cased)).toThrow(new Error(`strict decoding error: unknown field "Plugins" (in "${cased}")`));
    const twice = await write('twice.json', JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [] }).replace('"plugins":[]', '"plugins":[],"plugins":[]'));
    expect(() => readAdmissionConfiguration([], twice)).toThrow(new Error(`strict decoding error: duplicate field "plugins" (in "${twice}")`));
    const twiceYaml = await write('twice.yaml', `${head}plugins: []\nplugins: []\n`);
    expect(() => readAdmissionConfiguration([], twiceYaml)).toThrow('yaml: unmarshal errors:\n  line 4: key "plugins" already set in map');
    const embedded = await write('embedded.yaml', `${head}plugins:\n- name: EventRateLimit\n  configuration: {anything: [1, 2], goes: here}\n`);
    expect(readAdmissionConfiguration([], embedded)('EventRateLimit')).toMatchObject({ text: '{"anything":[1,2],"goes":"here"}' });
  });
});
