/**
 * buildCertificate: a minimal X.509 v3 certificate writer (DER by hand, signed with node:crypto) for
 * the server's self-signed CA and its serving certificate. It replaces a general ASN.1 library whose
 * loading alone cost a noticeable part of the server's start-up; it writes only what certs.ts needs:
 * ECDSA P-256 / SHA-256, a subject of O values and a CN, and the usual CA / TLS-server / TLS-client
 * extensions (RFC 5280).
 */
import { createHash, KeyObject, sign } from 'node:crypto';
import { isIP } from 'node:net';
import { children, readTlv, type Tlv } from '../api/der';

/** What to put into a certificate. */
export interface CertificateSpec {
  /** Serial number as hex digits; must be a positive DER INTEGER (first byte 0x01-0x7f). */
  serialHex: string;
  /** Subject common name. */
  commonName: string;
  /** Subject organization values, written before the CN as Go's pkix.Name orders them (client certificates' groups). */
  organizations?: string[];
  notBefore: Date;
  notAfter: Date;
  /** The certified key (EC P-256 public key). */
  publicKey: KeyObject;
  /** true: a CA (basicConstraints cA, keyCertSign|cRLSign|digitalSignature); false: a TLS server cert (or client, below). */
  isCa: boolean;
  /** With isCa false: a TLS client certificate (digitalSignature, extended key usage clientAuth). */
  clientAuth?: boolean;
  /** DNS names and IP addresses of the subjectAltName extension (server certificates). */
  hosts?: string[];
  /** The issuer's DER certificate and private key; absent → self-signed with `selfSigningKey`. */
  issuer?: { certDer: Buffer; privateKey: KeyObject };
  /** Private key of a self-signed certificate (the pair of publicKey). */
  selfSigningKey?: KeyObject;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  organization: '2.5.4.10',
} as const;

// keyUsage named bits (RFC 5280 4.2.1.3), as DER BIT STRING contents: unused-bit count, then the bits.
const KEY_USAGE_CA = Buffer.from([0x01, 0x86]); // digitalSignature(0), keyCertSign(5), cRLSign(6)
const KEY_USAGE_SERVER = Buffer.from([0x05, 0xa0]); // digitalSignature(0), keyEncipherment(2)
const KEY_USAGE_CLIENT = Buffer.from([0x07, 0x80]); // digitalSignature(0)

/**
 * Returns the PEM (`-----BEGIN CERTIFICATE-----` … `-----END CERTIFICATE-----`, no trailing newline)
 * of a certificate built from `spec` and signed with ECDSA-SHA256 by the issuer's key (or
 * `selfSigningKey`). Throws Error on an invalid spec (no signing key, a malformed issuer certificate,
 * a serial that is not a positive minimal INTEGER).
 */
export function buildCertificate(spec: CertificateSpec): string {
  const signingKey = spec.issuer?.privateKey ?? spec.selfSigningKey;
  if (!signingKey) throw new Error('buildCertificate: no signing key');
  const serial = Buffer.from(spec.serialHex, 'hex');
  if (serial.length === 0 || (serial[0] ?? 0) === 0 || (serial[0] ?? 0) >= 0x80) {
    throw new Error('buildCertificate: the serial must start with a byte in 0x01-0x7f');
  }
  const spki = spec.publicKey.export({ type: 'spki', format: 'der' });
  const subject = name(spec.commonName, spec.organizations ?? []);
  const issuerName = spec.issuer ? subjectOf(spec.issuer.certDer) : subject;
  const issuerKeyId = spec.issuer ? keyIdentifier(spkiOf(spec.issuer.certDer)) : keyIdentifier(spki);
  const algorithm = seq(oid(OID.ecdsaWithSha256));

  const extensions = [
    extension(OID.basicConstraints, true, spec.isCa ? seq(tlv(0x01, Buffer.from([0xff]))) : seq()),
    extension(OID.keyUsage, true, tlv(0x03, spec.isCa ? KEY_USAGE_CA : spec.clientAuth ? KEY_USAGE_CLIENT : KEY_USAGE_SERVER)),
  ];
  if (!spec.isCa) extensions.push(extension(OID.extKeyUsage, false, seq(oid(spec.clientAuth ? OID.clientAuth : OID.serverAuth))));
  if (spec.hosts && spec.hosts.length > 0) extensions.push(extension(OID.subjectAltName, false, seq(...spec.hosts.map(generalName))));
  if (spec.issuer) extensions.push(extension(OID.authorityKeyIdentifier, false, seq(tlv(0x80, issuerKeyId))));
  extensions.push(extension(OID.subjectKeyIdentifier, false, tlv(0x04, keyIdentifier(spki))));

  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([0x02]))), // version v3
    tlv(0x02, serial),
    algorithm,
    issuerName,
    seq(time(spec.notBefore), time(spec.notAfter)),
    subject,
    spki,
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: signingKey, dsaEncoding: 'der' });
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0x00]), signature])));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----`;
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's bits. */
function keyIdentifier(spkiDer: Buffer): Buffer {
  const [, bitString] = children(readTlv(spkiDer, 0));
  if (!bitString || bitString.tag !== 0x03) throw new Error('buildCertificate: malformed public key');
  return createHash('sha1').update(bitString.value.subarray(1)).digest();
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), tlv(0x01, Buffer.from([0xff])), tlv(0x04, value)) : seq(oid(id), tlv(0x04, value));
}

function generalName(host: string): Buffer {
  const family = isIP(host);
  if (family === 4) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
  if (family === 6) return tlv(0x87, ipv6Bytes(host));
  return tlv(0x82, Buffer.from(host, 'ascii'));
}

function ipv6Bytes(ip: string): Buffer {
  const [head = '', tail] = ip.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const expand = (gs: string[]) =>
    gs.flatMap((g) => {
      if (!g.includes('.')) return [parseInt(g, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  const hv = expand(h);
  const tv = expand(t);
  const all = tail === undefined ? hv : [...hv, ...new Array<number>(8 - hv.length - tv.length).fill(0), ...tv];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  const year = d.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

/** A Name of one RDN per attribute: the O values, then the CN (UTF8String values). */
function name(cn: string, organizations: string[]): Buffer {
  const rdn = (type: string, value: string) => tlv(0x31, seq(oid(type), tlv(0x0c, Buffer.from(value, 'utf8'))));
  return seq(...organizations.map((o) => rdn(OID.organization, o)), rdn(OID.commonName, cn));
}

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [];
  const first = (arcs[0] ?? 0) * 40 + (arcs[1] ?? 0);
  for (const arc of [first, ...arcs.slice(2)]) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function tlv(tag: number, value: Buffer): Buffer {
  const n = value.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, value]);
}

/** The TBSCertificate's fields: [version], serial, signature, issuer, validity, subject, spki, … */
function tbsFields(certDer: Buffer): Tlv[] {
  const [tbs] = children(readTlv(certDer, 0));
  if (!tbs) throw new Error('buildCertificate: malformed issuer certificate');
  const fields = children(tbs);
  return fields[0]?.tag === 0xa0 ? fields.slice(1) : fields;
}

/** The issuer certificate's subject, byte for byte (it becomes the new certificate's issuer). */
function subjectOf(certDer: Buffer): Buffer {
  const subject = tbsFields(certDer)[4];
  if (!subject) throw new Error('buildCertificate: malformed issuer certificate');
  return subject.raw;
}

function spkiOf(certDer: Buffer): Buffer {
  const spki = tbsFields(certDer)[5];
  if (!spki) throw new Error('buildCertificate: malformed issuer certificate');
  return spki.raw;
}
