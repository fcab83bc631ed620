/**
 * The embedded default's client CA and admin client certificate (certs.ts ensureClientCertificates)
 * and the certificate kubeconfig: generated once with 0600 keys, reused, renewed when expiring or
 * no longer issued by the CA; the certificate verifies for client auth as CN=admin, O=system:masters.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { parseCaBundle, parseCertificate, userFromCertificate, verifyClientChain } from '../../../src/auth/authn/x509';
import { CLIENT_CERT_FILES, ensureClientCertificates } from '../../../src/server/certs';
import { buildAdminKubeconfig } from '../../../src/server/kubeconfig';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'client-certs-test-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});
const certDir = () => path.join(dir, 'pki');
const mode = async (f: string) => (await fs.stat(path.join(certDir(), f))).mode & 0o777;

describe('ensureClientCertificates', () => {
  it('generates a client CA and an admin certificate that verifies for client auth; keys 0600', async () => {
    const c = await ensureClientCertificates({ certDir: certDir() });
    expect(await mode(CLIENT_CERT_FILES.caKey)).toBe(0o600);
    expect(await mode(CLIENT_CERT_FILES.adminKey)).toBe(0o600);
    expect((await fs.stat(certDir())).mode & 0o777).toBe(0o700);
    const roots = parseCaBundle(c.caCert, 'n').map(parseCertificate);
    const leaf = parseCertificate(new X509Certificate(c.adminCert));
    const chains = verifyClientChain(leaf, [], roots, new Date());
    expect(userFromCertificate(chains[0]![0]!)).toMatchObject({ name: 'admin', groups: ['system:masters'] });
    expect(new X509Certificate(c.adminCert).checkPrivateKey(createPrivateKey(c.adminKey))).toBe(true);
  });

  it('reuses the files on later starts', async () => {
    const first = await ensureClientCertificates({ certDir: certDir() });
    expect(await ensureClientCertificates({ certDir: certDir() })).toEqual(first);
  });

  it('renews the admin certificate within 30 days of its end, keeping the CA; a lost CA key renews both', async () => {
    const first = await ensureClientCertificates({ certDir: certDir() });
    const later = await ensureClientCertificates({ certDir: certDir(), now: () => new Date(Date.now() + 340 * 86400_000) });
    expect(later.caCert).toBe(first.caCert);
    expect(later.adminCert).not.toBe(first.adminCert);
    await fs.rm(path.join(certDir(), CLIENT_CERT_FILES.caKey));
    const fresh = await ensureClientCertificates({ certDir: certDir() });
    expect(fresh.caCert).not.toBe(first.caCert);
    expect(() => verifyClientChain(parseCertificate(new X509Certificate(fresh.adminCert)), [], parseCaBundle(fresh.caCert, 'n').map(parseCertificate), new Date())).not.toThrow();
  });
});

describe('buildAdminKubeconfig with a client certificate', () => {
  it('writes client-certificate-data and client-key-data and no token', () => {
    const doc = yaml.load(buildAdminKubeconfig({ server: 'https://h:1', caCertPem: 'CA\n', clientCertificate: { cert: 'C\n', key: 'K\n' } })) as any;
    expect(doc.users).toEqual([{ name: 'admin', user: { 'client-certificate-data': Buffer.from('C\n').toString('base64'), 'client-key-data': Buffer.from('K\n').toString('base64') } }]);
  });
});
