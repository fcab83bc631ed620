import { isApiError, errors } from '../../../src/api/errors';
import { FieldSelector, escapeFieldValue, fieldSelectorFromSet, parseFieldSelector } from '../../../src/api/field-selector';

function parseError(s: string): string | undefined {
  try {
    parseFieldSelector(s);
    return undefined;
  } catch (e) {
    if (!isApiError(e)) throw e;
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    return e.status.message;
  }
}

describe('parseFieldSelector (kube fields TestSelectorParse)', () => {
  test.each([['x=a,y=b,z=c'], [''], ['x!=a,y=b'], ['x=a||y\\=b'], ['x=a\\=\\=b']])('%j round-trips', (s) => {
    expect(parseFieldSelector(s).toString()).toBe(s);
  });

  test.each([
    ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
    ['x==a==b', 'invalid field selector: unescaped character in value: 61'],
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    ['x in (a,b,c)', "invalid selector: 'x in (a,b,c)'; can't understand 'b'"],
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['k=\\a', 'invalid field selector: invalid escape sequence: \\a'],
    ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('%j → %j', (s, msg) => {
    expect(parseError(s)).toBe(msg);
  });

  test('deterministic order (kube TestDeterministicParse)', () => {
    expect(parseFieldSelector('x=a,a=x').toString()).toBe(parseFieldSelector('a=x,x=a').toString());
    expect(parseFieldSelector('x=a,a=x').toString()).toBe('a=x,x=a');
  });

  test('operators, escapes, empty terms', () => {
    const s = parseFieldSelector('b==2,a!=1,,c=\\,x\\=\\\\');
    expect(s.requirements).toEqual([
      { field: 'a', operator: '!=', value: '1' },
      { field: 'b', operator: '=', value: '2' },
      { field: 'c', operator: '=', value: ',x=\\' },
    ]);
    expect(s.toString()).toBe('a!=1,b=2,c=\\,x\\=\\\\');
    expect(parseFieldSelector('=').empty).toBe(true);
    expect(parseFieldSelector(',').empty).toBe(true);
    expect(parseFieldSelector('metadata.name = x').requirements).toEqual([
      { field: 'metadata.name ', operator: '=', value: ' x' },
    ]);
    expect(parseFieldSelector('함=수,목=록').toString()).toBe('목=록,함=수');
  });

  test('escapeFieldValue (kube TestEscapeValue)', () => {
    expect(escapeFieldValue('')).toBe('');
    expect(escapeFieldValue('=')).toBe('\\=');
    expect(escapeFieldValue(',')).toBe('\\,');
    expect(escapeFieldValue('\\')).toBe('\\\\');
    expect(escapeFieldValue('\\=\\,\\')).toBe('\\\\\\=\\\\\\,\\\\');
  });
});

describe('FieldSelector', () => {
  test('matches; missing fields read as ""', () => {
    const s = parseFieldSelector('metadata.name=x,type!=Opaque');
    expect(s.matches({ 'metadata.name': 'x', type: 'kubernetes.io/tls' })).toBe(true);
    expect(s.matches({ 'metadata.name': 'x', type: 'Opaque' })).toBe(false);
    expect(s.matches({ 'metadata.name': 'y' })).toBe(false);
    expect(parseFieldSelector('a=').matches({})).toBe(true);
    expect(parseFieldSelector('a!=').matches({})).toBe(false);
    expect(FieldSelector.everything().matches({})).toBe(true);
  });

  test('requiresExactMatch', () => {
    const s = parseFieldSelector('metadata.namespace=ns,metadata.name!=x');
    expect(s.requiresExactMatch('metadata.namespace')).toBe('ns');
    expect(s.requiresExactMatch('metadata.name')).toBeUndefined();
    expect(parseFieldSelector('metadata.name==y').requiresExactMatch('metadata.name')).toBe('y');
  });

  test('transform maps terms, drops empty ones and propagates errors', () => {
    const s = parseFieldSelector('a=1,b=2');
    const t = s.transform((f, v) => (f === 'a' ? ['', ''] : [`spec.${f}`, v]));
    expect(t.toString()).toBe('spec.b=2');
    expect(() =>
      s.transform((f) => {
        throw errors.badRequest(`field label not supported: ${f}`);
      }),
    ).toThrow('field label not supported: a');
  });

  test('fieldSelectorFromSet', () => {
    expect(fieldSelectorFromSet({ b: '1', a: 'x,y' }).toString()).toBe('a=x\\,y,b=1');
    expect(fieldSelectorFromSet(undefined).empty).toBe(true);
  });
});
