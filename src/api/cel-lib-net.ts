/**
 * kube's IP and CIDR libraries (k8s.io/apiserver pkg/cel/library/ip.go and cidr.go, in kube's
 * base environment since 1.30), as kube-apiserver 1.32 has them:
 *
 *   ip(string) net.IP, isIP(string) bool, ip.isCanonical(string) bool, string(net.IP),
 *   <net.IP>.family() int, .isUnspecified() .isLoopback() .isLinkLocalMulticast()
 *   .isLinkLocalUnicast() .isGlobalUnicast() bool;
 *   cidr(string) net.CIDR, isCIDR(string) bool, string(net.CIDR),
 *   <net.CIDR>.containsIP(string | net.IP) bool, .containsCIDR(string | net.CIDR) bool,
 *   .ip() net.IP, .masked() net.CIDR, .prefixLength() int;
 *   `net.IP` and `net.CIDR` as type values (`type(ip(x)) == net.IP`), `==` between values of a type.
 *
 * Parsing is Go's netip (api/go-netip.ts) with kube's refusals: an IPv4-mapped IPv6 address, or
 * an address with a zone, is an error; so is an IPv4 octet with a leading zero (Go's own rule).
 * The error texts are kube's, wrapping Go's (`IP Address "1.2.3.256" parse error during
 * conversion from string: ParseAddr("1.2.3.256"): IPv4 field has value >255`). Costs are kube's
 * (library/cost.go): parsing is a tenth of a unit per character, accessors one unit.
 *
 * Two behaviours are kube 1.32's own and kept: containsCIDR compares the masked prefix with the
 * other CIDR's address unmasked (`cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')` is false; kube
 * 1.33 changed it), and containsIP of a string that is no IP fails with `no such overload`.
 */
import { chargeOperation, traversal } from './cel-cost';
import type { CelNamespace, CelRegistrar } from './cel-registrar';
import { goQuote } from './go-format';
import { type GoAddr, type GoPrefix, parseAddr, parsePrefix } from './go-netip';

/** A `net.IP` value. */
export class CelIP {
  constructor(readonly addr: GoAddr) {}
}

/** A `net.CIDR` value. */
export class CelCIDR {
  constructor(readonly prefix: GoPrefix) {}
}

class IPNamespace {}
class NetNamespace {
  /** The type values of net.IP and net.CIDR, read once the types are registered. */
  types: { IP?: unknown; CIDR?: unknown } = {};
  get IP(): unknown {
    return this.types.IP;
  }
  get CIDR(): unknown {
    return this.types.CIDR;
  }
}

export const IP_NAMESPACE: CelNamespace = { name: 'ip', typeName: 'kubernetes.IPNamespace', functions: ['isCanonical'] };
export const NET_NAMESPACE: CelNamespace = { name: 'net', typeName: 'kubernetes.NetNamespace', functions: [], fields: ['IP', 'CIDR'] };

