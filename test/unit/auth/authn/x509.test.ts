/**
 * The x509 authenticator's pure parts: subject → user (kube's CommonNameUserConversion), chain
 * verification as Go's x509.Verify with kube's options (client auth), the CA bundle reader, and the
 * authenticator's answers. Certificates are made with the openssl CLI.
 */
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isApiError } from '../../../../src/api';
import { CREDENTIAL_ID_KEY } from '../../../../src/auth/authn/types';
import {
  certificateIdentifier,
  parseCaBundle,
  parseCertificate,
  userFromCertificate,
  verifyClientChain,
  x509Authenticator,
  type ParsedCertificate,
} from '../../../../src/auth/authn/x509';
import { buildCertificate } from '../../../../src/server/certificate-builder';
import { generateKeyPairSync } from 'node:crypto';
import { CA_EXT, requireOpenssl, TestPki } from '../../../support/openssl';

requireOpenssl();
const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-x509-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pki = new TestPki(dir);
const NOW = new Date();
const day = 86400_000;

pki.ca('root');
pki.ca('other');
pki.ca('old-root', { start: new Date('2020-01-01T00:00:00Z'), end: new Date('2020-06-01T00:00:00Z') });
pki.issue('alice', { ca: 'root', subj: '/O=b-team/O=a-team/CN=alice' });
pki.issue('two-cns', { ca: 'root', subj: '/CN=first/CN=second' });
pki.issue('nocn', { ca: 'root', subj: '/O=only-org' });
pki.issue('expired', { ca: 'root', subj: '/CN=x', start: new Date('2020-01-01T00:00:00Z'), end: new Date('2020-01-02T03:04:05Z') });
pki.issue('future', { ca: 'root', subj: '/CN=x', start: new Date(NOW.getTime() + 2 * day), end: new Date(NOW.getTime() + 3 * day) });
pki.issue('stranger', { ca: 'other', subj: '/CN=x' });
pki.issue('under-old', { ca: 'old-root', subj: '/CN=x', start: new Date('2020-01-01T00:00:00Z'), end: new Date('2099-01-01T00:00:00Z') });
pki.issue('server', { ca: 'root', subj: '/CN=x', ext: 'extendedKeyUsage=serverAuth\n' });
pki.issue('both', { ca: 'root', subj: '/CN=x', ext: 'extendedKeyUsage=serverAuth,clientAuth\n' });
pki.issue('any', { ca: 'root', subj: '/CN=x', ext: 'extendedKeyUsage=anyExtendedKeyUsage\n' });
pki.issue('noeku', { ca: 'root', subj: '/CN=x', ext: 'keyUsage=digitalSignature\n' });
pki.issue('sha1', { ca: 'root', subj: '/CN=x', md: 'sha1' });
pki.issue('rsa', { ca: 'root', subj: '/CN=rsa-user', key: ['-newkey', 'rsa:2048'] });
pki.issue('inter', { ca: 'root', subj: '/CN=inter', ext: CA_EXT });
pki.issue('leaf', { ca: 'inter', subj: '/CN=leaf' });
pki.issue('not-ca', { ca: 'root', subj: '/CN=not-ca', ext: 'basicConstraints=critical,CA:FALSE\n' });
pki.issue('server-inter', { ca: 'root', subj: '/CN=server-inter', ext: `${CA_EXT}extendedKeyUsage=serverAuth\n` });
pki.issue('leaf-of-server-inter', { ca: 'server-inter', subj: '/CN=y' });

// A v1 client certificate (no extensions at all) used to sign a forged admin leaf: Go refuses any
// intermediate that is not a CA (basic constraints), so this chain never verifies.
pki.issue('v1-jane', { ca: 'root', subj: '/CN=jane', ext: '' });
(pki as unknown as { writeCaConfig(name: string): void }).writeCaConfig('v1-jane');
pki.issue('forged-by-v1', { ca: 'v1-jane', subj: '/O=system:masters/CN=admin' });

const cert = (name: string): ParsedCertificate => parseCertificate(new X509Certificate(pki.read(`${name}.crt`)));
const roots = [cert('root')];
const verify = (name: string, intermediates: string[] = [], rs = roots, now = NOW) => verifyClientChain(cert(name), intermediates.map(cert), rs, now);

