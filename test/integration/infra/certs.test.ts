import { promises as fs } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { splitPemCertificates } from '../../../src/api/der';
import { CERT_FILES, ensureServingCertificates, ServingCertificates } from '../../../src/server/certs';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'certs-test-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const certDir = () => path.join(dir, 'pki');
const mode = async (p: string) => (await fs.stat(p)).mode & 0o777;
const readAll = async () =>
  Object.fromEntries(
    await Promise.all(Object.values(CERT_FILES).map(async (f) => [f, await fs.readFile(path.join(certDir(), f), 'utf8')])),
  ) as Record<string, string>;

/** Serves HTTPS with the material and fetches `/` via `host`, trusting only caCert. */
async function handshake(material: ServingCertificates, host: string, servername?: string): Promise<string> {
  const server = https.createServer({ cert: material.cert, key: material.key }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve, reject) => {
      const req = https.get(
        { host, port, path: '/', ca: material.caCert, servername, agent: false },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('ensureServingCertificates (generated)', () => {
  it('generates a CA and a serving cert covering the hosts, keys 0600, dir 0700', async () => {
    const m = await ensureServingCertificates({ certDir: certDir(), hosts: ['apiserver.example', '10.1.2.3'] });
    expect(await mode(certDir())).toBe(0o700);
    expect(await mode(path.join(certDir(), CERT_FILES.key))).toBe(0o600);
    expect(await mode(path.join(certDir(), CERT_FILES.caKey))).toBe(0o600);

    const chain = splitPemCertificates(m.cert);
    expect(chain).toHaveLength(2);
    const leaf = new X509Certificate(chain[0] as string);
    const ca = new X509Certificate(m.caCert);
    expect(chain[1]?.trim()).toBe(m.caCert.trim());
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.publicKey.asymmetricKeyType).toBe('ec');
    expect(leaf.checkPrivateKey(createPrivateKey(m.key))).toBe(true);
    const sans = (leaf.subjectAltName ?? '').split(', ').sort();
    expect(sans).toEqual(
      ['DNS:apiserver.example', 'DNS:localhost', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:10.1.2.3', 'IP Address:127.0.0.1'].sort(),
    );
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // extKeyUsage serverAuth
    const validDays = (Date.parse(leaf.validTo) - Date.now()) / 86_400_000;
    expect(validDays).toBeGreaterThan(360);
  });

  it('serves TLS that a client trusting only the CA accepts for every SAN', async () => {
    const m = await ensureServingCertificates({ certDir: certDir(), hosts: ['apiserver.example'] });
    expect(await handshake(m, '127.0.0.1')).toBe('ok');
    expect(await handshake(m, 'localhost')).toBe('ok');
    expect(await handshake(m, '::1')).toBe('ok');
    expect(await handshake(m, '127.0.0.1', 'apiserver.example')).toBe('ok');
    await expect(handshake(m, '127.0.0.1', 'other.example')).rejects.toThrow(/altnames/);
  });

  it('reuses the files on later starts', async () => {
    const first = await ensureServingCertificates({ certDir: certDir(), hosts: ['a.example'] });
    const files = await readAll();
    const second = await ensureServingCertificates({ certDir: certDir(), hosts: ['A.example', 'localhost'] });
    expect(second).toEqual(first);
    expect(await readAll()).toEqual(files);
  });

  it('regenerates only the serving cert when a new host is needed', async () => {
    await ensureServingCertificates({ certDir: certDir(), hosts: ['a.example'] });
    const before = await readAll();
    const m = await ensureServingCertificates({ certDir: certDir(), hosts: ['a.example', '192.168.0.9'] });
    const after = await readAll();
    expect(after[CERT_FILES.caCert]).toBe(before[CERT_FILES.caCert]);
    expect(after[CERT_FILES.caKey]).toBe(before[CERT_FILES.caKey]);
    expect(after[CERT_FILES.cert]).not.toBe(before[CERT_FILES.cert]);
    expect(new X509Certificate(m.cert).subjectAltName).toContain('IP Address:192.168.0.9');
    expect(await mode(path.join(certDir(), CERT_FILES.key))).toBe(0o600);
  });

  it('regenerates the serving cert when it expires within 30 days', async () => {
    await ensureServingCertificates({ certDir: certDir(), hosts: [] });
    const before = await readAll();
    const in340Days = new Date(Date.now() + 340 * 86_400_000);
    await ensureServingCertificates({ certDir: certDir(), hosts: [], now: () => in340Days });
    const after = await readAll();
    expect(after[CERT_FILES.caCert]).toBe(before[CERT_FILES.caCert]);
    expect(after[CERT_FILES.cert]).not.toBe(before[CERT_FILES.cert]);
    const in345Days = new Date(Date.now() + 345 * 86_400_000);
    await ensureServingCertificates({ certDir: certDir(), hosts: [], now: () => in345Days });
    expect((await readAll())[CERT_FILES.cert]).toBe(after[CERT_FILES.cert]);
  });

  it('regenerates a corrupt or mismatched serving key, and everything after a lost CA key', async () => {
    await ensureServingCertificates({ certDir: certDir(), hosts: [] });
    const before = await readAll();
    await fs.writeFile(path.join(certDir(), CERT_FILES.key), before[CERT_FILES.caKey] as string);
    await ensureServingCertificates({ certDir: certDir(), hosts: [] });
    const after = await readAll();
    expect(after[CERT_FILES.caCert]).toBe(before[CERT_FILES.caCert]);
    expect(after[CERT_FILES.cert]).not.toBe(before[CERT_FILES.cert]);

    await fs.rm(path.join(certDir(), CERT_FILES.caKey));
    const m = await ensureServingCertificates({ certDir: certDir(), hosts: [] });
    const last = await readAll();
    expect(last[CERT_FILES.caCert]).not.toBe(after[CERT_FILES.caCert]);
    expect(last[CERT_FILES.cert]).not.toBe(after[CERT_FILES.cert]);
    expect(await handshake(m, '127.0.0.1')).toBe('ok');
  });
});

describe('ensureServingCertificates (operator files)', () => {
  it('loads --tls-cert-file/--tls-private-key-file; the CA is the last cert of the chain', async () => {
    const gen = await ensureServingCertificates({ certDir: certDir(), hosts: [] });
    const certFile = path.join(dir, 'tls.crt');
    const keyFile = path.join(dir, 'tls.key');
    await fs.writeFile(certFile, gen.cert);
    await fs.writeFile(keyFile, gen.key);
    const m = await ensureServingCertificates({ certDir: path.join(dir, 'unused'), hosts: [], tlsCertFile: certFile, tlsKeyFile: keyFile });
    expect(m.key).toBe(gen.key);
    expect(splitPemCertificates(m.cert)).toEqual(splitPemCertificates(gen.cert));
    expect(m.caCert.trim()).toBe(gen.caCert.trim());
    await expect(fs.access(path.join(dir, 'unused'))).rejects.toThrow();
    expect(await handshake(m, 'localhost')).toBe('ok');
  });

  it('uses a single self-signed cert as its own CA', async () => {
    const gen = await ensureServingCertificates({ certDir: certDir(), hosts: [] });
    const certFile = path.join(dir, 'ca-only.crt');
    await fs.writeFile(certFile, gen.caCert);
    await fs.writeFile(path.join(dir, 'ca.key'), (await readAll())[CERT_FILES.caKey] as string);
    const m = await ensureServingCertificates({ certDir: certDir(), hosts: [], tlsCertFile: certFile, tlsKeyFile: path.join(dir, 'ca.key') });
    expect(m.caCert.trim()).toBe(gen.caCert.trim());
  });

  it('rejects a key that does not match, a file without PEM, and a missing file', async () => {
    const gen = await ensureServingCertificates({ certDir: certDir(), hosts: [] });
    const certFile = path.join(dir, 'tls.crt');
    const wrongKey = path.join(certDir(), CERT_FILES.caKey);
    await fs.writeFile(certFile, gen.cert);
    await expect(
      ensureServingCertificates({ certDir: certDir(), hosts: [], tlsCertFile: certFile, tlsKeyFile: wrongKey }),
    ).rejects.toThrow('tls: private key does not match public key');
    const empty = path.join(dir, 'empty.crt');
    await fs.writeFile(empty, 'nothing here');
    await expect(
      ensureServingCertificates({ certDir: certDir(), hosts: [], tlsCertFile: empty, tlsKeyFile: wrongKey }),
    ).rejects.toThrow('tls: failed to find any PEM data in certificate input');
    await expect(
      ensureServingCertificates({ certDir: certDir(), hosts: [], tlsCertFile: path.join(dir, 'nope.crt'), tlsKeyFile: wrongKey }),
    ).rejects.toThrow(/ENOENT/);
    await expect(ensureServingCertificates({ certDir: certDir(), hosts: [], tlsCertFile: certFile })).rejects.toThrow(
      'both a TLS certificate file and a TLS private key file are required',
    );
  });
});
