import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { WatchFrameFlusher, WatchFrameQueue, chunkOf, h2StreamBufferBytes } from '../../../src/endpoints/watch-frames';

describe('chunkOf', () => {
  it.each([
    ['{"type":"ADDED"}\n', '11\r\n{"type":"ADDED"}\n\r\n'],
    ['x'.repeat(255), `ff\r\n${'x'.repeat(255)}\r\n`],
  ])('frames %j as one HTTP/1.1 chunk (hex size, CRLF, data, CRLF)', (frame, chunk) => {
    expect(chunkOf(Buffer.from(frame)).toString('latin1')).toBe(chunk);
  });

  it('keeps binary frames byte for byte', () => {
    const frame = Buffer.from([0, 0, 0, 3, 0xff, 0x0d, 0x0a]);
    expect(chunkOf(frame)).toEqual(Buffer.concat([Buffer.from('7\r\n'), frame, Buffer.from('\r\n')]));
  });
});

/**
 * A response over HTTP/1.1 (chunked, written to its socket), HTTP/2 (written to its stream) or
 * HTTP/1.0 (written through the response); `writes` records each write, `sink.full` makes writes
 * report a full buffer, `sink.emit('drain')` drains it.
 */
function fakeResponse(protocol: 'h1' | 'h2' | 'h1.0') {
  const writes: Buffer[] = [];
  const sink = Object.assign(new EventEmitter(), {
    destroyed: false,
    writableEnded: false,
    writableLength: 0,
    full: false,
    write(b: Buffer): boolean {
      writes.push(b);
      return !sink.full;
    },
  });
  const res = protocol === 'h1.0' ? sink : { socket: sink, stream: protocol === 'h2' ? sink : undefined, chunkedEncoding: protocol === 'h1' };
  const req = { httpVersionMajor: protocol === 'h2' ? 2 : 1 };
  return { req: req as unknown as Request, res: res as unknown as Response, writes, sink };
}

const nextTurn = () => new Promise((r) => setImmediate(r));

