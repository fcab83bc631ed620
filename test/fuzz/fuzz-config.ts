/**
 * Shared settings of the property-based fuzz tests: fixed seeds so `make test` is deterministic,
 * a small run count there, and a large one under `make fuzz` (FUZZ_RUNS, FUZZ_SEED).
 */
import fc from 'fast-check';

/** Runs per property: small in `make test`, `FUZZ_RUNS` (e.g. 5000) in `make fuzz`. */
export const fuzzRuns = (inTestSuite: number): number => Number(process.env.FUZZ_RUNS ?? inTestSuite);

/** fast-check parameters: a fixed seed unless FUZZ_SEED asks for another (make fuzz prints it). */
export function fuzzParams<T>(inTestSuite: number): fc.Parameters<T> {
  return { seed: Number(process.env.FUZZ_SEED ?? 20251124), numRuns: fuzzRuns(inTestSuite), endOnFailure: true };
}

/** Timeout of a fuzz test: generous under `make fuzz`. */
export const fuzzTimeoutMs = process.env.FUZZ_RUNS ? 30 * 60_000 : 120_000;

/** Strings a hostile client likes: unicode, controls, quotes, brackets, YAML and selector syntax. */
export const hostileString = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength, unit: 'binary' }),
    fc.string({ maxLength, unit: fc.constantFrom(...'{}[]:,"\'\\&*!|>-?#%@`=!()~ \t\n\r\u0000\u007f\u0085\u2028😀aZ09.'.split('')) }),
    fc.constantFrom('', 'null', 'true', '~', '0x1F', '1e999', '-0', 'NaN', '.inf', '<<', '&a [*a]', '*a', '\ufeff'),
  );

/** A JSON-like value with bounded depth and size. */
export const jsonish = (maxDepth = 4): fc.Arbitrary<unknown> =>
  fc.jsonValue({ maxDepth }).map((v) => v as unknown);

/**
 * Bodies of the shapes that once crashed or stalled the server (issue 25): deep nesting around
 * kube's 10,000 limit, YAML alias chains and self-references, repeated keys, unknown field names a
 * header cannot carry as they are, nulls in byte maps.
 */
export const hostileBody: fc.Arbitrary<{ body: string; contentType: string }> = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 10_050 }), fc.constantFrom('[', '{"a":'), fc.constantFrom('data', 'x', 'body', 'fieldsV1')).map(([depth, open, where]) => {
    const close = open === '[' ? ']' : '}';
    const deep = open.repeat(depth) + '1' + close.repeat(depth);
    const body =
      where === 'body'
        ? deep
        : where === 'fieldsV1'
          ? `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":${deep}}]}}`
          : `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"${where}":${deep}}`;
    return { body, contentType: 'application/json' };
  }),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 2, max: 9 })).map(([levels, width]) => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: bomb', '  managedFields:', '  - manager: m', '    fieldsV1:'];
    lines.push(`      a0: &a0 [${Array(width).fill('"lol"').join(', ')}]`);
    for (let i = 1; i < levels; i++) lines.push(`      a${i}: &a${i} [${Array(width).fill(`*a${i - 1}`).join(', ')}]`);
    return { body: lines.join('\n') + '\n', contentType: 'application/yaml' };
  }),
  fc.constantFrom(
    { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: self\n  managedFields:\n  - fieldsV1: &a {"f:x": *a}\n', contentType: 'application/yaml' },
    { body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"emoji"},"z😀":1}', contentType: 'application/json' },
    { body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nullbin"},"binaryData":{"k":null}}', contentType: 'application/json' },
  ),
  fc.tuple(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 20_000 })).map(([repeats, len]) => {
    const key = 'k'.repeat(len);
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: dup', 'data:'];
    for (let i = 0; i < repeats; i++) lines.push(`  ${key}: v${i}`);
    return { body: lines.join('\n') + '\n', contentType: 'application/yaml' };
  }),
).map(shortPrinted);

/** A body printed by fast-check (counterexamples) as its media type, length and first bytes. */
function shortPrinted(b: { body: string; contentType: string }): { body: string; contentType: string } {
  return Object.assign(b, { [fc.toStringMethod]: () => `${b.contentType} body of ${b.body.length} chars: ${JSON.stringify(b.body.slice(0, 120))}…` });
}
