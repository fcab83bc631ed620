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
 * - A connection whose buffer is full gets nothing more until it drains; its frames wait in the
 *   queue and then leave together (see WatchFrameQueue).
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

/** One response's connection, as the queue writes to it. */
interface FrameSink {
  /** Writes a batch; false when the connection's buffer is now full (write more only once it drains). */
  write(batch: Batch): boolean;
  /** Bytes the connection holds unsent. */
  unsent(): number;
  /** Calls `f` once, when the connection's buffer has drained. */
  onceDrained(f: () => void): void;
}

/** The sink for `res`, whose headers must already be sent. A connection already gone takes writes and drops them. */
function frameSink(req: Request, res: Response): FrameSink {
  const socket = res.socket;
  const chunked = (res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding === true;
  if (req.httpVersionMajor === 1 && chunked && socket) {
    return {
      write: (batch) => socket.destroyed || socket.write(batch.chunk()),
      unsent: () => socket.writableLength,
      onceDrained: (f) => socket.once('drain', f),
    };
  }
  const stream = req.httpVersionMajor === 2 ? (res as unknown as Http2ServerResponse).stream : undefined;
  if (stream) {
    return {
      write: (batch) => stream.destroyed || stream.writableEnded || stream.write(batch.joined()),
      unsent: () => stream.writableLength,
      onceDrained: (f) => stream.once('drain', f),
    };
  }
  return {
    write: (batch) => res.destroyed || res.writableEnded || res.write(batch.joined()),
    unsent: () => res.writableLength,
    onceDrained: (f) => res.once('drain', f),
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
 * The frames of one watch response not yet written. While the connection's buffer is full the
 * frames wait here, as references to the shared frames rather than copies in the connection, and
 * leave as one write when it drains: the HTTP/2 layer then never holds more than about a buffer's
 * worth per stream, so a slow reader cannot make it build one huge write that blocks the server.
 * `onBacklog` is told the bytes not yet sent after each write and each frame queued behind a full
 * connection (the watch cuts off a reader that falls too far behind).
 */
export class WatchFrameQueue {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Waiting for the connection to drain. */
  private blocked = false;
  private readonly sink: FrameSink;

  constructor(
    req: Request,
    res: Response,
    private readonly onBacklog: (unsentBytes: number) => void,
  ) {
    this.sink = frameSink(req, res);
  }

  push(frame: Buffer): void {
    if (this.pending.length === 0 && !this.blocked) scheduleFlush(this);
    this.pending.push(frame);
    this.pendingBytes += frame.length;
    if (this.blocked) this.onBacklog(this.pendingBytes + this.sink.unsent());
  }

  /**
   * Writes what is queued: on the turn's flush unless the connection is full, and always when
   * `turn` is absent (the response is about to end).
   */
  flush(turn?: TurnBatches): void {
    if (this.pending.length === 0 || (turn && this.blocked)) return;
    const frames = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const accepted = this.sink.write(turn ? turn.batchOf(frames) : new Batch(frames));
    if (!accepted && !this.blocked) {
      this.blocked = true;
      this.sink.onceDrained(() => {
        this.blocked = false;
        if (this.pending.length) scheduleFlush(this);
      });
    }
    this.onBacklog(this.sink.unsent());
  }
}
