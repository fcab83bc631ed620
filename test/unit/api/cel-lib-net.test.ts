/**
 * api/cel-lib-net.ts and api/go-netip.ts: kube's ip and cidr CEL libraries (apiserver
 * pkg/cel/library/ip.go, cidr.go: their doc examples and ip_test.go/cidr_test.go cases).
 */
import { compileCel } from '../../../src/api/cel';
import { GoNetipError, parseAddr, parsePrefix } from '../../../src/api/go-netip';
import { compileError, overClaims } from '../../support/cel';

const { run, runError } = overClaims({ ips: ['10.0.0.1', '10.0.0.2'], bad: 'x' });

describe('ip library (kube\'s examples)', () => {
  it.each<[string, unknown]>([
    ['isIP("127.0.0.1")', true],
    ['isIP("::1")', true],
    ['isIP("127.0.0.256")', false],
    ['isIP(":::1")', false],
    ['isIP("192.168.0.1.0")', false],
    ['isIP("2001:db8::68")', true],
    ['isIP("2001:db8:::68")', false],
    // kube refuses what Go parses: zones, IPv4-mapped addresses; and leading zeros, as Go does.
    ['isIP("fe80::1%eth0")', false],
    ['isIP("::ffff:1.2.3.4")', false],
    ['isIP("010.0.0.1")', false],
    ['ip.isCanonical("127.0.0.1")', true],
    ['ip.isCanonical("2001:db8::abcd")', true],
    ['ip.isCanonical("2001:DB8::ABCD")', false],
    ['ip.isCanonical("2001:db8::0:0:0:abcd")', false],
    ['ip("127.0.0.1").family()', 4n],
    ['ip("::1").family()', 6n],
    ['ip("127.0.0.1").family() == 4', true],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("127.0.0.1").isUnspecified()', false],
    ['ip("::").isUnspecified()', true],
    ['ip("::1").isUnspecified()', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("192.168.0.1").isLoopback()', false],
    ['ip("::1").isLoopback()', true],
    ['ip("2001:db8::abcd").isLoopback()', false],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("224.0.1.1").isLinkLocalMulticast()', false],
    ['ip("ff02::1").isLinkLocalMulticast()', true],
    ['ip("fd00::1").isLinkLocalMulticast()', false],
    ['ip("169.254.169.254").isLinkLocalUnicast()', true],
    ['ip("192.168.0.1").isLinkLocalUnicast()', false],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("fd80::1").isLinkLocalUnicast()', false],
    ['ip("192.168.0.1").isGlobalUnicast()', true],
    ['ip("255.255.255.255").isGlobalUnicast()', false],
    ['ip("2001:db8::abcd").isGlobalUnicast()', true],
    ['ip("ff00::1").isGlobalUnicast()', false],
    ['string(ip("192.168.0.1"))', '192.168.0.1'],
    ['string(ip("2001:DB8:0:0:0:0:0:1"))', '2001:db8::1'],
    ['type(ip("192.168.0.1")) == net.IP', true],
    ['type(ip("192.168.0.1")) == net.CIDR', false],
    ['ip("::1") == ip("0:0::1")', true],
    ['ip("10.0.0.1") != ip("10.0.0.2")', true],
    ['ip("10.0.0.1") in [ip("10.0.0.1")]', true],
    // A comprehension's variable named `ip` hides the namespace.
    ['claims.ips.all(ip, isIP(ip) && ip.startsWith("10."))', true],
    ['cel.bind(ip, "1.2.3.4", isIP(ip))', true],
  ])('%s', (expression, want) => {
    expect(run(expression)).toEqual(want);
  });

  it('parse errors are kube\'s, wrapping Go\'s netip ones', () => {
    expect(runError('ip("192.168.0.1.0")')).toBe('IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long');
    expect(runError('ip("2001:db8:::68")')).toBe(
      'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    );
    expect(runError('ip.isCanonical("127.0.0.1.0")')).toBe('IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long');
    expect(runError('ip("127.0.0.256")')).toBe('IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255');
    expect(runError('ip("fe80::1%eth0")')).toBe('IP address "fe80::1%eth0" with zone value is not allowed');
    expect(runError('ip("::ffff:1.2.3.4")')).toBe('IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
    expect(runError('ip(claims.bad)')).toBe('IP Address "x" parse error during conversion from string: ParseAddr("x"): unable to parse IP');
  });

  it('types are checked at compile time, with cel-go\'s names', () => {
    // kube's ip_test.go: passing cidr into isIP returns compile error.
    expect(compileError('isIP(cidr("192.168.0.0/24"))')).toBe(
      "compilation failed: ERROR: <input>:1:5: found no matching overload for 'isIP' applied to '(net.CIDR)'\n | isIP(cidr(\"192.168.0.0/24\"))\n | ....^",
    );
    expect(compileError('ip("::1").family() == "6"')).toContain("found no matching overload for '_==_' applied to '(int, string)'");
    expect(compileError('ip.isCanonical(1)')).toBe(
      "compilation failed: ERROR: <input>:1:15: found no matching overload for 'ip.isCanonical' applied to '(int)'\n | ip.isCanonical(1)\n | ..............^",
    );
    expect(compileError('ip("::1") == cidr("::1/128")')).toContain("found no matching overload for '_==_' applied to '(net.IP, net.CIDR)'");
    expect(compileCel('ip("::1")', 'claims').outputType).toBe('net.IP');
  });

  it('the namespaces are no identifiers of their own (cel-go knows only the qualified names)', () => {
    expect(compileError('ip')).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'ip' (in container '')\n | ip\n | ^");
    expect(compileError('net.X')).toContain("ERROR: <input>:1:1: undeclared reference to 'net' (in container '')");
    expect(compileError('ip.foo("x")')).toBe(
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'ip' (in container '')\n | ip.foo(\"x\")\n | ^\nERROR: <input>:1:7: undeclared reference to 'foo' (in container '')\n | ip.foo(\"x\")\n | ......^",
    );
    expect(compileError('"x".isCanonical()')).toContain("undeclared reference to 'isCanonical' (in container '')");
  });
});

describe('cidr library (kube\'s examples)', () => {
  it.each<[string, unknown]>([
    ['isCIDR("192.168.0.0/16")', true],
    ['isCIDR("::1/128")', true],
    ['isCIDR("192.168.0.0/33")', false],
    ['isCIDR("::1/129")', false],
    ['isCIDR("::ffff:1.2.3.4/120")', false],
    ['isCIDR("10.0.0.0/08")', false],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', true],
    ['cidr("192.168.0.0/24").containsIP("192.168.1.1")', false],
    ['cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', true],
    ['cidr("2001:db8::/32").containsIP("2001:dc8::1")', false],
    ['cidr("192.168.0.0/24").containsIP(ip("::1"))', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', true],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', true],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', false],
    // kube 1.32 compares the masked prefix with the other CIDR's address as written (1.33 fixed it).
    ['cidr("192.168.0.0/16").containsCIDR(cidr("192.168.10.0/24"))', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', false],
    ['cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', true],
    ['cidr("192.168.0.1/24").ip() == ip("192.168.0.1")', true],
    ['cidr("::1/128").ip().family()', 6n],
    ['cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', true],
    ['cidr("192.168.0.0/24") == cidr("192.168.0.0/24").masked()', true],
    ['cidr("192.168.0.1/24") == cidr("192.168.0.1/24").masked()', false],
    ['cidr("192.168.0.0/16").prefixLength()', 16n],
    ['cidr("::1/128").prefixLength()', 128n],
    ['string(cidr("192.168.0.0/24"))', '192.168.0.0/24'],
    ['type(cidr("192.168.0.0/24")) == net.CIDR', true],
  ])('%s', (expression, want) => {
    expect(run(expression)).toEqual(want);
  });

  it('parse errors are kube\'s (its message wraps twice), a bad IP string is `no such overload`', () => {
    expect(runError('cidr("192.168.0.0/")')).toBe(
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    );
    expect(runError('cidr("2001:db8::/")')).toBe(
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    );
    expect(runError('cidr("192.168.0.0/33")')).toContain('netip.ParsePrefix("192.168.0.0/33"): prefix length out of range');
    expect(runError('cidr("::ffff:1.2.3.4/120")')).toBe('network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed');
    expect(runError('cidr("10.0.0.0/8").containsIP("x")')).toBe('no such overload');
    expect(runError('cidr("10.0.0.0/8").containsCIDR("x")')).toBe(
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("x"): no \'/\'',
    );
  });
});

describe("Go's netip (go-netip.ts)", () => {
  it('canonical forms (RFC 5952): the first longest run of zero groups, lower case', () => {
    expect(parseAddr('2001:0db8:0000:0000:0001:0000:0000:0001').toString()).toBe('2001:db8::1:0:0:1');
    expect(parseAddr('0:0:0:0:0:0:0:0').toString()).toBe('::');
    expect(parseAddr('1:0:0:0:0:0:0:0').toString()).toBe('1::');
    expect(parseAddr('1:0:1:0:1:0:1:0').toString()).toBe('1:0:1:0:1:0:1:0');
    expect(parseAddr('::1.2.3.4').toString()).toBe('::102:304');
    expect(parsePrefix('10.1.2.3/8').masked().toString()).toBe('10.0.0.0/8');
  });

  it.each<[string, string]>([
    ['', 'ParseAddr(""): unable to parse IP'],
    ['%eth0', 'ParseAddr("%eth0"): missing IPv6 address'],
    ['1.2.3', 'ParseAddr("1.2.3"): IPv4 address too short'],
    ['1..2.3', 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")'],
    ['01.2.3.4', 'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'],
    ['1.2.3.x', 'ParseAddr("1.2.3.x"): unexpected character (at "x")'],
    ['fe80::1%', 'ParseAddr("fe80::1%"): zone must be a non-empty string'],
    ['1:2:3:4:5:6:7:8:9', 'ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")'],
    ['1:2', 'ParseAddr("1:2"): address string too short'],
    ['1::2::3', 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'],
    ['12345::', 'ParseAddr("12345::"): IPv6 field has value >=2^16 (at "12345::")'],
    ['1:2:3:4:5:6:7::8', 'ParseAddr("1:2:3:4:5:6:7::8"): the :: must expand to at least one field of zeros'],
    ['1:2:3:4:5:6:7:8::', 'ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros'],
    ['1:2:3:4:5:6:7:', 'ParseAddr("1:2:3:4:5:6:7:"): colon must be followed by more characters (at ":")'],
    ['1.2.3.4:', 'ParseAddr("1.2.3.4:"): unexpected character (at ":")'],
    ['::1.2.3', 'ParseAddr("::1.2.3"): IPv4 address too short'],
    ['1:2:1.2.3.4', 'ParseAddr("1:2:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")'],
  ])('ParseAddr(%j) fails as Go says', (s, message) => {
    expect(() => parseAddr(s)).toThrow(new GoNetipError(message));
  });

  it('ParsePrefix: no sign, no leading zero, a length within the family', () => {
    expect(() => parsePrefix('1.2.3.4')).toThrow('netip.ParsePrefix("1.2.3.4"): no \'/\'');
    expect(() => parsePrefix('1.2.3.4/+8')).toThrow('netip.ParsePrefix("1.2.3.4/+8"): bad bits after slash: "+8"');
    expect(() => parsePrefix('1.2.3.4/99999999999999999999')).toThrow('bad bits after slash: "99999999999999999999"');
    expect(() => parsePrefix('fe80::1%eth0/64')).toThrow('netip.ParsePrefix("fe80::1%eth0/64"): IPv6 zones cannot be present in a prefix');
    expect(() => parsePrefix('x/8')).toThrow('netip.ParsePrefix("x/8"): ParseAddr("x"): unable to parse IP');
    expect(parsePrefix('::/0').toString()).toBe('::/0');
  });
});
