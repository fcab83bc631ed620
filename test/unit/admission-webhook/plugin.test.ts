/** The two webhook plugins: registered, on by default in kube's places; their configuration read as kube reads it and refused. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newAdmissionPlugins } from '../../../src/admission';
import { webhookKubeconfigFile } from '../../../src/admission/plugins/webhook';

test('on by default, mutating before ValidatingAdmissionPolicy, validating before ResourceQuota', () => {
  const plugins = newAdmissionPlugins();
  const names = plugins.enabledPluginNames();
  expect(names.slice(-3)).toEqual(['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota']);
  const chain = plugins.newFromPlugins(['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook'], {}, {});
  expect(chain.mutating).toEqual(['MutatingAdmissionWebhook']);
  expect(chain.validating).toEqual(['ValidatingAdmissionWebhook']);
});

describe('WebhookAdmissionConfiguration', () => {
  test.each([
    ['v1', '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmissionConfiguration","kubeConfigFile":"/etc/hooks.kubeconfig","extra":1}'],
    ['v1alpha1 (YAML)', 'apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: WebhookAdmission\nkubeConfigFile: /etc/hooks.kubeconfig\n'],
  ])('%s', (_name, text) => {
    expect(webhookKubeconfigFile({ text })).toBe('/etc/hooks.kubeconfig');
  });

  test.each([
    ['a relative path', '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmissionConfiguration","kubeConfigFile":"hooks"}', 'kubeConfigFile: Invalid value: "hooks": must be an absolute file path'],
    ['none', '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmissionConfiguration"}', 'kubeConfigFile: Invalid value: "": must be an absolute file path'],
    [
      'another kind',
      '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmission"}',
      'no kind "WebhookAdmission" is registered for version "apiserver.config.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/webhook/config/kubeconfig.go:34"',
    ],
  ])('%s', (_name, text, message) => {
    expect(() => webhookKubeconfigFile({ text })).toThrow(message);
  });

  test("its own file is read; one that cannot be read is Go's open error", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-webhook-config-'));
    try {
      const file = path.join(dir, 'webhook.yaml');
      writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: /etc/hooks.kubeconfig\n');
      expect(webhookKubeconfigFile({ path: file })).toBe('/etc/hooks.kubeconfig');
      const missing = path.join(dir, 'missing.yaml');
      expect(() => webhookKubeconfigFile({ path: missing })).toThrow(new Error(`open ${missing}: no such file or directory`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a configuration naming credentials is refused at start rather than ignored', () => {
    const plugins = newAdmissionPlugins();
    const text = '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmissionConfiguration","kubeConfigFile":"/etc/hooks.kubeconfig"}';
    expect(() => plugins.newFromPlugins(['ValidatingAdmissionWebhook'], { ValidatingAdmissionWebhook: { text } }, {})).toThrow(
      /kubeConfigFile "\/etc\/hooks.kubeconfig": credentials for admission webhooks are not supported by this server/,
    );
  });
});
