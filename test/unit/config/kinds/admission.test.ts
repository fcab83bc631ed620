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
    expect(erl).toEqual({ text: expect.any(String), path: file });
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

  test('errors name the file: missing file, bad YAML, unknown field, unknown kind', async () => {
    const missing = path.join(dir, 'nope.yaml');
    expect(() => readAdmissionConfiguration([], missing)).toThrow(`unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`);
    const bad = await write('bad.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: [\n');
    expect(() => readAdmissionConfiguration([], bad)).toThrow(`failed to load AdmissionConfiguration from file "${bad}": yaml:`);
    const unknown = await write('unknown.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: X\n  pth: y\n');
    expect(() => readAdmissionConfiguration([], unknown)).toThrow('strict decoding error: unknown field "plugins[0].pth"');
    const other = await write('other.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: Toy\n');
    expect(() => readAdmissionConfiguration([], other)).toThrow('no kind "Toy" is registered for version "apiserver.config.k8s.io/v1"');
    const noKind = await write('nokind.yaml', 'plugins: []\n');
    expect(() => readAdmissionConfiguration(['ImagePolicyWebhook'], noKind)).toThrow("Object 'Kind' is missing in");
  });
});
