/** The decode walk at 10000 levels: typed fields give type errors, unknown fields are pruned unwalked. */
import { ApiError } from '../../../../src/api';
import { SchemaRegistry } from '../../../../src/registry/schema';

const D = 10000;
const arr = (d: number): unknown => JSON.parse('['.repeat(d) + ']'.repeat(d));
const obj = (d: number): unknown => JSON.parse('{"a":'.repeat(d) + '1' + '}'.repeat(d));
let reg: SchemaRegistry;
beforeAll(async () => {
  reg = await SchemaRegistry.load();
});
const CM = 'io.k8s.api.core.v1.ConfigMap';
const base = { apiVersion: 'v1', kind: 'ConfigMap' };

describe.each([
  ['array', arr, 'array'],
  ['object', obj, 'object'],
] as const)('%s nested %i levels', (_shape, make, kind) => {
  test('in data and labels: type errors', () => {
    const err = (body: unknown): string => {
      try {
        reg.decode(CM, body);
      } catch (e) {
        if (e instanceof ApiError) return e.status.message ?? '';
      }
      return 'no error';
    };
    expect(err({ ...base, metadata: { name: 'c' }, data: make(D - 1) })).toContain(
      kind === 'array' ? 'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string' : 'json: cannot unmarshal object into Go struct field ConfigMap.data of type string',
    );
    expect(err({ ...base, metadata: { name: 'c', labels: make(D - 2) } })).toContain('json: cannot unmarshal');
  });

  test('in an unknown field: pruned, reported by path', () => {
    const r = reg.decode(CM, { ...base, metadata: { name: 'c', zz: make(D - 2) }, zz: make(D - 1) });
    expect(r.unknownFields).toEqual(['metadata.zz', 'zz']);
    expect(r.object).toEqual({ ...base, metadata: { name: 'c' } });
  });

  test('in fieldsV1: kept as it is', () => {
    const fieldsV1 = make(D - 4);
    const r = reg.decode(CM, { ...base, metadata: { name: 'c', managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 }] } });
    expect(r.object.metadata.managedFields?.[0]?.fieldsV1).toBe(fieldsV1);
  });
});
