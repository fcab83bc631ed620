import { isPrettyPrint, negotiateObject } from '../../../src/endpoints/negotiation';

describe("isPrettyPrint (kube's negotiation.isPrettyPrint)", () => {
  test.each([
    // The first pretty value, as strconv.ParseBool reads it, decides when it is not empty.
    ['true', undefined, true],
    ['1', undefined, true],
    ['T', undefined, true],
    ['True', undefined, true],
    ['false', 'curl/8.5.0', false],
    ['0', 'curl/8.5.0', false],
    ['yes', 'curl/8.5.0', false], // not a Go bool: false, whatever the agent
    [['true', 'false'], undefined, true],
    [['false', 'true'], 'curl/8.5.0', false],
    // Otherwise the User-Agent: curl, Wget and browsers get indented output.
    ['', 'curl/8.5.0', true],
    [undefined, 'curl/8.5.0', true],
    [undefined, 'Wget/1.21', true],
    [undefined, 'Mozilla/5.0 (X11; Linux x86_64)', true],
    [undefined, 'kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef', false],
    [undefined, 'node', false],
    [undefined, undefined, false],
  ])('pretty=%j, User-Agent %j → %s', (pretty, ua, expected) => {
    expect(isPrettyPrint(pretty, ua)).toBe(expected);
  });
});

test('an accepted media type with pretty=1 asks for indented output', () => {
  expect(negotiateObject('application/json;pretty=1', { allowTable: true, protobuf: true }).pretty).toBe(true);
  expect(negotiateObject('application/json;pretty=0', { allowTable: true, protobuf: true }).pretty).toBeUndefined();
  expect(negotiateObject('application/json', { allowTable: true, protobuf: true }).pretty).toBeUndefined();
});
