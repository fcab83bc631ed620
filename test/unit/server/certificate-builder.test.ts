/**
 * buildCertificate: the DER it writes must parse as the X.509 v3 certificate asked for (checked with
 * OpenSSL through node:crypto's X509Certificate, and its TLS stack), chain CA → server, and reject
 * specs it cannot encode.
 */
import { generateKeyPairSync, KeyObject, X509Certificate } from 'node:crypto';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { buildCertificate, CertificateSpec } from '../../../src/server/certificate-builder';

const DAY = 86_400_000;
const ecKeys = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const NOW = new Date('2026-01-02T03:04:05.000Z');

function caSpec(keys: { publicKey: KeyObject; privateKey: KeyObject }, over: Partial<CertificateSpec> = {}): CertificateSpec {
  return {
    serialHex: '01ab',
    commonName: 'test-ca',
    notBefore: NOW,
    notAfter: new Date(NOW.getTime() + 10 * 365 * DAY),
    publicKey: keys.publicKey,
    isCa: true,
    selfSigningKey: keys.privateKey,
    ...over,
  };
}

function issue(hosts: string[]) {
  const caKeys = ecKeys();
  const caPem = buildCertificate(caSpec(caKeys));
  const ca = new X509Certificate(caPem);
  const leafKeys = ecKeys();
  const leafPem = buildCertificate({
    serialHex: '7f00000000000000000000000000ff01',
    commonName: 'server',
    notBefore: NOW,
    notAfter: new Date(NOW.getTime() + 365 * DAY),
    publicKey: leafKeys.publicKey,
    isCa: false,
    hosts,
    issuer: { certDer: ca.raw, privateKey: caKeys.privateKey },
  });
  return { ca, caPem, leaf: new X509Certificate(leafPem), leafPem, leafKeys };
}

/** Whether the DER holds these bytes (node:crypto exposes neither key identifiers nor raw names). */
function contains(haystack: Buffer, needle: Buffer): boolean {
  return haystack.indexOf(needle) >= 0;
}

