/**
 * A JSON list assembled from per-item encodings must be byte for byte the list encoded whole, as
 * kube writes it: items without kind/apiVersion, kind/apiVersion/metadata first, a trailing newline.
 * Also the list item memo of EncodingCache: identity, budget, generations, and the markSharedItems tag.
 */
import { hasSharedItems, markSharedItems, type KubeList, type KubeObject } from '../../../src/api';
import { encodeBody } from '../../../src/endpoints/codec';
import { EncodingCache } from '../../../src/endpoints/encoding-cache';
import { encodeJsonList } from '../../../src/endpoints/list-encoding';
import { GenericStore } from '../../../src/registry/generic-store';

const secret = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  kind: 'Secret',
  apiVersion: 'v1',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '12', labels: { app: 'x' } },
  type: 'Opaque',
  data: { k: 'dmFsdWU=' },
  ...extra,
});

const wholeEncoding = (list: KubeList): Buffer => encodeBody(GenericStore.stripItemTypes(list), 'json', false);
const itemJson = (o: KubeObject): Buffer => {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return Buffer.from(JSON.stringify(rest));
};

const cases: Array<[string, KubeList]> = [
  ['no items', { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] }],
  ['one item', { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [secret('a')] }],
  [
    'several items, continue and remainingItemCount',
    { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: 'tok"en', remainingItemCount: 3 }, items: [secret('a'), secret('b'), secret('c')] },
  ],
  [
    'non-ASCII, escapes and emoji in items',
    {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '1' },
      items: [
        { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'u', annotations: { 'a/b': 'é ü 日本 😀 "q" \\ \n \u0001 <>&' } }, data: { x: '\u2028' } },
      ],
    },
  ],
  ['items without kind/apiVersion', { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '2' }, items: [{ metadata: { name: 'bare' } } as KubeObject] }],
  ['undefined members are left out', { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '3', continue: undefined }, items: [secret('a', { type: undefined })] }],
  [
    'keys in an unusual order, and one after items',
    { items: [secret('a')], metadata: { resourceVersion: '4' }, apiVersion: 'v1', kind: 'SecretList', extra: { z: 1 } } as unknown as KubeList,
  ],
  ['no metadata', { kind: 'SecretList', apiVersion: 'v1', items: [secret('a')] } as unknown as KubeList],
];

describe('encodeJsonList', () => {
  test.each(cases)('%s: identical to encoding the stripped list whole', (_name, list) => {
    const assembled = encodeJsonList(list, itemJson);
    const whole = wholeEncoding(list);
    expect(assembled.toString('utf8')).toBe(whole.toString('utf8'));
    expect(assembled.equals(whole)).toBe(true);
  });

  test('the memo’s item encodings give the same bytes', () => {
    const cache = new EncodingCache();
    const list: KubeList = { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [secret('a'), secret('b')] };
    const first = encodeJsonList(list, (o) => cache.listItemJsonOf(o));
    const second = encodeJsonList(list, (o) => cache.listItemJsonOf(o));
    expect(first.equals(wholeEncoding(list))).toBe(true);
    expect(second.equals(first)).toBe(true);
  });
});

describe('EncodingCache list items', () => {
  test('one encoding per object, without kind and apiVersion', () => {
    const cache = new EncodingCache();
    const o = secret('a');
    const b = cache.listItemJsonOf(o);
    expect(JSON.parse(b.toString('utf8'))).toEqual({ metadata: o.metadata, type: 'Opaque', data: { k: 'dmFsdWU=' } });
    expect(b.toString('utf8').startsWith('{"metadata":')).toBe(true);
    expect(cache.listItemJsonOf(o)).toBe(b);
    // another object with equal content is another entry
    expect(cache.listItemJsonOf(secret('a'))).not.toBe(b);
  });

  test('a zero budget keeps nothing and never fits a list', () => {
    const cache = new EncodingCache({ listItemBudgetBytes: 0 });
    const o = secret('a');
    expect(cache.listItemJsonOf(o)).not.toBe(cache.listItemJsonOf(o));
    expect(cache.fitsListItemMemo(1)).toBe(false);
  });

  test('the budget holds two generations: older entries are dropped, recent ones kept', () => {
    const size = Buffer.byteLength(itemJson(secret('o-00')));
    // Two items per generation.
    const cache = new EncodingCache({ listItemBudgetBytes: size * 4 + 1 });
    const objs = Array.from({ length: 6 }, (_, i) => secret(`o-0${i}`));
    const first = objs.map((o) => cache.listItemJsonOf(o));
    // o-04, o-05 are current, o-02, o-03 previous: still memoised; o-00, o-01 are gone.
    expect(cache.listItemJsonOf(objs[5] as KubeObject)).toBe(first[5]);
    expect(cache.listItemJsonOf(objs[4] as KubeObject)).toBe(first[4]);
    expect(cache.listItemJsonOf(objs[3] as KubeObject)).toBe(first[3]);
    expect(cache.listItemJsonOf(objs[0] as KubeObject)).not.toBe(first[0]);
  });

  test('fitsListItemMemo sizes lists by the mean item encoded so far', () => {
    const size = Buffer.byteLength(itemJson(secret('o-00')));
    const cache = new EncodingCache({ listItemBudgetBytes: size * 20 });
    expect(cache.fitsListItemMemo(1_000_000)).toBe(true); // nothing known yet
    cache.listItemJsonOf(secret('o-00'));
    expect(cache.fitsListItemMemo(10)).toBe(true);
    expect(cache.fitsListItemMemo(11)).toBe(false);
  });
});

describe('markSharedItems', () => {
  test('tags the array only, invisibly to JSON and iteration', () => {
    const items = [secret('a')];
    expect(hasSharedItems(items)).toBe(false);
    expect(markSharedItems(items)).toBe(items);
    expect(hasSharedItems(items)).toBe(true);
    expect(JSON.stringify(items)).toBe(JSON.stringify([secret('a')]));
    expect(Object.keys(items)).toEqual(['0']);
    expect(hasSharedItems(items.slice())).toBe(false);
    expect(hasSharedItems(items.map((i) => i))).toBe(false);
  });
});
