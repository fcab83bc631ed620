/**
 * The binary's client certificates: the embedded default generates a client CA in --cert-dir (reused
 * across starts) and writes an admin kubeconfig that authenticates with a client certificate;
 * --client-ca-file replaces the generated CA (and no certificate kubeconfig is written); a client CA
 * file that cannot be used is kube's startup error.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { run } from '../support/api-server';
import { runBinary, startBinary } from '../support/binary';
import { until } from '../support/until';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-e2e-x509-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const kubectl = (kubeconfig: string, args: string[]) =>
  run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), ...args], { env: { ...process.env, HOME: dir } });

test('embedded default: a generated client CA, reused across starts, and an admin kubeconfig with a client certificate', async () => {
  const dataDir = path.join(dir, 'data');
  const args = [`--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1'];
  const srv = await startBinary(args);
  try {
    for (const f of ['admin-cert.kubeconfig', 'pki/client-ca.key', 'pki/admin-client.key']) {
      expect({ f, mode: (await stat(path.join(dataDir, f))).mode & 0o777 }).toEqual({ f, mode: 0o600 });
    }
    const kc = yaml.load(await readFile(path.join(dataDir, 'admin-cert.kubeconfig'), 'utf8')) as any;
    const user = kc.users[0].user;
    expect(Object.keys(user).sort()).toEqual(['client-certificate-data', 'client-key-data']);
    const certPem = Buffer.from(user['client-certificate-data'], 'base64').toString();
    const subject = execFileSync('openssl', ['x509', '-noout', '-subject', '-ext', 'extendedKeyUsage'], { input: certPem }).toString();
    expect(subject).toMatch(/subject=O = system:masters, CN = admin/);
    expect(subject).toContain('TLS Web Client Authentication');
    expect((await kubectl(path.join(dataDir, 'admin-cert.kubeconfig'), ['get', 'namespaces', '-o', 'name'])).stdout).toContain('namespace/kube-system');
    // The token kubeconfig still works beside it.
    expect((await kubectl(srv.kubeconfig, ['get', 'namespaces', '-o', 'name'])).stdout).toContain('namespace/default');
  } finally {
    expect(await srv.stop()).toBe(0);
  }
  const ca = await readFile(path.join(dataDir, 'pki/client-ca.crt'), 'utf8');
  const again = await startBinary(args);
  try {
    expect(await readFile(path.join(dataDir, 'pki/client-ca.crt'), 'utf8')).toBe(ca);
    expect((await kubectl(path.join(dataDir, 'admin-cert.kubeconfig'), ['get', 'ns', 'default', '-o', 'name'])).stdout).toBe('namespace/default\n');
  } finally {
    expect(await again.stop()).toBe(0);
  }
});

test('--client-ca-file: certificates of that CA authenticate; no certificate kubeconfig is written', async () => {
  const f = (n: string) => path.join(dir, n);
  const ossl = (a: string[]) => execFileSync('openssl', a, { stdio: ['ignore', 'ignore', 'pipe'] });
  ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-subj', '/CN=my-ca', '-days', '3']);
  ossl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('u.key'), '-out', f('u.csr'), '-subj', '/O=system:masters/CN=ops']);
  await writeFile(f('u.ext'), 'extendedKeyUsage=clientAuth\n');
  ossl(['x509', '-req', '-in', f('u.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-set_serial', '7', '-days', '1', '-extfile', f('u.ext'), '-out', f('u.crt')]);
  const dataDir = f('data');
  const srv = await startBinary([`--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1', `--client-ca-file=${f('ca.crt')}`]);
  try {
    await expect(stat(path.join(dataDir, 'admin-cert.kubeconfig'))).rejects.toMatchObject({ code: 'ENOENT' });
    await writeFile(f('server-ca.crt'), Buffer.from((yaml.load(await readFile(srv.kubeconfig, 'utf8')) as any).clusters[0].cluster['certificate-authority-data'], 'base64'));
    await writeFile(f('empty'), 'apiVersion: v1\nkind: Config\n');
    const asUser = (user: string) =>
      kubectl(f('empty'), ['--server', srv.url, '--certificate-authority', f('server-ca.crt'), '--client-certificate', f(`${user}.crt`), '--client-key', f(`${user}.key`), 'get', 'ns', 'default', '-o', 'name']);
    expect(await asUser('u')).toMatchObject({ code: 0, stdout: 'namespace/default\n' });

    // The file is read again when it changes (kube's dynamic CA file): a second CA's certificates
    // authenticate from then on, the first CA's no longer; a bundle that does not parse changes nothing.
    ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca2.key'), '-out', f('ca2.crt'), '-subj', '/CN=my-ca-2', '-days', '3']);
    ossl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('v.key'), '-out', f('v.csr'), '-subj', '/O=system:masters/CN=ops2']);
    ossl(['x509', '-req', '-in', f('v.csr'), '-CA', f('ca2.crt'), '-CAkey', f('ca2.key'), '-set_serial', '8', '-days', '1', '-extfile', f('u.ext'), '-out', f('v.crt')]);
    expect((await asUser('v')).stderr).toContain('Unauthorized');
    await writeFile(f('ca.crt'), 'not a certificate\n');
    await until('the bad bundle refused', () => srv.stderr().includes('failed to load the client CA bundle'), { timeoutMs: 20_000 });
    expect(await asUser('u')).toMatchObject({ code: 0 });
    await writeFile(f('ca.crt'), await readFile(f('ca2.crt')));
    await until('the second CA in force', async () => (await asUser('v')).code === 0, { timeoutMs: 20_000 });
    expect((await asUser('u')).stderr).toContain('Unauthorized');
    expect(srv.stderr()).toContain('loaded a new CA bundle');
  } finally {
    expect(await srv.stop()).toBe(0);
  }
});

test("a client CA file that cannot be used is kube-apiserver's startup error", async () => {
  const base = [`--data-dir=${path.join(dir, 'd')}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1'];
  const missing = await runBinary([...base, `--client-ca-file=${path.join(dir, 'nope.crt')}`]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`Error: unable to load client CA file: open ${path.join(dir, 'nope.crt')}: no such file or directory`);
  await writeFile(path.join(dir, 'bad.crt'), 'not a certificate\n');
  const bad = await runBinary([...base, `--client-ca-file=${path.join(dir, 'bad.crt')}`]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain(
    `Error: unable to load client CA file: error loading CA bundle for "client-ca-bundle::${path.join(dir, 'bad.crt')}": data does not contain any valid RSA or ECDSA certificates`,
  );
  await writeFile(path.join(dir, 'empty.crt'), '');
  const empty = await runBinary([...base, `--client-ca-file=${path.join(dir, 'empty.crt')}`]);
  expect(empty.stderr).toContain(`Error: unable to load client CA file: missing content for CA bundle "client-ca-bundle::${path.join(dir, 'empty.crt')}"`);
});
