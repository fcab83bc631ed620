/** Patch walkers over client values nested 10000 levels (what Go's decoder lets through). */
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../../../src/patch';
import { goSprint } from '../../../src/patch/json-value';
import { jsonValueDepth, stringifyJson } from '../../../src/api';

const D = 10000;
const arr = (d: number): unknown => JSON.parse('['.repeat(d) + ']'.repeat(d));
const obj = (d: number): unknown => JSON.parse('{"a":'.repeat(d) + 'null' + '}'.repeat(d));
const current = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { x: 'y' } }, data: { k: 'v' } };

describe.each([
  ['array', arr],
  ['object', obj],
] as const)('%s nested %i levels', (_shape, make) => {
  test('merge patch: added under a new key (nulls pruned), under an existing map', () => {
    const r = applyMergePatch(current, { zz: make(D - 1), metadata: { labels: make(D - 2) } }) as Record<string, unknown>;
    expect(jsonValueDepth(r.zz)).toBe(D - 1); // the innermost {"a":null} loses its null, stays {}
    expect(current.metadata.labels).toEqual({ x: 'y' });
  });

  test('strategic merge patch: nulls discarded, directives removed, any depth', () => {
    const r = applyStrategicMergePatch(current, { zz: make(D - 1), data: make(D - 1) }, undefined, () => undefined) as Record<string, unknown>;
    expect(jsonValueDepth(r.zz)).toBe(D - 1);
    const withDirective = JSON.parse('{"zz":' + '[{"b":'.repeat(4000) + '{"$patch":"delete"}' + '}]'.repeat(4000) + '}') as Record<string, unknown>;
    const r2 = applyStrategicMergePatch(current, withDirective, undefined, () => undefined) as Record<string, unknown>;
    expect(jsonValueDepth(r2.zz)).toBe(2 * 4000); // the innermost list loses its directive map
  });

  test('JSON patch: add, test, copy and move of deep values', () => {
    const v = make(D - 2);
    const r = applyJsonPatch(current, [
      { op: 'add', path: '/zz', value: v },
      { op: 'test', path: '/zz', value: v },
      { op: 'copy', from: '/zz', path: '/yy' },
      { op: 'move', from: '/yy', path: '/ww' },
    ]) as Record<string, unknown>;
    expect(stringifyJson(r.ww)).toBe(stringifyJson(v));
    expect(() => applyJsonPatch(current, [{ op: 'add', path: '/zz', value: v }, { op: 'test', path: '/zz', value: make(D - 3) }])).toThrow(
      'the server rejected our request due to an error in our request',
    );
  });

  test("Go's %v of a deep value (error messages)", () => {
    expect(goSprint(make(D)).length).toBeGreaterThan(D);
  });
});
