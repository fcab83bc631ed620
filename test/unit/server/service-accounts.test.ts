/** The service-account wiring: the generated signing key (0600, reused), default issuer and audiences, key files. */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { keyId } from '../../../src/auth/authn/service-account';
import { defaultServiceAccountIssuer, loadServiceAccountTokens } from '../../../src/server/service-accounts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sa-keys-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const base = { serviceAccountIssuers: [], serviceAccountKeyFiles: [], apiAudiences: [], serviceAccountMaxTokenExpirationSeconds: 0 };

test('embedded default: a signing key generated in the cert dir (0600) and reused; the issuer is the audience', async () => {
  const certDir = path.join(dir, 'pki');
  const first = await loadServiceAccountTokens({ ...base, certDir });
  expect((await stat(path.join(certDir, 'service-account.key'))).mode & 0o777).toBe(0o600);
  const second = await loadServiceAccountTokens({ ...base, certDir });
  expect(keyId(second.verificationKeys[0]!)).toBe(keyId(first.verificationKeys[0]!));
  expect(first.issuers).toEqual([defaultServiceAccountIssuer]);
  expect(first.apiAudiences).toEqual([defaultServiceAccountIssuer]);
});

test('flags: a signing key file, extra verification keys, audiences given', async () => {
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const extra = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
  await writeFile(path.join(dir, 'sign.key'), signing.export({ type: 'sec1', format: 'pem' }));
  await writeFile(path.join(dir, 'verify.pub'), extra.export({ type: 'spki', format: 'pem' }));
  const t = await loadServiceAccountTokens({
    ...base,
    certDir: dir,
    serviceAccountIssuers: ['https://a', 'https://b'],
    serviceAccountSigningKeyFile: path.join(dir, 'sign.key'),
    serviceAccountKeyFiles: [path.join(dir, 'verify.pub')],
    apiAudiences: ['api'],
  });
  expect(t.verificationKeys.map(keyId)).toEqual([keyId(signing), keyId(extra)]);
  expect(t.apiAudiences).toEqual(['api']);
  const token = await t.issuer.issue({ namespace: 'ns', serviceAccount: { name: 'sa', uid: 'u' }, audiences: ['api'], expirationSeconds: 600, now: new Date() });
  const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  expect(header.alg).toBe('ES256');
  expect(payload.iss).toBe('https://a');
  await expect(loadServiceAccountTokens({ ...base, certDir: dir, serviceAccountSigningKeyFile: path.join(dir, 'verify.pub') })).rejects.toThrow(
    'failed to parse service-account-signing-key-file',
  );
});
