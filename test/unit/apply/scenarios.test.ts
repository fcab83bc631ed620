import { ApiError, KubeObject } from '../../../src/api';
import { FieldSet, apply, fieldsV1String, fieldsV1ToFieldSet, pathOf, update } from '../../../src/apply';
import { scenarios, Step } from './scenarios';
import { kinds, resolve, schemaOf, types } from './schemas';

const time = (i: number): string => new Date(Date.UTC(2024, 4, 1, 10, 0, i)).toISOString().replace('.000Z', 'Z');
const resetOf = (paths?: string[]): FieldSet | undefined => (paths ? FieldSet.of(...paths.map((p) => pathOf(...p.split('.')))) : undefined);

function run(kind: keyof typeof kinds, live: KubeObject | null, step: Step, i: number): KubeObject {
  const ctx = {
    schema: schemaOf(kinds[kind]),
    resolve,
    types,
    apiVersion: step.apiVersion ?? 'v1',
    subresource: step.subresource,
    time: time(i),
    resetFields: resetOf(step.resetFields),
  };
  if (step.op === 'apply') return apply({ ...ctx, live, config: step.object, manager: step.manager, force: !!step.force }).object;
  // An update only reads the live object (PUT hands it the current object itself, not a copy):
  // frozen, any write to it would throw.
  return update({ ...ctx, live: live && deepFreeze(structuredClone(live)), updated: step.object as KubeObject, manager: step.manager }).object;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

function resetTo(obj: KubeObject, previous: KubeObject | null, fields: string[]): KubeObject {
  const copy = structuredClone(obj) as Record<string, unknown>;
  for (const f of fields) {
    if (!previous) continue; // a create keeps what the strategy left (kube stores `status: {}`)
    if (f in previous) copy[f] = structuredClone(previous[f]);
    else delete copy[f];
  }
  return copy as KubeObject;
}

describe.each(scenarios)('$name', ({ kind, initial, steps }) => {
  it('runs every step as documented', () => {
    let live = (initial ?? null) as KubeObject | null;
    steps.forEach((step, i) => {
      let result: KubeObject | undefined;
      let error: unknown;
      try {
        result = run(kind, live, step, i);
      } catch (e) {
        error = e;
      }
      const exp = step.expect;
      if (exp?.error) {
        expect(error).toBeInstanceOf(ApiError);
        const status = (error as ApiError).status;
        expect({ code: status.code, message: status.message }).toEqual({ code: exp.error.code, message: exp.error.message });
        if (exp.error.causes) expect(status.details?.causes).toEqual(exp.error.causes);
        return; // a failed step leaves the object as it was
      }
      if (error) throw error;
      const obj = result as KubeObject;
      if (exp?.managedFields !== undefined) {
        const got = (obj.metadata.managedFields ?? []).map((e) => {
          const row: unknown[] = [e.manager, e.operation, e.apiVersion, JSON.stringify(e.fieldsV1)];
          if (e.subresource) row.push(e.subresource);
          return row;
        });
        expect(got).toEqual(exp.managedFields ?? []);
        for (const e of obj.metadata.managedFields ?? []) {
          const timed = !exp.untimed?.includes(e.manager ?? '');
          expect(Object.keys(e)).toEqual(['manager', 'operation', 'apiVersion', ...(timed ? ['time'] : []), 'fieldsType', 'fieldsV1', ...(e.subresource ? ['subresource'] : [])]);
          expect(fieldsV1String(fieldsV1ToFieldSet(e.fieldsV1))).toBe(JSON.stringify(e.fieldsV1));
        }
      }
      if (exp?.object) {
        const { managedFields: _mf, ...meta } = obj.metadata;
        expect({ ...obj, metadata: meta }).toEqual(exp.object);
      }
      // The registry's strategy resets these fields to their previous values in the stored object.
      live = step.resetFields ? resetTo(obj, live, step.resetFields) : obj;
    });
  });
});
