import { summarizeData } from '../../../src/api';

describe("summarizeData (kube's decode-error body summary)", () => {
  test.each([
    [Buffer.alloc(0), '<empty>'],
    [Buffer.from('{"a":1}'), '{"a":1}'],
    [Buffer.from(`{"kind":"Secret","apiVersion":"v1","metadata":{}}`), '{"kind":"Secret","apiVersion": ...'],
    [Buffer.from([0x6b, 0x38, 0x73, 0x00]), '6b387300'],
    [Buffer.alloc(31, 0xff), `${'ff'.repeat(30)} ...`],
  ])('%j → %s', (body, expected) => {
    expect(summarizeData(body)).toBe(expected);
  });
});
