import { queryBool } from '../../../src/endpoints/query-bool';

describe("boolean query parameters, as kube's Convert_Slice_string_To_bool", () => {
  test.each<[unknown, boolean | undefined]>([
    [undefined, undefined],
    ['', true],
    ['true', true],
    ['True', true],
    ['1', true],
    ['yes', true],
    ['f', true],
    ['0', false],
    ['false', false],
    ['FALSE', false],
    ['False', false],
    [['false', 'true'], false],
    [['1', '0'], true],
  ])('%j → %s', (v, expected) => {
    expect(queryBool(v)).toBe(expected);
  });
});
