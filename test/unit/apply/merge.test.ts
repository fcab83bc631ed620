import {
  ApplySchema,
  ApplyTypes,
  compareObjects,
  fieldSetOf,
  fieldSetOfValue,
  fieldsV1String,
  mergeValues,
  pathString,
  typeErrorsMessage,
  validateValue,
} from '../../../src/apply';
import type { Schema, SchemaResolver } from '../../../src/registry/schema/types';
import { kinds, resolve, schemaOf, typeOf } from './schemas';

// smd typed/merge_test.go "associative list" schema, written as OpenAPI.
const listRoot: ApplySchema = {
  type: 'object',
  properties: {
    list: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key', 'id'],
      items: {
        type: 'object',
        properties: {
          key: { type: 'string' },
          id: { type: 'number' },
          value: { type: 'object', additionalProperties: { type: 'string' } },
          bv: { type: 'boolean' },
          nv: { type: 'number' },
        },
      },
    },
    atomicList: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
    setStr: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
  },
};
const listType = new ApplyTypes(() => undefined).root(listRoot);

describe('merge (smd typed/merge_test.go triplets: live, config, merged)', () => {
  it.each([
    ['{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}'],
    ['{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}'],
    ['{"list":[{"key":"a","id":1},{"key":"b","id":1}]}', '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]}'],
    ['{"list":[{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}'],
    ['{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"c","id":3},{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]}'],
    ['{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"c","id":3},{"key":"a","id":1}]}', '{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}'],
    ['{"atomicList":["a","b","c"]}', '{"atomicList":[]}', '{"atomicList":[]}'],
    ['{"atomicList":["a","a","a"]}', '{"atomicList":["a","a"]}', '{"atomicList":["a","a"]}'],
    ['{"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]}', '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}'],
    ['{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}', '{"list":[]}', '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}'],
    ['{"setStr":["a","b","c"]}', '{"setStr":["d","b"]}', '{"setStr":["a","d","b","c"]}'],
  ])('%s + %s', (live, config, merged) => {
    expect(mergeValues(JSON.parse(live), JSON.parse(config), listType)).toEqual(JSON.parse(merged));
  });

  it('merges list-map items by key, recursing into them (containers keyed by name via patch strategy)', () => {
    const live = { spec: { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80 }] }, { name: 'b', image: 'y' }] } };
    const config = { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }] } };
    expect(mergeValues(live, config, typeOf('Widget'))).toEqual({
      spec: { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }, { name: 'b', image: 'y' }] },
    });
  });

  it('replaces atomic lists and atomic maps whole, merges granular maps', () => {
    const live = { spec: { args: ['a', 'b'], selector: { x: '1', y: '2' }, config: { p: 1, q: { r: 2 } } } };
    const config = { spec: { args: ['c'], selector: { z: '3' }, config: { q: { s: 3 } } } };
    expect(mergeValues(live, config, typeOf('Widget'))).toEqual({
      spec: { args: ['c'], selector: { z: '3' }, config: { p: 1, q: { r: 2, s: 3 } } },
    });
  });

  it('a null in the configuration clears a scalar (kube drops null members)', () => {
    expect(mergeValues({ data: { a: 'x', b: 'y' } }, { data: { a: null } }, typeOf('ConfigMap'))).toEqual({ data: { b: 'y' } });
  });
});

