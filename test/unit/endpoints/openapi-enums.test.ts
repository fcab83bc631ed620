/** Gate OpenAPIEnums off: schemas as kube's pruneEnums leaves them (apiserver pkg/util/openapi/enablement.go). */
import { withoutEnums } from '../../../src/endpoints/openapi-enums';
import { buildOpenApiV2, buildOpenApiV3 } from '../../../src/endpoints/openapi';
import { builtinResources } from '../../../src/registry/resources';
import { SchemaRegistry, type Schema } from '../../../src/registry/schema';

const phase = {
  description: 'Lifecycle phase.\n\nPossible enum values:\n - `"Active"` in use\n - `"Terminating"` being deleted',
  enum: ['Active', 'Terminating'],
  type: 'string',
};

test('enum and the "Possible enum values" section go, the text before it is kept trimmed, at any depth', () => {
  const schema = {
    description: 'A namespace status.',
    type: 'object',
    properties: {
      phase,
      conditions: { type: 'array', items: { type: 'object', properties: { status: { ...phase, description: 'Possible enum values:\n - x' } } } },
      byName: { type: 'object', additionalProperties: { allOf: [phase] } },
      ref: { $ref: '#/components/schemas/Other' },
    },
  } as unknown as Schema;
  expect(withoutEnums(schema)).toEqual({
    description: 'A namespace status.',
    type: 'object',
    properties: {
      phase: { description: 'Lifecycle phase.', type: 'string' },
      // Only the section: an empty description is left out (Go's omitempty).
      conditions: { type: 'array', items: { type: 'object', properties: { status: { type: 'string' } } } },
      byName: { type: 'object', additionalProperties: { allOf: [{ description: 'Lifecycle phase.', type: 'string' }] } },
      ref: { $ref: '#/components/schemas/Other' },
    },
  });
  // The input is never changed.
  expect(schema.properties?.phase).toBe(phase);
  expect(phase.enum).toEqual(['Active', 'Terminating']);
});

test('a schema without enums is returned as it is (no copy)', () => {
  const s = { type: 'object', properties: { name: { type: 'string', description: 'The name.' } } } as unknown as Schema;
  expect(withoutEnums(s)).toBe(s);
});

test('the served documents of the real schemas: enums only while the gate is on', async () => {
  const schemas = await SchemaRegistry.load();
  const count = (doc: unknown) => (JSON.stringify(doc).match(/"enum":|Possible enum values/g) ?? []).length;
  const v3on = buildOpenApiV3(builtinResources, schemas).docs.get('api/v1');
  const v3off = buildOpenApiV3(builtinResources, schemas, { enums: false }).docs.get('api/v1');
  expect(count(JSON.parse(v3on?.body.toString() ?? '{}'))).toBeGreaterThan(0);
  expect(count(JSON.parse(v3off?.body.toString() ?? '{}'))).toBe(0);
  expect(count(JSON.parse(buildOpenApiV2(builtinResources, schemas, { enums: false }).body.toString()))).toBe(0);
  expect(count(JSON.parse(buildOpenApiV2(builtinResources, schemas).body.toString()))).toBeGreaterThan(0);
});