/** kube's parseIPAddr: Go's ParseAddr, without zones or IPv4-mapped IPv6 addresses. */
function parseIPAddr(raw: string): GoAddr {
  let addr: GoAddr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    throw new Error(`IP Address ${goQuote(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (addr.zone !== '') throw new Error(`IP address ${goQuote(raw)} with zone value is not allowed`);
  if (addr.is4In6()) throw new Error(`IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return addr;
}

const CIDR_PARSE_ERROR = 'network address parse error during conversion from string: ';

/** kube's parseCIDR: Go's ParsePrefix, without IPv4-mapped IPv6 addresses. */
function parseCIDR(raw: string): GoPrefix {
  let prefix: GoPrefix;
  try {
    prefix = parsePrefix(raw);
  } catch (e) {
    throw new Error(CIDR_PARSE_ERROR + (e as Error).message);
  }
  if (prefix.addr.is4In6()) throw new Error(`IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return prefix;
}

/** kube's stringToCIDR: parseCIDR's error, wrapped once more. */
function stringToCIDR(raw: string): CelCIDR {
  try {
    return new CelCIDR(parseCIDR(raw));
  } catch (e) {
    throw new Error(CIDR_PARSE_ERROR + (e as Error).message);
  }
}

const isValid = (parse: (s: string) => unknown, s: string): boolean => {
  try {
    parse(s);
    return true;
  } catch {
    return false;
  }
};

/** The size cel-go gives a CIDR (its prefix length in bytes, rounded up). */
const cidrSize = (c: CelCIDR): number => Math.ceil(c.prefix.bits / 8);

/** kube 1.32's containsCIDR (see the header). */
function containsCIDR(a: CelCIDR, b: CelCIDR): boolean {
  const masked = a.prefix.masked();
  return masked.addr.equals(b.prefix.addr) && a.prefix.bits <= b.prefix.bits;
}

/** Declares kube's ip and cidr libraries. */
export function registerNetLibrary(env: CelRegistrar): void {
  const IP = 'net.IP';
  const CIDR = 'net.CIDR';
  env.registerType(IP, { ctor: CelIP, fields: {} });
  env.registerType(CIDR, { ctor: CelCIDR, fields: {} });
  env.registerType(IP_NAMESPACE.typeName, { ctor: IPNamespace, fields: {} });
  env.registerConstant(IP_NAMESPACE.name, IP_NAMESPACE.typeName, new IPNamespace());
  const net = new NetNamespace();
  env.registerType(NET_NAMESPACE.typeName, { ctor: NetNamespace, fields: { IP: 'type', CIDR: 'type' } });
  env.registerConstant(NET_NAMESPACE.name, NET_NAMESPACE.typeName, net);

  const parseCost = (s: string): void => chargeOperation(traversal(s.length));
  env.registerFunction(`ip(string): ${IP}`, (s: string) => (parseCost(s), new CelIP(parseIPAddr(s))));
  env.registerFunction('isIP(string): bool', (s: string) => (parseCost(s), isValid(parseIPAddr, s)));
  env.registerFunction(`${IP_NAMESPACE.typeName}.isCanonical(string): bool`, (_: unknown, s: string) => {
    chargeOperation(traversal(2 * s.length));
    return parseIPAddr(s).toString() === s;
  });
  env.registerFunction(`string(${IP}): string`, (ip: CelIP) => ip.addr.toString());
  env.registerFunction(`${IP}.family(): int`, (ip: CelIP) => (ip.addr.is4() ? 4n : 6n));
  env.registerFunction(`${IP}.isUnspecified(): bool`, (ip: CelIP) => ip.addr.isUnspecified());
  env.registerFunction(`${IP}.isLoopback(): bool`, (ip: CelIP) => ip.addr.isLoopback());
  env.registerFunction(`${IP}.isLinkLocalMulticast(): bool`, (ip: CelIP) => ip.addr.isLinkLocalMulticast());
  env.registerFunction(`${IP}.isLinkLocalUnicast(): bool`, (ip: CelIP) => ip.addr.isLinkLocalUnicast());
  env.registerFunction(`${IP}.isGlobalUnicast(): bool`, (ip: CelIP) => ip.addr.isGlobalUnicast());
  env.registerOperator(`${IP} == ${IP}`, (a: CelIP, b: CelIP) => a.addr.equals(b.addr));

  env.registerFunction(`cidr(string): ${CIDR}`, (s: string) => (parseCost(s), stringToCIDR(s)));
  env.registerFunction('isCIDR(string): bool', (s: string) => (parseCost(s), isValid(parseCIDR, s)));
  env.registerFunction(`string(${CIDR}): string`, (c: CelCIDR) => c.prefix.toString());
  env.registerFunction(`${CIDR}.containsIP(${IP}): bool`, (c: CelCIDR, ip: CelIP) => {
    chargeOperation(traversal(2 * cidrSize(c)));
    return c.prefix.contains(ip.addr);
  });
  env.registerFunction(`${CIDR}.containsIP(string): bool`, (c: CelCIDR, s: string) => {
    chargeOperation(traversal(2 * cidrSize(c)) + traversal(s.length));
    if (!isValid(parseIPAddr, s)) throw new Error('no such overload');
    return c.prefix.contains(parseIPAddr(s));
  });
  const containsCIDRCost = (c: CelCIDR): number => traversal(2 * cidrSize(c)) + traversal(cidrSize(c)) + 1;
  env.registerFunction(`${CIDR}.containsCIDR(${CIDR}): bool`, (c: CelCIDR, o: CelCIDR) => (chargeOperation(containsCIDRCost(c)), containsCIDR(c, o)));
  env.registerFunction(`${CIDR}.containsCIDR(string): bool`, (c: CelCIDR, s: string) => {
    chargeOperation(containsCIDRCost(c) + traversal(s.length));
    return containsCIDR(c, stringToCIDR(s));
  });
  env.registerFunction(`${CIDR}.ip(): ${IP}`, (c: CelCIDR) => new CelIP(c.prefix.addr));
  env.registerFunction(`${CIDR}.masked(): ${CIDR}`, (c: CelCIDR) => new CelCIDR(c.prefix.masked()));
  env.registerFunction(`${CIDR}.prefixLength(): int`, (c: CelCIDR) => BigInt(c.prefix.bits));
  env.registerOperator(`${CIDR} == ${CIDR}`, (a: CelCIDR, b: CelCIDR) => a.prefix.equals(b.prefix));

  net.types = { IP: env.evaluate('type(ip("0.0.0.0"))'), CIDR: env.evaluate('type(cidr("0.0.0.0/0"))') };
}
