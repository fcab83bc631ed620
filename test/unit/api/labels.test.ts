import { isApiError } from '../../../src/api/errors';
import { fieldErrorString } from '../../../src/api/field-errors';
import {
  isQualifiedName,
  isValidLabelValue,
  parseLabelSelector,
  selectorFromSet,
  validateAnnotations,
  validateLabels,
} from '../../../src/api/labels';

/** The BadRequest message parseLabelSelector throws, or undefined. */
function parseError(s: string): string | undefined {
  try {
    parseLabelSelector(s);
    return undefined;
  } catch (e) {
    if (!isApiError(e)) throw e;
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    return e.status.message;
  }
}

const nameMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseLabelSelector round trip (kube TestSelectorParse / TestSetSelectorParser)', () => {
  test.each([
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    ['\rx', 'x'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)'],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in ()', 'x in ()'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['x,y in (a)', 'x,y in (a)'],
    ['y in (a),x', 'x,y in (a)'],
    ['x==a', 'x==a'],
    ['x in (b,a,b)', 'x in (a,b)'],
    ['x notin ( )', 'x notin ()'],
    ['a ', 'a'],
    ['notin=in', 'notin=in'],
    ['a in (in,notin)', 'a in (in,notin)'],
  ])('%j → %j', (input, canonical) => {
    const sel = parseLabelSelector(input);
    expect(sel.toString()).toBe(canonical);
    expect(parseLabelSelector(sel.toString()).toString()).toBe(canonical);
  });

  test('empty selector', () => {
    expect(parseLabelSelector('').empty).toBe(true);
    expect(parseLabelSelector('  ').empty).toBe(true);
    expect(parseLabelSelector('a').empty).toBe(false);
  });
});

describe('parse errors carry kube text', () => {
  test.each([
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['x<a', "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
  ])('%j', (input, message) => {
    expect(parseError(input)).toBe(message);
  });

  test('invalid key is reported against kube\'s nil path', () => {
    expect(parseError('a$b=c')).toBe(`unable to parse requirement: <nil>: Invalid value: "a$b": ${nameMsg}`);
  });

  test('invalid value is reported at values[i][key]', () => {
    // '|' is no special symbol, so `a||y` lexes as one identifier (kube TestSelectorParse bad string).
    expect(parseError('x=a||y=b')).toBe(`unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueMsg}`);
    expect(parseError('a=b$')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "b$": ${valueMsg}`);
    expect(parseError('a in (-x,-y)')).toBe(
      `unable to parse requirement: [values[0][a]: Invalid value: "-x": ${valueMsg}, values[1][a]: Invalid value: "-y": ${valueMsg}]`,
    );
  });
});

describe('LabelSelector.matches (kube TestSelectorMatches)', () => {
  test.each<[string, Record<string, string>, boolean]>([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['x>1', { x: 'abc' }, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x=', { x: '' }, true],
    ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }, false],
  ])('%j on %j → %s', (sel, labels, want) => {
    expect(parseLabelSelector(sel).matches(labels)).toBe(want);
  });

  test('undefined labels behave as none', () => {
    expect(parseLabelSelector('!x').matches(undefined)).toBe(true);
    expect(parseLabelSelector('x').matches(undefined)).toBe(false);
  });

  test('requiresExactMatch (kube TestRequiresExactMatch)', () => {
    expect(parseLabelSelector('a=b,c in (d)').requiresExactMatch('a')).toBe('b');
    expect(parseLabelSelector('a=b,c in (d)').requiresExactMatch('c')).toBe('d');
    expect(parseLabelSelector('c in (d,e)').requiresExactMatch('c')).toBeUndefined();
    expect(parseLabelSelector('a!=b').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a=b').requiresExactMatch('z')).toBeUndefined();
  });
});

describe('selectorFromSet', () => {
  test('sorted key=value terms', () => {
    const s = selectorFromSet({ b: '2', a: '1' });
    expect(s.toString()).toBe('a=1,b=2');
    expect(s.matches({ a: '1', b: '2', c: '3' })).toBe(true);
    expect(s.matches({ a: '1' })).toBe(false);
    expect(selectorFromSet(undefined).empty).toBe(true);
    expect(selectorFromSet({}).empty).toBe(true);
  });
});

describe('isQualifiedName / isValidLabelValue', () => {
  test.each([['simple'], ['now-with-dashes'], ['1-starts-with-num'], ['1234'], ['simple/simple'], ['now-with-dashes/simple'],
    ['now-with-dashes/now-with-dashes'], ['now.with.dots/simple'], ['now-with.dashes-and.dots/simple'],
    ['1-num.2-num/3-num'], ['1234/5678'], ['1.2.3.4/5678'], ['Uppercase_Is_OK_123'], ['example.com/Uppercase_Is_OK_123'],
    ['requests.storage-foo'], ['a'.repeat(63)], [`${'a'.repeat(253)}/${'b'.repeat(63)}`]])('%j is a qualified name', (s) => {
    expect(isQualifiedName(s)).toEqual([]);
  });

  test.each<[string, string[]]>([
    ['', ['name part must be non-empty', nameMsg]],
    ['/simple', ['prefix part must be non-empty']],
    ['simple/', ['name part must be non-empty', nameMsg]],
    ['Nope/simple', ["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]],
    ['a/b/c', ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]],
    ['a'.repeat(64), ['name part must be no more than 63 characters']],
    ['-x', [nameMsg]],
  ])('%j', (s, msgs) => {
    expect(isQualifiedName(s)).toEqual(msgs);
  });

  test('label values', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('a.b_c-d')).toEqual([]);
    expect(isValidLabelValue('-a')).toEqual([valueMsg]);
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isValidLabelValue(`${'a'.repeat(63)}-`)).toEqual(['must be no more than 63 characters', valueMsg]);
  });
});

describe('validateLabels / validateAnnotations', () => {
  test('labels: key and value errors at the given path', () => {
    const errs = validateLabels({ 'a/b/c': 'x', ok: '-bad' }, 'metadata.labels').map(fieldErrorString);
    expect(errs).toHaveLength(2);
    expect(errs[0]).toMatch(/^metadata\.labels: Invalid value: "a\/b\/c": a qualified name must consist/);
    expect(errs[1]).toBe(`metadata.labels: Invalid value: "-bad": ${valueMsg}`);
    expect(validateLabels(undefined, 'metadata.labels')).toEqual([]);
  });

  test('annotation keys are lower-cased before checking but reported as sent', () => {
    expect(validateAnnotations({ 'Example.COM/Key': 'v' }, 'metadata.annotations')).toEqual([]);
    const errs = validateAnnotations({ 'Bad Key': 'v' }, 'metadata.annotations').map(fieldErrorString);
    expect(errs).toEqual([`metadata.annotations: Invalid value: "Bad Key": ${nameMsg}`]);
  });

  test('annotations over 256 KiB in total', () => {
    const ok = { a: 'x'.repeat(256 * 1024 - 1) };
    expect(validateAnnotations(ok, 'metadata.annotations')).toEqual([]);
    const big = { a: 'x'.repeat(256 * 1024) };
    expect(validateAnnotations(big, 'metadata.annotations').map(fieldErrorString)).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });
});
