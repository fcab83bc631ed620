/**
 * kube's own strategic merge patch test data (apimachinery@v0.32.13
 * pkg/util/strategicpatch/patch_test.go, converted to JSON in fixtures/) applied with our
 * implementation: each case's two-way patch on the original and three-way patch on the current
 * object must give kube's expected result, or kube's expected error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isApiError } from '../../../src/api';
import { Schema, applyStrategicMergePatch, componentsResolver } from '../../../src/patch';

type Doc = Record<string, unknown> | null;
interface RawCase {
  description: string;
  original?: Doc;
  twoWay?: Doc;
  modified?: Doc;
  twoWayResult?: Doc;
  current?: Doc;
  threeWay?: Doc;
  result?: Doc;
  expectedError?: string;
}
interface Fixture {
  raw: RawCase[];
  customRaw: RawCase[];
  custom: RawCase[];
  create: RawCase[];
}

const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'strategic-merge-patch-cases.json'), 'utf8')) as Fixture;

// The test type of patch_test.go (MergeItem / RetainKeysMergeItem) as an OpenAPI v3 schema.
const ref = (name: string): Schema => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], default: {} });
const str: Schema = { type: 'string' };
const intList: Schema = { type: 'array', items: { type: 'integer' } };
const schemas: Record<string, Schema> = {
  mergeItem: {
    type: 'object',
    properties: {
      name: str,
      value: str,
      other: str,
      mergingList: { type: 'array', items: ref('mergeItem'), 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      nonMergingList: { type: 'array', items: { $ref: '#/components/schemas/mergeItem' } },
      mergingIntList: { ...intList, 'x-kubernetes-patch-strategy': 'merge' },
      nonMergingIntList: intList,
      mergeItemPtr: { ...ref('mergeItem'), 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      simpleMap: { type: 'object', additionalProperties: str },
      replacingItem: { ...ref('RawExtension'), 'x-kubernetes-patch-strategy': 'replace' },
      retainKeysMap: { ...ref('retainKeysMergeItem'), 'x-kubernetes-patch-strategy': 'retainKeys' },
      retainKeysMergingList: {
        type: 'array',
        items: { $ref: '#/components/schemas/mergeItem' },
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
        'x-kubernetes-patch-merge-key': 'name',
      },
    },
  },
  retainKeysMergeItem: {
    type: 'object',
    properties: {
      name: str,
      value: str,
      other: str,
      simpleMap: { type: 'object', additionalProperties: str },
      mergingList: { type: 'array', items: { $ref: '#/components/schemas/mergeItem' }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      nonMergingList: { type: 'array', items: { $ref: '#/components/schemas/mergeItem' } },
      mergingIntList: { ...intList, 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  RawExtension: { type: 'object' },
};
const resolve = componentsResolver(schemas);
const root: Schema = { $ref: '#/components/schemas/mergeItem' };

const apply = (original: unknown, patch: unknown) => applyStrategicMergePatch(original, patch, root, resolve);

function errorText(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isApiError(e)) return e.status.message ?? '';
    throw e;
  }
  return '<no error>';
}

/** The test-only sortMergeListsByName of patch_test.go: merge lists sorted by key, scalars deduplicated and sorted. */
function sortMergeLists(v: unknown, schema: Schema | undefined): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(v)) {
    const prop = schema?.properties?.[k];
    const sub = resolve(prop?.allOf?.[0]?.$ref ?? prop?.$ref ?? '') ?? undefined;
    if (Array.isArray(child)) {
      const strategy = prop?.['x-kubernetes-patch-strategy'] ?? '';
      if (!strategy.split(',').includes('merge') || child.length === 0) {
        out[k] = child;
        continue;
      }
      const items = prop?.items;
      const itemSchema = resolve(items?.allOf?.[0]?.$ref ?? items?.$ref ?? '');
      if (typeof child[0] === 'object' && child[0] !== null) {
        const key = prop?.['x-kubernetes-patch-merge-key'] ?? 'name';
        out[k] = child
          .map((x) => sortMergeLists(x, itemSchema))
          .sort((a, b) => String((a as Record<string, unknown>)[key]).localeCompare(String((b as Record<string, unknown>)[key])));
      } else {
        out[k] = [...new Set(child)].sort((a, b) => String(a).localeCompare(String(b)));
      }
    } else {
      out[k] = sortMergeLists(child, sub);
    }
  }
  return out;
}

describe('kube raw strategic merge patch cases (exact order)', () => {
  describe.each(fixture.raw.map((c) => [c.description, c] as const))('%s', (_d, c) => {
    it('two-way patch applied to original', () => {
      expect(apply(c.original ?? null, c.twoWay ?? null)).toEqual(c.twoWayResult ?? c.modified);
    });
    const conflict = c.description.includes('conflict');
    (conflict && !c.result ? it.skip : it)('three-way patch applied to current', () => {
      expect(apply(c.current ?? null, c.threeWay ?? null)).toEqual(c.result);
    });
  });
});

describe('kube custom raw cases (apply only)', () => {
  it.each(fixture.customRaw.map((c) => [c.description, c] as const))('%s', (_d, c) => {
    if (c.expectedError) {
      expect(errorText(() => apply(c.original ?? null, c.twoWay ?? null))).toContain(c.expectedError);
    } else {
      expect(apply(c.original ?? null, c.twoWay ?? null)).toEqual(c.modified ?? null);
    }
  });
});

describe('kube custom cases', () => {
  it.each(fixture.custom.map((c) => [c.description, c] as const))('%s', (_d, c) => {
    const got = apply(c.original ?? {}, c.twoWay ?? {});
    expect(sortMergeLists(got, schemas.mergeItem)).toEqual(sortMergeLists(c.modified ?? {}, schemas.mergeItem));
  });
});

describe('kube create cases (merge lists compared sorted, as kube does)', () => {
  describe.each(fixture.create.map((c) => [c.description, c] as const))('%s', (_d, c) => {
    it('two-way', () => {
      const got = apply(c.original ?? {}, c.twoWay ?? {});
      expect(sortMergeLists(got, schemas.mergeItem)).toEqual(sortMergeLists(c.twoWayResult ?? c.modified ?? {}, schemas.mergeItem));
    });
    const conflict = c.description.includes('conflict');
    (conflict && !c.result ? it.skip : it)('three-way', () => {
      const got = apply(c.current ?? {}, c.threeWay ?? {});
      expect(sortMergeLists(got, schemas.mergeItem)).toEqual(sortMergeLists(c.result ?? {}, schemas.mergeItem));
    });
  });
});
