/** Service-account token claims, signing (kube's kid and algorithms) and the authenticator's checks. */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import type { KubeObject } from '../../../../src/api';
import {
  ServiceAccountAuthenticator,
  ServiceAccountTokenSigner,
  keyId,
  parseSigningKey,
  parseVerificationKeys,
  signingAlgorithm,
  tokenClaims,
} from '../../../../src/auth/authn/service-account';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const iss = 'https://kubernetes.default.svc.cluster.local';
const now = new Date('2030-01-01T00:00:00Z');
const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'ns', uid: 'sa-uid' } } as KubeObject;
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', uid: 'secret-uid' } } as KubeObject;

function authenticator(objects: KubeObject[], at = now, onFailure?: (reason: string) => void): ServiceAccountAuthenticator {
  return new ServiceAccountAuthenticator({
    ...(onFailure ? { onFailure } : {}),
    issuers: [iss, 'https://old.example'],
    keys: [privateKey],
    audiences: ['api'],
    now: () => at,
    lookup: async (resource, ns, name) =>
      objects.find((o) => o.kind === ({ secrets: 'Secret', pods: 'Pod', serviceaccounts: 'ServiceAccount' } as const)[resource] && o.metadata.namespace === ns && o.metadata.name === name),
  });
}

const issue = (over: Partial<Parameters<typeof tokenClaims>[0]> = {}, signer = new ServiceAccountTokenSigner(iss, privateKey)) =>
  signer.sign(tokenClaims({ namespace: 'ns', serviceAccount: { name: 'robot', uid: 'sa-uid' }, audiences: ['api'], expirationSeconds: 3600, now, ...over }));

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : String(e);
  }
  throw new Error('accepted');
}

describe('claims and signing', () => {
  test("kube's claims: sub, aud, iat = nbf, exp, jti, kubernetes.io with the account (and the secret)", async () => {
    const token = await issue({ secret: { name: 's', uid: 'secret-uid' } });
    const c = decodeJwt(token);
    const t = now.getTime() / 1000;
    expect(c).toEqual({
      iss,
      sub: 'system:serviceaccount:ns:robot',
      aud: ['api'],
      iat: t,
      nbf: t,
      exp: t + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'kubernetes.io': { namespace: 'ns', secret: { name: 's', uid: 'secret-uid' }, serviceaccount: { name: 'robot', uid: 'sa-uid' } },
    });
  });

  test('header: RS256 and the SHA-256 of the DER public key as kid, no typ', async () => {
    const expected = createHash('sha256').update(createPublicKey(privateKey).export({ type: 'spki', format: 'der' })).digest('base64url');
    expect(decodeProtectedHeader(await issue())).toEqual({ alg: 'RS256', kid: expected });
    expect(keyId(privateKey)).toBe(expected);
  });

  test('EC keys sign with ES256/384/512; key files: private keys (PKCS#1 and #8), public keys', () => {
    expect(signingAlgorithm(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)).toBe('ES256');
    expect(signingAlgorithm(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey)).toBe('ES384');
    const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(keyId(parseSigningKey(pkcs1, 'k'))).toBe(keyId(privateKey));
    const keys = parseVerificationKeys(pkcs1 + other.export({ type: 'pkcs8', format: 'pem' }).toString(), 'k');
    expect(keys.map(keyId)).toEqual([keyId(privateKey), keyId(other)]);
    expect(() => parseVerificationKeys('nothing', 'k.pem')).toThrow('data does not contain any valid RSA or ECDSA public keys (k.pem)');
  });
});

