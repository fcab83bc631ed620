import * as protobuf from 'protobufjs';
import { ProtoWriter } from '../../../../src/storage/codec/proto-writer';

/** Drives ProtoWriter and protobufjs's Writer (an independent implementation) with the same ops. */
type Op = (w: ProtoWriter, p: protobuf.Writer) => void;

const str = (id: number, s: string): Op => (w, p) => {
  w.tag(id, 2).string(s);
  p.uint32((id << 3) | 2).string(s);
};
const int = (id: number, n: number): Op => (w, p) => {
  w.tag(id, 0).int(n);
  p.uint32(id << 3).int64(n);
};
const bool = (id: number, b: boolean): Op => (w, p) => {
  w.tag(id, 0).bool(b);
  p.uint32(id << 3).bool(b);
};
const bytes = (id: number, b: Buffer): Op => (w, p) => {
  w.tag(id, 2).bytes(b);
  p.uint32((id << 3) | 2).bytes(b);
};
const nested = (id: number, ops: Op[]): Op => (w, p) => {
  w.tag(id, 2).fork();
  p.uint32((id << 3) | 2).fork();
  for (const op of ops) op(w, p);
  w.ldelim();
  p.ldelim();
};

const cases: Array<[string, Op[]]> = [
  ['scalars', [str(1, 'a'), str(2, ''), int(3, 0), int(4, 300), int(5, 2 ** 40), int(6, -1), int(7, -(2 ** 31)), bool(8, true), bool(9, false)]],
  ['unicode strings', [str(1, 'ünïcødé ✓ 𝄞'), str(2, 'x'.repeat(200))]],
  ['large field numbers', [str(17, 'mf'), int(1000, 1)]],
  ['short nested', [nested(1, [str(1, 'n'), nested(2, [])])]],
  ['nested exactly 127 and 128 bytes', [nested(1, [bytes(1, Buffer.alloc(125, 1))]), nested(2, [bytes(1, Buffer.alloc(126, 2))])]],
  ['nested needing a 3-byte length', [nested(1, [bytes(1, Buffer.alloc(20000, 3)), nested(2, [bytes(1, Buffer.alloc(200, 4))])])]],
  ['deep nesting with growth', [nested(1, [nested(2, [nested(3, [str(1, 'z'.repeat(5000)), int(2, 7)]), str(4, 'tail')])])]],
];

test.each(cases)('%s: same bytes as protobufjs', (_name, ops) => {
  const w = new ProtoWriter(16);
  const p = protobuf.Writer.create();
  for (const op of ops) op(w, p);
  expect(w.finish().toString('hex')).toBe(Buffer.from(p.finish()).toString('hex'));
});

test('raw bytes are written verbatim', () => {
  expect(new ProtoWriter().raw(Buffer.from([0x6b, 0x38, 0x73, 0x00])).tag(1, 2).string('v').finish().toString('hex')).toBe('6b3873000a0176');
});

test('unbalanced fork/ldelim is a programmer error', () => {
  expect(() => new ProtoWriter().ldelim()).toThrow('ldelim without fork');
  expect(() => new ProtoWriter().fork().finish()).toThrow('unclosed fork');
});
