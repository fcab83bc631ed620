/**
 * Service-account tokens (kubernetes `pkg/serviceaccount`): the claims a TokenRequest's token carries,
 * signing them (kube's JWTTokenGenerator: RS256 or ES256/384/512, `kid` = the unpadded base64url
 * SHA-256 of the public key's DER SPKI, no `typ` header), and the authenticator that accepts them
 * (kube's JWTTokenAuthenticator with the bound-token validator). jose does the JWS work.
 */
import { X509Certificate, createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, compactVerify, decodeJwt, decodeProtectedHeader } from 'jose';
import { goQuote, goQuoteList, nameIsDNSLabel, nameIsDNSSubdomain, type KubeObject } from '../../api';
import { audienceClaim } from './jwt';
import { authenticationFailure, REDACTED, Refusal } from './token-review';
import { CREDENTIAL_ID_KEY, type TokenAuthenticator, type TokenUser, type UserInfo } from './types';

export const serviceAccountUsernamePrefix = 'system:serviceaccount:';
export const allServiceAccountsGroup = 'system:serviceaccounts';
export const serviceAccountGroupPrefix = 'system:serviceaccounts:';
/** The user extras of a pod-bound token (kube's PodNameKey, PodUIDKey, NodeNameKey, NodeUIDKey). */
export const podNameKey = 'authentication.kubernetes.io/pod-name';
export const podUidKey = 'authentication.kubernetes.io/pod-uid';
export const nodeNameKey = 'authentication.kubernetes.io/node-name';
export const nodeUidKey = 'authentication.kubernetes.io/node-uid';

/** kube's serviceaccount.MakeUsername. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${serviceAccountUsernamePrefix}${namespace}:${name}`;
}

/** kube's serviceaccount.MakeGroupNames: `system:serviceaccounts` and `system:serviceaccounts:<ns>`. */
export function serviceAccountGroups(namespace: string): string[] {
  return [allServiceAccountsGroup, `${serviceAccountGroupPrefix}${namespace}`];
}

/** kube's serviceaccount.SplitUsername: namespace and name, or undefined when `user` is not a service account's. */
export function splitServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = user.slice(serviceAccountUsernamePrefix.length).split(':');
  const [namespace, name] = parts;
  if (parts.length !== 2 || namespace === undefined || name === undefined) return undefined;
  if (nameIsDNSLabel(namespace, false).length > 0) return undefined;
  if (nameIsDNSSubdomain(name, false).length > 0) return undefined;
  return { namespace, name };
}

/** The user a service account authenticates as (kube's UserInfo for a service account). */
export function serviceAccountUser(namespace: string, name: string, uid: string, extra?: Record<string, string[]>): UserInfo {
  const user: UserInfo = { name: serviceAccountUsername(namespace, name), uid, groups: serviceAccountGroups(namespace) };
  if (extra && Object.keys(extra).length) user.extra = extra;
  return user;
}

interface Ref {
  name: string;
  uid: string;
}

/** What a token is issued for (kube's serviceaccount.Claims arguments). */
export interface TokenClaimsInput {
  namespace: string;
  serviceAccount: Ref;
  /** The Secret the token is bound to. */
  secret?: Ref;
  /** The Pod the token is bound to. */
  pod?: Ref;
  /** The bound pod's node (kube's ServiceAccountTokenPodNodeInfo, on in 1.32); its uid may be empty. */
  node?: Ref;
  audiences: string[];
  expirationSeconds: number;
  now: Date;
}

/** kube's public and private claims of a service-account token (without `iss`, which the signer adds). */
export function tokenClaims(input: TokenClaimsInput): Record<string, unknown> {
  const now = Math.floor(input.now.getTime() / 1000);
  // go-jose writes the claims as a map: keys in sorted order, empty fields left out.
  const ref = (r: Ref) => (r.uid ? { name: r.name, uid: r.uid } : { name: r.name });
  const k8s: Record<string, unknown> = { namespace: input.namespace };
  if (input.pod && input.node) k8s.node = ref(input.node);
  if (input.pod) k8s.pod = ref(input.pod);
  if (input.secret) k8s.secret = { name: input.secret.name, uid: input.secret.uid };
  k8s.serviceaccount = { name: input.serviceAccount.name, uid: input.serviceAccount.uid };
  return {
    aud: input.audiences,
    exp: now + input.expirationSeconds,
    iat: now,
    // Gate ServiceAccountTokenJTI (on in 1.32): every token has its own id.
    jti: randomUUID(),
    'kubernetes.io': k8s,
    nbf: now,
    sub: serviceAccountUsername(input.namespace, input.serviceAccount.name),
  };
}

