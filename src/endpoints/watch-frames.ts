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
import { EventEmitter } from 'node:events';
import { constants as h2constants, type Http2ServerResponse, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
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
  /**
   * Drops the connection and what it holds unsent: HTTP/1.1 destroys the socket; HTTP/2 resets the
   * stream (RST_STREAM CANCEL) and destroys it, which frees its queued DATA at once, and has the
   * flusher watch the session in case its socket itself is what is stuck.
   */
  abort(flusher: WatchFrameFlusher): void;
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
      abort: () => socket.destroy(),
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
      unsent: () => (stream.destroyed ? 0 : stream.writableLength),
      onceDrained: (f) => stream.once('drain', f),
      abort: (flusher) => resetStream(stream, flusher),
    };
  }
  return {
    write: (batch) => res.destroyed || res.writableEnded || res.write(batch.joined()),
    unsent: () => res.writableLength,
    onceDrained: (f) => res.once('drain', f),
    abort: () => res.destroy(),
  };
}

/**
 * Resets an HTTP/2 stream and frees what it has queued. close() alone sends the RST_STREAM only
 * once the session's socket takes it, and Node keeps the stream's queued DATA until then; destroy()
 * drops the queue now (nghttp2 still sends the RST_STREAM when it can).
 */
function resetStream(stream: ServerHttp2Stream, flusher: WatchFrameFlusher): void {
  if (stream.destroyed) return;
  const session = stream.session;
  stream.close(h2constants.NGHTTP2_CANCEL);
  stream.destroy();
  if (session) flusher.watchSession(session);
}

/**
 * The TLS socket under an HTTP/2 session. Node hands out only a proxy that refuses destroy(), and
 * Http2Session.destroy() waits for a socket write in progress to finish, which a client that
 * stopped reading never lets happen: the socket must be destroyed itself.
 */
function rawSocketOf(session: Http2Session): Socket | undefined {
  const key = Object.getOwnPropertySymbols(session).find((k) => k.description === 'socket');
  const socket = key ? (session as unknown as Record<symbol, unknown>)[key] : undefined;
  return socket && typeof (socket as Socket).destroy === 'function' ? (socket as Socket) : undefined;
}

/** Defaults of {@link WatchFrameFlusher}. */
export const defaultWatchBudgetBytes = 256 * 1024 * 1024;
export const defaultStuckSessionMs = 5000;

export interface WatchFrameFlusherOptions {
  /**
   * Server-wide bound on the bytes every watch holds unsent (queued here and in its connection).
   * Past it the watches with the largest backlogs are ended (their connection closed, as a watcher
   * past its own bound) until the total is under it again. Default 256 MiB.
   */
  budgetBytes?: number;
  /**
   * After an HTTP/2 stream is reset for falling behind, how long its session's socket may move no
   * byte while frames wait to go out before the session is destroyed with it. Default 5 s.
   */
  stuckSessionMs?: number;
}

/**
 * The server's one flush of every watch queue with frames, once per event-loop turn; and the
 * server-wide account of the bytes watches hold unsent, with the budget that bounds it. Emits
 * 'ended' with 'backlog' | 'budget' | 'stuckSession' each time it gives up on a watch or a session.
 */
export class WatchFrameFlusher extends EventEmitter {
  private due: WatchFrameQueue[] = [];
  readonly singleChunks = new WeakMap<Buffer, Buffer>();
  readonly budgetBytes: number;
  readonly stuckSessionMs: number;
  /** Each watch's unsent bytes as last reported (only watches with some), and their sum. */
  private readonly backlogs = new Map<WatchFrameQueue, number>();
  private total = 0;
  /** Sessions being watched after a reset, and the socket byte count last seen. */
  private readonly sessions = new WeakMap<Http2Session, number>();
  /** Watches ended for falling behind (own bound or the budget) and sessions destroyed as stuck, since start. */
  readonly ended = { backlog: 0, budget: 0, stuckSessions: 0 };

  constructor(opts: WatchFrameFlusherOptions = {}) {
    super();
    this.budgetBytes = opts.budgetBytes ?? defaultWatchBudgetBytes;
    this.stuckSessionMs = opts.stuckSessionMs ?? defaultStuckSessionMs;
  }

  /** The bytes all open watches hold unsent, as last reported. */
  get unsentBytes(): number {
    return this.total;
  }

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

  /** Records a watch's unsent bytes; past the budget, ends the largest backlogs. */
  account(q: WatchFrameQueue, unsent: number): void {
    const before = this.backlogs.get(q) ?? 0;
    // The common case per event: a watcher keeping up, nothing unsent before or after.
    if (unsent === before) return;
    if (unsent > 0) this.backlogs.set(q, unsent);
    else this.backlogs.delete(q);
    this.total += unsent - before;
    if (this.total > this.budgetBytes) this.enforceBudget();
  }

  /** A watch gone: its bytes leave the account. */
  forget(q: WatchFrameQueue): void {
    this.total -= this.backlogs.get(q) ?? 0;
    this.backlogs.delete(q);
  }

