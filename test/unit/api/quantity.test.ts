import {
  Quantity,
  QuantityFormat,
  QuantityParseError,
  QUANTITY_FORMAT_WRONG,
  QUANTITY_NUMERIC,
  QUANTITY_SUFFIX,
  parseQuantity,
} from '../../../src/api/quantity';

// decQuantity(i, exponent, format) of apimachinery quantity_test.go.
const dec = (i: bigint | number, exponent: number, format: QuantityFormat): Quantity =>
  Quantity.of(BigInt(i), format, exponent);
const MAX_INT64 = (1n << 63n) - 1n;

// TestQuantityParse table (apimachinery v0.32.13 pkg/api/resource/quantity_test.go).
const parseTable: [string, Quantity][] = [
  ['0', dec(0, 0, 'DecimalSI')],
  ['0n', dec(0, 0, 'DecimalSI')],
  ['0u', dec(0, 0, 'DecimalSI')],
  ['0m', dec(0, 0, 'DecimalSI')],
  ['0Ki', dec(0, 0, 'BinarySI')],
  ['0k', dec(0, 0, 'DecimalSI')],
  ['0Mi', dec(0, 0, 'BinarySI')],
  ['0M', dec(0, 0, 'DecimalSI')],
  ['0Gi', dec(0, 0, 'BinarySI')],
  ['0G', dec(0, 0, 'DecimalSI')],
  ['0Ti', dec(0, 0, 'BinarySI')],
  ['0T', dec(0, 0, 'DecimalSI')],
  ['1', dec(1, 0, 'DecimalSI')],
  ['1Ki', dec(1024, 0, 'BinarySI')],
  ['8Ki', dec(8 * 1024, 0, 'BinarySI')],
  ['7Mi', dec(7 * 1024 * 1024, 0, 'BinarySI')],
  ['6Gi', dec(6 * 1024 ** 3, 0, 'BinarySI')],
  ['5Ti', dec(5n * 1024n ** 4n, 0, 'BinarySI')],
  ['4Pi', dec(4n * 1024n ** 5n, 0, 'BinarySI')],
  ['3Ei', dec(3n * 1024n ** 6n, 0, 'BinarySI')],
  ['10Ti', dec(10n * 1024n ** 4n, 0, 'BinarySI')],
  ['100Ti', dec(100n * 1024n ** 4n, 0, 'BinarySI')],
  ['5n', dec(5, -9, 'DecimalSI')],
  ['4u', dec(4, -6, 'DecimalSI')],
  ['3m', dec(3, -3, 'DecimalSI')],
  ['9', dec(9, 0, 'DecimalSI')],
  ['8k', dec(8, 3, 'DecimalSI')],
  ['50k', dec(5, 4, 'DecimalSI')],
  ['7M', dec(7, 6, 'DecimalSI')],
  ['6G', dec(6, 9, 'DecimalSI')],
  ['5T', dec(5, 12, 'DecimalSI')],
  ['40T', dec(4, 13, 'DecimalSI')],
  ['300T', dec(3, 14, 'DecimalSI')],
  ['2P', dec(2, 15, 'DecimalSI')],
  ['1E', dec(1, 18, 'DecimalSI')],
  ['1E-3', dec(1, -3, 'DecimalExponent')],
  ['1e3', dec(1, 3, 'DecimalExponent')],
  ['1E6', dec(1, 6, 'DecimalExponent')],
  ['1e9', dec(1, 9, 'DecimalExponent')],
  ['1E12', dec(1, 12, 'DecimalExponent')],
  ['1e15', dec(1, 15, 'DecimalExponent')],
  ['1E18', dec(1, 18, 'DecimalExponent')],
  ['1e14', dec(1, 14, 'DecimalExponent')],
  ['1e13', dec(1, 13, 'DecimalExponent')],
  ['100.035k', dec(100035, 0, 'DecimalSI')],
  ['0.001', dec(1, -3, 'DecimalSI')],
  ['0.0005k', dec(5, -1, 'DecimalSI')],
  ['0.005', dec(5, -3, 'DecimalSI')],
  ['0.05', dec(5, -2, 'DecimalSI')],
  ['0.5', dec(5, -1, 'DecimalSI')],
  ['0.00050k', dec(5, -1, 'DecimalSI')],
  ['0.00500', dec(5, -3, 'DecimalSI')],
  ['0.05000', dec(5, -2, 'DecimalSI')],
  ['0.50000', dec(5, -1, 'DecimalSI')],
  ['0.5e0', dec(5, -1, 'DecimalExponent')],
  ['0.5e-1', dec(5, -2, 'DecimalExponent')],
  ['0.5e-2', dec(5, -3, 'DecimalExponent')],
  ['10.035M', dec(10035, 3, 'DecimalSI')],
  ['1.2e3', dec(12, 2, 'DecimalExponent')],
  ['1.3E+6', dec(13, 5, 'DecimalExponent')],
  ['1.40e9', dec(14, 8, 'DecimalExponent')],
  ['1.53E12', dec(153, 10, 'DecimalExponent')],
  ['1.6e15', dec(16, 14, 'DecimalExponent')],
  ['1.7E18', dec(17, 17, 'DecimalExponent')],
  ['9.01', dec(901, -2, 'DecimalSI')],
  ['8.1k', dec(81, 2, 'DecimalSI')],
  ['7.123456M', dec(7123456, 0, 'DecimalSI')],
  ['6.987654321G', dec(6987654321, 0, 'DecimalSI')],
  ['5.444T', dec(5444, 9, 'DecimalSI')],
  ['40.1T', dec(401, 11, 'DecimalSI')],
  ['300.2T', dec(3002, 11, 'DecimalSI')],
  ['2.5P', dec(25, 14, 'DecimalSI')],
  ['1.01E', dec(101, 16, 'DecimalSI')],
  ['3.001n', dec(4, -9, 'DecimalSI')],
  ['1.1E-9', dec(2, -9, 'DecimalExponent')],
  ['0.0000000001', dec(1, -9, 'DecimalSI')],
  ['0.0000000005', dec(1, -9, 'DecimalSI')],
  ['0.00000000050', dec(1, -9, 'DecimalSI')],
  ['0.5e-9', dec(1, -9, 'DecimalExponent')],
  ['0.9n', dec(1, -9, 'DecimalSI')],
  ['0.00000012345', dec(124, -9, 'DecimalSI')],
  ['0.00000012354', dec(124, -9, 'DecimalSI')],
  ['9Ei', Quantity.of(MAX_INT64, 'BinarySI')],
  ['9223372036854775807Ki', Quantity.of(MAX_INT64, 'BinarySI')],
  ['12E', dec(12, 18, 'DecimalSI')],
  ['100.035Ki', dec(10243584, -2, 'BinarySI')],
  ['0.5Mi', dec(0.5 * 1024 * 1024, 0, 'BinarySI')],
  ['0.05Gi', dec(536870912, -1, 'BinarySI')],
  ['0.025Ti', dec(274877906944, -1, 'BinarySI')],
  ['0.000000000001Ki', dec(2, -9, 'DecimalSI')],
  ['.001', dec(1, -3, 'DecimalSI')],
  ['.0001k', dec(100, -3, 'DecimalSI')],
  ['1.', dec(1, 0, 'DecimalSI')],
  ['1.G', dec(1, 9, 'DecimalSI')],
];

