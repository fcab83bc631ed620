/** Schemas added and removed at run time: decoding follows; bad documents change nothing. */
import { SchemaRegistry, type SchemaDocument } from '../../../../src/registry/schema';

const widgetDoc = (extra: Record<string, unknown> = {}): SchemaDocument => ({
  components: {
    schemas: {
      'com.example.v1.Widget': {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
          spec: { $ref: '#/components/schemas/com.example.v1.WidgetSpec' },
        },
      },
      'com.example.v1.WidgetSpec': { type: 'object', properties: { size: { type: 'integer', format: 'int32' } }, ...extra },
    },
  },
});

let schemas: SchemaRegistry;
beforeAll(async () => {
  schemas = await SchemaRegistry.load();
});

test('an added kind decodes (unknown fields found, types checked) and is gone once removed', () => {
  const changes: number[] = [];
  schemas.onChange(() => changes.push(1));
  expect(() => schemas.decode('com.example.v1.Widget', {})).toThrow('is not a kind with a schema');
  schemas.add(widgetDoc());
  expect(schemas.fromSource('com.example.v1.Widget')).toBe(false);
  expect(schemas.fromSource('io.k8s.api.core.v1.Secret')).toBe(true);
  const r = schemas.decode('com.example.v1.Widget', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3, colour: 'red' } });
  expect(r.unknownFields).toEqual(['spec.colour']);
  expect(() => schemas.decode('com.example.v1.Widget', { metadata: {}, spec: { size: 'big' } })).toThrow(
    'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal string into Go struct field WidgetSpec.spec.size of type int32',
  );
  expect(schemas.names()).toContain('com.example.v1.WidgetSpec');
  schemas.remove(['com.example.v1.Widget', 'com.example.v1.WidgetSpec']);
  expect(schemas.get('com.example.v1.Widget')).toBeUndefined();
  expect(() => schemas.decode('com.example.v1.Widget', {})).toThrow('is not a kind with a schema');
  expect(changes).toHaveLength(2);
});

test('a clash, a dangling $ref or removing what openapi/ holds is refused and changes nothing', () => {
  const before = schemas.names();
  expect(() => schemas.add({ components: { schemas: { 'io.k8s.api.core.v1.Secret': { type: 'object' } } } })).toThrow('schema io.k8s.api.core.v1.Secret is defined twice');
  expect(() => schemas.add({ components: { schemas: { 'com.example.v1.Widget': widgetDoc().components!.schemas!['com.example.v1.Widget']! } } })).toThrow(
    'refers to unknown schema #/components/schemas/com.example.v1.WidgetSpec',
  );
  expect(() => schemas.remove(['io.k8s.api.core.v1.Secret'])).toThrow('was not added at run time');
  schemas.add(widgetDoc());
  expect(() => schemas.remove(['com.example.v1.WidgetSpec'])).toThrow('refers to unknown schema');
  expect(schemas.get('com.example.v1.WidgetSpec')).toBeDefined();
  schemas.remove(['com.example.v1.Widget', 'com.example.v1.WidgetSpec']);
  expect(schemas.names()).toEqual(before);
});
