/**
 * How a watch response's event frames reach the connection.
 *
 * Fanning one event out to thousands of watchers is a write per watcher, so that write is kept to
 * the bare minimum and shared work is done once:
 * - Frames are queued per watch and written once per event-loop turn (one setImmediate per server,
 *   WatchFrameFlusher, for every watch). Events that arrive together (one etcd watch response, a burst of initial events,
 *   a backlog after a pause) leave as one write, so a server that falls behind catches up with
 *   fewer, larger writes instead of drowning in small ones. Within a turn, watchers that queued
 *   the same frames share one joined buffer.
 * - A connection whose buffer is full gets nothing more until it drains; its frames wait in the
 *   queue and then leave together (see WatchFrameQueue). An HTTP/2 stream counts as full only past
 *   h2StreamBufferBytes, not at Node's 16 KiB high-water mark.
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

  constructor(
    readonly frames: readonly Buffer[],
    /** Chunks of single frames, kept beyond the turn: every later watcher sent the same event reuses its chunk. */
    private readonly singleChunks: WeakMap<Buffer, Buffer>,
  ) {}

  joined(): Buffer {
    if (!this.joinedBytes) this.joinedBytes = this.frames.length === 1 ? (this.frames[0] as Buffer) : Buffer.concat(this.frames as Buffer[]);
    return this.joinedBytes;
  }

  chunk(): Buffer {
    if (!this.chunkBytes) {
      const single = this.frames.length === 1 ? (this.frames[0] as Buffer) : undefined;
      if (!single) this.chunkBytes = chunkOf(this.joined());
      else {
        this.chunkBytes = this.singleChunks.get(single) ?? chunkOf(single);
        this.singleChunks.set(single, this.chunkBytes);
      }
    }
    return this.chunkBytes;
  }
}


/** The batches of one turn, found by their first frame and then compared frame by frame. */
class TurnBatches {
  private readonly byFirst = new Map<Buffer, Batch[]>();

  constructor(private readonly singleChunks: WeakMap<Buffer, Buffer>) {}

  batchOf(frames: Buffer[]): Batch {
    const first = frames[0] as Buffer;
    let candidates = this.byFirst.get(first);
    if (!candidates) this.byFirst.set(first, (candidates = []));
    for (const b of candidates) if (sameFrames(b.frames, frames)) return b;
    const b = new Batch(frames, this.singleChunks);
    candidates.push(b);
    return b;
  }
}

function sameFrames(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Bytes an HTTP/2 stream may hold unframed before its watch waits for it to drain. Node's own
 * threshold (the stream's 16 KiB high-water mark) is passed by a few events, and waiting for each
 * drain makes a thousand streams on one connection take turns; Go's server, kube's, lets a stream
 * run until its flow-control window (4 MiB for client-go) is spent.
 */
export const h2StreamBufferBytes = 1 << 20;

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
      write: (batch) => {
        if (stream.destroyed || stream.writableEnded) return true;
        stream.write(batch.joined());
        return stream.writableLength <= h2StreamBufferBytes;
      },
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

/** The server's one flush of every watch queue with frames, once per event-loop turn. */
export class WatchFrameFlusher {
  private due: WatchFrameQueue[] = [];
  readonly singleChunks = new WeakMap<Buffer, Buffer>();

  schedule(q: WatchFrameQueue): void {
    if (this.due.length === 0) setImmediate(() => this.flushDue());
    this.due.push(q);
  }

  private flushDue(): void {
    const queues = this.due;
    this.due = [];
    const turn = new TurnBatches(this.singleChunks);
    for (const q of queues) q.flush(turn);
  }
}

/**
 * The frames of one watch response not yet written. While the connection's buffer is full the
 * frames wait here, as references to the shared frames rather than copies in the connection, and
 * leave as one write when it drains. (On HTTP/2 that is the stream's buffer: a stream's write is
 * done once the session has framed it, so bytes framed but unread by the peer sit on the
 * session's socket, out of this queue's sight; bench/RESULTS.md tells what that costs.)
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
    private readonly flusher: WatchFrameFlusher,
    req: Request,
    res: Response,
    private readonly onBacklog: (unsentBytes: number) => void,
  ) {
    this.sink = frameSink(req, res);
  }

  push(frame: Buffer): void {
    if (this.pending.length === 0 && !this.blocked) this.flusher.schedule(this);
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
    const accepted = this.sink.write(turn ? turn.batchOf(frames) : new Batch(frames, this.flusher.singleChunks));
    if (!accepted && !this.blocked) {
      this.blocked = true;
      this.sink.onceDrained(() => {
        this.blocked = false;
        if (this.pending.length) this.flusher.schedule(this);
      });
    }
    this.onBacklog(this.sink.unsent());
  }
}