describe('parseQuantity (kube TestQuantityParse)', () => {
  test.each(parseTable)('%s', (input, expected) => {
    const q = parseQuantity(input);
    expect(q.cmp(expected)).toBe(0);
    expect(q.format).toBe(expected.format);
  });
  test.each(parseTable)('-%s is the negation', (input, expected) => {
    const q = parseQuantity(`-${input}`);
    expect(q.cmp(expected.neg())).toBe(0);
    expect(q.format).toBe(expected.format);
  });
  test.each(parseTable)('+%s parses the same', (input, expected) => {
    const q = parseQuantity(`+${input}`);
    expect(q.cmp(expected)).toBe(0);
    expect(q.format).toBe(expected.format);
  });

  test.each([
    ['', QUANTITY_FORMAT_WRONG],
    ['1.1.M', QUANTITY_FORMAT_WRONG],
    ['1+1.0M', QUANTITY_FORMAT_WRONG],
    ['0.1mi', QUANTITY_SUFFIX],
    ['0.1am', QUANTITY_FORMAT_WRONG],
    ['aoeu', QUANTITY_FORMAT_WRONG],
    ['.5i', QUANTITY_SUFFIX],
    ['1i', QUANTITY_SUFFIX],
    ['-3.01i', QUANTITY_SUFFIX],
    ['-3.01e-', QUANTITY_SUFFIX],
    [' 1', QUANTITY_FORMAT_WRONG],
    ['1 ', QUANTITY_FORMAT_WRONG],
    ['1e', QUANTITY_SUFFIX],
    ['e-10', QUANTITY_NUMERIC],
  ])('%j is rejected with %s', (input, message) => {
    expect(() => parseQuantity(input)).toThrow(QuantityParseError);
    expect(() => parseQuantity(input)).toThrow(message);
  });

  test('the format error quotes kube regex', () => {
    expect(QUANTITY_FORMAT_WRONG).toBe(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});

// TestQuantityString table: value → canonical, and an alternate spelling that canonicalises to it.
const stringTable: [Quantity, string, string][] = [
  [dec(1024 * 1024 * 1024, 0, 'BinarySI'), '1Gi', '1024Mi'],
  [dec(300 * 1024 * 1024, 0, 'BinarySI'), '300Mi', '307200Ki'],
  [dec(6 * 1024, 0, 'BinarySI'), '6Ki', ''],
  [dec(1001 * 1024 * 1024 * 1024, 0, 'BinarySI'), '1001Gi', '1025024Mi'],
  [dec(1024 ** 4, 0, 'BinarySI'), '1Ti', '1024Gi'],
  [dec(5, 0, 'BinarySI'), '5', '5000m'],
  [dec(500, -3, 'BinarySI'), '500m', '0.5'],
  [dec(1, 9, 'DecimalSI'), '1G', '1000M'],
  [dec(1000, 6, 'DecimalSI'), '1G', '0.001T'],
  [dec(1000000, 3, 'DecimalSI'), '1G', ''],
  [dec(1000000000, 0, 'DecimalSI'), '1G', ''],
  [dec(1, -3, 'DecimalSI'), '1m', '1000u'],
  [dec(80, -3, 'DecimalSI'), '80m', ''],
  [dec(1080, -3, 'DecimalSI'), '1080m', '1.08'],
  [dec(108, -2, 'DecimalSI'), '1080m', '1080000000n'],
  [dec(10800, -4, 'DecimalSI'), '1080m', ''],
  [dec(300, 6, 'DecimalSI'), '300M', ''],
  [dec(1, 12, 'DecimalSI'), '1T', ''],
  [dec(1234567, 6, 'DecimalSI'), '1234567M', ''],
  [dec(1234567, -3, 'BinarySI'), '1234567m', ''],
  [dec(3, 3, 'DecimalSI'), '3k', ''],
  [dec(1025, 0, 'BinarySI'), '1025', ''],
  [dec(0, 0, 'DecimalSI'), '0', ''],
  [dec(0, 0, 'BinarySI'), '0', ''],
  [dec(1, 9, 'DecimalExponent'), '1e9', '.001e12'],
  [dec(1, -3, 'DecimalExponent'), '1e-3', '0.001e0'],
  [dec(1, -9, 'DecimalExponent'), '1e-9', '1000e-12'],
  [dec(80, -3, 'DecimalExponent'), '80e-3', ''],
  [dec(300, 6, 'DecimalExponent'), '300e6', ''],
  [dec(1, 12, 'DecimalExponent'), '1e12', ''],
  [dec(1, 3, 'DecimalExponent'), '1e3', ''],
  [dec(3, 3, 'DecimalExponent'), '3e3', ''],
  [dec(3, 3, 'DecimalSI'), '3k', ''],
  [dec(0, 0, 'DecimalExponent'), '0', '00'],
  [dec(1, -9, 'DecimalSI'), '1n', ''],
  [dec(80, -9, 'DecimalSI'), '80n', ''],
  [dec(1080, -9, 'DecimalSI'), '1080n', ''],
  [dec(108, -8, 'DecimalSI'), '1080n', ''],
  [dec(10800, -10, 'DecimalSI'), '1080n', ''],
  [dec(1, -6, 'DecimalSI'), '1u', ''],
  [dec(80, -6, 'DecimalSI'), '80u', ''],
  [dec(1080, -6, 'DecimalSI'), '1080u', ''],
];

describe('Quantity.toString (kube TestQuantityString)', () => {
  test.each(stringTable)('%s → %s', (q, canonical, alternate) => {
    expect(q.toString()).toBe(canonical);
    expect(parseQuantity(canonical).toString()).toBe(canonical);
    if (alternate) expect(parseQuantity(alternate).toString()).toBe(canonical);
    if (!q.isZero()) expect(q.neg().toString()).toBe(`-${canonical}`);
  });
});

describe('parse then emit (kube TestQuantityParseEmit and kube-facts §5)', () => {
  test.each([
    ['1Ki', '1Ki'],
    ['1Mi', '1Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
    ['1000m', '1'],
    ['1000', '1k'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['0.1', '100m'],
    ['1.5', '1500m'],
    ['.5', '500m'],
    ['1025', '1025'],
    ['300Mi', '300Mi'],
    ['1e3', '1e3'],
    ['12e6', '12e6'],
    ['1.2e3', '1200'],
    ['12E', '12E'],
    ['-9.01', '-9010m'],
    ['0.5', '500m'],
    ['9Ei', MAX_INT64.toString()], // capped at 2^63-1, which is not a multiple of 1024
  ])('%s → %s', (input, out) => {
    expect(parseQuantity(input).toString()).toBe(out);
  });

  test.each([
    ['1Ki', '-1Ki'],
    ['1024Mi', '-1Gi'],
    ['.000000000001Ki', '-2n'],
  ])('-%s → %s', (input, out) => {
    expect(parseQuantity(`-${input}`).toString()).toBe(out);
  });

  // kube keeps the input verbatim when its int64 fast path accepts it unchanged-looking
  // (quantity.go ParseQuantity: `s: str`), which includes a leading '+', leading zeros and a
  // trailing '.' (kube-facts §5 lists `+1`→`1` and `1.`→`1`; the source says otherwise).
  test.each([['+1'], ['01'], ['1.'], ['1E3'], ['1025Ki']])('%s is kept verbatim', (input) => {
    expect(parseQuantity(input).toString()).toBe(input);
  });

  test('other fast-path inputs are re-rendered', () => {
    expect(parseQuantity('1.0').toString()).toBe('1');
    expect(parseQuantity('1e4').toString()).toBe('10e3');
    expect(parseQuantity('1e100').toString()).toBe('10e99');
    expect(parseQuantity('-0').toString()).toBe('0');
  });

  test('DecimalSI past E prints no suffix (kube quirk)', () => {
    expect(parseQuantity('1000E').toString()).toBe('1');
  });

  test('inputs without digits are zero where kube accepts them', () => {
    expect(parseQuantity('.').isZero()).toBe(true);
    expect(parseQuantity('Ki').format).toBe('BinarySI');
    expect(parseQuantity('m').toString()).toBe('0');
  });

  test('number input and JSON decoding', () => {
    expect(parseQuantity(1.5).toString()).toBe('1500m');
    expect(parseQuantity(1024).toString()).toBe('1024');
    expect(() => parseQuantity(Number.NaN)).toThrow(QUANTITY_FORMAT_WRONG);
    expect(Quantity.fromJSON(' 1 ').toString()).toBe('1');
    expect(Quantity.fromJSON(null).isZero()).toBe(true);
    expect(() => Quantity.fromJSON(true)).toThrow(QUANTITY_FORMAT_WRONG);
    expect(JSON.stringify({ q: parseQuantity('1024Mi') })).toBe('{"q":"1Gi"}');
  });

  test('absurd exponents are refused instead of computed', () => {
    expect(() => parseQuantity('1e999999999')).toThrow(QUANTITY_NUMERIC);
  });
});

describe('arithmetic', () => {
  // TestQuantityCmp
  test.each([
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
    ['1', '1000m', 0],
    ['-1', '1n', -1],
  ])('cmp(%s, %s) = %d', (a, b, want) => {
    expect(parseQuantity(a).cmp(parseQuantity(b))).toBe(want);
    expect(parseQuantity(b).cmp(parseQuantity(a))).toBe(-want || 0);
  });

  // TestAdd / TestSub
  test.each([
    [dec(10, 0, 'DecimalSI'), dec(1, 1, 'DecimalSI'), dec(20, 0, 'DecimalSI')],
    [dec(10, 0, 'DecimalSI'), dec(1, 0, 'BinarySI'), dec(11, 0, 'DecimalSI')],
    [dec(10, 0, 'BinarySI'), dec(1, 0, 'DecimalSI'), dec(11, 0, 'BinarySI')],
    [Quantity.zero('DecimalSI'), dec(50, 0, 'DecimalSI'), dec(50, 0, 'DecimalSI')],
    [dec(50, 0, 'DecimalSI'), Quantity.zero(), dec(50, 0, 'DecimalSI')],
  ])('add %#', (a, b, want) => {
    const r = a.add(b);
    expect(r.cmp(want)).toBe(0);
    expect(r.format).toBe(want.format);
  });

  test.each([
    [dec(10, 0, 'DecimalSI'), dec(1, 1, 'DecimalSI'), dec(0, 0, 'DecimalSI')],
    [dec(10, 0, 'DecimalSI'), dec(1, 0, 'BinarySI'), dec(9, 0, 'DecimalSI')],
    [dec(10, 0, 'BinarySI'), dec(1, 0, 'DecimalSI'), dec(9, 0, 'BinarySI')],
    [Quantity.zero(), dec(50, 0, 'DecimalSI'), dec(-50, 0, 'DecimalSI')],
  ])('sub %#', (a, b, want) => {
    expect(a.sub(b).cmp(want)).toBe(0);
  });

  // TestQuantityAddZeroPreservesSuffix / SubZero
  test.each([['100m'], ['1Gi']])('adding zero keeps %s', (s) => {
    const v = parseQuantity(s);
    const zero = parseQuantity('0');
    expect(v.add(zero).toString()).toBe(s);
    expect(zero.add(v).toString()).toBe(s);
    expect(v.sub(zero).toString()).toBe(s);
    expect(zero.sub(v).toString()).toBe(v.neg().toString());
  });

  test('sums stay exact where floats would not', () => {
    let q = Quantity.zero();
    for (let i = 0; i < 10; i++) q = q.add(parseQuantity('0.1'));
    expect(q.toString()).toBe('1');
    expect(parseQuantity('1Gi').add(parseQuantity('512Mi')).toString()).toBe('1536Mi');
  });

  test('predicates and scaled values', () => {
    expect(parseQuantity('0').isZero()).toBe(true);
    expect(parseQuantity('-1m').sign()).toBe(-1);
    expect(parseQuantity('1.5').isInteger()).toBe(false);
    expect(parseQuantity('2k').isInteger()).toBe(true);
    expect(parseQuantity('1.5').milliValue()).toBe(1500n);
    expect(parseQuantity('1n').milliValue()).toBe(1n); // rounds up
    expect(parseQuantity('1.5').value()).toBe(2n);
    expect(parseQuantity('1Gi').value()).toBe(1073741824n);
    expect(parseQuantity('9Ei').value()).toBe(MAX_INT64);
    expect(Quantity.zero('BinarySI').format).toBe('BinarySI');
  });

  test('Go struct dump for field errors', () => {
    expect(parseQuantity('1500m').goStructString()).toBe(
      'resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}',
    );
    expect(parseQuantity('1.5').goStructString()).toBe(
      'resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}',
    );
  });
});
