/**
 * A bench watcher: one HTTP/1.1 watch stream, split into events at newlines and scanned for a few
 * byte markers instead of being JSON-parsed (a thousand parsers would make the client, not the
 * server, the bottleneck). Each complete event is handed to `onEvent` with its arrival time.
 */
import https from 'node:https';
import type { ApiClient } from './api-client';

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

/**
 * GETs `path` (which includes watch=1) over the client's agent; resolves once the 200 headers arrive
 * (rejects on any other status). `markerKey` is the annotation whose value identifies a write.
 */
export function openBenchWatch(client: ApiClient, path: string, markerKey: string, onEvent: (e: ScannedEvent) => void): Promise<BenchWatch> {
  const markerPrefix = Buffer.from(`${JSON.stringify(markerKey)}:"`);
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${client.target.token}`, accept: 'application/json' };
    const req = https.request(`${client.target.url}${path}`, { method: 'GET', headers, agent: client.agent }, (res) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => reject(new Error(`watch ${path} → ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`)));
        return;
      }
      let pending: Buffer = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        const receivedNs = process.hrtime.bigint();
        let buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE)) {
          onEvent(scan(buf.subarray(0, nl), markerPrefix, receivedNs));
          buf = buf.subarray(nl + 1);
        }
        pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
      });
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
