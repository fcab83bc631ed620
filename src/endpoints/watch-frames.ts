/**
 * How a watch response's event frames reach the connection.
 *
 * Over HTTP/1.1 a watch is a chunked body. Node's ServerResponse frames every write itself (a
 * chunk-size line, the data, a CRLF: three writes and a string per watcher), which is most of the
 * cost of fanning one event out to thousands of watchers. So once the headers are out, each event
 * goes to the socket as one complete chunk, `<hex size>\r\n<frame>\r\n`, built once per event and
 * shared by every watcher (see EncodingCache.eventFrameOf); res.end() still writes the last chunk.
 * HTTP/2 and unchunked responses (HTTP/1.0) write through the response as usual.
 */
import type { Request, Response } from 'express';

/** Writes one event: `frame()` is its encoding, `chunk()` the same bytes as one HTTP/1.1 chunk (each is asked for only when used). */
export type WatchFrameWriter = (frame: () => Buffer, chunk: () => Buffer) => void;

/** The bytes of `frame` as one chunk of a chunked HTTP/1.1 body. */
export function chunkOf(frame: Buffer): Buffer {
  const head = `${frame.length.toString(16)}\r\n`;
  const out = Buffer.allocUnsafe(head.length + frame.length + 2);
  out.write(head, 0, 'latin1');
  frame.copy(out, head.length);
  out.write('\r\n', head.length + frame.length, 'latin1');
  return out;
}

/** A writer for `res`, whose headers must already be sent. */
export function watchFrameWriter(req: Request, res: Response): WatchFrameWriter {
  const socket = res.socket;
  const chunked = (res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding === true;
  if (req.httpVersionMajor === 1 && chunked && socket) {
    return (_frame, chunk) => {
      if (!socket.destroyed) socket.write(chunk());
    };
  }
  return (frame) => {
    res.write(frame());
  };
}