describe('WatchFrameQueue', () => {
  let flusher: WatchFrameFlusher;
  beforeEach(() => {
    flusher = new WatchFrameFlusher();
  });
  const a = Buffer.from('{"type":"ADDED"}\n');
  const b = Buffer.from('{"type":"MODIFIED"}\n');

  it('writes the frames queued in one turn as one write, after the turn', async () => {
    const { req, res, writes } = fakeResponse('h2');
    const q = new WatchFrameQueue(flusher, req, res, () => undefined);
    q.push(a);
    q.push(b);
    expect(writes).toHaveLength(0);
    await nextTurn();
    expect(writes).toEqual([Buffer.concat([a, b])]);
    q.push(a);
    await nextTurn();
    expect(writes[1]).toBe(a); // a lone frame goes out as is, not copied
  });

  it('sends an HTTP/1.1 batch as one chunk, and shares it between watches that queued the same frames', async () => {
    const one = fakeResponse('h1');
    const two = fakeResponse('h1');
    const q1 = new WatchFrameQueue(flusher, one.req, one.res, () => undefined);
    const q2 = new WatchFrameQueue(flusher, two.req, two.res, () => undefined);
    for (const q of [q1, q2]) {
      q.push(a);
      q.push(b);
    }
    await nextTurn();
    expect(one.writes).toEqual([chunkOf(Buffer.concat([a, b]))]);
    expect(two.writes[0]).toBe(one.writes[0]);
  });

  it('reuses a single frame’s chunk across turns', async () => {
    const one = fakeResponse('h1');
    const q = new WatchFrameQueue(flusher, one.req, one.res, () => undefined);
    q.push(a);
    await nextTurn();
    q.push(a);
    await nextTurn();
    expect(one.writes[0]).toEqual(chunkOf(a));
    expect(one.writes[1]).toBe(one.writes[0]);
  });

  it('flush() writes at once (a watch ending), and the turn then has nothing left to write', async () => {
    const { req, res, writes } = fakeResponse('h1.0');
    let checked = 0;
    const q = new WatchFrameQueue(flusher, req, res, () => checked++);
    q.push(a);
    q.flush();
    expect(writes).toEqual([a]);
    expect(checked).toBe(1);
    await nextTurn();
    expect(writes).toHaveLength(1);
    expect(checked).toBe(1);
  });

  it('tells the watch how many bytes its connection holds unsent after each write, apart from that write', async () => {
    const { req, res, sink } = fakeResponse('h2');
    sink.writableLength = 42 + a.length;
    const seen: number[] = [];
    const q = new WatchFrameQueue(flusher, req, res, (unsent) => seen.push(unsent));
    q.push(a);
    await nextTurn();
    expect(seen).toEqual([42]);
    expect(flusher.unsentBytes).toBe(42 + a.length);
  });

  it('abort() drops the queued frames, closes the connection and leaves the server-wide account', async () => {
    const { req, res, sink, writes } = fakeResponse('h1');
    const destroyed: boolean[] = [];
    Object.assign(sink, { destroy: () => destroyed.push(true) });
    sink.full = true;
    sink.writableLength = 500;
    const q = new WatchFrameQueue(flusher, req, res, () => undefined);
    q.push(a);
    await nextTurn();
    q.push(b);
    expect(flusher.unsentBytes).toBe(500 + b.length);
    q.abort();
    expect(destroyed).toEqual([true]);
    expect(flusher.unsentBytes).toBe(0);
    expect(flusher.ended.backlog).toBe(1);
    sink.emit('drain');
    await nextTurn();
    expect(writes).toHaveLength(1);
  });

  it('past the budget ends the watches with the largest backlogs until the total is under it', async () => {
    const budgeted = new WatchFrameFlusher({ budgetBytes: 1000 });
    const ended: string[] = [];
    const make = (name: string, bytes: number) => {
      const f = fakeResponse('h2');
      f.sink.full = true;
      Object.assign(f.sink, { close: () => undefined, destroy: () => ((f.sink.destroyed = true), ended.push(name)), session: undefined });
      const q = new WatchFrameQueue(budgeted, f.req, f.res, () => undefined, () => ended.push(`${name} told`));
      f.sink.writableLength = bytes;
      return q;
    };
    const small = make('small', 300);
    const big = make('big', 600);
    small.push(a);
    big.push(a);
    await nextTurn();
    expect(ended).toEqual([]);
    const third = make('third', 200);
    third.push(a);
    await nextTurn();
    expect(ended).toEqual(['big', 'big told']);
    expect(budgeted.ended.budget).toBe(1);
    expect(budgeted.unsentBytes).toBe(500);
  });

  it('writes nothing to a connection already gone', async () => {
    const { req, res, writes, sink } = fakeResponse('h2');
    sink.destroyed = true;
    const q = new WatchFrameQueue(flusher, req, res, () => undefined);
    q.push(a);
    await nextTurn();
    expect(writes).toHaveLength(0);
  });

  it('holds frames while the connection is full and writes them as one batch when it drains', async () => {
    const { req, res, writes, sink } = fakeResponse('h1');
    const backlog: number[] = [];
    const q = new WatchFrameQueue(flusher, req, res, (unsent) => backlog.push(unsent));
    sink.full = true;
    sink.writableLength = 100;
    q.push(a);
    await nextTurn();
    expect(writes).toEqual([chunkOf(a)]);
    q.push(b);
    q.push(a);
    await nextTurn();
    expect(writes).toHaveLength(1); // nothing more until it drains
    // Apart from the latest write (a): only what is held beyond it counts against the watch.
    expect(backlog).toEqual([100 - a.length, 100 - a.length + b.length, 100 + b.length]);
    sink.full = false;
    sink.writableLength = 0;
    sink.emit('drain');
    await nextTurn();
    expect(writes).toEqual([chunkOf(a), chunkOf(Buffer.concat([b, a]))]);
  });

  it('keeps writing to an HTTP/2 stream past its high-water mark, and holds frames once it holds more than h2StreamBufferBytes', async () => {
    const { req, res, writes, sink } = fakeResponse('h2');
    const backlog: number[] = [];
    const q = new WatchFrameQueue(flusher, req, res, (unsent) => backlog.push(unsent));
    sink.full = true; // write() says false, as a stream does past 16 KiB
    sink.writableLength = h2StreamBufferBytes;
    q.push(a);
    await nextTurn();
    q.push(b);
    await nextTurn();
    expect(writes).toEqual([a, b]);
    sink.writableLength = h2StreamBufferBytes + 1;
    q.push(a);
    await nextTurn();
    q.push(b);
    await nextTurn();
    expect(writes).toEqual([a, b, a]); // nothing more until it drains
    expect(backlog.at(-1)).toBe(h2StreamBufferBytes + 1 + b.length - a.length);
    sink.writableLength = 0;
    sink.emit('drain');
    await nextTurn();
    expect(writes).toEqual([a, b, a, b]);
  });

  it('flush() writes even to a full connection (the watch is ending)', async () => {
    const { req, res, writes, sink } = fakeResponse('h1');
    const q = new WatchFrameQueue(flusher, req, res, () => undefined);
    sink.full = true;
    q.push(a);
    await nextTurn();
    q.push(b);
    q.flush();
    expect(writes).toEqual([chunkOf(a), chunkOf(b)]);
  });
});
