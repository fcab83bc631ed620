/**
 * prune-unknown.ts cuts unknown fields out of a large body off the event loop; what is left must
 * decode, patch and apply exactly as the whole body would. Properties over bodies mixing the
 * schema's field names with undeclared ones (fixed seed, bounded runs), plus the cases by hand.
 */
import fc from 'fast-check';
import { ApiError, KubeObject } from '../../../../src/api';
import { SchemaRegistry, type PruneMode } from '../../../../src/registry/schema';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../../../../src/patch';
import { typeErrorsMessage, validateValue } from '../../../../src/apply/validate-config';
import { typeOf } from '../../apply/schemas';
import { fuzzParams } from '../../../fuzz/fuzz-config';

const CONFIGMAP = 'io.k8s.api.core.v1.ConfigMap';
const QUOTA = 'io.k8s.api.core.v1.ResourceQuota';

let reg: SchemaRegistry;
beforeAll(async () => {
  reg = await SchemaRegistry.load();
});

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** What a client can observe of a decode: the object and unknown-field list, or the error. */
function outcome(fn: () => { object: unknown; unknownFields: string[] }): unknown {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ApiError) return { error: e.status.code, message: e.message };
    return { thrown: (e as Error).message };
  }
}

const decode = (schema: string, body: unknown) => () => reg.decode(schema, body);

// Field names of the schemas (some at the wrong level on purpose), undeclared names, directives.
const names = [
  'apiVersion', 'kind', 'metadata', 'name', 'namespace', 'labels', 'annotations', 'ownerReferences', 'uid',
  'finalizers', 'managedFields', 'fieldsV1', 'manager', 'data', 'binaryData', 'immutable', 'spec', 'hard',
  'scopes', 'scopeSelector', 'matchExpressions', 'operator', 'values', 'scopeName', 'status', 'used',
  'junk', 'zz', 'a', 'x-y', '0', '$patch', '$retainKeys', '$setElementOrder/finalizers',
];
const key = fc.constantFrom(...names);
const scalar = fc.oneof(fc.constantFrom(null, true, false, 0, 1, -1, 1.5, '', 'a', 'YQ==', '1Gi', 'replace', 'delete'), fc.string({ maxLength: 4 }));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  array: fc.array(tie('value'), { maxLength: 3 }),
}));
const body = fc.dictionary(key, value, { maxKeys: 6 });

const current: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'n', labels: { a: 'b' }, finalizers: ['f'], ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'u' }] },
  data: { k: 'v' },
};

function pruned(schema: string, v: unknown, mode: PruneMode): { value: unknown; cut: string[] } {
  const copy = clone(v);
  return { value: copy, cut: reg.pruneUnknown(schema, copy, mode) };
}

describe('object mode (create and update bodies)', () => {
  test.each([CONFIGMAP, QUOTA])('%s: decoding what is left gives the same object, the cut paths first', (schema) => {
    fc.assert(
      fc.property(body, (b) => {
        const whole = outcome(decode(schema, b));
        const { value: rest, cut } = pruned(schema, b, 'object');
        const part = outcome(() => {
          const r = reg.decode(schema, rest);
          return { object: r.object, unknownFields: cut.concat(r.unknownFields) };
        });
        // A decode error wins over unknown fields: only the error must match then.
        if ('error' in (whole as object)) expect(part).toEqual(whole);
        else expect(part).toEqual(whole);
      }),
      fuzzParams(400),
    );
  });

  test('removes undeclared fields at every level and reports them in the decoder order', () => {
    const b = { junk: [1, 2], metadata: { name: 'x', zz: { deep: 1 }, ownerReferences: [{ uid: 'u', q: 1 }] }, data: { junk: 'kept' } };
    const { value: rest, cut } = pruned(CONFIGMAP, b, 'object');
    expect(cut).toEqual(['junk', 'metadata.zz', 'metadata.ownerReferences[0].q']);
    expect(rest).toEqual({ metadata: { name: 'x', ownerReferences: [{ uid: 'u' }] }, data: { junk: 'kept' } });
    expect(reg.decode(CONFIGMAP, b).unknownFields).toEqual(cut);
  });
});

