import { ApiError } from '../../../src/api';
import { negotiateObject, parseAccept } from '../../../src/endpoints/negotiation';

const types = (header: string) => parseAccept(header).map((m) => m.type);
const formatFor = (header: string) => negotiateObject(header, { allowTable: true, protobuf: true }).format;

describe('parseAccept orders clauses as kube does (goautoneg.ParseAccept under Go sort.Sort)', () => {
  test.each([
    // Equal q: a specific type or subtype goes before a wildcard.
    ['*/*, application/yaml', ['application/yaml', '*/*']],
    ['application/*, application/yaml', ['application/yaml', 'application/*']],
    // Higher q first.
    ['application/json;q=0.5, application/yaml', ['application/yaml', 'application/json']],
    // goautoneg's quirk: a specific type is "less" than a wildcard whatever their q.
    ['*/*;q=1, application/yaml;q=0.5', ['application/yaml', '*/*']],
    // Insertion order otherwise.
    ['text/plain;q=0.9, */*;q=0.8, application/yaml;q=0.8', ['text/plain', 'application/yaml', '*/*']],
    ['application/yaml, application/json', ['application/yaml', 'application/json']],
    // A bare * is */*; a range without a slash (or with two) is dropped.
    ['*', ['*/*']],
    ['json, application/json', ['application/json']],
    ['application/json/x, application/yaml', ['application/yaml']],
  ])('%s', (header, expected) => {
    expect(types(header)).toEqual(expected);
  });

  test('q is read as Go ParseFloat reads it: untrimmed, 0 when unreadable', () => {
    expect(parseAccept('application/json;q=0.5').map((m) => m.q)).toEqual([0.5]);
    expect(parseAccept('application/json;q= 0.5').map((m) => m.q)).toEqual([0]);
    expect(parseAccept('application/json;q=x').map((m) => m.q)).toEqual([0]);
  });

  test('nothing is lowercased and parameter values keep their quotes', () => {
    expect(parseAccept('Application/JSON;G="meta.k8s.io"')).toEqual([{ type: 'Application/JSON', params: { G: '"meta.k8s.io"' }, q: 1 }]);
  });
});

describe('negotiateObject follows that order and, as kube, ignores q beyond it', () => {
  test.each([
    ['*/*, application/yaml', 'yaml'],
    ['application/json;q=0.5, application/yaml', 'yaml'],
    ['application/yaml;q=0', 'yaml'],
    ['application/json;q=0, application/yaml;q=0', 'json'],
    ['text/plain;q=0.9, */*;q=0.8, application/yaml;q=0.8', 'yaml'],
    ['', 'json'],
  ])('%s → %s', (header, format) => {
    expect(formatFor(header)).toBe(format);
  });

  test('media types match case-sensitively, as in kube (Application/JSON is not acceptable)', () => {
    expect(() => formatFor('Application/JSON')).toThrow(ApiError);
  });
});
