import {
  FieldSet,
  deserializePathElement,
  fieldElement,
  fieldSetToFieldsV1,
  fieldsV1String,
  fieldsV1ToFieldSet,
  keyElement,
  pathOf,
  pathString,
  serializePathElement,
  valueElement,
  FieldsV1Error,
} from '../../../src/apply';

describe('path strings (smd Path.String)', () => {
  it.each([
    [pathOf('data', 'password'), '.data.password'],
    [pathOf('spec', 'containers', keyElement({ name: 'app' }), 'image'), '.spec.containers[name="app"].image'],
    [pathOf('spec', 'ports', keyElement({ protocol: 'TCP', containerPort: 80 })), '.spec.ports[containerPort=80,protocol="TCP"]'],
    [pathOf('metadata', 'finalizers', valueElement('x')), '.metadata.finalizers[="x"]'],
    [pathOf('spec', 'args', 0), '.spec.args[0]'],
  ])('%#', (path, expected) => expect(pathString(path)).toBe(expected));
});

describe('FieldsV1 keys', () => {
  it.each([
    [fieldElement('kubectl.kubernetes.io/last-applied-configuration'), 'f:kubectl.kubernetes.io/last-applied-configuration'],
    [keyElement({ name: 'nginx' }), 'k:{"name":"nginx"}'],
    [keyElement({ protocol: 'TCP', containerPort: 80 }), 'k:{"containerPort":80,"protocol":"TCP"}'],
    [valueElement('foo'), 'v:"foo"'],
    [valueElement(5), 'v:5'],
    [pathOf(3)[0]!, 'i:3'],
    [keyElement({ name: 'a<b&c>' }), 'k:{"name":"a\\u003cb\\u0026c\\u003e"}'],
  ])('%j', (pe, key) => {
    expect(serializePathElement(pe)).toBe(key);
    expect(serializePathElement(deserializePathElement(key))).toBe(key);
  });

  it.each([
    ['x', 'key must be 2 characters long:'],
    ['ab', 'missing colon: ab'],
    ['i:x', 'strconv.Atoi: parsing "x": invalid syntax'],
  ])('rejects %s', (key, message) => expect(() => deserializePathElement(key)).toThrow(message));
});

describe('FieldsV1 round trips byte for byte', () => {
  // Entries as kube writes them (kube-facts §17 and the Server-Side Apply documentation).
  it.each([
    '{"f:data":{".":{},"f:password":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},"f:type":{}}',
    '{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:test-label":{}}}}',
    '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}',
    '{"f:metadata":{"f:finalizers":{".":{},"v:\\"a\\"":{},"v:\\"b\\"":{}}}}',
    '{}',
  ])('%s', (text) => {
    const set = fieldsV1ToFieldSet(text);
    expect(fieldsV1String(set)).toBe(text);
    expect(fieldsV1String(fieldsV1ToFieldSet(JSON.parse(text)))).toBe(text);
  });

  it('sorts keys in smd order whatever the input order, "." first', () => {
    const set = fieldsV1ToFieldSet({ 'v:"z"': {}, 'k:{"a":1}': {}, 'f:b': { 'f:y': {}, '.': {} }, 'f:a': {}, 'i:2': {} });
    expect(fieldsV1String(set)).toBe('{"f:a":{},"f:b":{".":{},"f:y":{}},"k:{\\"a\\":1}":{},"v:\\"z\\"":{},"i:2":{}}');
  });

  it('skips keys of unknown element types and rejects malformed ones', () => {
    expect(fieldsV1String(fieldsV1ToFieldSet({ 'x:y': {}, 'f:a': {} }))).toBe('{"f:a":{}}');
    expect(() => fieldsV1ToFieldSet({ ab: {} })).toThrow(FieldsV1Error);
    expect(() => fieldsV1ToFieldSet({ 'f:a': 1 })).toThrow(FieldsV1Error);
  });

  it('encodes a member with children as "." first', () => {
    const set = FieldSet.of(pathOf('data'), pathOf('data', 'b'), pathOf('data', 'a'));
    expect(fieldSetToFieldsV1(set)).toEqual({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } });
    expect(Object.keys(fieldSetToFieldsV1(set)['f:data']!)).toEqual(['.', 'f:a', 'f:b']);
  });
});

describe('FieldSet', () => {
  const s = (...paths: string[][]): FieldSet => FieldSet.of(...paths.map((p) => pathOf(...p)));
  const str = (set: FieldSet): string[] => set.paths().map(pathString);

  it('insert/has: parents are not implied; the empty path is never a member', () => {
    const set = s(['a', 'b']);
    expect(set.has(pathOf('a', 'b'))).toBe(true);
    expect(set.has(pathOf('a'))).toBe(false);
    expect(FieldSet.of([]).isEmpty()).toBe(true);
  });

  it('iterates members before children (pre-order), each level sorted', () => {
    expect(str(s(['data', 'b'], ['type'], ['data', 'a'], ['data']))).toEqual(['.data', '.type', '.data.a', '.data.b']);
  });

  it('union, intersection, difference, recursiveDifference, leaves', () => {
    const a = s(['x'], ['x', 'y'], ['z']);
    const b = s(['x', 'y'], ['w']);
    expect(str(a.union(b))).toEqual(['.w', '.x', '.z', '.x.y']);
    expect(str(a.intersection(b))).toEqual(['.x.y']);
    expect(str(a.difference(b))).toEqual(['.x', '.z']);
    // parent - child = parent; child - parent = child (difference), nothing (recursive)
    expect(str(s(['x', 'y']).difference(s(['x'])))).toEqual(['.x.y']);
    expect(str(s(['x', 'y']).recursiveDifference(s(['x'])))).toEqual([]);
    expect(str(a.leaves())).toEqual(['.z', '.x.y']);
    expect(a.union(b).equals(b.union(a))).toBe(true);
    expect(a.size()).toBe(3);
  });
});