/** kube's key id: the unpadded base64url SHA-256 of the public key in DER SPKI form. */
export function keyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64url');
}

/** The JWS algorithm kube signs with for a key: RS256 for RSA, ES256/384/512 by curve. */
export function signingAlgorithm(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error('unknown private key curve, must be 256, 384, or 521');
  }
  throw new Error(`unknown private key type ${key.asymmetricKeyType ?? 'secret'}, must be RSA or ECDSA`);
}

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The private key of a PEM file (--service-account-signing-key-file): RSA (PKCS#1 or #8) or EC. */
export function parseSigningKey(pem: string, file: string): KeyObject {
  for (const m of pem.matchAll(pemBlock)) {
    if (!m[1]?.includes('PRIVATE KEY')) continue;
    const key = createPrivateKey(m[0]);
    signingAlgorithm(key);
    return key;
  }
  throw new Error(`failed to parse service-account-signing-key-file: data does not contain any valid RSA or ECDSA private key (${file})`);
}

/**
 * The verification keys of a PEM file (--service-account-key-file): public keys, certificates and
 * private keys (their public half), as kube's keyutil.PublicKeysFromFile reads them.
 */
export function parseVerificationKeys(pem: string, file: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of pem.matchAll(pemBlock)) {
    const type = m[1] ?? '';
    if (type === 'CERTIFICATE') keys.push(new X509Certificate(m[0]).publicKey);
    else if (type.includes('PRIVATE KEY')) keys.push(createPublicKey(createPrivateKey(m[0])));
    else if (type.includes('PUBLIC KEY')) keys.push(createPublicKey(m[0]));
  }
  const usable = keys.filter((k) => k.asymmetricKeyType === 'rsa' || k.asymmetricKeyType === 'ec');
  if (!usable.length) throw new Error(`data does not contain any valid RSA or ECDSA public keys (${file})`);
  return usable;
}

/** kube's JWTTokenGenerator: adds `iss` and signs with the key's algorithm and key id. */
export class ServiceAccountTokenSigner {
  private readonly alg: string;
  private readonly kid: string;

  constructor(
    readonly issuer: string,
    private readonly key: KeyObject,
  ) {
    this.alg = signingAlgorithm(key);
    this.kid = keyId(key);
  }

  async sign(claims: Record<string, unknown>): Promise<string> {
    return new SignJWT({ ...claims, iss: this.issuer }).setProtectedHeader({ alg: this.alg, kid: this.kid }).sign(this.key);
  }
}

