import {
  generateName,
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameValidatorFor,
  validatePathSegmentName,
} from '../../../src/api/names';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
// kube-facts §4: note the doubled spaces.
const configKeyMsg =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

describe('isDNS1123Subdomain', () => {
  test.each([['a'], ['ab'], ['abc'], ['a1'], ['a-1'], ['a--1--2--b'], ['0'], ['01'], ['a.a'], ['a.1'], ['1.a'],
    ['a.b.c.d.e'], ['aa.bb.cc.dd.ee'], ['1.2.3.4.5'], ['11.22.33.44.55'], ['a'.repeat(253)]])('%j is valid', (s) => {
    expect(isDNS1123Subdomain(s)).toEqual([]);
  });
  test.each([[''], ['A'], ['ABC'], ['aBc'], ['A1'], ['A-1'], ['1-A'], ['-'], ['a-'], ['-a'], ['1-'], ['-1'], ['_'],
    ['a_'], ['_a'], ['a_b'], ['1_'], ['_1'], ['1_2'], ['.'], ['a.'], ['.a'], ['a..b'], ['1.'], ['.1'], ['1..2'],
    [' '], ['a '], [' a'], ['a b'], ['1 '], [' 1'], ['1 2'], ['A.a'], ['aB.a'], ['ab.A'], ['A1.a'], ['a1.A'],
    ['A.1'], ['aB.1'], ['A1.1'], ['1A.1'], ['0.A'], ['01.A'], ['012.A'], ['1A.a'], ['1a.A'], ['A.B.C.D.E'],
    ['AA.BB.CC.DD.EE'], ['a.B.c.d.e'], ['aa.bB.cc.dd.ee'], ['a@b'], ['a,b'], ['a_b'], ['a;b'], ['a:b'], ['a%b'],
    ['a?b'], ['a$b']])('%j is invalid', (s) => {
    expect(isDNS1123Subdomain(s)).toEqual([subdomainMsg]);
  });
  test('too long', () => {
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });
});

describe('isDNS1123Label', () => {
  test.each([['a'], ['ab'], ['abc'], ['a1'], ['a-1'], ['a--1--2--b'], ['0'], ['01'], ['012'], ['1a'], ['1-a'],
    ['1--a--b--2'], ['a'.repeat(63)]])('%j is valid', (s) => {
    expect(isDNS1123Label(s)).toEqual([]);
  });
  test.each([[''], ['A'], ['ABC'], ['aBc'], ['A1'], ['A-1'], ['1-A'], ['-'], ['a-'], ['-a'], ['1-'], ['-1'], ['_'],
    ['a_'], ['_a'], ['a_b'], ['1_'], ['_1'], ['1_2'], ['.'], ['a.'], ['.a'], ['a..b'], ['1.'], ['.1'], ['1..2'],
    [' '], ['a '], [' a'], ['a b'], ['1 '], [' 1'], ['1 2']])('%j is invalid', (s) => {
    expect(isDNS1123Label(s)).toEqual([labelMsg]);
  });
  test('dotted subdomain and length', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isDNS1035Label', () => {
  test.each([['a'], ['ab'], ['a1'], ['a-1'], ['a--1--2--b'], ['a'.repeat(63)]])('%j is valid', (s) => {
    expect(isDNS1035Label(s)).toEqual([]);
  });
  test.each([['0'], ['01'], ['1a'], ['A'], ['a-'], ['-a'], ['a.b'], ['']])('%j is invalid', (s) => {
    expect(isDNS1035Label(s)).toEqual([dns1035Msg]);
  });
});

describe('isConfigMapKey', () => {
  test.each([['a'], ['good'], ['good-good'], ['still.good'], ['this.is.also.good'], ['.so.is.this'],
    ['THIS_IS_GOOD'], ['so_is_this_17']])('%j is valid', (s) => {
    expect(isConfigMapKey(s)).toEqual([]);
  });
  test.each<[string, string[]]>([
    ['bad key', [configKeyMsg]],
    ['/slash', [configKeyMsg]],
    ['.', ["must not be '.'"]],
    ['..', ["must not be '..'"]],
    ['..bad', ["must not start with '..'"]],
    ['', [configKeyMsg]],
    ['a'.repeat(254), ['must be no more than 253 characters']],
    ['..a b', [configKeyMsg, "must not start with '..'"]],
  ])('%j', (s, msgs) => {
    expect(isConfigMapKey(s)).toEqual(msgs);
  });
});

describe('validatePathSegmentName', () => {
  test.each<[string, boolean, string[]]>([
    ['.', false, ["may not be '.'"]],
    ['..', false, ["may not be '..'"]],
    ['a/b', false, ["may not contain '/'"]],
    ['a%b', false, ["may not contain '%'"]],
    ['a/%b', false, ["may not contain '/'", "may not contain '%'"]],
    ['.', true, []],
    ['a/b', true, ["may not contain '/'"]],
    ['ok', false, []],
  ])('%j prefix=%s', (name, prefix, msgs) => {
    expect(validatePathSegmentName(name, prefix)).toEqual(msgs);
  });
});

describe('name validators (NameIsDNSSubdomain & co.)', () => {
  test('a generateName prefix may end with a dash', () => {
    expect(nameIsDNSSubdomain('my-prefix-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('my-prefix-', false)).toEqual([subdomainMsg]);
    expect(nameIsDNSLabel('ns-', true)).toEqual([]);
    expect(nameValidatorFor('dns1035')('svc-', true)).toEqual([]);
    // kube's maskTrailingDash drops the last two bytes and appends "a": "x.-" is checked as "xa".
    expect(nameIsDNSSubdomain('x.-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('-', true)).toEqual([subdomainMsg]);
    expect(nameIsDNSSubdomain('Bad-', true)).toEqual([subdomainMsg]);
  });
});

describe('generateName', () => {
  test('prefix + 5 chars of kube alphabet', () => {
    for (let i = 0; i < 50; i++) {
      expect(generateName('foo-')).toMatch(/^foo-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    }
  });
  test('long prefixes are cut to 58 bytes', () => {
    const n = generateName('a'.repeat(100));
    expect(n).toHaveLength(63);
    expect(n.startsWith('a'.repeat(58))).toBe(true);
    expect(generateName('')).toHaveLength(5);
  });
});
