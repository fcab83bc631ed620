import * as protobuf from 'protobufjs';
import { ProtoWriter } from '../../../../src/storage/codec/proto-writer';
import { readMessage } from '../../../../src/storage/codec/proto-json-reader';
import { writeMessage } from '../../../../src/storage/codec/proto-json-writer';
import { ProtobufSchema } from '../../../../src/storage/codec/protobuf-schema';
import { formatRfc3339, GO_ZERO_TIME_SECONDS, isZeroTime, parseRfc3339 } from '../../../../src/storage/codec/protobuf-time';

describe('parseRfc3339', () => {
  test.each<[string, { seconds: number; nanos: number } | null]>([
    ['1970-01-01T00:00:00Z', { seconds: 0, nanos: 0 }],
    ['2006-01-02T15:04:05Z', { seconds: 1136214245, nanos: 0 }],
    ['2006-01-02T15:04:05.5Z', { seconds: 1136214245, nanos: 500000000 }],
    ['2006-01-02T15:04:05.123456789Z', { seconds: 1136214245, nanos: 123456789 }],
    ['2006-01-02T08:04:05-07:00', { seconds: 1136214245, nanos: 0 }],
    ['2006-01-02t15:04:05z', { seconds: 1136214245, nanos: 0 }],
    ['0001-01-01T00:00:00Z', { seconds: GO_ZERO_TIME_SECONDS, nanos: 0 }],
    ['2024-02-29T00:00:00Z', { seconds: 1709164800, nanos: 0 }],
    ['2023-02-29T00:00:00Z', null], // no such day
    ['2024-13-01T00:00:00Z', null],
    ['2024-01-01T24:00:00Z', null],
    ['2024-01-01T00:60:00Z', null],
    ['2024-01-01T00:00:00', null], // a zone is required
    ['2024-01-01 00:00:00Z', null],
    ['', null],
  ])('%s', (text, expected) => {
    expect(parseRfc3339(text)).toEqual(expected);
  });
});

describe('formatRfc3339', () => {
  test.each<[number, number | undefined, string | null]>([
    [0, undefined, '1970-01-01T00:00:00Z'],
    [1136214245, undefined, '2006-01-02T15:04:05Z'],
    [1136214245, 0, '2006-01-02T15:04:05.000000Z'],
    [1136214245, 42, '2006-01-02T15:04:05.000042Z'],
    [-1, undefined, '1969-12-31T23:59:59Z'],
    [253402300799, undefined, '9999-12-31T23:59:59Z'],
    [253402300800, undefined, null], // year 10000: Go's MarshalJSON refuses it
  ])('%d %s', (seconds, micros, expected) => {
    expect(formatRfc3339(seconds, micros)).toBe(expected);
  });

  test('agrees with Date for a spread of instants (leap years, centuries, negative seconds)', () => {
    for (let s = -62135596800; s < 253402300800; s += 86400 * 97 + 3607) {
      const iso = new Date(s * 1000).toISOString().replace(/\.000Z$/, 'Z');
      expect(formatRfc3339(s)).toBe(iso);
      expect(parseRfc3339(iso)).toEqual({ seconds: s, nanos: 0 });
    }
  });

  test('isZeroTime is only Go\'s zero time', () => {
    expect(isZeroTime({ seconds: GO_ZERO_TIME_SECONDS, nanos: 0 })).toBe(true);
    expect(isZeroTime({ seconds: 0, nanos: 0 })).toBe(false);
  });
});

describe('MicroTime through the mapper', () => {
  // No served kind uses MicroTime yet (Events do); exercise it with a two-field holder message.
  const root = protobuf.parse(
    `syntax = "proto2";
     package k8s.io.apimachinery.pkg.apis.meta.v1;
     message MicroTime { optional int64 seconds = 1; optional int32 nanos = 2; }
     message Holder { optional MicroTime t = 1; }`,
    { keepCase: true },
  ).root;
  root.resolveAll();
  const plan = new ProtobufSchema(root).plan('k8s.io.apimachinery.pkg.apis.meta.v1.Holder');
  const encode = (json: Record<string, unknown>): Buffer => {
    const w = new ProtoWriter();
    writeMessage(w, plan, json, 'Holder');
    return w.finish();
  };

  test.each([
    ['2024-01-02T03:04:05.123456Z', '2024-01-02T03:04:05.123456Z', 123456000],
    ['2024-01-02T03:04:05.1234567Z', '2024-01-02T03:04:05.123456Z', 123456000], // truncated to µs
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000000Z', 0],
  ])('%s → %s', (input, output, nanos) => {
    const bytes = encode({ t: input });
    const seconds = Math.floor(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
    const ts = protobuf.Writer.create().uint32(8).int64(seconds).uint32(16).int32(nanos).finish();
    const expected = protobuf.Writer.create().uint32(10).bytes(ts).finish();
    expect(bytes.toString('hex')).toBe(Buffer.from(expected).toString('hex'));
    expect(readMessage(bytes, plan)).toStrictEqual({ t: output });
  });

  test('decoding truncates nanos to microseconds', () => {
    const ts = protobuf.Writer.create().uint32(8).int64(0).uint32(16).int32(999999999).finish();
    const bytes = protobuf.Writer.create().uint32(10).bytes(ts).finish();
    expect(readMessage(bytes, plan)).toStrictEqual({ t: '1970-01-01T00:00:00.999999Z' });
  });
});