describe('buildCertificate', () => {
  it('writes a self-signed CA: subject = issuer, CA flag, validity, serial, self-verifying', () => {
    const keys = ecKeys();
    const pem = buildCertificate(caSpec(keys));
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----$/);
    const c = new X509Certificate(pem);
    expect(c.subject).toBe('CN=test-ca');
    expect(c.issuer).toBe('CN=test-ca');
    expect(c.ca).toBe(true);
    expect(c.serialNumber.toUpperCase()).toBe('01AB');
    expect(Date.parse(c.validFrom)).toBe(Date.parse('2026-01-02T03:04:05Z'));
    expect(Date.parse(c.validTo)).toBe(NOW.getTime() + 10 * 365 * DAY);
    expect(c.verify(keys.publicKey)).toBe(true);
    expect(c.checkIssued(c)).toBe(true);
    expect(c.checkPrivateKey(keys.privateKey)).toBe(true);
    expect(c.subjectAltName).toBeUndefined();
    expect(c.keyUsage).toBeUndefined(); // no extKeyUsage on the CA
  });

  it('writes a server certificate issued by the CA: SANs, serverAuth, not a CA, chains to the CA', () => {
    const { ca, leaf, leafKeys } = issue(['localhost', 'api.example', '127.0.0.1', '10.1.2.3', '::1', 'fe80::1:2', '::ffff:102:304']);
    expect(leaf.subject).toBe('CN=server');
    expect(leaf.issuer).toBe('CN=test-ca');
    expect(leaf.ca).toBe(false);
    expect(leaf.serialNumber.toUpperCase()).toBe('7F00000000000000000000000000FF01');
    expect(leaf.checkIssued(ca)).toBe(true); // OpenSSL also matches the AKI against the CA's SKI
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(leafKeys.privateKey)).toBe(true);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect((leaf.subjectAltName ?? '').split(', ')).toEqual([
      'DNS:localhost',
      'DNS:api.example',
      'IP Address:127.0.0.1',
      'IP Address:10.1.2.3',
      'IP Address:0:0:0:0:0:0:0:1',
      'IP Address:FE80:0:0:0:0:0:1:2',
      'IP Address:0:0:0:0:0:FFFF:102:304',
    ]);
    expect(leaf.checkHost('api.example')).toBe('api.example');
    expect(leaf.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(leaf.checkIP('10.1.2.4')).toBeUndefined();
  });

  it('links the server certificate to the CA by key identifier and issuer bytes', () => {
    const { ca, leaf } = issue(['localhost']);
    // The CA's subject DER (SEQUENCE { SET { SEQUENCE { OID 2.5.4.3, UTF8String "test-ca" } } })
    // appears twice in the CA (issuer, subject) and once as the leaf's issuer.
    const name = Buffer.concat([Buffer.from('3012311030' + '0e0603550403' + '0c07', 'hex'), Buffer.from('test-ca')]);
    expect(contains(ca.raw, name)).toBe(true);
    expect(contains(leaf.raw, name)).toBe(true);
    // The leaf carries an authorityKeyIdentifier [0] with the 20-byte SHA-1 key id the CA carries.
    // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] OCTET STRING (20 bytes) }
    const aki = /30168014((?:[0-9a-f]{2}){20})/.exec(leaf.raw.toString('hex'))?.[1];
    expect(aki).toMatch(/^[0-9a-f]{40}$/);
    expect(contains(ca.raw, Buffer.from(`0414${aki}`, 'hex'))).toBe(true);
  });

  it('serves TLS that a client trusting only the CA accepts for a SAN, and refuses another name', async () => {
    const { caPem, leafPem, leafKeys } = issue(['localhost', '127.0.0.1']);
    const server = https.createServer({ cert: leafPem, key: leafKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }) }, (_q, r) => r.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const get = (servername?: string) =>
      new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, ca: caPem, servername, agent: false }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
    try {
      expect(await get()).toBe('ok');
      expect(await get('localhost')).toBe('ok');
      await expect(get('other.example')).rejects.toThrow(/altnames/);
    } finally {
      server.close();
    }
  });

  it.each([
    ['2049-12-31T23:59:59.000Z', 'UTCTime', '170d', '491231235959Z'],
    ['2050-01-01T00:00:00.000Z', 'GeneralizedTime', '180f', '20500101000000Z'],
  ])('encodes notAfter %s as an RFC 5280 %s that reads back exactly', (notAfter, _type, tagAndLength, text) => {
    const keys = ecKeys();
    const c = new X509Certificate(buildCertificate(caSpec(keys, { notAfter: new Date(notAfter) })));
    expect(Date.parse(c.validTo)).toBe(Date.parse(notAfter));
    expect(contains(c.raw, Buffer.concat([Buffer.from(tagAndLength, 'hex'), Buffer.from(text)]))).toBe(true);
  });

  it('encodes long names with multi-byte DER lengths', () => {
    const { leaf } = issue(Array.from({ length: 40 }, (_, i) => `host-${i}.a-rather-long-domain-name.example`));
    expect((leaf.subjectAltName ?? '').split(', ')).toHaveLength(40);
  });

  it.each([
    ['an empty serial', { serialHex: '' }, /serial/],
    ['a zero first byte', { serialHex: '00ff' }, /serial/],
    ['a negative serial', { serialHex: '80' }, /serial/],
    ['no signing key', { selfSigningKey: undefined }, /no signing key/],
    ['a malformed issuer certificate', { issuer: { certDer: Buffer.from([0x30, 0x05, 0x01]), privateKey: ecKeys().privateKey } }, /truncated DER|malformed/],
  ])('rejects %s', (_name, over, message) => {
    expect(() => buildCertificate(caSpec(ecKeys(), over as Partial<CertificateSpec>))).toThrow(message);
  });
});
