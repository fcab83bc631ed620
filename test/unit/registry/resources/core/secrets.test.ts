/** Secret strategy: stringData merge, ValidateSecret / ValidateSecretUpdate messages (kube-facts §1.6, §4). */
import { fieldErrorString, KubeObject, RequestContext } from '../../../../../src/api';
import { secrets, validateSecret, validateSecretUpdate } from '../../../../../src/registry/resources/core/secrets';

const ctx: RequestContext = { namespace: 'ns', warnings: [], dryRun: false, now: () => new Date() };
const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (extra: Partial<KubeObject> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', ...extra }) as KubeObject;
const render = (errs: ReturnType<typeof validateSecret>) => errs.map(fieldErrorString);

test('prepareForCreate merges stringData over data, drops it, and defaults the type', () => {
  const obj = secret({ type: undefined, data: { a: b64('1'), b: b64('2') }, stringData: { b: 'two', c: 'three' } } as Partial<KubeObject>);
  secrets.strategy.prepareForCreate(ctx, obj);
  expect(obj).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { a: b64('1'), b: b64('two'), c: b64('three') } });
});

test('prepareForUpdate merges too (the patch has already been applied)', () => {
  const obj = secret({ data: { a: b64('1') }, stringData: { a: 'x' } } as Partial<KubeObject>);
  secrets.strategy.prepareForUpdate(ctx, obj, secret());
  expect(obj.data).toEqual({ a: b64('x') });
  expect(obj.stringData).toBeUndefined();
});

test.each<[string, Partial<KubeObject>, string[]]>([
  ['Opaque, no data', {}, []],
  ['bad key', { data: { 'a b': '' } }, [`data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`]],
  ['key ".."', { data: { '..': '' } }, [`data[..]: Invalid value: "..": must not be '..'`]],
  ['key "..x"', { data: { '..x': '' } }, [`data[..x]: Invalid value: "..x": must not start with '..'`]],
  ['1 MiB + 1', { data: { a: Buffer.alloc(1048577).toString('base64') } }, ['data: Too long: may not be more than 1048576 bytes']],
  ['exactly 1 MiB', { data: { a: Buffer.alloc(1048576).toString('base64') } }, []],
  ['tls without keys', { type: 'kubernetes.io/tls' }, ['data[tls.crt]: Required value', 'data[tls.key]: Required value']],
  ['tls with empty keys', { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }, []],
  ['basic-auth without keys', { type: 'kubernetes.io/basic-auth' }, ['data[username]: Required value', 'data[password]: Required value']],
  ['basic-auth with an empty username', { type: 'kubernetes.io/basic-auth', data: { username: '' } }, []],
  ['ssh-auth with an empty key', { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }, ['data[ssh-privatekey]: Required value']],
  ['dockercfg missing', { type: 'kubernetes.io/dockercfg' }, ['data[.dockercfg]: Required value']],
  ['dockercfg not JSON', { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('{"a" 1}') } }, [`data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character '1' after object key`]],
  ['dockerconfigjson a string', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('"x"') } }, ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal string into Go value of type map[string]interface {}']],
  ['dockerconfigjson null', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('null') } }, []],
  ['service-account-token without the annotation', { type: 'kubernetes.io/service-account-token' }, ['metadata.annotations[kubernetes.io/service-account.name]: Required value']],
  ['bootstrap token: not validated', { type: 'bootstrap.kubernetes.io/token' }, []],
])('validateSecret: %s', (_name, extra, expected) => {
  expect(render(validateSecret(secret(extra)))).toEqual(expected);
});

test.each<[string, Partial<KubeObject>, Partial<KubeObject>, string[]]>([
  ['type change', { type: 'Opaque' }, { type: 'example.com/x' }, ['type: Invalid value: "example.com/x": field is immutable']],
  ['immutable data change', { immutable: true, data: { a: b64('1') } }, { immutable: true, data: { a: b64('2') } }, ['data: Forbidden: field is immutable when `immutable` is set']],
  ['unsetting immutable', { immutable: true }, { immutable: false }, ['immutable: Forbidden: field is immutable when `immutable` is set']],
  ['removing immutable and data', { immutable: true, data: { a: '' } }, {}, ['immutable: Forbidden: field is immutable when `immutable` is set', 'data: Forbidden: field is immutable when `immutable` is set']],
  ['same data in another key order', { immutable: true, data: { a: '', b: 'Yg==' } }, { immutable: true, data: { b: 'Yg==', a: '' } }, []],
  ['making a mutable secret immutable', {}, { immutable: true, data: { a: '' } }, []],
])('validateSecretUpdate: %s', (_name, old, next, expected) => {
  expect(render(validateSecretUpdate(secret(next), secret(old)))).toEqual(expected);
});

test('TLS warnings come from the key pair check', () => {
  const obj = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } });
  expect(secrets.strategy.warningsOnCreate(ctx, obj)).toEqual(['tls: failed to find any PEM data in certificate input']);
  expect(secrets.strategy.warningsOnCreate(ctx, secret())).toEqual([]);
});
