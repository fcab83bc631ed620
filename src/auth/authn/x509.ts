/**
 * Client certificates (kube's k8s.io/apiserver/pkg/authentication/request/x509): the chain a TLS
 * client presented is verified against the `--client-ca-file` bundle for client authentication, and a
 * verified chain names the user: Subject CN is the user name, the Subject O values its groups, and
 * the certificate's SHA-256 fingerprint its credential id. A certificate without a CN is no opinion;
 * one that does not verify (expired, not yet valid, unknown issuer, no clientAuth usage) fails the
 * request (401). The listener only asks for a certificate (Go's tls.RequestClientCert); everything
 * is judged here, for each request at the request's time, as kube does (a kept verdict being the
 * answer verifying again would give: see x509Authenticator).
 *
 * Chain building follows Go's crypto/x509 Verify: parents found by subject, signatures checked with
 * node:crypto, every certificate's validity window checked, intermediates and roots must be CAs (a
 * v1 certificate may sign), MD5/SHA-1 signatures refused, and every certificate of a chain that lists
 * extended key usages must allow clientAuth (or any). Name and path-length constraints are not checked.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LRUCache } from 'lru-cache';
import { errors, goPathError, goQuote } from '../../api';
import { children, readTlv, splitPemCertificates, type Tlv } from '../../api/der';
import { CREDENTIAL_ID_KEY, type AuthRequest, type Authenticator, type UserInfo } from './types';

const OID_COMMON_NAME = '2.5.4.3';
const OID_ORGANIZATION = '2.5.4.10';
const OID_EKU_ANY = '2.5.29.37.0';
const OID_EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
/** Signature algorithms Go's crypto/x509 refuses in chains (MD5 and SHA-1 with RSA/ECDSA/DSA). */
const INSECURE_SIGNATURES: Record<string, string> = {
  '1.2.840.113549.1.1.4': 'MD5-RSA',
  '1.2.840.113549.1.1.5': 'SHA1-RSA',
  '1.2.840.10045.4.1': 'ECDSA-SHA1',
  '1.2.840.10040.4.3': 'DSA-SHA1',
};
/** Go's maxChainSignatureChecks: bounds the work a hostile set of intermediates can cause. */
const MAX_SIGNATURE_CHECKS = 100;

/** What verification and user conversion need of one certificate, parsed once. */
export interface ParsedCertificate {
  cert: X509Certificate;
  raw: Buffer;
  version: number;
  subjectRaw: Buffer;
  issuerRaw: Buffer;
  /** The last CN of the subject ('' when none), as Go's pkix.Name keeps it. */
  commonName: string;
  /** Subject O values in order. */
  organizations: string[];
  notBefore: Date;
  notAfter: Date;
  isCa: boolean;
  /** Extended key usage OIDs; undefined when the certificate has no such extension. */
  extKeyUsage: string[] | undefined;
  signatureAlgorithm: string;
  serial: string;
}

/** A chain that failed verification; the message is Go's crypto/x509 wording (logged, never sent). */
export class CertificateVerifyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateVerifyError';
  }
}

/** A --client-ca-file that cannot be used; the message is kube-apiserver's. */
export class ClientCaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientCaError';
  }
}

const parsedCache = new WeakMap<X509Certificate, ParsedCertificate>();

/** Parses the fields verification needs (memoised per X509Certificate). Throws on malformed DER. */
export function parseCertificate(cert: X509Certificate): ParsedCertificate {
  const cached = parsedCache.get(cert);
  if (cached) return cached;
  const raw = cert.raw;
  const top = children(readTlv(raw, 0));
  const tbs = top[0];
  const sigAlg = top[1];
  if (!tbs || !sigAlg) throw new Error('malformed certificate');
  let fields = children(tbs);
  let version = 1;
  if (fields[0]?.tag === 0xa0) {
    const v = children(fields[0])[0];
    version = (v?.value[0] ?? 0) + 1;
    fields = fields.slice(1);
  }
  const issuer = fields[2];
  const subject = fields[4];
  const sigOid = children(sigAlg)[0];
  if (!issuer || !subject || !sigOid) throw new Error('malformed certificate');
  const name = nameAttributes(subject);
  const parsed: ParsedCertificate = {
    cert,
    raw,
    version,
    subjectRaw: subject.raw,
    issuerRaw: issuer.raw,
    commonName: name.commonName,
    organizations: name.organizations,
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
    isCa: cert.ca,
    extKeyUsage: cert.keyUsage,
    signatureAlgorithm: decodeOid(sigOid.value),
    serial: cert.serialNumber,
  };
  parsedCache.set(cert, parsed);
  return parsed;
}

