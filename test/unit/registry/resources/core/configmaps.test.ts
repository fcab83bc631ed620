/** ConfigMap strategy: ValidateConfigMap / ValidateConfigMapUpdate messages (kube-facts §1.6, §4). */
import { fieldErrorString, KubeObject } from '../../../../../src/api';
import { validateConfigMap, validateConfigMapUpdate } from '../../../../../src/registry/resources/core/configmaps';

const cm = (extra: Partial<KubeObject> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, ...extra }) as KubeObject;

test.each<[string, Partial<KubeObject>, string[]]>([
  ['empty', {}, []],
  ['a key in both maps', { data: { k: 'v' }, binaryData: { k: 'dg==' } }, ['data[k]: Invalid value: "k": duplicate of key present in binaryData', 'binaryData[k]: Invalid value: "k": duplicate of key present in data']],
  ['a bad binaryData key', { binaryData: { 'a/b': '' } }, [`binaryData[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`]],
  ['a 254-character key', { data: { ['k'.repeat(254)]: '' } }, [`data[${'k'.repeat(254)}]: Invalid value: "${'k'.repeat(254)}": must be no more than 253 characters`]],
  ['1 MiB exactly (UTF-8 bytes of data + decoded binaryData)', { data: { a: 'é'.repeat(262144) }, binaryData: { b: Buffer.alloc(524288).toString('base64') } }, []],
  ['one byte over', { data: { a: 'x'.repeat(524289) }, binaryData: { b: Buffer.alloc(524288).toString('base64') } }, [': Too long: may not be more than 1048576 bytes']],
])('validateConfigMap: %s', (_name, extra, expected) => {
  expect(validateConfigMap(cm(extra)).map(fieldErrorString)).toEqual(expected);
});

test.each<[string, Partial<KubeObject>, Partial<KubeObject>, string[]]>([
  ['mutable: anything goes', { data: { a: '1' } }, { data: { a: '2' } }, []],
  ['immutable: every frozen field, in kube’s order', { immutable: true, data: { a: '1' }, binaryData: { b: '' } }, { data: { a: '2' } }, [
    'immutable: Forbidden: field is immutable when `immutable` is set',
    'data: Forbidden: field is immutable when `immutable` is set',
    'binaryData: Forbidden: field is immutable when `immutable` is set',
  ]],
  ['immutable: unchanged', { immutable: true, data: { a: '1' } }, { immutable: true, data: { a: '1' } }, []],
])('validateConfigMapUpdate: %s', (_name, old, next, expected) => {
  expect(validateConfigMapUpdate(cm(next), cm(old)).map(fieldErrorString)).toEqual(expected);
});
