/**
 * A minimal DER reader (tag, length, value), bounds-checked: throws Error on truncation or a length
 * of more than four bytes. Used to read certificates (auth/authn/x509.ts) and to assemble the ones
 * the server generates (server/certificate-builder.ts); Node's X509Certificate does not expose the
 * raw subject, extensions or version these need. Also the one splitter of PEM certificate bundles.
 */

/** The CERTIFICATE blocks of a PEM bundle, in order (each `-----BEGIN CERTIFICATE-----` … `-----END CERTIFICATE-----`). */
export function splitPemCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}

/** One DER element. */
export interface Tlv {
  tag: number;
  /** The whole element (tag, length, value). */
  raw: Buffer;
  value: Buffer;
}

/** The element starting at `at`. */
export function readTlv(buf: Buffer, at: number): Tlv {
  const tag = buf[at];
  const first = buf[at + 1];
  if (tag === undefined || first === undefined) throw new Error('truncated DER');
  let offset = at + 2;
  let length = first;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i++) {
      const b = buf[offset++];
      if (b === undefined) throw new Error('truncated DER');
      length = length * 256 + b;
    }
  }
  if (offset + length > buf.length) throw new Error('truncated DER');
  return { tag, raw: buf.subarray(at, offset + length), value: buf.subarray(offset, offset + length) };
}

/** The elements inside a constructed element, in order. */
export function children(t: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < t.value.length; ) {
    const c = readTlv(t.value, at);
    out.push(c);
    at += c.raw.length;
  }
  return out;
}