/** Go's pkix.Name.FillFromRDNSequence for CN and O: string values only; the last CN wins. */
function nameAttributes(name: Tlv): { commonName: string; organizations: string[] } {
  let commonName = '';
  const organizations: string[] = [];
  for (const rdn of children(name)) {
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      if (!type || !value || type.tag !== 0x06) continue;
      const text = directoryString(value);
      if (text === undefined) continue;
      const oid = decodeOid(type.value);
      if (oid === OID_COMMON_NAME) commonName = text;
      else if (oid === OID_ORGANIZATION) organizations.push(text);
    }
  }
  return { commonName, organizations };
}

/** The string ASN.1 types Go decodes in names; undefined for anything else (Go skips those). */
function directoryString(v: Tlv): string | undefined {
  switch (v.tag) {
    case 0x0c: // UTF8String
      return v.value.toString('utf8');
    case 0x13: // PrintableString
    case 0x16: // IA5String
    case 0x12: // NumericString
      return v.value.toString('latin1');
    case 0x14: // T61String: Go reads it as ISO-8859-1
      return v.value.toString('latin1');
    case 0x1e: {
      // BMPString: UTF-16BE
      const swapped = Buffer.from(v.value);
      if (swapped.length % 2 !== 0) return undefined;
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    default:
      return undefined;
  }
}

/** Reads a PEM CA bundle; kube's (client-go cert.ParseCertsPEM) error when it holds no certificate. */
export function parseCaBundle(pem: string, name: string): X509Certificate[] {
  const blocks = splitPemCertificates(pem);
  const certs: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      const cert = new X509Certificate(block);
      parseCertificate(cert);
      certs.push(cert);
    } catch {
      // Go fails the whole bundle on a certificate it cannot parse.
      throw new ClientCaError(`error loading CA bundle for "${name}": data does not contain any valid RSA or ECDSA certificates`);
    }
  }
  if (certs.length === 0) {
    throw new ClientCaError(`error loading CA bundle for "${name}": data does not contain any valid RSA or ECDSA certificates`);
  }
  return certs;
}

/**
 * Loads `--client-ca-file` as kube-apiserver does at start; throws ClientCaError with its message
 * (`unable to load client CA file: …`).
 */
export async function loadClientCaFile(file: string): Promise<{ pem: string; roots: X509Certificate[] }> {
  const name = `client-ca-bundle::${file}`;
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (e) {
    throw new ClientCaError(`unable to load client CA file: ${goPathError('open', file, e)}`);
  }
  if (pem.length === 0) throw new ClientCaError(`unable to load client CA file: missing content for CA bundle "${name}"`);
  try {
    return { pem, roots: parseCaBundle(pem, name) };
  } catch (e) {
    throw new ClientCaError(`unable to load client CA file: ${(e as Error).message}`);
  }
}

