/**
 * kube's CBOR encoding rules (apimachinery pkg/runtime/serializer/cbor/internal/modes): encodings
 * checked against RFC 8949 Appendix A (the hex there is for text strings; kube writes strings and
 * map keys as byte strings, major type 2), plus kube's options: self-described tag 55799, shortest
 * float16, bytewise-lexical key order, tag 22 for []byte, and its decode-mode rejections.
 */
import { CBOR_SELF_DESCRIBED, CborCodec, CborDecodeError, byteFieldPaths, decodeCbor, toFloat16Bits } from '../../../../src/storage/codec/cbor-codec';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const plain = new CborCodec();
/** encode() minus the self-described tag. */
const enc = (v: unknown) => {
  const b = plain.encode({ v } as Record<string, unknown>);
  // {v: x} = d9d9f7 a1 41 76 <x>
  expect(b.subarray(0, 6)).toEqual(hex('d9d9f7 a1 4176'));
  return b.subarray(6).toString('hex');
};

describe('encoding (RFC 8949 Appendix A values, kube options)', () => {
  test.each<[unknown, string]>([
    [0, '00'],
    [1, '01'],
    [10, '0a'],
    [23, '17'],
    [24, '1818'],
    [25, '1819'],
    [100, '1864'],
    [1000, '1903e8'],
    [1000000, '1a000f4240'],
    [1000000000000, '1b000000e8d4a51000'],
    [-1, '20'],
    [-10, '29'],
    [-100, '3863'],
    [-1000, '3903e7'],
    // ShortestFloat16: the smallest exact width.
    [1.5, 'f93e00'],
    [65504.5, 'fa477fe080'],
    [100000.5, 'fa47c35040'],
    [3.4028234663852886e38, 'fa7f7fffff'],
    [1.0e300, 'fb7e37e43c8800759c'],
    [5.960464477539063e-8, 'f90001'],
    [0.00006103515625, 'f90400'],
    [-4.1, 'fbc010666666666666'],
    [1.1, 'fb3ff199999999999a'],
    [0.5, 'f93800'],
    [false, 'f4'],
    [true, 'f5'],
    [null, 'f6'],
    // StringToByteString: strings are byte strings.
    ['', '40'],
    ['a', '4161'],
    ['IETF', '4449455446'],
    ['ü', '42c3bc'],
    [[], '80'],
    [[1, 2, 3], '83010203'],
    [[1, [2, 3], [4, 5]], '8301820203820405'],
    [{}, 'a0'],
    [{ a: 1, b: [2, 3] }, 'a2416101416282 0203'.replace(/\s/g, '')],
  ])('%j → %s', (v, expected) => {
    expect(enc(v)).toBe(expected);
  });

  test('every item starts with the self-described tag 55799', () => {
    expect(plain.encode({}).toString('hex')).toBe('d9d9f7a0');
    expect(CBOR_SELF_DESCRIBED.toString('hex')).toBe('d9d9f7');
  });

  test('map keys are sorted bytewise by their encoding (shorter keys first)', () => {
    const b = plain.encode({ metadata: {}, kind: 'Secret', apiVersion: 'v1', data: {} });
    const keys: string[] = [];
    for (const k of ['data', 'kind', 'metadata', 'apiVersion']) keys.push(Buffer.concat([Buffer.from([0x40 + k.length]), Buffer.from(k)]).toString('hex'));
    let at = -1;
    for (const k of keys) {
      const i = b.toString('hex').indexOf(k);
      expect(i).toBeGreaterThan(at);
      at = i;
    }
  });

  test('undefined members are left out, as JSON does', () => {
    expect(plain.encode({ a: undefined, b: 1 }).toString('hex')).toBe('d9d9f7a1416201');
  });

  test('[]byte fields: tag 22 around the raw bytes; lists reach their items', () => {
    const codec = new CborCodec({ byteFields: (_v, kind) => (kind === 'Secret' ? [['data', '*']] : undefined) });
    const secret = { apiVersion: 'v1', kind: 'Secret', data: { k: Buffer.from('hi').toString('base64') }, type: 'Opaque' };
    const b = codec.encode(secret).toString('hex');
    // data: {k: 22(h'6869')}
    expect(b).toContain('4464617461a1416bd6426869');
    // the type field stays a byte string of its text
    expect(b).toContain('44747970654' + '6' + Buffer.from('Opaque').toString('hex'));
    const list = codec.encode({ apiVersion: 'v1', kind: 'SecretList', metadata: {}, items: [{ data: { k: 'aGk=' } }] }).toString('hex');
    expect(list).toContain('a1416bd6426869');
    expect(decodeCbor(codec.encode(secret))).toEqual(secret);
  });

  test('a watch event: {type, object} with the object self-described too', () => {
    const obj = plain.encode({ a: 1 });
    expect(plain.encodeWatchEvent('ADDED', obj).toString('hex')).toBe(
      'd9d9f7' + 'a2' + '4474797065' + '45' + Buffer.from('ADDED').toString('hex') + '466f626a656374' + obj.toString('hex'),
    );
  });
});