/** Reads the objects a token names (a lister or the registry); undefined when it does not exist. */
export type ObjectLookup = (resource: 'serviceaccounts' | 'secrets' | 'pods', namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface ServiceAccountAuthenticatorOptions {
  /** --service-account-issuer values: a token whose `iss` is none of them gets no opinion. */
  issuers: string[];
  /** --service-account-key-file keys (and the signing key's public half). */
  keys: KeyObject[];
  /** --api-audiences: a token must name one of them. */
  audiences: string[];
  lookup: ObjectLookup;
  /**
   * Each refusal's reason for the log: kube's, with every value the token names (its audiences, the
   * namespace and name of its account, the uids it claims) replaced by `[redacted]`. A TokenReview's
   * status.error keeps kube's reason whole.
   */
  onFailure?: (reason: string) => void;
  now?: () => Date;
}

interface PrivateClaims {
  namespace?: unknown;
  serviceaccount?: { name?: unknown; uid?: unknown };
  secret?: { name?: unknown; uid?: unknown };
  pod?: { name?: unknown; uid?: unknown };
  node?: { name?: unknown; uid?: unknown };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * kube treats an object deleted before now minus the leeway as gone: one whose deletion began just
 * now still authenticates its tokens for a moment.
 */
function deletedBefore(obj: KubeObject, nowSeconds: number): boolean {
  const ts = obj.metadata.deletionTimestamp;
  return !!ts && Date.parse(ts) / 1000 < nowSeconds - leewaySeconds;
}

/** kube's go-jose leeway for exp, nbf and iat (jwt.DefaultLeeway). */
const leewaySeconds = 60;

/**
 * kube's service-account token authenticator: a JWT whose issuer is one of --service-account-issuer,
 * signed by one of the keys, for one of the API audiences, within its time window, whose service
 * account (and bound Secret) still exist with the uids it names.
 */
export class ServiceAccountAuthenticator implements TokenAuthenticator {
  private readonly keys: readonly KeyObject[];
  /** The keys of each key id (computed once: a token's `kid` picks its candidates). */
  private readonly keysById = new Map<string, KeyObject[]>();

  constructor(private readonly opts: ServiceAccountAuthenticatorOptions) {
    this.keys = opts.keys;
    for (const key of opts.keys) {
      const kid = keyId(key);
      const same = this.keysById.get(kid);
      if (same) same.push(key);
      else this.keysById.set(kid, [key]);
    }
  }

  readonly audienceAware = true;

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<TokenUser | null> {
    // Not a JWT of ours (unverified iss): another authenticator's token. The claims read here are
    // the ones checked once the signature (over these same bytes) verifies.
    let claims: Record<string, unknown>;
    let kid: string | undefined;
    try {
      claims = decodeJwt(token);
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return null;
    }
    if (typeof claims.iss !== 'string' || !this.opts.issuers.includes(claims.iss)) return null;
    try {
      return await this.validate(token, claims, kid, audiences);
    } catch (e) {
      // Anything else is a lookup of the objects the token names that failed: its text may name them.
      const refusal = e instanceof Refusal ? e : new Refusal((e as Error).message, `looking up the token's objects failed: ${REDACTED}`);
      this.opts.onFailure?.(refusal.logged);
      throw authenticationFailure(refusal.message);
    }
  }

  private async validate(token: string, claims: Record<string, unknown>, kid: string | undefined, requested: readonly string[] | undefined): Promise<TokenUser> {
    const candidates = (kid && this.keysById.get(kid)) || this.keys;
    let verified = false;
    for (const key of candidates) {
      try {
        await compactVerify(token, key);
        verified = true;
        break;
      } catch {
        // the next key
      }
    }
    if (!verified) throw new Refusal('invalid signature');
    // kube's jwtTokenAuthenticator: a token without aud is for the API audiences; the audiences asked
    // (a TokenReview's) default to the API audiences too; the token is good for the ones both name.
    const implicit = this.opts.audiences;
    const aud = audienceClaim(claims);
    const tokenAudiences = aud.length > 0 ? aud : implicit;
    const targets = requested ?? implicit;
    const granted = tokenAudiences.filter((a) => targets.includes(a));
    if (granted.length === 0 && implicit.length > 0) {
      const text = (audiences: string): string => `token audiences ${audiences} is invalid for the target audiences ${goQuoteList([...targets])}`;
      throw new Refusal(text(goQuoteList(tokenAudiences)), text(aud.length > 0 ? REDACTED : goQuoteList(tokenAudiences)));
    }
    const now = Math.floor((this.opts.now?.() ?? new Date()).getTime() / 1000);
    if (typeof claims.exp === 'number' && now > claims.exp + leewaySeconds) throw new Refusal('service account token has expired');
    if (typeof claims.nbf === 'number' && now + leewaySeconds < claims.nbf) throw new Refusal('service account token is not valid yet');
    if (typeof claims.iat === 'number' && now + leewaySeconds < claims.iat) throw new Refusal('service account token is issued in the future');
    const k8s = claims['kubernetes.io'] as PrivateClaims | undefined;
    if (!k8s || typeof k8s !== 'object') throw new Refusal('service account token claims could not be validated due to unexpected private claim');
    const namespace = typeof k8s.namespace === 'string' ? k8s.namespace : '';
    const sa = k8s.serviceaccount;
    const saName = typeof sa?.name === 'string' ? sa.name : '';
    const saUid = typeof sa?.uid === 'string' ? sa.uid : '';
    if (!namespace || !saName || !saUid) throw new Refusal('service account token claims could not be validated due to unexpected private claim');
    if (claims.sub !== serviceAccountUsername(namespace, saName)) throw new Refusal('service account token claims could not be validated due to unexpected private claim');

    // kube 1.32's order: the account (its getter's NotFound when gone), its uid, then a deletion
    // older than the leeway; the same for a bound Secret or Pod.
    const account = await this.opts.lookup('serviceaccounts', namespace, saName);
    if (!account) throw new Refusal(`serviceaccounts ${goQuote(saName)} not found`, `serviceaccounts ${REDACTED} not found`);
    if (account.metadata.uid !== saUid) {
      const text = (claim: string): string => `service account UID (${account.metadata.uid ?? ''}) does not match claim (${claim})`;
      throw new Refusal(text(saUid), text(REDACTED));
    }
    if (deletedBefore(account, now)) throw new Refusal(`service account ${namespace}/${saName} has been deleted`, `service account ${REDACTED} has been deleted`);
    if (k8s.secret) {
      const secretName = typeof k8s.secret.name === 'string' ? k8s.secret.name : '';
      const secretUid = typeof k8s.secret.uid === 'string' ? k8s.secret.uid : '';
      const secret = secretName ? await this.opts.lookup('secrets', namespace, secretName) : undefined;
      if (!secret) throw new Refusal('service account token has been invalidated');
      if (secret.metadata.uid !== secretUid) {
        const text = (claim: string): string => `secret UID (${secret.metadata.uid ?? ''}) does not match service account secret ref claim (${claim})`;
        throw new Refusal(text(secretUid), text(REDACTED));
      }
      if (deletedBefore(secret, now)) throw new Refusal('service account token has been invalidated');
    }
    let podName = '';
    let podUid = '';
    if (k8s.pod) {
      const claimed = { name: str(k8s.pod.name), uid: str(k8s.pod.uid) };
      const pod = claimed.name ? await this.opts.lookup('pods', namespace, claimed.name) : undefined;
      if (!pod) throw new Refusal('service account token has been invalidated');
      if (pod.metadata.uid !== claimed.uid) {
        const text = (claim: string): string => `pod UID (${pod.metadata.uid ?? ''}) does not match service account pod ref claim (${claim})`;
        throw new Refusal(text(claimed.uid), text(REDACTED));
      }
      if (deletedBefore(pod, now)) throw new Refusal('service account token has been invalidated');
      podName = claimed.name;
      podUid = claimed.uid;
    }
    // A node claim alone (a Node-bound token) needs Nodes, which this server does not serve.
    if (k8s.node && !k8s.pod) throw new Refusal('service account token has been invalidated');
    const extra: Record<string, string[]> = {};
    // kube's ServiceAccountInfo.UserInfo: the pod's name and uid together, the node's name (and uid when known).
    if (podName && podUid) {
      extra[podNameKey] = [podName];
      extra[podUidKey] = [podUid];
    }
    if (typeof claims.jti === 'string' && claims.jti) extra[CREDENTIAL_ID_KEY] = [`JTI=${claims.jti}`];
    const nodeName = k8s.pod && k8s.node ? str(k8s.node.name) : '';
    if (nodeName) {
      extra[nodeNameKey] = [nodeName];
      const nodeUid = str(k8s.node?.uid);
      if (nodeUid) extra[nodeUidKey] = [nodeUid];
    }
    const user: TokenUser = serviceAccountUser(namespace, saName, saUid, extra);
    return requested ? { ...user, audiences: granted } : user;
  }
}


/**
 * The issuer's public keys as a JWK set (kube's /openid/v1/jwks): each key with `use`, `kty`, `kid`,
 * `alg`, then its parameters, in go-jose's field order.
 */
export function publicJwks(keys: KeyObject[]): { keys: Array<Record<string, string>> } {
  return {
    keys: keys.map((key) => {
      const pub = key.type === 'private' ? createPublicKey(key) : key;
      const jwk = pub.export({ format: 'jwk' }) as Record<string, string>;
      const head = { use: 'sig', kty: jwk.kty as string, kid: keyId(pub) };
      const alg = signingAlgorithm(pub);
      return jwk.kty === 'EC'
        ? { ...head, crv: jwk.crv as string, alg, x: jwk.x as string, y: jwk.y as string }
        : { ...head, alg, n: jwk.n as string, e: jwk.e as string };
    }),
  };
}

/** kube's OpenID provider configuration of the service-account issuer (/.well-known/openid-configuration). */
export function openIdConfiguration(issuer: string, jwksUri: string, keys: KeyObject[]): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(keys.map(signingAlgorithm))].sort(),
  };
}
