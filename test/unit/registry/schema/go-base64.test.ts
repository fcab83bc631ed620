import { goBase64Decode } from '../../../../src/registry/schema/go-base64';

describe('goBase64Decode (Go base64.StdEncoding.DecodeString)', () => {
  test.each([
    ['', ''],
    ['aGk=', 'aGk='],
    ['aGVsbG8=', 'aGVsbG8='],
    ['YWJj', 'YWJj'],
    ['YQ==', 'YQ=='],
    ['+/+/', '+/+/'],
    // Go skips CR and LF and does not check trailing bits; the canonical form drops both.
    ['aGVs\nbG8=', 'aGVsbG8='],
    ['aGVs\r\nbG8=', 'aGVsbG8='],
    ['YR==', 'YQ=='],
  ])('%j decodes; canonical %j', (input, canonical) => {
    expect(goBase64Decode(input)).toEqual({ ok: true, canonical });
  });

  test.each([
    ['YQ', 0],
    ['aGk', 0],
    ['a===', 1],
    ['====', 0],
    ['aGk=YWJj', 4],
    ['aG-k', 2],
    ['aGé=', 2],
    ['YWJj\u0100AAA', 4],
  ])('%j is rejected as Go does', (input, offset) => {
    const r = goBase64Decode(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBe(`illegal base64 data at input byte ${offset}`);
  });
});
