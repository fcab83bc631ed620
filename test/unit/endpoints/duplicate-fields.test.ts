import { jsonDuplicateFields, yamlWithDuplicates } from '../../../src/endpoints/duplicate-fields';

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

describe('yamlWithDuplicates: every repeated key, in document order, as go-yaml reports them', () => {

  test.each<[string, string[], unknown]>([
    ['a: 1\nb: 2\n', [], { a: 1, b: 2 }],
    ['a: 1\na: 2\n', ['line 2: key "a" already set in map'], { a: 2 }],
    ['a: 1\na: 2\na: 3\n', ['line 2: key "a" already set in map', 'line 3: key "a" already set in map'], { a: 3 }],
    [
      'metadata:\n  name: x\n  name: y\ndata:\n  k: v\n  j: w\n  k: u\n',
      ['line 3: key "name" already set in map', 'line 7: key "k" already set in map'],
      { metadata: { name: 'y' }, data: { k: 'u', j: 'w' } },
    ],
    ['"a": 1\n"a": 2\n', ['line 2: key "a" already set in map'], { a: 2 }],
  ])('%j', (text, duplicates, value) => {
    expect(yamlWithDuplicates(text)).toEqual({ value, duplicates });
  });

  test('other YAML errors are thrown as they are', () => {
    expect(() => yamlWithDuplicates('a: [1\n')).toThrow();
  });
});