/** Go's time.RFC3339 in UTC, whole seconds. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function timeError(c: ParsedCertificate, now: Date): CertificateVerifyError | undefined {
  if (now < c.notBefore) {
    return new CertificateVerifyError(`x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(c.notBefore)}`);
  }
  if (now > c.notAfter) {
    return new CertificateVerifyError(`x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(c.notAfter)}`);
  }
  return undefined;
}

/** Go's CheckSignatureFrom: the parent must be allowed to sign, the algorithm secure, the signature good. */
function signatureError(child: ParsedCertificate, parent: ParsedCertificate): CertificateVerifyError | undefined {
  // Intermediates reach here only as CAs; a v1 root (no basic constraints) may sign, as in Go.
  if (parent.version >= 3 && !parent.isCa) return new CertificateVerifyError('x509: invalid signature: parent certificate cannot sign this kind of certificate');
  const insecure = INSECURE_SIGNATURES[child.signatureAlgorithm];
  if (insecure) return new CertificateVerifyError(`x509: cannot verify signature: insecure algorithm ${insecure}`);
  let ok = false;
  try {
    ok = child.cert.verify(parent.cert.publicKey);
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  const type = parent.cert.publicKey.asymmetricKeyType;
  return new CertificateVerifyError(
    type === 'rsa' || type === 'rsa-pss' ? 'crypto/rsa: verification error' : type === 'ed25519' ? 'x509: Ed25519 verification failure' : 'x509: ECDSA verification failure',
  );
}

/** Go's checkChainForKeyUsage for one wanted usage (clientAuth). */
function chainAllowsClientAuth(chain: ParsedCertificate[]): boolean {
  for (const c of chain) {
    if (c.extKeyUsage === undefined || c.extKeyUsage.length === 0) continue;
    if (c.extKeyUsage.includes(OID_EKU_ANY)) continue;
    if (!c.extKeyUsage.includes(OID_EKU_CLIENT_AUTH)) return false;
  }
  return true;
}

/**
 * Verifies `leaf` (with the intermediates the client sent) against `roots` at `now`, for client
 * authentication, as Go's x509.Certificate.Verify does with kube's options. Returns every verified
 * chain (leaf first, root last); throws CertificateVerifyError with Go's message.
 */
export function verifyClientChain(
  leaf: ParsedCertificate,
  intermediates: readonly ParsedCertificate[],
  roots: readonly ParsedCertificate[],
  now: Date,
): ParsedCertificate[][] {
  const leafTime = timeError(leaf, now);
  if (leafTime) throw leafTime;
  let chains: ParsedCertificate[][];
  if (roots.some((r) => r.raw.equals(leaf.raw))) {
    chains = [[leaf]];
  } else {
    chains = [];
    let checks = 0;
    let hint: { err: Error; cert: ParsedCertificate } | undefined;
    const build = (chain: ParsedCertificate[]): void => {
      const current = chain[chain.length - 1] as ParsedCertificate;
      const consider = (candidate: ParsedCertificate, isRoot: boolean): void => {
        if (!candidate.subjectRaw.equals(current.issuerRaw)) return;
        if (chain.some((c) => c.raw.equals(candidate.raw))) return;
        if (++checks > MAX_SIGNATURE_CHECKS) {
          hint ??= { err: new CertificateVerifyError('x509: signature check attempts limit reached while verifying certificate chain'), cert: candidate };
          return;
        }
        const bad = signatureError(current, candidate) ?? timeError(candidate, now);
        if (bad) {
          hint ??= { err: bad, cert: candidate };
          return;
        }
        if (isRoot) chains.push([...chain, candidate]);
        else build([...chain, candidate]);
      };
      for (const r of roots) consider(r, true);
      // Go's isValid: an intermediate must be a CA by its basic constraints; only roots may be v1.
      for (const i of intermediates) {
        if (!i.isCa) continue;
        consider(i, false);
      }
    };
    build([leaf]);
    if (chains.length === 0) {
      const possibly = hint
        ? ` (possibly because of ${goQuote(hint.err.message)} while trying to verify candidate authority certificate ${goQuote(candidateName(hint.cert))})`
        : '';
      throw new CertificateVerifyError(`x509: certificate signed by unknown authority${possibly}`);
    }
  }
  const usable = chains.filter(chainAllowsClientAuth);
  if (usable.length === 0) throw new CertificateVerifyError('x509: certificate specifies an incompatible key usage');
  return usable;
}

/**
 * How Go's UnknownAuthorityError names the candidate authority: its CN, else its first O, else its
 * serial. %q-quoted by the caller, since the name is the client's (an intermediate it sent).
 */
function candidateName(c: ParsedCertificate): string {
  return c.commonName || c.organizations[0] || `serial:${BigInt(`0x${c.serial}`).toString(10)}`;
}

/** kube's CommonNameUserConversion: null (no opinion) when the leaf has no CN. */
export function userFromCertificate(leaf: ParsedCertificate): UserInfo | null {
  if (leaf.commonName === '') return null;
  const fingerprint = createHash('sha256').update(leaf.raw).digest('hex');
  return { name: leaf.commonName, uid: '', groups: [...leaf.organizations], extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] } };
}

