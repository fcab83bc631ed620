/**
 * (h) stuck watchers: what a watch client that stops reading costs the server. N HTTP/1.1 watches
 * (each its own socket, from this process) are opened and never read; the writer then creates
 * secrets of 512 KiB until each watcher has been sent `mibPerWatcher` MiB of events. The server
 * child's RSS (after a forced GC) is sampled before the watchers, at the peak (sampled after every
 * 8 MiB written, while the clients are stuck) and at the end (the server has given up on them; the
 * clients still hold their sockets open and unread), and once more after the clients have gone
 * (`released`). The written secrets themselves stay in the server (watch cache history,
 * encodings), so what the stuck watchers held is the difference to `released`: per stuck watcher =
 * (sample − released) / N, for RSS and for Buffer memory (arrayBuffers, which RSS may not return).
 */
import https from 'node:https';
import type { ClientRequest } from 'node:http';
import type { ApiClient } from './support/api-client';
import type { Progress } from './support/progress';
import type { MemorySample } from './support/server-protocol';
import type { ServerHandle } from './support/server-handle';

export interface StuckWatchersResult {
  watchers: number;
  /** Event bytes written per watcher. */
  bytesPerWatcher: number;
  before: MemorySample;
  /** After the clients closed their sockets (a second later). */
  released: MemorySample;
  peak: MemorySample;
  after: MemorySample;
  /** RSS growth over `before`, divided by the watchers. */
  peakRssPerWatcherBytes: number;
  afterRssPerWatcherBytes: number;
  /** The same for Buffer memory (process.memoryUsage().arrayBuffers). */
  peakBuffersPerWatcherBytes: number;
  afterBuffersPerWatcherBytes: number;
  /** Watch responses the client saw end while still not reading (sockets closed by the server show only once read). */
  seconds: number;
}

export async function measureStuckWatchers(
  client: ApiClient,
  server: ServerHandle,
  o: { namespace: string; watchers: number; mibPerWatcher: number },
  progress: Progress,
): Promise<StuckWatchersResult> {
  const started = Date.now();
  const value = Buffer.alloc(384 * 1024, 7).toString('base64'); // 512 KiB of base64 per event
  const eventBytes = value.length + 400;
  const writes = Math.ceil((o.mibPerWatcher * 2 ** 20) / eventBytes);
  const writeAll = async (prefix: string, each?: (i: number) => Promise<void>) => {
    for (let i = 0; i < writes; i++) {
      await client.expect('POST', `/api/v1/namespaces/${o.namespace}/secrets`, { metadata: { name: `${prefix}-${i}` }, data: { v: value } }, 201);
      await each?.(i);
    }
  };
  const before = await server.memory();
  const list = await client.expect('GET', `/api/v1/namespaces/${o.namespace}/secrets?limit=1`);
  const rv = (JSON.parse(list.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const requests: ClientRequest[] = [];
  await Promise.all(
    Array.from({ length: o.watchers }, () =>
      new Promise<void>((resolve, reject) => {
        const req = https.request(
          `${client.target.url}/api/v1/namespaces/${o.namespace}/secrets?watch=1&resourceVersion=${rv}&timeoutSeconds=600`,
          { headers: { authorization: `Bearer ${client.target.token}` }, ca: client.target.caCert, agent: false },
          (res) => {
            res.pause(); // never read: the kernel's buffers fill, then the server's
            res.on('error', () => undefined);
            resolve();
          },
        );
        req.on('error', (e) => (requests.includes(req) ? undefined : reject(e)));
        requests.push(req);
        req.end();
      }),
    ),
  );
  progress('stuck', `${o.watchers} watchers open and not reading; writing ${o.mibPerWatcher} MiB of events`);
  let peak = before;
  const sampleEvery = Math.max(1, Math.floor((8 * 2 ** 20) / eventBytes));
  await writeAll('stuck', async (i) => {
    if (i % sampleEvery !== sampleEvery - 1) return;
    const m = await server.memory();
    if (m.rssBytes > peak.rssBytes) peak = m;
  });
  const after = await server.memory();
  if (after.rssBytes > peak.rssBytes) peak = after;
  for (const r of requests) r.destroy();
  await new Promise((r) => setTimeout(r, 1000));
  const released = await server.memory();
  const per = (m: MemorySample) => (m.rssBytes - released.rssBytes) / o.watchers;
  return {
    watchers: o.watchers,
    bytesPerWatcher: writes * eventBytes,
    released,
    peakBuffersPerWatcherBytes: (peak.arrayBuffersBytes - released.arrayBuffersBytes) / o.watchers,
    afterBuffersPerWatcherBytes: (after.arrayBuffersBytes - released.arrayBuffersBytes) / o.watchers,
    before,
    peak,
    after,
    peakRssPerWatcherBytes: per(peak),
    afterRssPerWatcherBytes: per(after),
    seconds: (Date.now() - started) / 1000,
  };
}
