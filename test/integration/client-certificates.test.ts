/**
 * Client certificates (kube's --client-ca-file and x509 authenticator) against a real server: the
 * certificates are made with the openssl CLI; kubectl, @kubernetes/client-node and raw HTTP/1.1 and
 * HTTP/2 clients present them, and kubectl also gets them from an exec credential plugin
 * (ExecCredential v1 and v1beta1 with clientCertificateData/clientKeyData). The user the server derived is observed through an authorizer that
 * records the attributes of requests for a marker namespace.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { AuthorizationAttributes, Authorizer, UserInfo } from '../../src/auth';
import { run } from '../support/api-server';
import { CA_EXT, requireOpenssl, TestPki } from '../support/openssl';
import { useTestServer } from '../support/server-fixture';

const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-x509-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const f = (name: string): string => path.join(dir, name);

requireOpenssl();
const pki = new TestPki(dir);
pki.ca('client-ca');
pki.ca('other-ca');
pki.issue('alice', { ca: 'client-ca', subj: '/O=team-a/O=team-b/CN=alice' });
pki.issue('admin', { ca: 'client-ca', subj: '/O=system:masters/CN=cert-admin' });
pki.issue('expired', { ca: 'client-ca', subj: '/CN=cn-expired', start: new Date('2020-01-01T00:00:00Z'), end: new Date('2020-01-02T00:00:00Z') });
pki.issue('future', { ca: 'client-ca', subj: '/CN=cn-future', start: new Date('2040-01-01T00:00:00Z'), end: new Date('2041-01-01T00:00:00Z') });
pki.issue('stranger', { ca: 'other-ca', subj: '/CN=cn-stranger' });
pki.issue('nocn', { ca: 'client-ca', subj: '/O=team-a' });
pki.issue('serving', { ca: 'client-ca', subj: '/CN=cn-serving', ext: 'extendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n' });
pki.issue('noeku', { ca: 'client-ca', subj: '/CN=no-eku', ext: 'keyUsage=critical,digitalSignature\n' });
// A leaf under an intermediate CA the client sends along (the CA file holds only the root).
pki.issue('inter', { ca: 'client-ca', subj: '/CN=inter', ext: CA_EXT });
pki.issue('bob', { ca: 'inter', subj: '/O=ops/CN=bob' });
writeFileSync(f('bob-chain.crt'), pki.read('bob.crt') + pki.read('inter.crt'));
writeFileSync(f('bob-chain.key'), pki.read('bob.key'));

const seen = new Map<string, UserInfo>();
/** Allows everything; remembers the user of requests naming the namespace `who-<marker>`. */
const recorder: Authorizer = {
  authorize: async (a: AuthorizationAttributes) => {
    if (a.resource === 'namespaces' && a.name.startsWith('who-')) seen.set(a.name, a.user);
    return { decision: 'allow' };
  },
};

const failures: string[] = [];
const { srv } = useTestServer({ clientCA: readFileSync(f('client-ca.crt'), 'utf8'), authorizer: recorder, onX509Failure: (m) => failures.push(m) });

let markers = 0;
const marker = (): string => `who-${++markers}`;

/** kubectl with flags only: the server's CA, a client certificate and key, no token. */
function kubectlWithCert(name: string, args: string[]) {
  const empty = f('empty.kubeconfig');
  writeFileSync(empty, 'apiVersion: v1\nkind: Config\n');
  writeFileSync(f('server-ca.crt'), srv.caCert);
  return run('kubectl', ['--kubeconfig', empty, '--server', srv.url, '--certificate-authority', f('server-ca.crt'),
    '--client-certificate', f(`${name}.crt`), '--client-key', f(`${name}.key`), ...args], { env: { ...process.env, HOME: dir } });
}