describe('decoding', () => {
  test.each<[string, unknown]>([
    ['00', 0],
    ['1b000000e8d4a51000', 1000000000000],
    ['3903e7', -1000],
    ['f90000', 0],
    ['f93c00', 1],
    ['f97bff', 65504],
    ['fa47c35000', 100000],
    ['fb3ff199999999999a', 1.1],
    ['f4', false],
    ['f5', true],
    ['f6', null],
    // text strings (RFC examples) and byte strings both read as strings
    ['6449455446', 'IETF'],
    ['62c3bc', 'ü'],
    ['4449455446', 'IETF'],
    ['a26161016162820203', { a: 1, b: [2, 3] }],
    ['826161a161626163', ['a', { b: 'c' }]],
    // indefinite lengths are accepted
    ['7f657374726561646d696e67ff', 'streaming'],
    ['9fff', []],
    ['9f018202039f0405ffff', [1, [2, 3], [4, 5]]],
    ['bf61610161629f0203ffff', { a: 1, b: [2, 3] }],
    // self-described tag, expected-later-encoding tags, time tags
    ['d9d9f7a0', {}],
    ['d6426869', 'aGk='],
    ['d54403fbffff', 'A_v__w'],
    ['d74401020304', '01020304'],
    ['c074323031332d30332d32315432303a30343a30305a', '2013-03-21T20:04:00Z'],
    ['c11a514b67b0', '2013-03-21T20:04:00Z'],
    // an unknown tag reads as its content
    ['d82076687474703a2f2f7777772e6578616d706c652e636f6d', 'http://www.example.com'],
  ])('%s → %j', (h, expected) => {
    expect(decodeCbor(hex(h))).toEqual(expected);
  });

  test.each<[string, string, string]>([
    ['empty input', '', 'EOF'],
    ['truncated', '1a000f42', 'unexpected EOF'],
    ['truncated map', 'a26161', 'unexpected EOF'],
    ['extraneous data', '0101', 'cbor: 1 bytes of extraneous data starting at index 1'],
    ['duplicate map key', 'a2616101616102', 'cbor: found duplicate map key "a" at map element index 1'],
    ['undefined (simple 23)', 'f7', 'cbor: simple value 23 is not recognized'],
    ['simple value 16', 'f0', 'cbor: simple value 16 is not recognized'],
    ['NaN', 'f97e00', 'cbor: floating-point NaN values are not accepted'],
    ['Infinity', 'f97c00', 'cbor: floating-point infinity values are not accepted'],
    ['bignum', 'c249010000000000000000', 'cbor: bignum tags are forbidden'],
    ['invalid UTF-8 text', '62c328', 'cbor: invalid UTF-8 string'],
    ['integer map key', 'a10102', 'cbor: cannot unmarshal integer map key into Go value of type string'],
    ['uint64 past int64', '1bffffffffffffffff', "cbor: cannot unmarshal positive integer into Go value of type int64 (18446744073709551615 overflows Go's int64)"],
    ['lone break', 'ff', 'cbor: unexpected "break" code'],
  ])('%s is rejected: %s', (_name, h, message) => {
    expect(() => decodeCbor(hex(h))).toThrow(new CborDecodeError(message));
  });

  test('more than 1024 array elements is rejected (kube MaxArrayElements)', () => {
    const ok = Buffer.concat([hex('990400'), Buffer.alloc(1024, 0)]);
    expect((decodeCbor(ok) as unknown[]).length).toBe(1024);
    const tooMany = Buffer.concat([hex('990401'), Buffer.alloc(1025, 0)]);
    expect(() => decodeCbor(tooMany)).toThrow('cbor: exceeded max number of elements 1024 for CBOR array');
  });

  test('more than 1024 map pairs is rejected (kube MaxMapPairs)', () => {
    const map = (n: number) => {
      const parts: Buffer[] = [hex('b9'), Buffer.from([n >> 8, n & 0xff])];
      for (let i = 0; i < n; i++) parts.push(hex('44'), Buffer.from(String(i).padStart(4, '0')), hex('00'));
      return Buffer.concat(parts);
    };
    expect(Object.keys(decodeCbor(map(1024)) as object)).toHaveLength(1024);
    expect(() => decodeCbor(map(1025))).toThrow('cbor: exceeded max number of key-value pairs 1024 for CBOR map');
  });

  test('nesting past 64 levels is rejected (kube MaxNestedLevels)', () => {
    const deep = (n: number) => Buffer.concat([Buffer.alloc(n, 0x81), hex('00')]);
    expect(() => decodeCbor(deep(64))).not.toThrow();
    expect(() => decodeCbor(deep(65))).toThrow('cbor: exceeded max nested level 64');
  });

  test('round trip of a JSON-shaped object', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' }, creationTimestamp: null }, data: { k: 'v' }, n: -5, f: 0.25 };
    expect(decodeCbor(plain.encode(obj))).toEqual(obj);
  });
});

describe('float16', () => {
  test.each<[number, number | undefined]>([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [1.5, 0x3e00],
    [65504, 0x7bff],
    [65536, undefined],
    [5.960464477539063e-8, 0x0001],
    [0.00006103515625, 0x0400],
    [-4, 0xc400],
    [0.1, undefined],
    [1 + 2 ** -11, undefined],
  ])('%d → %s', (n, bits) => {
    expect(toFloat16Bits(n)).toBe(bits);
  });
});

describe('byteFieldPaths', () => {
  test('format: byte under maps, arrays, $ref and allOf', () => {
    const schemas: Record<string, object> = {
      Secret: { properties: { data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } }, meta: { allOf: [{ $ref: '#/Meta' }] } } },
      '#/Meta': { properties: { blobs: { type: 'array', items: { type: 'string', format: 'byte' } }, self: { $ref: '#/Meta' } } },
    };
    const paths = byteFieldPaths(schemas.Secret as never, (r) => schemas[r] as never);
    expect(paths).toEqual([['data', '*'], ['meta', 'blobs', '[]']]);
  });
});
