/**
 * What Go's net/http writes straight to an HTTP/1.1 socket when a request never reaches a handler
 * (kube-limits §1, §3, §8): its plain-text 4xx/5xx answers byte for byte, kube's 405 Status for a
 * method Node's parser refuses, and Go's way of closing after such an answer.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { errors } from '../api';

/** Go's rstAvoidanceDelay: after a closing answer, FIN, keep reading this long, then close. */
const lingerMs = 500;

/** Go's raw answer to a request it cannot parse (net/http conn.serve): plain text, no Content-Length, then close. */
export function goPlainTextReply(statusLine: string, body: string): Buffer {
  return Buffer.from(`HTTP/1.1 ${statusLine}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`, 'latin1');
}
/** Past MaxHeaderBytes (Go's errTooLarge branch). */
export const reply431 = goPlainTextReply('431 Request Header Fields Too Large', '431 Request Header Fields Too Large');
/** An HTTP/1 request whose major version is not 1 (kube-limits §3). */
export const reply505 = goStatusError(505, 'HTTP Version Not Supported', 'unsupported protocol version');
/** Go's statusError format (conn.serve): the reason phrase and the body both carry the text. */
function goStatusError(code: number, statusText: string, text: string): Buffer {
  return goPlainTextReply(`${code} ${statusText}: ${text}`, `${code} ${statusText}: ${text}`);
}
/** An HTTP/1.1 request without a Host header. */
export const reply400MissingHost = goStatusError(400, 'Bad Request', 'missing required Host header');
/** Any other parse failure. */
export const reply400 = goPlainTextReply('400 Bad Request', '400 Bad Request');

/**
 * kube's 405 Status for a method no route has (go-restful's 405 replaced by serviceErrorHandler),
 * as a whole raw response closing the connection: Node's HTTP/1 parser rejects unknown methods before
 * any handler exists.
 */
export function reply405(): Buffer {
  const body = `${JSON.stringify(errors.routeMethodNotAllowed().status)}\n`;
  return Buffer.from(
    `HTTP/1.1 405 Method Not Allowed\r\nAudit-Id: ${randomUUID()}\r\nContent-Type: application/json\r\nDate: ${new Date().toUTCString()}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    'latin1',
  );
}

/**
 * Writes `bytes` (if any) and closes as Go's closeWriteAndWait does: FIN, then whatever the client
 * still sends is read and dropped for up to 500 ms, then the socket is destroyed — closing at once
 * with unread input would reset the connection and the client could lose the answer.
 */
export function replyAndClose(socket: Socket, bytes?: Buffer): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  if (bytes) socket.end(bytes);
  else socket.end();
  setTimeout(() => socket.destroy(), lingerMs).unref();
}

/** Node's HTTP/1 parser error: the code and the bytes it choked on. */
export type ClientError = NodeJS.ErrnoException & { rawPacket?: Buffer };

/** A request line that is well formed apart from its method or version (token SP target SP HTTP/d.d). */
const requestLine = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/(\d)\.(\d)\r?\n/;

/**
 * Go's answer to what Node's HTTP/1 parser (llhttp) rejects before any handler runs, or undefined
 * to close without a byte (timeouts, resets: Go's bare network errors).
 */
export function http1ParseErrorReply(err: ClientError): Buffer | undefined {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return reply431;
    case 'HPE_INVALID_METHOD': {
      // Go parses any token as a method; kube routes it to a 405. A line that is not HTTP at all is Go's 400.
      const m = requestLine.exec(err.rawPacket?.toString('latin1') ?? '');
      if (!m) return reply400;
      return m[3] === '1' ? reply405() : reply505;
    }
    case 'HPE_INVALID_VERSION': {
      const m = requestLine.exec(err.rawPacket?.toString('latin1') ?? '');
      return m && m[3] !== '1' ? reply505 : reply400;
    }
    default:
      // ECONNRESET, EPIPE, ERR_HTTP_REQUEST_TIMEOUT (Go's ReadHeaderTimeout: no reply), …
      if (typeof err.code === 'string' && err.code.startsWith('HPE_')) return reply400;
      return undefined;
  }
}

