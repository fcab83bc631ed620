#!/usr/bin/env node
/**
 * `make bench`: starts its own etcd (fsync on) and the server in a child process, then measures from
 * this process, in one run: watch delivery latency to many watchers, memory per cached object, and
 * list latency from the watch cache vs etcd (through the API and raw). Progress goes to stderr; the
 * table to stdout; the results as JSON to bench/results/<timestamp>.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { EmbeddedEtcd } from '../src/server/embedded-etcd';
import { measureEtcdPutBaseline } from './etcd-baseline';
import { apiList, measureListLatency, rawEtcdList } from './list-latency';
import { measureMemoryPerObject } from './memory-per-object';
import { renderReport, type BenchResults } from './report';
import { ApiClient } from './support/api-client';
import { cpuMeter } from './support/cpu';
import { describeMachine } from './support/machine';
import { parseOptions, type BenchOptions } from './support/options';
import { progressPrinter, type Progress } from './support/progress';
import { forkServer } from './support/server-handle';
import { ensureNamespace } from './support/secrets';
import { measureWatchLatency } from './watch-latency';

const PREFIX = '/registry';
const LIST_NS = 'bench-list';
const MEM_NS = 'bench-mem';
const WATCH_NS = 'bench-watch';

async function main(opts: BenchOptions): Promise<void> {
  const progress = progressPrinter();
  const machine = await describeMachine();
  const startedAt = new Date();
  const loadAtStart = os.loadavg();
  process.stdout.write(
    `platform-apiserver bench — ${startedAt.toISOString()}\n` +
      `machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${(machine.memoryTotalBytes / 2 ** 30).toFixed(1)} GiB, ` +
      `${machine.platform} ${machine.kernel}; node ${machine.node}; etcd ${machine.etcd} (fsync on)\n` +
      `load average at start: ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}` +
      `${loadAtStart[0] !== undefined && loadAtStart[0] > 0.5 ? ' — the machine is busy; figures will be noisy' : ''}\n\n`,
  );

  const dir = await mkdtemp(path.join(opts.tmpDir ?? os.tmpdir(), 'papi-bench-'));
  const etcd = new EmbeddedEtcd();
  const cleanups: Array<() => Promise<void>> = [() => rm(dir, { recursive: true, force: true }), () => etcd.stop()];
  try {
    const etcdStart = process.hrtime.bigint();
    const { endpoints } = await etcd.start({ dataDir: path.join(dir, 'etcd'), logFile: path.join(dir, 'etcd.log') });
    progress('setup', `etcd ${endpoints[0]} ready in ${(Number(process.hrtime.bigint() - etcdStart) / 1e6).toFixed(0)} ms (data in ${dir})`);
    progress('etcd', 'raw put baseline: 1 KiB values, 1 in flight, 2 s');
    const etcdBaseline = await measureEtcdPutBaseline(endpoints, 2);
    const server = await forkServer({ etcdEndpoints: endpoints, prefix: PREFIX, watchCache: true, dir: path.join(dir, 'server') });
    cleanups.push(() => server.stop());
    progress('setup', `server (watch cache on) pid ${server.pid} listening at ${server.url}`);
    const load = new ApiClient(server, { maxSockets: Math.max(64, opts.loadConcurrency) });
    cleanups.push(async () => load.close());
    for (const ns of [LIST_NS, MEM_NS, WATCH_NS]) await ensureNamespace(load, ns);

    progress('memory', `loading ${opts.memoryObjects} secrets, ${opts.loadConcurrency} in flight`);
    const memory = await measureMemoryPerObject(
      load,
      server,
      {
        namespaces: [
          { name: LIST_NS, count: opts.listObjects },
          { name: MEM_NS, count: opts.memoryObjects - opts.listObjects },
        ].filter((n) => n.count > 0),
        concurrency: opts.loadConcurrency,
      },
      progress,
    );

    const list = await runListPhase(opts, endpoints, dir, load, progress);
    const watchCpu = await cpuMeter({ server: server.pid, etcd: etcd.pid ?? -1, bench: process.pid });
    const watchClient = new ApiClient(server, { maxSockets: opts.watchers + 100 });
    const writer = new ApiClient(server, { maxSockets: 256 });
    cleanups.push(async () => watchClient.close(), async () => writer.close());
    const watch = await measureWatchLatency(
      writer,
      watchClient,
      {
        namespace: WATCH_NS,
        watchers: opts.watchers,
        writesPerSecond: opts.writesPerSecond,
        durationSeconds: opts.watchSeconds,
        // 5 s of writes create, the rest update: an update waits for its create, so this keeps the
        // writer open-loop unless a write takes longer than 5 s.
        objects: Math.min(opts.writesPerSecond * 5, opts.writesPerSecond * opts.watchSeconds),
        maxDrainSeconds: 20,
        connectConcurrency: 50,
      },
      progress,
    );
    const cpuPercent = await watchCpu();

    const results: BenchResults = {
      startedAt: startedAt.toISOString(),
      durationSeconds: (Date.now() - startedAt.getTime()) / 1000,
      machine,
      options: opts,
      loadAverage: { start: loadAtStart, end: os.loadavg() },
      etcd: { version: machine.etcd, fsync: true, ...etcdBaseline },
      watch: { ...watch, cpuPercent },
      memory,
      list,
    };
    process.stdout.write(`${renderReport(results)}\n`);
    const resultsDir = path.resolve(__dirname, '../../bench/results');
    await mkdir(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(
      `\nload average at end: ${results.loadAverage.end.map((l) => l.toFixed(2)).join(' ')}; ` +
        `run took ${results.durationSeconds.toFixed(0)} s\nresults: ${path.relative(process.cwd(), file)}\n`,
    );
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
}

/** The list rows: the cached server both ways, a --watch-cache=false server, and raw etcd. */
async function runListPhase(opts: BenchOptions, endpoints: string[], dir: string, load: ApiClient, progress: Progress) {
  const uncached = await forkServer({ etcdEndpoints: endpoints, prefix: PREFIX, watchCache: false, dir: path.join(dir, 'server-uncached') });
  const uncachedClient = new ApiClient(uncached, { maxSockets: 4 });
  const etcd = new Etcd3({ hosts: endpoints, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  try {
    progress('list', `listing ${opts.listObjects} secrets, ${opts.listReps} rounds (second server, --watch-cache=false, pid ${uncached.pid})`);
    const p = `/api/v1/namespaces/${LIST_NS}/secrets`;
    return await measureListLatency(
      [
        apiList(load, 'cache-rv0', 'API, watch cache, resourceVersion=0', 'cache', `${p}?resourceVersion=0`),
        apiList(load, 'cache-consistent', 'API, watch cache, RV unset (consistent)', 'cache', p),
        apiList(load, 'delegated-limit', `API, limit=${opts.listObjects} (delegated to etcd)`, 'etcd-via-api', `${p}?limit=${opts.listObjects}`),
        apiList(uncachedClient, 'no-cache', 'API, --watch-cache=false (etcd)', 'etcd-via-api', p),
        rawEtcdList(etcd, 'raw-etcd', 'raw etcd3 range read (same prefix)', `${PREFIX}/secrets/${LIST_NS}/`),
      ],
      { reps: opts.listReps, warmup: 2, expected: opts.listObjects },
      progress,
    );
  } finally {
    etcd.close();
    uncachedClient.close();
    await uncached.stop();
  }
}

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`bench: ${(e as Error).message}\n`);
  process.exit(2);
}
main(options).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
