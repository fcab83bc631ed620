/**
 * The error Go's `tls.X509KeyPair(cert, key)` returns, word for word where it comes from crypto/tls
 * itself (PEM block search, key/certificate match); kube's Secret strategy returns it as a warning
 * for `kubernetes.io/tls` Secrets on create and update.
 */
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

interface PemBlock {
  type: string;
  der: Buffer;
}

const pemBlock = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** Go's pem.Decode applied repeatedly: every well-formed block (headers skipped), in order. */
function pemBlocks(input: Buffer): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of input.toString('latin1').matchAll(pemBlock)) {
    const body = (m[2] ?? '')
      .split(/\r?\n/)
      .filter((l) => !l.includes(':'))
      .join('');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) continue; // Go skips blocks whose base64 does not decode
    out.push({ type: m[1] ?? '', der: Buffer.from(body, 'base64') });
  }
  return out;
}

/** Go's fmt %v of a []string: `[a b c]`. */
const goList = (xs: string[]) => `[${xs.join(' ')}]`;

function parsePrivateKey(der: Buffer): KeyObject | undefined {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // next form, as Go tries PKCS#1, PKCS#8, then EC
    }
  }
  return undefined;
}

/** The X509KeyPair error for the given PEM inputs, or undefined when they form a matching pair. */
export function x509KeyPairError(certPem: Buffer, keyPem: Buffer): string | undefined {
  const certBlocks = pemBlocks(certPem);
  const certs = certBlocks.filter((b) => b.type === 'CERTIFICATE');
  if (certs.length === 0) {
    const skipped = certBlocks.map((b) => b.type);
    if (skipped.length === 0) return 'tls: failed to find any PEM data in certificate input';
    if (skipped.length === 1 && skipped[0]?.endsWith('PRIVATE KEY')) {
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: ${goList(skipped)}`;
  }
  const skippedKeys: string[] = [];
  let keyBlock: PemBlock | undefined;
  for (const b of pemBlocks(keyPem)) {
    if (b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY')) {
      keyBlock = b;
      break;
    }
    skippedKeys.push(b.type);
  }
  if (!keyBlock) {
    if (skippedKeys.length === 0) return 'tls: failed to find any PEM data in key input';
    if (skippedKeys.length === 1 && skippedKeys[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: ${goList(skippedKeys)}`;
  }
  let publicKey: KeyObject;
  try {
    publicKey = new X509Certificate(certs[0]?.der ?? Buffer.alloc(0)).publicKey;
  } catch {
    // Go reports x509.ParseCertificate's own error here; its wording depends on the defect.
    return 'x509: malformed certificate';
  }
  const privateKey = parsePrivateKey(keyBlock.der);
  if (!privateKey) return 'tls: failed to parse private key';
  const pubType = publicKey.asymmetricKeyType;
  const privType = privateKey.asymmetricKeyType;
  if (pubType !== 'rsa' && pubType !== 'ec' && pubType !== 'ed25519') return 'tls: unknown public key algorithm';
  if (pubType !== privType) return 'tls: private key type does not match public key type';
  const derived = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  if (!derived.equals(publicKey.export({ format: 'der', type: 'spki' }))) return 'tls: private key does not match public key';
  return undefined;
}
