/**
 * The built binary as a user runs it: embedded etcd under the data dir, HTTPS with generated
 * certificates, an admin kubeconfig that kubectl uses at once; clear startup errors; clean SIGTERM.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { run } from '../support/api-server';
import { runBinary, startBinary } from '../support/binary';
import { startTestEtcd } from '../support/etcd';
import { until } from '../support/until';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-e2e-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const kubectl = (kubeconfig: string, args: string[], input?: string) =>
  run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), ...args], {
    input,
    env: { ...process.env, HOME: dir },
  });

function etcdRunningFor(dataDir: string): Promise<boolean> {
  return run('pgrep', ['-f', `etcd --name=default --data-dir=${dataDir}`]).then((r) => r.code === 0);
}

test('embedded default: kubectl works at once, secrets are 0600, data survives a restart, SIGTERM stops etcd', async () => {
  const dataDir = path.join(dir, 'data');
  const srv = await startBinary([`--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1']);
  expect(srv.kubeconfig).toBe(path.join(dataDir, 'admin.kubeconfig'));
  for (const f of ['admin.kubeconfig', 'admin.token', 'pki/apiserver.key', 'pki/apiserver-ca.key']) {
    expect((await stat(path.join(dataDir, f))).mode & 0o777).toBe(0o600);
  }
  const ns = await kubectl(srv.kubeconfig, ['get', 'namespaces', '-o', 'name']);
  expect(ns.stdout).toContain('namespace/kube-system');
  const cm = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'default' }, data: { a: '1' } });
  expect(await kubectl(srv.kubeconfig, ['apply', '-f', '-'], cm)).toMatchObject({ code: 0, stdout: 'configmap/keep created\n' });
  const rv = (await kubectl(srv.kubeconfig, ['get', 'cm', 'keep', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;

  expect(await srv.stop()).toBe(0);
  expect(await etcdRunningFor(path.join(dataDir, 'etcd'))).toBe(false);

  const again = await startBinary([`--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1']);
  const after = await kubectl(again.kubeconfig, ['get', 'cm', 'keep', '-o', 'jsonpath={.data.a} {.metadata.resourceVersion}']);
  expect(after.stdout).toBe(`1 ${rv}`);
  expect(await again.stop()).toBe(0);
});

test('--etcd-servers uses an external etcd, --token-auth-file adds users, the toleration flags reach the plugin', async () => {
  const etcd = await startTestEtcd();
  try {
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, 'file-token,alice,alice-uid,"dev,ops"\n');
    const srv = await startBinary([
      `--data-dir=${path.join(dir, 'data')}`,
      '--secure-port=0',
      '--bind-address=127.0.0.1',
      `--etcd-servers=${etcd.endpoints.join(',')}`,
      `--token-auth-file=${tokens}`,
      '--default-not-ready-toleration-seconds=42',
      '--default-unreachable-toleration-seconds=7',
    ]);
    try {
      expect((await kubectl(srv.kubeconfig, ['get', 'ns', 'default', '-o', 'name'])).stdout).toBe('namespace/default\n');
      // The embedded default authorizes with RBAC: alice is authenticated, and may do what a binding grants.
      // (kube's RequestInfo puts a namespace's own name in the namespace of a request for it.)
      const alice = await kubectl(srv.kubeconfig, ['--token=file-token', 'get', 'ns', 'default', '-o', 'name']);
      expect(alice.stderr.trim()).toBe('Error from server (Forbidden): namespaces "default" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "default"');
      expect((await kubectl(srv.kubeconfig, ['create', 'clusterrolebinding', 'ops-view', '--clusterrole=view', '--group=ops'])).code).toBe(0);
      await until('alice to read namespaces through her group', async () => (await kubectl(srv.kubeconfig, ['--token=file-token', 'get', 'ns', 'default', '-o', 'name'])).stdout === 'namespace/default\n');
      expect((await kubectl(srv.kubeconfig, ['--token=file-token', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.groups}'])).stdout).toBe('["dev","ops","system:authenticated"]');
      const bad = await kubectl(srv.kubeconfig, ['--token=wrong', 'get', 'ns', 'default']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
      expect(await etcdRunningFor(path.join(dir, 'data', 'etcd'))).toBe(false);
      // DefaultTolerationSeconds with the flags' seconds; Priority with the system classes made at start.
      expect((await kubectl(srv.kubeconfig, ['run', 'p', '--image=busybox'])).code).toBe(0);
      const seconds = await kubectl(srv.kubeconfig, ['get', 'pod', 'p', '-o', 'jsonpath={.spec.tolerations[*].tolerationSeconds} {.spec.priority}']);
      expect(seconds.stdout).toBe('42 7 0');
      await until('the system priority classes', async () => (await kubectl(srv.kubeconfig, ['get', 'pc', '-o', 'name'])).stdout.includes('priorityclass.scheduling.k8s.io/system-node-critical\n'));
    } finally {
      expect(await srv.stop()).toBe(0);
    }
  } finally {
    await etcd.stop();
  }
});

test('--help prints the flags grouped in sections as kube-apiserver does, and exits 0', async () => {
  const h = await runBinary(['--help']);
  expect(h.code).toBe(0);
  expect(h.stderr).toBe('');
  expect(h.stdout).toMatch(/^platform-apiserver .*\n\nUsage:\n {2}platform-apiserver \[flags\]\n\nGeneric flags:\n\n/s);
  const sections = h.stdout.match(/^\S.* flags:$/gm);
  expect(sections).toEqual([
    'Generic flags:', 'Etcd flags:', 'Secure serving flags:', 'Authentication flags:', 'Authorization flags:', 'API enablement flags:',
    'Admission flags:', 'Logs flags:', 'Misc flags:', 'Standalone flags:', 'Global flags:',
  ]);
  expect(h.stdout.endsWith('\nGlobal flags:\n\n  -h, --help   help for platform-apiserver\n')).toBe(true);
});

test('clear errors: unknown flag, port in use (embedded etcd stopped again), unreachable etcd', async () => {
  const flag = await runBinary(['--bogus']);
  expect(flag.code).toBe(1);
  expect(flag.stderr).toContain('Error: unknown flag: --bogus');

  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const dataDir = path.join(dir, 'busy');
    const busy = await runBinary([`--data-dir=${dataDir}`, `--secure-port=${port}`, '--bind-address=127.0.0.1']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`Error: failed to listen on 127.0.0.1:${port}: address already in use`);
    expect(await etcdRunningFor(path.join(dataDir, 'etcd'))).toBe(false);
  } finally {
    blocker.close();
  }

  const unreachable = await runBinary([`--data-dir=${path.join(dir, 'x')}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1']);
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toContain('Error: unable to reach etcd at http://127.0.0.1:1');

  // --runtime-config is judged before anything waits on etcd, with kube's message.
  const runtimeConfig = await runBinary([`--data-dir=${path.join(dir, 'y')}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1', '--runtime-config=foo.example.com/v1=true']);
  expect(runtimeConfig.code).toBe(1);
  expect(runtimeConfig.stderr).toContain('Error: unknown api groups foo.example.com');
  expect(runtimeConfig.stderr).not.toContain('unable to reach etcd');

  // So are admission plugin names and the AdmissionConfiguration file.
  const admission = await runBinary([`--data-dir=${path.join(dir, 'z')}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1', '--enable-admission-plugins=NamespaceLifecycle,Bogus']);
  expect(admission.code).toBe(1);
  expect(admission.stderr).toContain('Error: enable-admission-plugins plugin "Bogus" is unknown');
  expect(admission.stderr).not.toContain('unable to reach etcd');
  const missing = path.join(dir, 'admission.yaml');
  const admissionFile = await runBinary([`--data-dir=${path.join(dir, 'w')}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1', `--admission-control-config-file=${missing}`]);
  expect(admissionFile.code).toBe(1);
  expect(admissionFile.stderr).toContain(
    `Error: failed to apply admission: failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`,
  );
});

describe('admission startup errors', () => {
  const unreachableEtcd = (name: string) => [`--data-dir=${path.join(dir, name)}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1'];

  test("plugin names: kube's aggregate of every problem; a kube-apiserver plugin this server lacks is named so", async () => {
    const names = await runBinary([...unreachableEtcd('names'), '--enable-admission-plugins=NodeRestriction,Bogus', '--disable-admission-plugins=Nope']);
    expect(names.code).toBe(1);
    const has = 'DefaultTolerationSeconds, EventRateLimit, ImagePolicyWebhook, MutatingAdmissionWebhook, NamespaceLifecycle, Priority, ResourceQuota, ServiceAccount, ValidatingAdmissionWebhook';
    expect(names.stderr).toContain(
      `Error: [enable-admission-plugins plugin "NodeRestriction" is a kube-apiserver plugin this server does not implement (it has: ${has}), ` +
        'enable-admission-plugins plugin "Bogus" is unknown, disable-admission-plugins plugin "Nope" is unknown]\n',
    );
    expect(names.stderr).not.toContain('unable to reach etcd');
  });

  test("an AdmissionConfiguration is decoded strictly (kube's EnableStrict): the unknown field, then the file", async () => {
    const file = path.join(dir, 'admission.yaml');
    await writeFile(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  pth: erl.yaml\n');
    // Turning off plugins kube has and this server does not (as a kubeadm setup may) is accepted:
    // they are off, as asked, and the start goes on to read the file.
    const r = await runBinary([...unreachableEtcd('strict'), '--disable-admission-plugins=PodSecurity,LimitRanger', `--admission-control-config-file=${file}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Error: failed to apply admission: failed to read plugin config: strict decoding error: unknown field "plugins[0].pth" (in "${file}")\n`);
  });

  test("a plugin's refused configuration: kube's message, then the file and the field, before etcd is reached", async () => {
    // EventRateLimit embedded in the AdmissionConfiguration: kube's validation names the field.
    const erlFile = path.join(dir, 'erl-admission.yaml');
    await writeFile(
      erlFile,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: EventRateLimit',
        '  configuration:',
        '    apiVersion: eventratelimit.admission.k8s.io/v1alpha1',
        '    kind: Configuration',
        '    limits:',
        '    - {type: Namespace, qps: 0, burst: 10}',
      ].join('\n'),
    );
    const erl = await runBinary([...unreachableEtcd('erl'), '--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${erlFile}`]);
    expect(erl.code).toBe(1);
    expect(erl.stderr).toContain(
      `Error: failed to apply admission: couldn't init admission plugin "EventRateLimit": limits[0].qps: Invalid value: 0: must be positive (in "${erlFile}" at plugins[0].configuration)\n`,
    );
    expect(erl.stderr).not.toContain('unable to reach etcd');

    // ImagePolicyWebhook by path: kube's bounds message names no field; the file and field follow it.
    const policy = path.join(dir, 'image-policy.yaml');
    await writeFile(policy, 'imagePolicy:\n  kubeConfigFile: /nowhere\n  allowTTL: 3600\n');
    const ipwFile = path.join(dir, 'ipw-admission.yaml');
    await writeFile(ipwFile, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: image-policy.yaml\n');
    const ipw = await runBinary([...unreachableEtcd('ipw'), '--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${ipwFile}`]);
    expect(ipw.code).toBe(1);
    expect(ipw.stderr).toContain(
      `Error: failed to apply admission: couldn't init admission plugin "ImagePolicyWebhook": valid value is between 1s and 30m0s, got 1h0m0s (in "${policy}" at imagePolicy.allowTTL)\n`,
    );
    expect(ipw.stderr).not.toContain('unable to reach etcd');
    // The kubeconfig it names is read then too (kube's NewImagePolicyWebhook loads it).
    await writeFile(policy, 'imagePolicy:\n  kubeConfigFile: /nowhere/kubeconfig\n  allowTTL: 60\n');
    const kubeconfig = await runBinary([...unreachableEtcd('ipw-kc'), '--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${ipwFile}`]);
    expect(kubeconfig.code).toBe(1);
    expect(kubeconfig.stderr).toContain(`Error: failed to apply admission: couldn't init admission plugin "ImagePolicyWebhook": `);
    expect(kubeconfig.stderr).toContain('/nowhere/kubeconfig');
    expect(kubeconfig.stderr).not.toContain('unable to reach etcd');
  });

  test('with the embedded etcd, a refused admission configuration or plugin name stops the start before etcd is started', async () => {
    const erlFile = path.join(dir, 'erl-admission.yaml');
    await writeFile(erlFile, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  configuration: {apiVersion: eventratelimit.admission.k8s.io/v1alpha1, kind: Configuration, limits: []}\n');
    for (const [name, args, message] of [
      ['config', ['--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${erlFile}`], `Error: failed to apply admission: couldn't init admission plugin "EventRateLimit": limits: Invalid value: []eventratelimit.Limit{}: must not be empty (in "${erlFile}" at plugins[0].configuration)\n`],
      ['names', ['--enable-admission-plugins=Bogus'], 'Error: enable-admission-plugins plugin "Bogus" is unknown\n'],
    ] as const) {
      const dataDir = path.join(dir, name);
      const r = await runBinary([`--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1', ...args]);
      expect({ name, code: r.code }).toEqual({ name, code: 1 });
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain('embedded etcd started');
      // The embedded etcd never ran: no log, no member directory.
      await expect(stat(path.join(dataDir, 'etcd.log'))).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(stat(path.join(dataDir, 'etcd'))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });
});

test('startup errors keep their order although the steps overlap: etcd first, then certificates; etcd is stopped', async () => {
  const missingCert = path.join(dir, 'missing.crt');
  const tlsArgs = [`--tls-cert-file=${missingCert}`, `--tls-private-key-file=${path.join(dir, 'missing.key')}`];
  const both = await runBinary([`--data-dir=${path.join(dir, 'y')}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1', ...tlsArgs]);
  expect(both.code).toBe(1);
  expect(both.stderr).toContain('Error: unable to reach etcd at http://127.0.0.1:1');
  expect(both.stderr).not.toContain(missingCert);

  const dataDir = path.join(dir, 'z');
  const certOnly = await runBinary([`--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1', ...tlsArgs]);
  expect(certOnly.code).toBe(1);
  expect(certOnly.stderr).toMatch(new RegExp(`Error: ENOENT[^\\n]*${missingCert.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  expect(await etcdRunningFor(path.join(dataDir, 'etcd'))).toBe(false);
});