describe('userFromCertificate (kube CommonNameUserConversion)', () => {
  test('the CN is the name, the O values the groups in order, the credential id the DER SHA-256', () => {
    const c = cert('alice');
    expect(userFromCertificate(c)).toEqual({
      name: 'alice',
      uid: '',
      groups: ['b-team', 'a-team'],
      extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${createHash('sha256').update(c.raw).digest('hex')}`] },
    });
  });

  test('the last CN wins (Go pkix.Name); no CN is no opinion', () => {
    expect(userFromCertificate(cert('two-cns'))?.name).toBe('second');
    expect(userFromCertificate(cert('nocn'))).toBeNull();
  });

  test('a subject written by our certificate builder (O values before the CN) reads back', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = buildCertificate({
      serialHex: '01', commonName: 'admin', organizations: ['system:masters', 'ünïcode'], notBefore: new Date(NOW.getTime() - day), notAfter: new Date(NOW.getTime() + day),
      publicKey, isCa: false, clientAuth: true, selfSigningKey: privateKey,
    });
    const c = parseCertificate(new X509Certificate(pem));
    expect(userFromCertificate(c)).toMatchObject({ name: 'admin', groups: ['system:masters', 'ünïcode'] });
    expect(c.extKeyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
  });
});

describe('verifyClientChain (Go x509.Verify, ExtKeyUsageClientAuth)', () => {
  test('a v1 certificate is never an intermediate: a leaf it signed does not verify (only roots may be v1)', () => {
    expect(cert('v1-jane').version).toBe(1);
    expect(verify('v1-jane').map((c) => c.map((x) => x.commonName))).toEqual([['jane', 'root']]);
    expect(() => verify('forged-by-v1', ['v1-jane'])).toThrow(/^x509: certificate signed by unknown authority/);
  });

  test('a leaf issued by a root verifies into [leaf, root]', () => {
    const chains = verify('alice');
    expect(chains.map((c) => c.map((x) => x.commonName))).toEqual([['alice', 'root']]);
  });

  test("validity windows, with Go's messages", () => {
    expect(() => verify('expired')).toThrow(/^x509: certificate has expired or is not yet valid: current time \S+Z is after 2020-01-02T03:04:05Z$/);
    expect(() => verify('future')).toThrow(/^x509: certificate has expired or is not yet valid: current time \S+Z is before \S+Z$/);
    // Every certificate of the chain is checked at the request's time: in 2020 the leaf was valid, its root not yet.
    expect(() => verify('expired', [], roots, new Date('2020-01-01T12:00:00Z'))).toThrow(
      /unknown authority \(possibly because of "x509: certificate has expired or is not yet valid: current time 2020-01-01T12:00:00Z is before \S+" while trying to verify candidate authority certificate "root"\)/,
    );
  });

  test('an unknown issuer, and an expired root (with the hint Go gives)', () => {
    expect(() => verify('stranger')).toThrow(/^x509: certificate signed by unknown authority$/);
    expect(() => verify('under-old', [], [cert('old-root')])).toThrow(
      /^x509: certificate signed by unknown authority \(possibly because of "x509: certificate has expired or is not yet valid: .*" while trying to verify candidate authority certificate "old-root"\)$/,
    );
  });

  test('a same-named CA with another key is not the issuer', () => {
    // `other` issued `stranger`; a bundle holding a different CA named "other" does not verify it.
    const pki2 = new TestPki(path.join(dir, 'second'));
    pki2.ca('other');
    expect(() => verifyClientChain(cert('stranger'), [], [parseCertificate(new X509Certificate(pki2.read('other.crt')))], NOW)).toThrow(
      /unknown authority \(possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "other"\)/,
    );
  });

  test('extended key usage: clientAuth, several including it, any, or none verify; serverAuth only does not', () => {
    for (const ok of ['both', 'any', 'noeku']) expect(verify(ok)).toHaveLength(1);
    expect(() => verify('server')).toThrow(/^x509: certificate specifies an incompatible key usage$/);
  });

  test('an intermediate restricted to serverAuth makes the chain unusable for clients', () => {
    expect(() => verify('leaf-of-server-inter', ['server-inter'])).toThrow(/incompatible key usage/);
  });

  test('intermediates sent by the client are used; a non-CA cannot be one', () => {
    expect(verify('leaf', ['inter']).map((c) => c.map((x) => x.commonName))).toEqual([['leaf', 'inter', 'root']]);
    expect(() => verify('leaf')).toThrow(/unknown authority/);
    // A CA:FALSE certificate offered as the issuer of a leaf it did not sign is ignored.
    expect(() => verify('leaf', ['not-ca'])).toThrow(/unknown authority/);
  });

  test('SHA-1 signatures are refused, RSA keys are fine', () => {
    expect(() => verify('sha1')).toThrow(/insecure algorithm ECDSA-SHA1/);
    expect(verify('rsa')).toHaveLength(1);
  });

  test('a client certificate that is itself in the bundle is a chain of one', () => {
    expect(verifyClientChain(cert('root'), [], roots, NOW).map((c) => c.length)).toEqual([1]);
  });
});

describe('parseCaBundle', () => {
  test('every certificate of a bundle; nothing usable is kube’s error', () => {
    expect(parseCaBundle(pki.read('root.crt') + pki.read('other.crt'), 'n').map((c) => parseCertificate(c).commonName)).toEqual(['root', 'other']);
    expect(() => parseCaBundle('junk', 'client-ca-bundle::/f')).toThrow('error loading CA bundle for "client-ca-bundle::/f": data does not contain any valid RSA or ECDSA certificates');
    expect(() => parseCaBundle('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', 'n')).toThrow(/data does not contain any valid/);
  });
});

describe('x509Authenticator', () => {
  const presented = (...names: string[]) => ({ headers: {}, peerCertificates: () => names.map((n) => new X509Certificate(pki.read(`${n}.crt`))) });
  const failures: string[] = [];
  const authn = x509Authenticator({ roots: [new X509Certificate(pki.read('root.crt'))], onFailure: (m) => failures.push(m) });

  test('no certificate (or no TLS) is no opinion', async () => {
    await expect(authn.authenticate({ headers: {} })).resolves.toBeNull();
    await expect(authn.authenticate({ headers: {}, peerCertificates: () => [] })).resolves.toBeNull();
  });

  test('a verified chain is its user; one without a CN no opinion', async () => {
    await expect(authn.authenticate(presented('leaf', 'inter'))).resolves.toMatchObject({ name: 'leaf', groups: [] });
    await expect(authn.authenticate(presented('nocn'))).resolves.toBeNull();
  });

  test("the identifier is kube's: the decimal serial and the key ids in colon-separated upper-case hex, as openssl reads them", () => {
    const printed = execFileSync('openssl', ['x509', '-noout', '-serial', '-ext', 'subjectKeyIdentifier,authorityKeyIdentifier', '-in', path.join(dir, 'expired.crt')], { encoding: 'utf8' });
    const hexIds = [...printed.matchAll(/Key Identifier:\s*\n\s*(?:keyid:)?([0-9A-F:]+)/g)].map((m) => m[1]);
    expect(hexIds).toHaveLength(2);
    const serial = BigInt(`0x${/serial=([0-9A-F]+)/.exec(printed)?.[1] ?? ''}`).toString(10);
    expect(certificateIdentifier(cert('expired'))).toBe(`SN=${serial}, SKID=${hexIds[0]}, AKID=${hexIds[1]}`);
  });

  test('a failed verification is a 401 ApiError; the reason names the serial, not the subject', async () => {
    failures.length = 0;
    const e = await authn.authenticate(presented('expired')).catch((x: unknown) => x);
    expect(isApiError(e) && e.status).toMatchObject({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^verifying certificate SN=\d+, SKID=([0-9A-F]{2}(:[0-9A-F]{2})*)?, AKID=([0-9A-F]{2}(:[0-9A-F]{2})*)? failed: x509: certificate has expired/);
  });
});

describe('verdicts kept per connection', () => {
  test('a chain is verified once per connection while its certificates are valid; a refusal is remembered for a minute', async () => {
    let now = new Date();
    const failures: string[] = [];
    const auth = x509Authenticator({ roots: [new X509Certificate(pki.read('root.crt'))], now: () => now, onFailure: (m) => failures.push(m) });
    const good = [new X509Certificate(pki.read('alice.crt'))];
    const bad = [new X509Certificate(pki.read('stranger.crt'))];
    const spy = jest.spyOn(X509Certificate.prototype, 'verify');
    try {
      expect((await auth.authenticate({ headers: {}, peerCertificates: () => good }))?.name).toBe('alice');
      const calls = spy.mock.calls.length;
      expect((await auth.authenticate({ headers: {}, peerCertificates: () => good }))?.name).toBe('alice');
      expect(spy.mock.calls.length).toBe(calls);
      for (let i = 0; i < 2; i++) await expect(auth.authenticate({ headers: {}, peerCertificates: () => bad })).rejects.toMatchObject({ code: 401 });
      expect(failures).toHaveLength(2);
      // Past the leaf's end the remembered success no longer holds: verified again, and refused.
      now = new Date(now.getTime() + 40 * 86400_000);
      await expect(auth.authenticate({ headers: {}, peerCertificates: () => good })).rejects.toMatchObject({ code: 401 });
    } finally {
      spy.mockRestore();
    }
  });
});

describe('verdicts kept across connections (by the presented certificates)', () => {
  pki.issue('short-inter', { ca: 'root', subj: '/CN=short-inter', ext: CA_EXT, end: new Date(NOW.getTime() + 5 * day) });
  pki.issue('under-short', { ca: 'short-inter', subj: '/CN=under-short' });
  /** A new connection's chain: new objects, as peer-certificates.ts reads them from each socket. */
  const connection = (...names: string[]) => {
    const chain = names.map((n) => new X509Certificate(pki.read(`${n}.crt`)));
    return { headers: {}, peerCertificates: () => chain };
  };
  const setup = (o: { roots?: () => readonly X509Certificate[]; max?: number } = {}) => {
    const clock = { now: new Date() };
    const failures: string[] = [];
    const auth = x509Authenticator({
      roots: o.roots ?? [new X509Certificate(pki.read('root.crt'))],
      now: () => clock.now,
      onFailure: (m) => failures.push(m),
      maxVerifiedChains: o.max,
    });
    return { clock, failures, auth };
  };
  let verify: jest.SpyInstance;
  beforeEach(() => (verify = jest.spyOn(X509Certificate.prototype, 'verify')));
  afterEach(() => verify.mockRestore());

  test('a chain verified on one connection is not verified again on the next; the user is the same', async () => {
    const { auth } = setup();
    const a = await auth.authenticate(connection('alice'));
    const checks = verify.mock.calls.length;
    expect(checks).toBeGreaterThan(0);
    const b = await auth.authenticate(connection('alice'));
    expect(verify.mock.calls.length).toBe(checks);
    expect(b).toEqual(a);
    expect(b?.extra?.[CREDENTIAL_ID_KEY]).toEqual([`X509SHA256=${createHash('sha256').update(new X509Certificate(pki.read('alice.crt')).raw).digest('hex')}`]);
  });

  test('the intermediates are part of the key: a leaf verified with its intermediate is still refused alone', async () => {
    const { auth, failures } = setup();
    await expect(auth.authenticate(connection('leaf', 'inter'))).resolves.toMatchObject({ name: 'leaf' });
    await expect(auth.authenticate(connection('leaf'))).rejects.toMatchObject({ code: 401 });
    expect(failures[0]).toMatch(/failed: x509: certificate signed by unknown authority$/);
    await expect(auth.authenticate(connection('leaf', 'inter'))).resolves.toMatchObject({ name: 'leaf' });
  });

  test('a kept success ends with the earliest end of its chain: past the intermediate’s, a new connection is refused with Go’s reason', async () => {
    const { auth, clock, failures } = setup();
    await expect(auth.authenticate(connection('under-short', 'short-inter'))).resolves.toMatchObject({ name: 'under-short' });
    clock.now = new Date(clock.now.getTime() + 4 * day);
    await expect(auth.authenticate(connection('under-short', 'short-inter'))).resolves.toMatchObject({ name: 'under-short' });
    clock.now = new Date(clock.now.getTime() + 2 * day);
    await expect(auth.authenticate(connection('under-short', 'short-inter'))).rejects.toMatchObject({ code: 401 });
    expect(failures).toEqual([
      expect.stringMatching(/failed: x509: certificate signed by unknown authority \(possibly because of "x509: certificate has expired or is not yet valid: current time .* is after .*" while trying to verify candidate authority certificate "short-inter"\)$/),
    ]);
  });

  test('a kept success ends with the leaf’s end; a refusal is never kept across connections (the reason names each time)', async () => {
    const { auth, clock, failures } = setup();
    await expect(auth.authenticate(connection('alice'))).resolves.toMatchObject({ name: 'alice' });
    clock.now = new Date(clock.now.getTime() + 40 * day);
    await expect(auth.authenticate(connection('alice'))).rejects.toMatchObject({ code: 401 });
    const later = new Date(clock.now.getTime() + 3 * day);
    clock.now = later;
    await expect(auth.authenticate(connection('alice'))).rejects.toMatchObject({ code: 401 });
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/^verifying certificate SN=\d+, SKID=[0-9A-F:]*, AKID=[0-9A-F:]* failed: x509: certificate has expired or is not yet valid: current time \S+ is after /);
    expect(failures[1]).toContain(`current time ${later.toISOString().replace(/\.\d{3}Z$/, 'Z')} is after`);
  });

  test('a new CA bundle forgets every kept verdict: the same chain is judged by the new roots, on old and new connections', async () => {
    let bundle: readonly X509Certificate[] = [new X509Certificate(pki.read('root.crt'))];
    const { auth, failures } = setup({ roots: () => bundle });
    const open = connection('alice');
    await expect(auth.authenticate(open)).resolves.toMatchObject({ name: 'alice' });
    bundle = [new X509Certificate(pki.read('other.crt'))];
    await expect(auth.authenticate(open)).rejects.toMatchObject({ code: 401 });
    await expect(auth.authenticate(connection('alice'))).rejects.toMatchObject({ code: 401 });
    expect(failures).toHaveLength(2);
    expect(failures.every((m) => m.endsWith('x509: certificate signed by unknown authority'))).toBe(true);
    // The same content read again is another bundle: verified again, and accepted.
    bundle = [new X509Certificate(pki.read('root.crt'))];
    const checks = verify.mock.calls.length;
    await expect(auth.authenticate(connection('alice'))).resolves.toMatchObject({ name: 'alice' });
    expect(verify.mock.calls.length).toBeGreaterThan(checks);
  });

  test('at most maxVerifiedChains chains are kept, the least recently used dropped', async () => {
    const { auth } = setup({ max: 1 });
    await auth.authenticate(connection('alice'));
    await auth.authenticate(connection('rsa'));
    const checks = verify.mock.calls.length;
    await expect(auth.authenticate(connection('rsa'))).resolves.toMatchObject({ name: 'rsa-user' });
    expect(verify.mock.calls.length).toBe(checks);
    await expect(auth.authenticate(connection('alice'))).resolves.toMatchObject({ name: 'alice' });
    expect(verify.mock.calls.length).toBeGreaterThan(checks);
  });

  test('maxVerifiedChains 0 keeps none: each new connection verifies again', async () => {
    const { auth } = setup({ max: 0 });
    await auth.authenticate(connection('alice'));
    const checks = verify.mock.calls.length;
    await expect(auth.authenticate(connection('alice'))).resolves.toMatchObject({ name: 'alice' });
    expect(verify.mock.calls.length).toBeGreaterThan(checks);
  });

  test('a certificate without a CN is kept as no opinion', async () => {
    const { auth } = setup();
    await expect(auth.authenticate(connection('nocn'))).resolves.toBeNull();
    const checks = verify.mock.calls.length;
    await expect(auth.authenticate(connection('nocn'))).resolves.toBeNull();
    expect(verify.mock.calls.length).toBe(checks);
  });
});