describe('fieldSetOf', () => {
  it.each([
    // Apply sets name struct fields only through their leaves; map keys are members.
    [kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { l: 'v' } }, data: { key: 'v' } }, '{"f:apiVersion":{},"f:data":{"f:key":{}},"f:kind":{},"f:metadata":{"f:labels":{"f:l":{}},"f:name":{}}}'],
    [kinds.Secret, { type: 'Opaque', data: {} }, '{"f:data":{},"f:type":{}}'],
    [kinds.ResourceQuota, { spec: { hard: { pods: '10' }, scopes: ['BestEffort'] } }, '{"f:spec":{"f:hard":{"f:pods":{}},"f:scopes":{}}}'],
    [kinds.Widget, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }], tags: ['x'], selector: { a: 'b' } } }, '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}},"f:selector":{},"f:tags":{"v:\\"x\\"":{}}}}'],
    [kinds.Widget, { metadata: { ownerReferences: [{ uid: 'u1', name: 'o', kind: 'K', apiVersion: 'v1' }], finalizers: ['f'] } }, '{"f:metadata":{"f:finalizers":{"v:\\"f\\"":{}},"f:ownerReferences":{"k:{\\"uid\\":\\"u1\\"}":{}}}}'],
  ])('%s %j', (kind, obj, fields) => {
    expect(fieldsV1String(fieldSetOf(obj, schemaOf(kind), resolve))).toBe(fields);
  });

  it('owns a duplicated list-map item as a whole', () => {
    const set = fieldSetOfValue({ spec: { containers: [{ name: 'a' }, { name: 'a' }] } }, typeOf('Widget'));
    expect(set.paths().map(pathString)).toEqual(['.spec.containers[name="a"]']);
  });
});

describe('compare', () => {
  it('reports added maps themselves, modified leaves and removed fields', () => {
    const c = compareObjects({ data: { a: '1', b: '2' } }, { data: { a: '3' }, type: 'Opaque', metadata: { labels: { x: 'y' } } }, typeOf('Secret'));
    expect(fieldsV1String(c.added)).toBe('{"f:metadata":{".":{},"f:labels":{".":{},"f:x":{}}},"f:type":{}}');
    expect(fieldsV1String(c.modified)).toBe('{"f:data":{"f:a":{}}}');
    expect(fieldsV1String(c.removed)).toBe('{"f:data":{"f:b":{}}}');
  });
});

describe('apply configuration validation (smd typed conversion)', () => {
  it.each([
    [kinds.ConfigMap, { spec: {} }, '.spec: field not declared in schema'],
    [kinds.ConfigMap, { data: { a: 1 } }, '.data.a: expected string, got &value.valueUnstructured{Value:1}'],
    [kinds.Widget, { spec: { containers: [{ name: 'a' }, { name: 'a' }] } }, '.spec.containers: duplicate entries for key [name="a"]'],
    [kinds.Widget, { spec: { containers: [{ image: 'x' }] } }, '.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)'],
    [kinds.Widget, { spec: { tags: [{ a: 1 }] } }, ".spec.tags: element 0: associative list without keys has an element that's a map type"],
    [kinds.Widget, { spec: { replicas: 'x' } }, '.spec.replicas: expected numeric (int or float), got string'],
    [kinds.Widget, { spec: { config: { any: { thing: [1] } } } }, ''],
    [kinds.ResourceQuota, { spec: { hard: { cpu: 1, memory: '1Gi' } } }, ''],
  ])('%s %j', (kind, config, message) => {
    const errs = validateValue(config, new ApplyTypes(resolve).root(schemaOf(kind)));
    expect(errs.length ? typeErrorsMessage(errs) : '').toBe(message);
  });

  it('several errors are listed under "errors:"', () => {
    const errs = validateValue({ data: { a: 1 }, binaryData: { b: 2 } }, typeOf('ConfigMap'));
    expect(typeErrorsMessage(errs)).toBe('errors:\n  .data.a: expected string, got &value.valueUnstructured{Value:1}\n  .binaryData.b: expected string, got &value.valueUnstructured{Value:2}');
  });
});

describe('schema compatibility', () => {
  it("accepts the registry's Schema and SchemaResolver types", () => {
    const s: Schema = { type: 'object', properties: { a: { type: 'string' } } };
    const r: SchemaResolver = () => undefined;
    const asApply: ApplySchema = s;
    expect(new ApplyTypes(r).root(asApply)().map?.fields.has('a')).toBe(true);
  });
});