/** kube's certificateIdentifier: which certificate failed (serial, subject and authority key ids), without its subject. */
export function certificateIdentifier(c: ParsedCertificate): string {
  const ids = keyIdentifiers(c.raw);
  return `SN=${BigInt(`0x${c.serial}`).toString(10)}, SKID=${columnSeparatedHex(ids.subject)}, AKID=${columnSeparatedHex(ids.authority)}`;
}

/** Go's rendering of a key id in that identifier: upper-case hex bytes joined by colons ('' for none). */
function columnSeparatedHex(b: Buffer): string {
  return (b.toString('hex').toUpperCase().match(/../g) ?? []).join(':');
}

const OID_SUBJECT_KEY_ID = '2.5.29.14';
const OID_AUTHORITY_KEY_ID = '2.5.29.35';

/**
 * The subject and authority key identifiers of a certificate's extensions, as Go's parser keeps
 * them (empty when absent or unreadable). Read only when a verification fails, for the log line.
 */
function keyIdentifiers(raw: Buffer): { subject: Buffer; authority: Buffer } {
  const ids: { subject: Buffer; authority: Buffer } = { subject: Buffer.alloc(0), authority: Buffer.alloc(0) };
  try {
    const tbs = children(readTlv(raw, 0))[0];
    const extensions = tbs && children(tbs).find((f) => f.tag === 0xa3);
    const list = extensions && children(extensions)[0];
    for (const ext of list ? children(list) : []) {
      const parts = children(ext);
      const oid = parts[0]?.tag === 0x06 ? decodeOid(parts[0].value) : '';
      const value = parts[parts.length - 1];
      if (!value || value.tag !== 0x04) continue;
      if (oid === OID_SUBJECT_KEY_ID) {
        const inner = readTlv(value.value, 0);
        if (inner.tag === 0x04) ids.subject = inner.value;
      } else if (oid === OID_AUTHORITY_KEY_ID) {
        const keyId = children(readTlv(value.value, 0)).find((t) => t.tag === 0x80);
        if (keyId) ids.authority = keyId.value;
      }
    }
  } catch {
    // A certificate that reached verification parsed as X.509; unreadable extensions just leave the ids empty.
  }
  return ids;
}

/** Options of {@link x509Authenticator}. */
export interface X509AuthenticatorOptions {
  /**
   * The client CA bundle (kube's --client-ca-file), or a function answering the bundle in force
   * (a reloaded file): a new bundle (another array) is parsed once, and forgets every verdict.
   */
  roots: readonly X509Certificate[] | (() => readonly X509Certificate[]);
  /** Clock, for tests. */
  now?: () => Date;
  /** Told why a presented certificate was refused (kube logs "Unable to authenticate the request"). */
  onFailure?: (message: string) => void;
  /** Bound on the chains whose success is kept across connections (default {@link VERIFIED_CHAINS_KEPT}; 0 keeps none). */
  maxVerifiedChains?: number;
}

/** How many verified chains are kept across connections (least recently used dropped first). */
export const VERIFIED_CHAINS_KEPT = 1024;
/** How long a connection's refused chain is refused without verifying it again. */
const REFUSAL_KEPT_MS = 60_000;

/** A verified chain: its user, while `now` is within every certificate's window of its chains. */
interface Verified {
  from: number;
  until: number;
  user: UserInfo | null;
}
type Verdict = Verified | { until: number; failure: string };

/** A verified chain's answer holds while `nowMs` is inside every certificate's window. */
function holds(v: Verdict, nowMs: number): boolean {
  return nowMs <= v.until && (!('from' in v) || nowMs >= v.from);
}

/** The presented chain's identity across connections: each certificate's SHA-256, in order. */
function chainKey(presented: readonly X509Certificate[]): string {
  return presented.map((c) => c.fingerprint256).join(' ');
}