describe('ServiceAccountAuthenticator', () => {
  test('accepts a valid token as the account: groups and credential-id', async () => {
    const token = await issue();
    const user = await authenticator([sa]).authenticateToken(token);
    expect(user).toEqual({
      name: 'system:serviceaccount:ns:robot',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${decodeJwt(token).jti as string}`] },
    });
  });

  test('no opinion on tokens of other issuers or that are no JWT', async () => {
    const foreign = await new ServiceAccountTokenSigner('https://elsewhere', privateKey).sign({ sub: 'x' });
    expect(await authenticator([sa]).authenticateToken(foreign)).toBeNull();
    expect(await authenticator([sa]).authenticateToken('opaque-token')).toBeNull();
  });

  test("refusals, with kube's reasons", async () => {
    const a = authenticator([sa]);
    expect(await reason(a.authenticateToken(await issue({}, new ServiceAccountTokenSigner(iss, other))))).toBe('invalid signature');
    expect(await reason(a.authenticateToken(await issue({ audiences: ['x', 'y'] })))).toBe('token audiences ["x" "y"] is invalid for the target audiences ["api"]');
    expect(await reason(authenticator([sa], new Date(now.getTime() + 3661_000)).authenticateToken(await issue()))).toBe('service account token has expired');
    expect(await reason(authenticator([sa], new Date(now.getTime() - 61_000)).authenticateToken(await issue()))).toBe('service account token is not valid yet');
    // Gone: the getter's NotFound, as kube's; being deleted for longer than the leeway: deleted.
    expect(await reason(authenticator([]).authenticateToken(await issue()))).toBe('serviceaccounts "robot" not found');
    const deleting = (at: Date) => ({ ...sa, metadata: { ...sa.metadata, deletionTimestamp: at.toISOString() } }) as KubeObject;
    expect(await reason(authenticator([deleting(new Date(now.getTime() - 61_000))]).authenticateToken(await issue()))).toBe('service account ns/robot has been deleted');
    expect(await authenticator([deleting(now)]).authenticateToken(await issue())).not.toBeNull();
    // The uid speaks before the deletion.
    expect(await reason(authenticator([deleting(new Date(now.getTime() - 61_000))]).authenticateToken(await issue({ serviceAccount: { name: 'robot', uid: 'old' } })))).toBe(
      'service account UID (sa-uid) does not match claim (old)',
    );
    const secretDeleted = { ...secret, metadata: { ...secret.metadata, deletionTimestamp: new Date(now.getTime() - 61_000).toISOString() } } as KubeObject;
    expect(await reason(authenticator([sa, secretDeleted]).authenticateToken(await issue({ secret: { name: 's', uid: 'secret-uid' } })))).toBe('service account token has been invalidated');
    expect(await reason(a.authenticateToken(await issue({ serviceAccount: { name: 'robot', uid: 'old' } })))).toBe('service account UID (sa-uid) does not match claim (old)');
    expect(await reason(a.authenticateToken(await issue({ secret: { name: 's', uid: 'secret-uid' } })))).toBe('service account token has been invalidated');
    expect(await reason(authenticator([sa, secret]).authenticateToken(await issue({ secret: { name: 's', uid: 'old' } })))).toBe(
      'secret UID (secret-uid) does not match service account secret ref claim (old)',
    );
    const noPrivate = await new SignJWT({ iss, sub: 'system:serviceaccount:ns:robot', aud: ['api'] }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
    expect(await reason(a.authenticateToken(noPrivate))).toBe('service account token claims could not be validated due to unexpected private claim');
  });

  test("the log's reasons hold none of the token's values; the client's keep kube's wording", async () => {
    const logged: string[] = [];
    const log = (r: string) => logged.push(r);
    const claimed = { namespace: 'secret-ns', serviceAccount: { name: 'secret-name', uid: 'claimed-uid' } };
    const ghost = { ...sa, metadata: { ...sa.metadata, namespace: 'secret-ns', name: 'secret-name', uid: 'real-uid' } } as KubeObject;
    const bound = { ...secret, metadata: { ...secret.metadata, namespace: 'secret-ns', uid: 'real-secret-uid' } } as KubeObject;
    const cases: Array<[Promise<string>, string]> = [
      [reason(authenticator([], now, log).authenticateToken(await issue(claimed))), 'serviceaccounts "secret-name" not found'],
      [
        reason(authenticator([{ ...ghost, metadata: { ...ghost.metadata, uid: 'claimed-uid', deletionTimestamp: '2029-01-01T00:00:00Z' } } as KubeObject], now, log).authenticateToken(await issue(claimed))),
        'service account secret-ns/secret-name has been deleted',
      ],
      [reason(authenticator([ghost], now, log).authenticateToken(await issue(claimed))), 'service account UID (real-uid) does not match claim (claimed-uid)'],
      [reason(authenticator([sa], now, log).authenticateToken(await issue({ audiences: ['secret-audience'] }))), 'token audiences ["secret-audience"] is invalid for the target audiences ["api"]'],
      [
        reason(authenticator([{ ...ghost, metadata: { ...ghost.metadata, uid: 'claimed-uid' } } as KubeObject, bound], now, log).authenticateToken(await issue({ ...claimed, secret: { name: 's', uid: 'claimed-secret-uid' } }))),
        'secret UID (real-secret-uid) does not match service account secret ref claim (claimed-secret-uid)',
      ],
    ];
    for (const [got, message] of cases) expect(await got).toBe(message);
    expect(logged).toEqual([
      'serviceaccounts [redacted] not found',
      'service account [redacted] has been deleted',
      'service account UID (real-uid) does not match claim ([redacted])',
      'token audiences [redacted] is invalid for the target audiences ["api"]',
      'secret UID (real-secret-uid) does not match service account secret ref claim ([redacted])',
    ]);
    expect(logged.join('\n')).not.toMatch(/secret-ns|secret-name|claimed-|secret-audience/);
    // A lookup that fails: the client hears why, the log does not (its text may name the objects).
    const failing = new ServiceAccountAuthenticator({
      issuers: [iss],
      keys: [privateKey],
      audiences: ['api'],
      now: () => now,
      onFailure: log,
      lookup: async (_r, ns, name) => {
        throw new Error(`etcd: reading /registry/serviceaccounts/${ns}/${name}: timed out`);
      },
    });
    expect(await reason(failing.authenticateToken(await issue(claimed)))).toBe('etcd: reading /registry/serviceaccounts/secret-ns/secret-name: timed out');
    expect(logged.at(-1)).toBe("looking up the token's objects failed: [redacted]");
  });

  test('a token within its window, a bound secret that exists, an older issuer still accepted', async () => {
    expect(await authenticator([sa, secret]).authenticateToken(await issue({ secret: { name: 's', uid: 'secret-uid' } }))).not.toBeNull();
    const old = await issue({}, new ServiceAccountTokenSigner('https://old.example', privateKey));
    expect((await authenticator([sa]).authenticateToken(old))?.name).toBe('system:serviceaccount:ns:robot');
  });
});

describe('pod-bound tokens', () => {
  const pod = (over: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'pod-uid', ...over } }) as KubeObject;
  const bound = (node?: { name: string; uid: string }) => issue({ pod: { name: 'p', uid: 'pod-uid' }, ...(node ? { node } : {}) });

  test("claims: the pod, and its node's name (its uid only when known), in go-jose's key order", () => {
    const k8s = (over: Partial<Parameters<typeof tokenClaims>[0]>) =>
      JSON.stringify(tokenClaims({ namespace: 'ns', serviceAccount: { name: 'robot', uid: 'sa-uid' }, audiences: ['api'], expirationSeconds: 3600, now, ...over })['kubernetes.io']);
    expect(k8s({ pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'n1', uid: '' } })).toBe(
      '{"namespace":"ns","node":{"name":"n1"},"pod":{"name":"p","uid":"pod-uid"},"serviceaccount":{"name":"robot","uid":"sa-uid"}}',
    );
    expect(k8s({ pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'n1', uid: 'node-uid' } })).toContain('"node":{"name":"n1","uid":"node-uid"}');
  });

  test('the user gets the pod extras, and the node name when the token has one', async () => {
    const token = await bound({ name: 'n1', uid: '' });
    const user = await authenticator([sa, pod()]).authenticateToken(token);
    expect(user?.extra).toEqual({
      'authentication.kubernetes.io/pod-name': ['p'],
      'authentication.kubernetes.io/pod-uid': ['pod-uid'],
      'authentication.kubernetes.io/credential-id': [`JTI=${decodeJwt(token).jti as string}`],
      'authentication.kubernetes.io/node-name': ['n1'],
    });
  });

  test("refused when the pod is gone, recreated, or deleted longer ago than the leeway (kube's reasons)", async () => {
    const token = await bound();
    expect(await reason(authenticator([sa]).authenticateToken(token))).toBe('service account token has been invalidated');
    expect(await reason(authenticator([sa, pod({ uid: 'new' })]).authenticateToken(token))).toBe('pod UID (new) does not match service account pod ref claim (pod-uid)');
    const longAgo = new Date(now.getTime() - 61_000).toISOString();
    expect(await reason(authenticator([sa, pod({ deletionTimestamp: longAgo })]).authenticateToken(token))).toBe('service account token has been invalidated');
    // A deletion that began within the leeway: still good.
    expect(await authenticator([sa, pod({ deletionTimestamp: now.toISOString() })]).authenticateToken(token)).not.toBeNull();
  });
});
