/**
 * Opens a watch over HTTPS against a test server and parses its chunked stream line by line
 * (one JSON document per line), so a test can await the next N events with a timeout.
 */
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { until, type WakeOn } from './until';

/** One decoded watch event. */
export interface StreamEvent<T = any> {
  type: string;
  object: T;
}

/** An open watch stream. */
export interface WatchStream {
  /** HTTP status of the response (200 for a started watch). */
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body when the server answered with a non-200 status (an error Status, usually). */
  errorBody?: string;
  /**
   * Resolves with the next `n` events (in arrival order), or rejects after `timeoutMs` saying how
   * many arrived; rejects at once if the stream ends before `n` more events come.
   */
  next(n?: number, timeoutMs?: number): Promise<StreamEvent[]>;
  /** Resolves when no event arrives within `ms` (rejects with the event if one does). */
  expectQuiet(ms: number): Promise<void>;
  /** Resolves once the server ends the stream (or the connection closes). */
  ended: Promise<void>;
  /** Every event received so far, consumed or not. */
  all: StreamEvent[];
  /** Aborts the request; safe to call twice. */
  close(): void;
}

/** Where to connect and how to authenticate: the fields of TestServer this helper needs. */
export interface WatchTarget {
  url: string;
  caCert: string;
  token: string;
}

/**
 * Starts `GET <path>` (the caller includes `watch=1` and any other query) and resolves once the
 * response headers arrive. A non-200 answer resolves with `status` and `errorBody` set.
 */
export function openWatch(target: WatchTarget, path: string, opts: { headers?: Record<string, string> } = {}): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${target.token}`, ...(opts.headers ?? {}) };
    const req = https.request(`${target.url}${path}`, { method: 'GET', headers, ca: target.caCert, agent: false }, (res) => {
      const queue: StreamEvent[] = [];
      const all: StreamEvent[] = [];
      let buffered = '';
      let done = false;
      let resolveEnded!: () => void;
      const ended = new Promise<void>((r) => (resolveEnded = r));
      /** Told of every new event and of the end. */
      const listeners = new Set<() => void>();
      const changes: WakeOn = (wake) => {
        listeners.add(wake);
        return () => listeners.delete(wake);
      };
      const notify = (): void => {
        for (const l of [...listeners]) l();
      };
      const finish = (): void => {
        if (done) return;
        done = true;
        resolveEnded();
        notify();
      };
      res.setEncoding('utf8');
      const stream: WatchStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        ended,
        all,
        close: () => {
          req.destroy();
          finish();
        },
        // 15 s by default: only a missing event should reach it, not a slow one on a loaded machine.
        next: async (n = 1, timeoutMs = 15_000) => {
          await until(
            () => `${n} watch events, got ${queue.length}: ${JSON.stringify(queue)}`,
            () => {
              if (queue.length >= n) return true;
              if (done) throw new Error(`watch ended after ${queue.length} of ${n} events: ${JSON.stringify(queue)}`);
              return false;
            },
            { timeoutMs, wakeOn: changes },
          );
          return queue.splice(0, n);
        },
        expectQuiet: async (ms) => {
          if (queue.length === 0 && !done) {
            await new Promise<void>((r) => {
              const quiet = (): void => {
                clearTimeout(t);
                stop();
                r();
              };
              const t = setTimeout(quiet, ms);
              const stop = changes(quiet);
            });
          }
          if (queue.length > 0) throw new Error(`unexpected watch event: ${JSON.stringify(queue[0])}`);
        },
      };
      if (stream.status !== 200) {
        res.on('data', (d: string) => (buffered += d));
        res.on('end', () => {
          stream.errorBody = buffered;
          finish();
          resolve(stream);
        });
        return;
      }
      res.on('data', (d: string) => {
        buffered += d;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (!line) continue;
          const ev = JSON.parse(line) as StreamEvent;
          queue.push(ev);
          all.push(ev);
        }
        notify();
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}