describe('patch modes: the patched object decodes the same', () => {
  const patched = (apply: (p: unknown) => unknown, p: unknown) => () => reg.decode(CONFIGMAP, apply(p));

  test('merge patch', () => {
    fc.assert(
      fc.property(body, (p) => {
        const apply = (x: unknown) => applyMergePatch(current, x);
        expect(outcome(patched(apply, pruned(CONFIGMAP, p, 'merge-patch').value))).toEqual(outcome(patched(apply, p)));
      }),
      fuzzParams(400),
    );
  });

  test('strategic merge patch', () => {
    const apply = (x: unknown) => applyStrategicMergePatch(current, x, reg.get(CONFIGMAP), (ref) => reg.resolve(ref));
    fc.assert(
      fc.property(body, (p) => {
        expect(outcome(patched(apply, pruned(CONFIGMAP, p, 'strategic-patch').value))).toEqual(outcome(patched(apply, p)));
      }),
      fuzzParams(400),
    );
  });

  const path = fc.oneof(
    fc.constantFrom('', '/junk', '/junk/a', '/metadata', '/metadata/zz', '/metadata/labels/x', '/data', '/data/k', '/zz', '/metadata/ownerReferences/0/q'),
    fc.array(key, { minLength: 1, maxLength: 3 }).map((ks) => `/${ks.map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`),
  );
  const op = fc.record(
    { op: fc.constantFrom('add', 'replace', 'remove', 'test', 'copy', 'move'), path, from: path, value },
    { requiredKeys: ['op', 'path'] },
  );

  test('JSON patch', () => {
    const apply = (x: unknown) => applyJsonPatch(current, x);
    fc.assert(
      fc.property(fc.array(op, { maxLength: 5 }), (ops) => {
        expect(outcome(patched(apply, pruned(CONFIGMAP, ops, 'json-patch').value))).toEqual(outcome(patched(apply, ops)));
      }),
      fuzzParams(400),
    );
  });

  test('JSON patch: a value read by another operation is kept', () => {
    const ops = [
      { op: 'add', path: '/junk', value: [1, 2, 3] },
      { op: 'add', path: '/zz', value: { a: 1 } },
      { op: 'copy', from: '/zz', path: '/metadata/labels' },
    ];
    const { value: rest } = pruned(CONFIGMAP, ops, 'json-patch');
    expect(rest).toEqual([{ op: 'add', path: '/junk', value: 0 }, ops[1], ops[2]]);
  });

  test('JSON patch: nothing is replaced when a path is not rooted or passes through a list (other spellings could read it)', () => {
    for (const other of [
      { op: 'copy', from: 'x/junk', path: '/data' },
      { op: 'remove', path: '/metadata/ownerReferences/0' },
      { op: 'copy', from: '/metadata/ownerReferences/-1/junk', path: '/data' },
    ]) {
      const ops = [{ op: 'add', path: '/junk', value: { k: 'v' } }, other];
      expect(pruned(CONFIGMAP, ops, 'json-patch').value).toEqual(ops);
    }
  });

  test('merge patch: an undeclared object keeps its place as a placeholder; a null stays', () => {
    const { value: rest } = pruned(CONFIGMAP, { junk: { big: [1] }, zz: null, metadata: { q: [1] }, data: { junk: { x: 1 } } }, 'merge-patch');
    expect(rest).toEqual({ junk: 0, zz: null, metadata: { q: 0 }, data: { junk: { x: 1 } } });
  });
});

describe('apply mode: the configuration fails validation the same way', () => {
  const type = typeOf('ConfigMap');
  const message = (config: unknown): string => typeErrorsMessage(validateValue(config, type));
  test('property', () => {
    fc.assert(
      fc.property(body, (c) => {
        const { value: rest } = pruned(CONFIGMAP, c, 'apply');
        const whole = validateValue(c, type);
        if (whole.length === 0) expect(rest).toEqual(c);
        else expect(message(rest)).toBe(message(c));
        // What the apply reads before validating stays.
        for (const k of ['apiVersion', 'kind', 'metadata']) expect((rest as Record<string, unknown>)[k]).toEqual(c[k]);
      }),
      fuzzParams(400),
    );
  });

  test("list items are not entered: validation reads a list-map item's keys before its fields", () => {
    const config = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, status: { conditions: [{ junk: { a: 1 }, type: 'c', status: 'True' }] } };
    expect(pruned('io.k8s.api.core.v1.Namespace', config, 'apply').value).toEqual(config);
  });

  test('keys past the first undeclared field go, but not apiVersion, kind and metadata', () => {
    const { value: rest } = pruned(CONFIGMAP, { data: { a: 'b' }, junk: [1, 2], zz: 1, kind: 'ConfigMap', metadata: { name: 'x' }, binaryData: {} }, 'apply');
    expect(rest).toEqual({ data: { a: 'b' }, junk: 0, kind: 'ConfigMap', metadata: { name: 'x' } });
  });
});
