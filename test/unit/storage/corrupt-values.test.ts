import { jsonCodec } from '../../../src/storage';
import { CorruptObjectsError, CorruptValue, corruptListError, corruptReadError, corruptWatchError, corruptWriteError } from '../../../src/storage/corrupt';
import { watchErrorStatus } from '../../../src/storage/errors';

const off = { gate: false, keyPrefix: '/registry' };
const on = { gate: true, keyPrefix: '/registry' };
const bad = new CorruptValue('/registry/secrets/ns/s', 7n, 'undecodable', 'boom');
const locked = new CorruptValue('/registry/secrets/ns/k', 9n, 'untransformable', 'no key');

describe('errors about values that cannot be read back, in kube 1.32 wording', () => {
  test('gate off: the plain error everywhere (the transformer failure names the key, as GetList does)', () => {
    for (const make of [corruptReadError, corruptWriteError]) {
      expect(make(bad, off)).toMatchObject({ code: 'Undecodable', message: 'boom' });
      expect(make(locked, off)).toMatchObject({ code: 'Undecodable', message: 'unable to transform key "/registry/secrets/ns/k": no key' });
    }
    expect(corruptListError([bad, locked], false, off)).toMatchObject({ code: 'Undecodable', message: 'boom' });
    expect(corruptWatchError(bad, true, off)).toMatchObject({ code: 'Undecodable', message: 'boom' });
  });

  test("gate on: a get names the registry key (no etcd prefix); transformer failures report revision 0, as kube's corruptObjectError", () => {
    expect(corruptReadError(bad, on)).toMatchObject({
      code: 'CorruptObject',
      message: 'StorageError: corrupt object, Code: 7, Key: /secrets/ns/s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=7: boom',
    });
    expect(corruptWriteError(locked, on)).toMatchObject({ code: 'Undecodable', message: 'data from the storage is not transformable revision=0: no key' });
  });

  test('gate on: a list gathers every value with its full key', () => {
    const e = corruptListError([bad, locked], true, on);
    expect(e).toBeInstanceOf(CorruptObjectsError);
    expect((e as CorruptObjectsError).causes).toEqual([
      { key: bad.key, message: `StorageError: corrupt object, Code: 7, Key: ${bad.key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=7: boom` },
      { key: locked.key, message: `StorageError: corrupt object, Code: 7, Key: ${locked.key}, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: no key` },
    ]);
    expect((e as CorruptObjectsError).truncated).toBe(true);
  });

  test("gate on: a watch that sees a corrupt value deleted ends with StorageReadError; other events with InternalError", () => {
    expect(watchErrorStatus(corruptWatchError(bad, true, on))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'saw a DELETED event, but object data is corrupt - object not decodable revision=7: boom',
      reason: 'StorageReadError',
      code: 500,
    });
    expect(watchErrorStatus(corruptWatchError(bad, false, on))).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: object not decodable revision=7: boom' });
  });
});

describe("the JSON storage codec refuses what is no object, with the words of kube's json serializer", () => {
  const reject = (text: string): string => {
    const data = Buffer.from(text);
    let err: unknown;
    try {
      jsonCodec.decode(data, 1n);
    } catch (e) {
      err = e;
    }
    expect(err).toBeDefined();
    return jsonCodec.decodeErrorText?.(data, err) ?? '';
  };

  test.each([
    ['garbage{{', "couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value"],
    ['{"kind":', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
    ['[1]', `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`],
    ['null', "Object 'Kind' is missing in 'null'"],
  ])('%s', (text, words) => {
    expect(reject(text)).toBe(words);
  });

  test('an object decodes, stamped with the revision', () => {
    expect(jsonCodec.decode(Buffer.from('{"kind":"Secret","apiVersion":"v1"}'), 5n).metadata).toEqual({ resourceVersion: '5' });
  });
});
