/** Go's encoding/json errors for json.Unmarshal into map[string]interface{} (used by Secret validation). */
import { goJsonMapError } from '../../../src/api/go-json-error';

test.each<[string, string | undefined]>([
  ['{}', undefined],
  ['  {"auths": {"r": {"auth": "eA=="}}, "n": [1, -2.5e+3, true, null]}\n', undefined],
  ['null', undefined],
  ['', 'unexpected end of JSON input'],
  ['{"a":', 'unexpected end of JSON input'],
  ['nope', "invalid character 'o' in literal null (expecting 'u')"],
  ['x', "invalid character 'x' looking for beginning of value"],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
  ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
  ['[1 2]', "invalid character '2' after array element"],
  ['{} {}', "invalid character '{' after top-level value"],
  ['{"a":01}', "invalid character '1' after object key:value pair"],
  ['{"a":-x}', "invalid character 'x' in numeric literal"],
  ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
  ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
  ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
  ['{"a":"\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"],
  ['{"a":"\t"}', "invalid character '\\t' in string literal"],
  ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ['[]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
  ['"s"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
  ['12', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
  ['true', 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
])('%j', (input, expected) => {
  expect(goJsonMapError(Buffer.from(input))).toBe(expected);
});

test.each<[string, string | undefined]>([
  ['{"a":[1,{"b":[]},[]],"c":{}}', undefined],
  ['[1,]', "invalid character ']' looking for beginning of value"],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ['[[1]', "invalid character '}' after array element"],
])('nested %j', (input, expected) => {
  expect(goJsonMapError(Buffer.from(`{"x":${input}}`))).toBe(expected);
});

test("Go's nesting limit: 10,000 levels decode, the next one is refused, and no depth exhausts the stack", () => {
  const nest = (d: number) => Buffer.from('{"a":'.repeat(d - 1) + '[]' + '}'.repeat(d - 1));
  expect(goJsonMapError(nest(10000))).toBeUndefined();
  expect(goJsonMapError(nest(10001))).toBe("invalid character '[' exceeded max depth");
  expect(goJsonMapError(Buffer.from('['.repeat(200000)))).toBe("invalid character '[' exceeded max depth");
});
