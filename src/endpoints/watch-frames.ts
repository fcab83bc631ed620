/**
 * How a watch response's event frames reach the connection.
 *
 * Fanning one event out to thousands of watchers is a write per watcher, so that write is kept to
 * the bare minimum and shared work is done once:
 * - Frames are queued per watch and written once per event-loop turn (one shared setImmediate for
 *   every watch). Events that arrive together (one etcd watch response, a burst of initial events,
 *   a backlog after a pause) leave as one write, so a server that falls behind catches up with
 *   fewer, larger writes instead of drowning in small ones. Within a turn, watchers that queued
 *   the same frames share one joined buffer.
 * - Over HTTP/1.1 a watch is a chunked body. Node's ServerResponse frames every write itself (a
 *   chunk-size line, the data, a CRLF: three writes and a string per watcher), so each batch goes
 *   to the socket as one complete chunk, `<hex size>\r\n<frames>\r\n`, built once and shared by every
 *   watcher that writes the same batch; res.end() still writes the last chunk.
 * - Over HTTP/2 the batch goes straight to the response's Http2Stream, past the compatibility
 *   layer's per-write bookkeeping.
 * Unchunked HTTP/1.x responses (HTTP/1.0) write through the response as usual.
 */
import type { Http2ServerResponse } from 'node:http2';
import type { Request, Response } from 'express';

/** The bytes of `frame` as one chunk of a chunked HTTP/1.1 body (`frame` must not be empty). */
export function chunkOf(frame: Buffer): Buffer {
  const head = `${frame.length.toString(16)}\r\n`;
  const out = Buffer.allocUnsafe(head.length + frame.length + 2);
  out.write(head, 0, 'latin1');
  frame.copy(out, head.length);
  out.write('\r\n', head.length + frame.length, 'latin1');
  return out;
}

/** A batch of frames as written: the frames joined, and (HTTP/1.1) as one chunk, each made on first use. */
class Batch {
  private joinedBytes?: Buffer;
  private chunkBytes?: Buffer;

  constructor(readonly frames: readonly Buffer[]) {}

  joined(): Buffer {
    if (!this.joinedBytes) this.joinedBytes = this.frames.length === 1 ? (this.frames[0] as Buffer) : Buffer.concat(this.frames as Buffer[]);
    return this.joinedBytes;
  }

  chunk(): Buffer {
    if (!this.chunkBytes) {
      // A single frame's chunk outlives the turn: every later watcher sent the same event reuses it.
      const single = this.frames.length === 1 ? (this.frames[0] as Buffer) : undefined;
      this.chunkBytes = single ? singleFrameChunk(single) : chunkOf(this.joined());
    }
    return this.chunkBytes;
  }
}

const singleChunks = new WeakMap<Buffer, Buffer>();

function singleFrameChunk(frame: Buffer): Buffer {
  let c = singleChunks.get(frame);
  if (!c) singleChunks.set(frame, (c = chunkOf(frame)));
  return c;
}

/** The batches of one turn, found by their first frame and then compared frame by frame. */
class TurnBatches {
  private readonly byFirst = new Map<Buffer, Batch[]>();

  batchOf(frames: Buffer[]): Batch {
    const first = frames[0] as Buffer;
    let candidates = this.byFirst.get(first);
    if (!candidates) this.byFirst.set(first, (candidates = []));
    for (const b of candidates) if (sameFrames(b.frames, frames)) return b;
    const b = new Batch(frames);
    candidates.push(b);
    return b;
  }
}

function sameFrames(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Writes a batch to one response's connection; returns the bytes the connection now holds unsent. */
type BatchWriter = (batch: Batch) => number;

/** A writer for `res`, whose headers must already be sent. */
function batchWriter(req: Request, res: Response): BatchWriter {
  const socket = res.socket;
  const chunked = (res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding === true;
  if (req.httpVersionMajor === 1 && chunked && socket) {
    return (batch) => {
      if (!socket.destroyed) socket.write(batch.chunk());
      return socket.writableLength;
    };
  }
  const stream = req.httpVersionMajor === 2 ? (res as unknown as Http2ServerResponse).stream : undefined;
  if (stream) {
    return (batch) => {
      if (!stream.destroyed && !stream.writableEnded) stream.write(batch.joined());
      return stream.writableLength;
    };
  }
  return (batch) => {
    if (!res.destroyed && !res.writableEnded) res.write(batch.joined());
    return res.writableLength;
  };
}

let due: WatchFrameQueue[] = [];

function scheduleFlush(q: WatchFrameQueue): void {
  if (due.length === 0) setImmediate(flushDue);
  due.push(q);
}

function flushDue(): void {
  const queues = due;
  due = [];
  const turn = new TurnBatches();
  for (const q of queues) q.flush(turn);
}

/**
 * The frames of one watch response not yet written. `afterWrite` runs after each write with the
 * bytes the connection holds unsent (the watch cuts off a reader that falls too far behind).
 */
export class WatchFrameQueue {
  private pending: Buffer[] = [];
  private readonly write: BatchWriter;

  constructor(
    req: Request,
    res: Response,
    private readonly afterWrite: (unsentBytes: number) => void,
  ) {
    this.write = batchWriter(req, res);
  }

  push(frame: Buffer): void {
    if (this.pending.length === 0) scheduleFlush(this);
    this.pending.push(frame);
  }

  /** Writes what is queued now (the response is about to end, or the turn's flush). */
  flush(turn?: TurnBatches): void {
    if (this.pending.length === 0) return;
    const frames = this.pending;
    this.pending = [];
    this.afterWrite(this.write(turn ? turn.batchOf(frames) : new Batch(frames)));
  }
}
