import { jsonDuplicateFields } from '../../../src/endpoints/duplicate-fields';

const cases: Array<[string, string[]]> = [
  ['{"a":1,"b":2}', []],
  ['{"a":1,"a":2}', ['a']],
  ['{"metadata":{"name":"x","name":"y"}}', ['metadata.name']],
  ['{"spec":{"items":[{"k":1},{"k":1,"k":2}]}}', ['spec.items[1].k']],
  ['{"a":{"b":1},"c":{"b":2}}', []],
  ['{"a":1,"a":2,"a":3}', ['a', 'a']],
  // Colons, quotes and backslashes inside strings are not keys.
  ['{"a:b":"c:d","e":"\\":\\\\","f":"\\\\"}', []],
  ['{"a":"x\\"y:z","a":"w"}', ['a']],
  ['{"__proto__":1,"__proto__":2}', ['__proto__']],
  ['{"__proto__":{"x":1}}', []],
  ['{ "a" : [ {"b" : 1} , {"b" : 2 , "b" : 3} ] , "c" : {} }', ['a[1].b']],
  ['[{"a":1},{"a":1,"a":1}]', ['[1].a']],
  ['"a:b"', []],
];

describe('jsonDuplicateFields', () => {
  test.each(cases)('%s', (text, expected) => {
    expect(jsonDuplicateFields(text)).toEqual(expected);
  });

  // With the document's parse the answer is the same; documents without repeats skip the full scan.
  test.each(cases)('%s, given its parse', (text, expected) => {
    expect(jsonDuplicateFields(text, JSON.parse(text))).toEqual(expected);
  });
});

// Repeated YAML keys are found by the YAML decoder itself: test/unit/endpoints/yaml-decode.test.ts.