/**
 * The x509 request authenticator: no opinion without a client certificate (or with one lacking a
 * CN); the user of a chain that verifies; a 401 ApiError for one that does not.
 *
 * kube verifies the chain on every request (on parallel goroutines). Here a verdict is kept, so a
 * client cannot spend the event loop on signature checks, and it is exactly the answer a fresh
 * verification would give: a chain verifies the same way whenever every certificate of its verified
 * paths is in its validity window, and the roots are the same. So
 * - per connection (the presented array, peer-certificates.ts): a success while those windows hold,
 *   a refusal (with its logged reason) for a minute;
 * - across connections, by the presented certificates' fingerprints: successes only, while those
 *   windows hold, at most `maxVerifiedChains` (least recently used dropped). A refused chain is
 *   verified again on each new connection, and refused with a reason of that time.
 * A new CA bundle forgets both.
 */
export function x509Authenticator(opts: X509AuthenticatorOptions): Authenticator {
  const rootsSource = typeof opts.roots === 'function' ? opts.roots : () => opts.roots as readonly X509Certificate[];
  let rootsInForce: readonly X509Certificate[] | undefined;
  let roots: ParsedCertificate[] = [];
  let perConnection = new WeakMap<readonly X509Certificate[], Verdict>();
  const kept = opts.maxVerifiedChains ?? VERIFIED_CHAINS_KEPT;
  const verified = kept > 0 ? new LRUCache<string, Verified>({ max: kept }) : undefined;
  return {
    authenticate: async (req: AuthRequest) => {
      const presented = req.peerCertificates?.() ?? [];
      const first = presented[0];
      if (first === undefined) return null;
      const bundle = rootsSource();
      if (bundle !== rootsInForce) {
        roots = bundle.map(parseCertificate);
        rootsInForce = bundle;
        perConnection = new WeakMap();
        verified?.clear();
      }
      const now = opts.now?.() ?? new Date();
      const nowMs = now.getTime();
      const known = perConnection.get(presented);
      if (known && holds(known, nowMs)) {
        if ('failure' in known) {
          opts.onFailure?.(known.failure);
          throw errors.unauthorized();
        }
        return known.user;
      }
      const key = verified ? chainKey(presented) : '';
      const shared = verified?.get(key);
      if (shared) {
        if (holds(shared, nowMs)) {
          perConnection.set(presented, shared);
          return shared.user;
        }
        verified?.delete(key);
      }
      let leaf: ParsedCertificate;
      let chains: ParsedCertificate[][];
      try {
        leaf = parseCertificate(first);
        const intermediates: ParsedCertificate[] = [];
        for (const c of presented.slice(1)) {
          try {
            intermediates.push(parseCertificate(c));
          } catch {
            // An intermediate this reader cannot parse cannot be part of a chain.
          }
        }
        chains = verifyClientChain(leaf, intermediates, roots, now);
      } catch (e) {
        const what = e instanceof CertificateVerifyError ? e.message : 'x509: malformed certificate';
        let id = '';
        try {
          id = ` ${certificateIdentifier(parseCertificate(first))}`;
        } catch {
          id = '';
        }
        const failure = `verifying certificate${id} failed: ${what}`;
        perConnection.set(presented, { until: nowMs + REFUSAL_KEPT_MS, failure });
        opts.onFailure?.(failure);
        throw errors.unauthorized();
      }
      let user: UserInfo | null = null;
      for (const chain of chains) {
        user = userFromCertificate(chain[0] as ParsedCertificate);
        if (user) break;
      }
      const all = chains.flat();
      const verdict: Verified = {
        from: Math.max(...all.map((c) => c.notBefore.getTime())),
        until: Math.min(...all.map((c) => c.notAfter.getTime())),
        user,
      };
      perConnection.set(presented, verdict);
      verified?.set(key, verdict);
      return user;
    },
  };
}

function decodeOid(bytes: Buffer): string {
  const arcs: number[] = [];
  let v = 0;
  for (const b of bytes) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(v);
      v = 0;
    }
  }
  const first = arcs.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}