function http1(p: string, o: { cert?: string; token?: string } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = o.token ? { authorization: `Bearer ${o.token}` } : {};
    const tlsOpts = o.cert ? { cert: readFileSync(f(`${o.cert}.crt`)), key: readFileSync(f(`${o.cert}.key`)) } : {};
    const req = https.request(`${srv.url}${p}`, { ca: srv.caCert, headers, agent: false, ...tlsOpts }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function http2Get(p: string, o: { cert?: string; token?: string } = {}): Promise<{ status: number; text: string; alpn: string | false | undefined }> {
  const tlsOpts = o.cert ? { cert: readFileSync(f(`${o.cert}.crt`)), key: readFileSync(f(`${o.cert}.key`)) } : {};
  const session = http2.connect(srv.url, { ca: srv.caCert, ...tlsOpts });
  session.on('error', () => undefined);
  try {
    await new Promise<void>((resolve, reject) => {
      session.once('connect', () => resolve());
      session.once('error', reject);
    });
    const headers: http2.OutgoingHttpHeaders = { ':path': p };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const stream = session.request(headers);
    return await new Promise((resolve, reject) => {
      let status = 0;
      let text = '';
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => resolve({ status, text, alpn: session.alpnProtocol }));
      stream.on('error', reject);
    });
  } finally {
    session.close();
  }
}

describe('kubectl with --client-certificate/--client-key', () => {
  test('the user is the CN, the groups the O values plus system:authenticated', async () => {
    const m = marker();
    const r = await kubectlWithCert('alice', ['get', 'namespace', m]);
    expect(r.stderr).toContain(`namespaces "${m}" not found`);
    expect(seen.get(m)).toMatchObject({ name: 'alice', groups: ['team-a', 'team-b', 'system:authenticated'] });
    expect(seen.get(m)?.extra?.['authentication.kubernetes.io/credential-id']?.[0]).toMatch(/^X509SHA256=[0-9a-f]{64}$/);
  });

  test('kubectl auth whoami (SelfSubjectReview) shows the certificate user and its credential id', async () => {
    const r = await kubectlWithCert('alice', ['auth', 'whoami', '-o', 'json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout).status.userInfo;
    expect(info).toMatchObject({ username: 'alice', groups: ['team-a', 'team-b', 'system:authenticated'] });
    expect(info.extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^X509SHA256=[0-9a-f]{64}$/);
    expect(info.uid).toBeUndefined();
  });

  test('a certificate in system:masters creates and reads objects', async () => {
    const ns = `x509-${Date.now()}`;
    expect((await kubectlWithCert('admin', ['create', 'namespace', ns])).code).toBe(0);
    const got = await kubectlWithCert('admin', ['get', 'namespace', ns, '-o', 'jsonpath={.metadata.name}']);
    expect(got).toMatchObject({ code: 0, stdout: ns });
  });

  test.each([
    ['expired', /certificate has expired or is not yet valid: current time \S+ is after 2020-01-02T00:00:00Z/],
    ['future', /certificate has expired or is not yet valid: current time \S+ is before 2040-01-01T00:00:00Z/],
    ['stranger', /certificate signed by unknown authority/],
    ['serving', /certificate specifies an incompatible key usage/],
  ])('a %s certificate is refused: 401 Unauthorized', async (name, why) => {
    failures.length = 0;
    const r = await kubectlWithCert(name, ['get', 'namespaces']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|must be logged in/);
    expect(failures.join('\n')).toMatch(why);
    // The log names the certificate by serial number only.
    expect(failures.join('\n')).not.toContain(`cn-${name}`);
  });

  test('a certificate without a CN is no opinion: with nothing else it is a 401', async () => {
    const r = await kubectlWithCert('nocn', ['get', 'namespaces']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|must be logged in/);
  });

  test('a certificate with no extended key usage is allowed for client auth (Go: any)', async () => {
    const m = marker();
    await kubectlWithCert('noeku', ['get', 'namespace', m]);
    expect(seen.get(m)?.name).toBe('no-eku');
  });
});

describe('kubectl with an exec credential plugin that returns a client certificate', () => {
  // A plugin as an operator would write one: it answers in the apiVersion kubectl asks in
  // (KUBERNETES_EXEC_INFO) with a certificate, its key and an expiry, and notes each run.
  const plugin = f('cert-plugin.js');
  writeFileSync(
    plugin,
    `const fs = require('fs');
const [cert, key, runs] = process.argv.slice(2);
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
fs.appendFileSync(runs, info.apiVersion + ' ' + info.kind + '\\n');
const expirationTimestamp = new Date(Date.now() + 3600e3).toISOString().replace(/\\.\\d+Z$/, 'Z');
process.stdout.write(JSON.stringify({
  apiVersion: info.apiVersion,
  kind: 'ExecCredential',
  status: { clientCertificateData: fs.readFileSync(cert, 'utf8'), clientKeyData: fs.readFileSync(key, 'utf8'), expirationTimestamp },
}));
`,
  );

  /** A kubeconfig whose user runs the plugin for the certificate `<cert>.crt` (its key `<key>.key`). */
  function execKubeconfig(cert: string, apiVersion: 'v1' | 'v1beta1', key = cert): { kubeconfig: string; runs: string } {
    const kubeconfig = f(`exec-${cert}-${apiVersion}.kubeconfig`);
    const runs = f(`exec-${cert}-${apiVersion}.runs`);
    writeFileSync(runs, '');
    const exec = {
      apiVersion: `client.authentication.k8s.io/${apiVersion}`,
      command: process.execPath,
      args: [plugin, f(`${cert}.crt`), f(`${key}.key`), runs],
      ...(apiVersion === 'v1' ? { interactiveMode: 'Never' } : {}),
    };
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: srv.url, 'certificate-authority-data': Buffer.from(srv.caCert).toString('base64') } }],
      users: [{ name: 'u', user: { exec } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    };
    // JSON is YAML: kubectl reads it as a kubeconfig.
    writeFileSync(kubeconfig, JSON.stringify(doc));
    return { kubeconfig, runs };
  }
  const kubectlExec = (kubeconfig: string, args: string[]) => run('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, HOME: dir } });
  /** kube's credential id of a certificate: the SHA-256 of its DER. */
  const credentialId = (cert: string) => `X509SHA256=${new X509Certificate(readFileSync(f(`${cert}.crt`))).fingerprint256.replace(/:/g, '').toLowerCase()}`;

  test.each(['v1', 'v1beta1'] as const)('%s: kubectl auth whoami is the certificate user (CN, O values, its credential id)', async (version) => {
    const { kubeconfig, runs } = execKubeconfig('alice', version);
    const r = await kubectlExec(kubeconfig, ['auth', 'whoami', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).status.userInfo).toEqual({
      username: 'alice',
      groups: ['team-a', 'team-b', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [credentialId('alice')] },
    });
    expect(readFileSync(runs, 'utf8')).toBe(`client.authentication.k8s.io/${version} ExecCredential\n`);
  });

  test.each(['v1', 'v1beta1'] as const)('%s: a system:masters certificate from the plugin creates and reads objects', async (version) => {
    const { kubeconfig } = execKubeconfig('admin', version);
    const ns = `exec-x509-${version}-${Date.now()}`;
    expect(await kubectlExec(kubeconfig, ['create', 'namespace', ns])).toMatchObject({ code: 0, stderr: '' });
    expect(await kubectlExec(kubeconfig, ['get', 'namespace', ns, '-o', 'jsonpath={.metadata.name}'])).toMatchObject({ code: 0, stdout: ns });
  });

  test('a chain the plugin returns (leaf and intermediate) verifies to the client CA', async () => {
    const { kubeconfig } = execKubeconfig('bob-chain', 'v1');
    const r = await kubectlExec(kubeconfig, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}']);
    expect(r).toMatchObject({ code: 0, stdout: 'bob ["ops","system:authenticated"]' });
  });

  test.each(['expired', 'stranger'])('a %s certificate from the plugin is a 401: kubectl must log in', async (name) => {
    failures.length = 0;
    const { kubeconfig } = execKubeconfig(name, 'v1');
    const r = await kubectlExec(kubeconfig, ['get', 'namespaces']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
    expect(failures.length).toBeGreaterThan(0);
  });
});

describe.each([
  ['HTTP/1.1', async (p: string, o: { cert?: string; token?: string }) => ({ ...(await http1(p, o)), alpn: 'http/1.1' as string | false | undefined })],
  ['HTTP/2', http2Get],
])('over %s', (proto, get) => {
  test('a client certificate authenticates', async () => {
    const m = marker();
    const r = await get(`/api/v1/namespaces/${m}`, { cert: 'alice' });
    expect(r.status).toBe(404);
    expect(seen.get(m)?.name).toBe('alice');
    if (proto === 'HTTP/2') expect(r.alpn).toBe('h2');
  });

  test.each(['expired', 'future', 'stranger', 'serving'])('%s → 401 Status, on /healthz too', async (name) => {
    for (const p of ['/api/v1/namespaces', '/healthz']) {
      const r = await get(p, { cert: name });
      expect({ p, status: r.status }).toEqual({ p, status: 401 });
      expect(JSON.parse(r.text)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    }
  });

  test('no certificate: the token still works, and no credential is still 401', async () => {
    const m = marker();
    expect((await get(`/api/v1/namespaces/${m}`, { token: srv.token })).status).toBe(404);
    expect(seen.get(m)?.name).toBe('admin');
    expect((await get('/api/v1/namespaces', {})).status).toBe(401);
    expect((await get('/healthz', {})).status).toBe(200);
  });

  test('a chain through an intermediate the client sends verifies; the leaf alone does not', async () => {
    const m = marker();
    expect((await get(`/api/v1/namespaces/${m}`, { cert: 'bob-chain' })).status).toBe(404);
    expect(seen.get(m)).toMatchObject({ name: 'bob', groups: ['ops', 'system:authenticated'] });
    expect((await get('/api/v1/namespaces', { cert: 'bob' })).status).toBe(401);
  });

  test('a verified certificate wins over a token sent with it (x509 is first in the union)', async () => {
    const m = marker();
    await get(`/api/v1/namespaces/${m}`, { cert: 'alice', token: srv.token });
    expect(seen.get(m)?.name).toBe('alice');
  });

  test('a bad certificate with a good token: the token authenticates (the union tries on)', async () => {
    const m = marker();
    expect((await get(`/api/v1/namespaces/${m}`, { cert: 'expired', token: srv.token })).status).toBe(404);
    expect(seen.get(m)?.name).toBe('admin');
  });
});

test('new connections of one client agent (Node caches TLS sessions) keep authenticating through an intermediate', async () => {
  const agent = new https.Agent({ keepAlive: false, ca: srv.caCert, cert: readFileSync(f('bob-chain.crt')), key: readFileSync(f('bob-chain.key')) });
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    statuses.push(
      await new Promise<number>((resolve, reject) => {
        const req = https.get(`${srv.url}/api/v1/namespaces`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
      }),
    );
  }
  agent.destroy();
  expect(statuses).toEqual([200, 200, 200]);
});

test('@kubernetes/client-node with a client certificate', async () => {
  const k8s: typeof K8sModule = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: srv.url, caData: Buffer.from(srv.caCert).toString('base64') }],
    users: [{ name: 'u', certData: readFileSync(f('alice.crt')).toString('base64'), keyData: readFileSync(f('alice.key')).toString('base64') }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const m = marker();
  await expect(api.readNamespace({ name: m })).rejects.toMatchObject({ code: 404 });
  expect(seen.get(m)).toMatchObject({ name: 'alice', groups: ['team-a', 'team-b', 'system:authenticated'] });

  kc.loadFromOptions({
    clusters: [{ name: 'c', server: srv.url, caData: Buffer.from(srv.caCert).toString('base64') }],
    users: [{ name: 'u', certData: readFileSync(f('expired.crt')).toString('base64'), keyData: readFileSync(f('expired.key')).toString('base64') }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  await expect(kc.makeApiClient(k8s.CoreV1Api).listNamespace()).rejects.toMatchObject({ code: 401 });
});
