import { jsonDuplicateFields } from '../../../src/endpoints/duplicate-fields';

test.each([
  ['{"a":1,"b":2}', []],
  ['{"a":1,"a":2}', ['a']],
  ['{"metadata":{"name":"x","name":"y"}}', ['metadata.name']],
  ['{"spec":{"items":[{"k":1},{"k":1,"k":2}]}}', ['spec.items[1].k']],
  ['{"a":{"b":1},"c":{"b":2}}', []],
  ['{"a":1,"a":2,"a":3}', ['a', 'a']],
])('%s', (text, expected) => {
  expect(jsonDuplicateFields(text)).toEqual(expected);
});
