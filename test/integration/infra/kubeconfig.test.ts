import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as yaml from 'js-yaml';
import { ensureServingCertificates } from '../../../src/server/certs';
import { ADMIN_TOKEN_FILE, ensureAdminToken, writeAdminKubeconfig } from '../../../src/server/kubeconfig';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'kubeconfig-test-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const mode = async (p: string) => (await fs.stat(p)).mode & 0o777;
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('writeAdminKubeconfig', () => {
  it('writes a v1 Config with one cluster, token user and current context, mode 0600', async () => {
    const file = path.join(dir, 'nested', 'deeper', 'admin.kubeconfig');
    await writeAdminKubeconfig({ path: file, server: 'https://127.0.0.1:6443', caCertPem: CA, token: 'tok' });
    expect(await mode(file)).toBe(0o600);
    expect(yaml.load(await fs.readFile(file, 'utf8'))).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'platform-apiserver',
          cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(CA).toString('base64') },
        },
      ],
      users: [{ name: 'admin', user: { token: 'tok' } }],
      contexts: [{ name: 'platform-apiserver', context: { cluster: 'platform-apiserver', user: 'admin' } }],
      'current-context': 'platform-apiserver',
      preferences: {},
    });
  });

  it('honours cluster and user names and replaces an existing file (keeping 0600)', async () => {
    const file = path.join(dir, 'kc');
    await fs.writeFile(file, 'old', { mode: 0o644 });
    await writeAdminKubeconfig({ path: file, server: 'https://h:1', caCertPem: CA, token: 't', clusterName: 'c1', userName: 'u1' });
    const doc = yaml.load(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    expect(doc['current-context']).toBe('c1');
    expect(doc.users).toEqual([{ name: 'u1', user: { token: 't' } }]);
    expect(await mode(file)).toBe(0o600);
    expect((await fs.readdir(dir)).sort()).toEqual(['kc']); // no temp files left
  });
});

describe('ensureAdminToken', () => {
  it('generates a random token once (0600) and reuses it', async () => {
    const dataDir = path.join(dir, 'data');
    const t1 = await ensureAdminToken(dataDir);
    expect(t1).toMatch(/^[0-9a-f]{64}$/);
    expect(await mode(path.join(dataDir, ADMIN_TOKEN_FILE))).toBe(0o600);
    expect(await mode(dataDir)).toBe(0o700);
    expect(await ensureAdminToken(dataDir)).toBe(t1);
    const other = await ensureAdminToken(path.join(dir, 'other'));
    expect(other).not.toBe(t1);
  });

  it('agrees on one token under concurrent first calls and leaves no temp files', async () => {
    const dataDir = path.join(dir, 'data');
    const tokens = await Promise.all(Array.from({ length: 8 }, () => ensureAdminToken(dataDir)));
    expect(new Set(tokens).size).toBe(1);
    expect(await fs.readdir(dataDir)).toEqual([ADMIN_TOKEN_FILE]);
  });

  it('replaces an empty token file', async () => {
    const dataDir = path.join(dir, 'data');
    await fs.mkdir(dataDir);
    await fs.writeFile(path.join(dataDir, ADMIN_TOKEN_FILE), '\n');
    const t = await ensureAdminToken(dataDir);
    expect(t).toMatch(/^[0-9a-f]{64}$/);
    expect((await fs.readFile(path.join(dataDir, ADMIN_TOKEN_FILE), 'utf8')).trim()).toBe(t);
  });
});

(existsSync(KUBECTL) ? describe : describe.skip)('kubectl accepts the generated certificates and kubeconfig', () => {
  it.each(['127.0.0.1', 'localhost'])('kubectl get --raw /healthz via https://%s', async (host) => {
    const certs = await ensureServingCertificates({ certDir: path.join(dir, 'pki'), hosts: [] });
    const token = await ensureAdminToken(dir);
    const seen: Array<string | undefined> = [];
    const server = https.createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
      seen.push(req.headers.authorization);
      res.end(req.headers.authorization === `Bearer ${token}` ? 'ok' : 'denied');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const kubeconfig = path.join(dir, 'admin.kubeconfig');
      await writeAdminKubeconfig({ path: kubeconfig, server: `https://${host}:${port}`, caCertPem: certs.caCert, token });
      const { stdout } = await run(KUBECTL, ['--kubeconfig', kubeconfig, 'get', '--raw', '/healthz'], {
        env: { ...process.env, HOME: dir, KUBECONFIG: '' },
      });
      expect(stdout).toBe('ok');
      expect(seen).toContain(`Bearer ${token}`);
    } finally {
      server.close();
    }
  });
});
