/**
 * A bench watcher: one watch stream (HTTP/1.1: its own socket; HTTP/2: a stream on a shared
 * session), split into events at newlines and scanned for a few byte markers instead of being
 * JSON-parsed (a thousand parsers would make the client, not the server, the bottleneck). Each
 * complete event is handed to `onEvent` with its arrival time.
 */
import http2 from 'node:http2';
import https from 'node:https';
import type { ApiClient, ApiTarget } from './api-client';

/** What the bench needs from one event line. */
export interface ScannedEvent {
  type: string;
  /** The value of the marker annotation, or undefined when the object has none. */
  marker: string | undefined;
  /** metadata.resourceVersion (as the first "resourceVersion" in the line), or undefined. */
  resourceVersion: string | undefined;
  /** process.hrtime.bigint() when the chunk that completed the line arrived. */
  receivedNs: bigint;
}

const NEWLINE = 0x0a;
const TYPE_PREFIX = Buffer.from('{"type":"');
const RV_PREFIX = Buffer.from('"resourceVersion":"');

/** An open watch; `ended` resolves when the server or close() ends it. */
export interface BenchWatch {
  ended: Promise<void>;
  close(): void;
}

/** Opens one watch on `path`; the bench's watchers are made with one of these. */
export type WatchOpener = (path: string, onEvent: (e: ScannedEvent) => void) => Promise<BenchWatch>;

/**
 * GETs `path` (which includes watch=1) over the client's agent; resolves once the 200 headers arrive
 * (rejects on any other status). `markerKey` is the annotation whose value identifies a write.
 */
export function openBenchWatch(client: ApiClient, path: string, markerKey: string, onEvent: (e: ScannedEvent) => void): Promise<BenchWatch> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${client.target.token}`, accept: 'application/json' };
    const req = https.request(`${client.target.url}${path}`, { method: 'GET', headers, agent: client.agent }, (res) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => reject(new Error(`watch ${path} → ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`)));
        return;
      }
      res.on('data', eventSplitter(markerKey, onEvent));
      const ended = new Promise<void>((r) => {
        res.on('error', () => r()); // aborted by close() or the server going away
        res.on('end', () => r());
        res.on('close', () => r());
      });
      resolve({ ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Opens the watch as a stream of an HTTP/2 session (see connectH2Sessions), as client-go does:
 * every watch of a client multiplexed over one connection.
 */
export function openBenchWatchH2(
  session: http2.ClientHttp2Session,
  target: ApiTarget,
  path: string,
  markerKey: string,
  onEvent: (e: ScannedEvent) => void,
): Promise<BenchWatch> {
  return new Promise((resolve, reject) => {
    const stream = session.request(
      { ':method': 'GET', ':path': path, authorization: `Bearer ${target.token}`, accept: 'application/json' },
      { endStream: true },
    );
    stream.once('error', reject);
    stream.once('response', (headers) => {
      const status = Number(headers[':status']);
      if (status !== 200) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => reject(new Error(`watch ${path} → ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`)));
        return;
      }
      stream.on('data', eventSplitter(markerKey, onEvent));
      const ended = new Promise<void>((r) => {
        stream.on('error', () => r());
        stream.on('end', () => r());
        stream.on('close', () => r());
      });
      resolve({ ended, close: () => stream.close(http2.constants.NGHTTP2_CANCEL) });
    });
  });
}

/** client-go's receive windows (Go's net/http2 Transport): 4 MiB per stream, 1 GiB per connection. */
export const goStreamWindowBytes = 4 << 20;
export const goConnectionWindowBytes = 1 << 30;

/**
 * `count` HTTP/2 sessions (ALPN h2) to the server, each advertising Go's windows as client-go does
 * (with Node's 64 KiB defaults a thousand busy streams stall on flow control).
 */
export async function connectH2Sessions(target: ApiTarget, count: number): Promise<http2.ClientHttp2Session[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const session = http2.connect(target.url, { ca: target.caCert, settings: { initialWindowSize: goStreamWindowBytes } });
      await new Promise<void>((resolve, reject) => {
        session.once('connect', () => resolve());
        session.once('error', reject);
      });
      session.on('error', () => undefined); // the streams see it
      if (session.alpnProtocol !== 'h2') throw new Error(`ALPN settled on ${String(session.alpnProtocol)}, not h2`);
      session.setLocalWindowSize(goConnectionWindowBytes);
      return session;
    }),
  );
}

/** A data listener: splits chunks into newline-terminated events and scans each. */
function eventSplitter(markerKey: string, onEvent: (e: ScannedEvent) => void): (chunk: Buffer) => void {
  const markerPrefix = Buffer.from(`${JSON.stringify(markerKey)}:"`);
  let pending: Buffer | undefined;
  return (chunk) => {
    const receivedNs = process.hrtime.bigint();
    let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
    for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE)) {
      onEvent(scan(buf.subarray(0, nl), markerPrefix, receivedNs));
      buf = buf.subarray(nl + 1);
    }
    // A copy, so that a partial event does not keep its whole chunk alive.
    pending = buf.length ? Buffer.from(buf) : undefined;
  };
}

function scan(line: Buffer, markerPrefix: Buffer, receivedNs: bigint): ScannedEvent {
  return {
    type: line.subarray(0, TYPE_PREFIX.length).equals(TYPE_PREFIX) ? stringAt(line, TYPE_PREFIX.length) ?? '' : '',
    marker: valueAfter(line, markerPrefix),
    resourceVersion: valueAfter(line, RV_PREFIX),
    receivedNs,
  };
}

function valueAfter(line: Buffer, prefix: Buffer): string | undefined {
  const at = line.indexOf(prefix);
  return at < 0 ? undefined : stringAt(line, at + prefix.length);
}

/** The characters from `start` up to the next double quote (values here never contain escapes). */
function stringAt(line: Buffer, start: number): string | undefined {
  const end = line.indexOf(0x22, start);
  return end < 0 ? undefined : line.toString('latin1', start, end);
}