  private enforceBudget(): void {
    // Reports go stale as connections drain without a write: recount before ending anyone.
    this.total = 0;
    for (const q of [...this.backlogs.keys()]) {
      const n = q.unsent();
      if (n > 0) this.backlogs.set(q, n);
      else this.backlogs.delete(q);
      this.total += n;
    }
    if (this.total <= this.budgetBytes) return;
    const largest = [...this.backlogs].sort((a, b) => b[1] - a[1]);
    for (const [q] of largest) {
      if (this.total <= this.budgetBytes) break;
      q.terminate();
    }
  }

  /**
   * After a stream of `session` was reset: while the session has frames waiting to go out (the
   * RST_STREAM at least) and its socket moves no byte for stuckSessionMs, the client has stopped
   * reading the connection, and the session and its socket are destroyed.
   */
  watchSession(session: Http2Session): void {
    if (this.sessions.has(session) || session.destroyed) return;
    const written = (): number => {
      try {
        return session.socket.bytesWritten;
      } catch {
        return -1; // the socket is already gone
      }
    };
    this.sessions.set(session, written());
    const check = (): void => {
      if (session.destroyed) return void this.sessions.delete(session);
      const now = written();
      if ((session.state.outboundQueueSize ?? 0) === 0) return void this.sessions.delete(session);
      if (now === this.sessions.get(session)) {
        this.sessions.delete(session);
        this.ended.stuckSessions++;
        const socket = rawSocketOf(session);
        session.destroy();
        socket?.destroy();
        this.emit('ended', 'stuckSession');
        return;
      }
      this.sessions.set(session, now);
      setTimeout(check, this.stuckSessionMs).unref();
    };
    setTimeout(check, this.stuckSessionMs).unref();
  }
}

/**
 * The frames of one watch response not yet written. While the connection's buffer is full the
 * frames wait here, as references to the shared frames rather than copies in the connection, and
 * leave as one write when it drains. (On HTTP/2 that is the stream's buffer: a stream's write is
 * done once the session's socket has taken it, so its writableLength also counts bytes framed and
 * waiting on a busy session socket.)
 * `onBacklog` is told, after each write and each frame queued behind a full connection, the bytes
 * not yet sent apart from the latest write (a lone event larger than the bound must not cut off a
 * reader that keeps up); the watch cuts off a reader that falls too far behind with abort(). The flusher
 * keeps the server-wide account and calls `onTerminated` after ending the watch for the budget.
 */
export class WatchFrameQueue {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the latest write: not counted against the watch's own bound. */
  private lastWriteBytes = 0;
  /** Waiting for the connection to drain. */
  private blocked = false;
  /** Given up on, or the response closed: nothing more is written or counted. */
  private aborted = false;
  private readonly sink: FrameSink;

  constructor(
    private readonly flusher: WatchFrameFlusher,
    req: Request,
    res: Response,
    private readonly onBacklog: (unsentBytes: number) => void,
    private readonly onTerminated: () => void = () => undefined,
  ) {
    this.sink = frameSink(req, res);
    (res as unknown as { once?(e: string, f: () => void): void }).once?.('close', () => {
      this.aborted = true;
      this.flusher.forget(this);
    });
  }

  /** Bytes queued here and held unsent by the connection. */
  unsent(): number {
    return this.aborted ? 0 : this.pendingBytes + this.sink.unsent();
  }

  push(frame: Buffer): void {
    if (this.aborted) return;
    if (this.pending.length === 0 && !this.blocked) this.flusher.schedule(this);
    this.pending.push(frame);
    this.pendingBytes += frame.length;
    if (this.blocked) this.report(this.pendingBytes + this.sink.unsent());
  }

  /**
   * Writes what is queued: on the turn's flush unless the connection is full, and always when
   * `turn` is absent (the response is about to end).
   */
  flush(turn?: TurnBatches): void {
    if (this.aborted || this.pending.length === 0 || (turn && this.blocked)) return;
    const frames = this.pending;
    this.lastWriteBytes = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    const accepted = this.sink.write(turn ? turn.batchOf(frames) : new Batch(frames, this.flusher.singleChunks));
    if (!accepted && !this.blocked) {
      this.blocked = true;
      this.sink.onceDrained(() => {
        this.blocked = false;
        if (this.pending.length && !this.aborted) this.flusher.schedule(this);
      });
    }
    this.report(this.sink.unsent());
  }

  /** Gives up on the watch: drops its frames and closes its connection (see FrameSink.abort). */
  abort(reason: 'backlog' | 'budget' = 'backlog'): void {
    if (this.aborted) return;
    this.aborted = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.flusher.forget(this);
    this.flusher.ended[reason]++;
    this.sink.abort(this.flusher);
    this.flusher.emit('ended', reason);
  }

  /** Ended by the flusher for the server-wide budget. */
  terminate(): void {
    if (this.aborted) return;
    this.abort('budget');
    this.onTerminated();
  }

  private report(unsent: number): void {
    this.flusher.account(this, unsent);
    if (!this.aborted) this.onBacklog(Math.max(0, unsent - this.lastWriteBytes));
  }
}
