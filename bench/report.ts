/** The bench's results (also the JSON written per run) and their rendering as one table. */
import type { StormResult } from './connection-storm';
import type { CreateCell, CreateRow, CreateVariant, CreateWarmup } from './create-throughput';
import type { EtcdBaseline } from './etcd-baseline';
import type { GetRow } from './get-latency';
import type { HostileRow } from './hostile-inputs';
import type { ListRow } from './list-latency';
import type { MemoryResult } from './memory-per-object';
import type { MachineInfo } from './support/machine';
import type { BenchOptions } from './support/options';
import type { Summary } from './support/stats';
import { int, mib, ms, ratio, renderTable, type TableRow } from './support/table';
import type { StartupRow } from './startup-time';
import type { StuckWatchersResult } from './stuck-watchers';
import type { WatchResult } from './watch-latency';

/** A closed-loop load of secrets through the API, timed (context for the rows that need the objects). */
export interface LoadTiming {
  objects: number;
  concurrency: number;
  latencyMs: Summary;
  throughputPerSec: number;
}

/** Every phase's figures; a phase not run (see options.only) is absent. */
export interface BenchResults {
  startedAt: string;
  durationSeconds: number;
  machine: MachineInfo;
  options: BenchOptions;
  /** os.loadavg() at the start and the end: other work on the machine skews every row. */
  loadAverage: { start: number[]; end: number[] };
  etcd?: { version: string; fsync: boolean } & EtcdBaseline;
  startup?: StartupRow[];
  create?: CreateRow[];
  /** The untimed creates before the create cells (absent with --create-warmup-seconds=0). */
  createWarmup?: CreateWarmup;
  /** The creates that filled the namespace of the get and list rows. */
  listLoad?: LoadTiming;
  get?: GetRow[];
  list?: ListRow[];
  memory?: MemoryResult;
  /** One entry per protocol run (--watch-protocol). */
  watch?: WatchRow[];
  /** One row per hostile body class, the plain create first. */
  hostile?: HostileRow[];
  storm?: StormResult;
  stuck?: StuckWatchersResult;
}

/** The watch phase over one protocol. */
export interface WatchRow extends WatchResult {
  protocol: 'h1' | 'h2';
  /** TLS connections carrying the watchers: one each over HTTP/1.1, --watch-connections over HTTP/2. */
  connections: number;
  /** The floor run: the same load against a bare server that only fans out (no API server, no etcd). */
  floor?: boolean;
  /** % of one core used by each process during this protocol's run (connect included). */
  cpuPercent: Record<string, number>;
}

/** The table printed at the end of a run. */
export function renderReport(r: BenchResults): string {
  const rows: TableRow[] = [
    ...(r.create ? createRows(r.create, r.options.createSeconds, r.createWarmup) : []),
    ...(r.get ? getRows(r.get, r.options.listObjects) : []),
    ...(r.list ? listRows(r) : []),
    ...(r.watch ? r.watch.flatMap((w) => watchRows(w, r.options)) : []),
    ...(r.memory ? memoryRows(r.memory) : []),
    ...(r.hostile ? hostileRows(r.hostile, r.options.hostileReps) : []),
    ...(r.storm ? stormRows(r.storm) : []),
    ...(r.stuck ? stuckRows(r.stuck) : []),
    ...(r.startup ? startupRows(r.startup, r.options.startupRuns) : []),
    ...(r.etcd ? etcdRows(r) : []),
  ];
  return renderTable(['row', 'p50', 'p99', 'max', 'notes'], rows);
}

function latency(s: Summary): string[] {
  return [ms(s.p50), ms(s.p99), ms(s.max)];
}

/** "CPU server 95%, etcd 20%, bench 30%": who was busy during a cell (% of one core). */
function cpuNote(c: CreateCell): string {
  const parts = Object.entries(c.cpuPercent ?? {}).map(([k, v]) => `${k} ${Number.isFinite(v) ? v.toFixed(0) : '?'}%`);
  return parts.length ? `CPU ${parts.join(', ')}` : '';
}

/** The server process's CPU time per create in a cell (its % of one core over the creates per second). */
function serverCpuPerRequest(c: CreateCell): string {
  const pct = c.cpuPercent?.server;
  if (pct === undefined || !Number.isFinite(pct) || c.perSecond <= 0) return '?';
  return `${((pct / 100 / c.perSecond) * 1e6).toFixed(0)} µs`;
}

/** ", 3 errors (first one)" when a cell had failures. */
function errorsNote(c: CreateCell): string {
  return c.errors ? `, ${int(c.errors)} errors (${c.firstError ?? ''})` : '';
}

/**
 * The create cells measured after the token's (CreatePlan.variants), in the order they are shown,
 * each with the cell its server CPU is compared with (default: the token's, `api`).
 */
const variantRows: [CreateVariant, string, (CreateVariant | 'api')?][] = [
  ['apiByCert', 'client certificate'],
  ['apiImpersonating', 'token + impersonation'],
  ['apiByJwt', 'JWT (authentication config)'],
  ['apiAsRbacUser', 'RBAC user (RoleBinding)'],
  ['apiByWebhook', 'webhook user (decision cached)'],
  ['apiThroughAdmissionWebhooks', 'token, through 1 mutating + 1 validating admission webhook'],
  ['apiSecondServer', 'token, 2nd server'],
  ['apiByWebhookUncached', 'webhook user, no decision cache (2nd server)', 'apiSecondServer'],
];

function createRows(rows: CreateRow[], seconds: number, warmup: CreateWarmup | undefined): TableRow[] {
  const warmed = warmup
    ? [
        {
          cells: [
            '(warm-up, untimed)',
            '',
            '',
            '',
            `${int(warmup.rawCreates)} raw, ${warmup.floorCreates === undefined ? '' : `${int(warmup.floorCreates)} floor, `}${int(warmup.apiCreates)} API creates, ${warmup.concurrency} in flight, ${warmup.seconds} s each`,
          ],
        },
      ]
    : [];
  return [
    { section: `(a) create, 1 KiB secrets, closed loop ${seconds} s per cell (API POST vs raw etcd txn "mod_revision==0 → put")` },
    ...warmed,
    ...rows.flatMap((row): TableRow[] => [
      { cells: [`c=${row.concurrency}  raw etcd3 txn create`, ...latency(row.raw.latencyMs), `${int(row.raw.perSecond)}/s${errorsNote(row.raw)}; ${cpuNote(row.raw)}`] },
      ...(row.floor ? [{ cells: [`c=${row.concurrency}  floor: bare HTTPS + etcd3 txn`, ...latency(row.floor.latencyMs), againstRaw(row.floor, row.raw)] }] : []),
      {
        cells: [
          `c=${row.concurrency}  API POST /secrets`,
          ...latency(row.api.latencyMs),
          againstRaw(row.api, row.raw, row.floor),
        ],
      },
      ...variantRows.flatMap(([variant, label, against = 'api']): TableRow[] => {
        const cell = row[variant];
        if (!cell) return [];
        const base = row[against] ?? row.api;
        const baseLabel = base === row.api ? 'with the token alone' : 'with the token on the same server';
        const cells = [`c=${row.concurrency}  API POST, ${label}`, ...latency(cell.latencyMs)];
        return [{ cells: [...cells, `${againstRaw(cell, row.raw, row.floor)}; server CPU ${serverCpuPerRequest(cell)} per create vs ${serverCpuPerRequest(base)} ${baseLabel}`] }];
      }),
    ]),
  ];
}

/** A cell's throughput and latencies as multiples of raw's (and its throughput as a share of the floor's). */
function againstRaw(c: CreateCell, raw: CreateCell, floor?: CreateCell): string {
  const ofFloor = floor ? ` (${ratio(c.perSecond / floor.perSecond)} floor)` : '';
  return (
    `${int(c.perSecond)}/s = ${ratio(c.perSecond / raw.perSecond)} raw throughput${ofFloor}; ` +
    `p50 ${ratio(c.latencyMs.p50 / raw.latencyMs.p50)}, p99 ${ratio(c.latencyMs.p99 / raw.latencyMs.p99)} raw${errorsNote(c)}; ${cpuNote(c)}`
  );
}

function getRows(rows: GetRow[], objects: number): TableRow[] {
  const raw = rows.find((g) => g.id === 'raw-etcd')?.latencyMs.p50 ?? Number.NaN;
  return [
    { section: `(b) get one secret of ${int(objects)}, 1 in flight, ${int(rows[0]?.latencyMs.count ?? 0)} rounds (ratio of p50s)` },
    ...rows.map((g) => ({ cells: [g.label, ...latency(g.latencyMs), g.id === 'raw-etcd' ? 'the floor' : `${ratio(g.latencyMs.p50 / raw)} raw`] })),
  ];
}

function listRows(r: BenchResults): TableRow[] {
  const list = r.list ?? [];
  const p50 = (id: string | undefined) => list.find((l) => l.id === id)?.latencyMs.p50 ?? Number.NaN;
  const etcdViaApi = p50('no-cache');
  const rows: TableRow[] = [
    { section: `(b) list ${int(r.options.listObjects)} secrets, ${r.options.listReps} rounds (ratios of p50s)` },
    ...list.map((l) => ({
      cells: [
        l.label,
        ...latency(l.latencyMs),
        l.source === 'raw-etcd'
          ? 'the floor'
          : `${ratio(l.latencyMs.p50 / p50(l.rawId))} raw` + (l.rawId === 'raw-etcd' ? `, ${ratio(l.latencyMs.p50 / etcdViaApi)} of API-from-etcd` : ''),
      ],
    })),
  ];
  const load = r.listLoad;
  if (load) {
    rows.push({
      cells: [`(loading them: API POST, ${load.concurrency} in flight)`, ...latency(load.latencyMs), `${int(load.throughputPerSec)} creates/s (context)`],
    });
  }
  return rows;
}

function watchRows(w: WatchRow, o: BenchOptions): TableRow[] {
  const via = w.protocol === 'h2' ? `HTTP/2, ${int(w.connections)} connection${w.connections === 1 ? '' : 's'}` : 'HTTP/1.1, a socket each';
  const p = `[${w.protocol}${w.floor ? ' floor' : ''}]`;
  const cpu = (c: Record<string, number>) =>
    Object.entries(c)
      .map(([k, v]) => `${k} ${Number.isFinite(v) ? v.toFixed(0) : '-'}%`)
      .join(', ');
  return [
    {
      section: w.floor
        ? `(c) watch ${p}: the same load against a bare HTTPS/HTTP2 server that only fans each write out (no API server, no etcd): this machine's floor`
        : `(c) watch ${p}: ${int(w.watchers)} watchers over ${via}, ${o.writesPerSecond} writes/s for ${o.watchSeconds} s (1 KiB secrets)`,
    },
    { cells: [`${p} write sent → event received`, ...latency(w.fromSendMs), `n=${int(w.fromSendMs.count)}`] },
    { cells: [`${p} write response → event received`, ...latency(w.fromAckMs), 'negative = event first'] },
    {
      cells: [
        `${p} write round trip (POST/PUT, fsync)`,
        ...latency(w.writeMs),
        `sent at ${w.issuedWritesPerSecond.toFixed(0)}/s, all done in ${w.writesSeconds.toFixed(1)} s`,
      ],
    },
    { cells: [`${p} events delivered / expected`, '', '', '', `${int(w.eventsDelivered)} / ${int(w.eventsExpected)} (drain ${w.drainSeconds.toFixed(1)} s)`] },
    { cells: [`${p} missing / duplicated / out of order`, '', '', '', `${int(w.missing)} / ${int(w.duplicated)} / ${int(w.outOfOrder)}`] },
    { cells: [`${p} unexpected events / streams ended early`, '', '', '', `${int(w.unexpected)} / ${int(w.streamsEndedEarly)}`] },
    { cells: [`${p} write errors`, '', '', '', int(w.writeErrors)] },
    ...(w.serverLoopDelayMs
      ? [{ cells: [`${p} server event-loop delay`, ms(w.serverLoopDelayMs.p50), ms(w.serverLoopDelayMs.p99), ms(w.serverLoopDelayMs.max), 'how long it blocks'] }]
      : []),
    { cells: [`${p} watcher process event-loop delay`, ms(w.watcherLoopDelayMs.p50), ms(w.watcherLoopDelayMs.p99), ms(w.watcherLoopDelayMs.max), 'late arrival stamps'] },
    { cells: [`${p} writer (bench) event-loop delay`, ms(w.writerLoopDelayMs.p50), ms(w.writerLoopDelayMs.p99), ms(w.writerLoopDelayMs.max), 'late send stamps'] },
    {
      cells: [
        `${p} CPU while delivering (% of a core)`,
        '',
        '',
        '',
        `${cpu(w.deliveryCpuPercent)}; server ${Number.isFinite(w.serverCpuUsPerEvent) ? w.serverCpuUsPerEvent.toFixed(1) : '-'} µs/event`,
      ],
    },
    { cells: [`${p} CPU whole run, connecting included`, '', '', '', cpu(w.cpuPercent)] },
  ];
}

function memoryRows(m: MemoryResult): TableRow[] {
  const how = m.via === 'api' ? 'created through the API' : "put straight into etcd, loaded by the server's watch cache";
  return [
    { section: `(d) memory: ${int(m.storedSecrets)} secrets stored (${int(m.objects)} of them ${how}; ${int(m.objectJsonBytes)} B in etcd each)` },
    { cells: [`server RSS with ${int(m.storedSecrets)} secrets`, '', '', '', `${mib(m.after.rssBytes)} (after a forced GC)`] },
    { cells: ['RSS before → after the load', '', '', '', `${mib(m.before.rssBytes)} → ${mib(m.after.rssBytes)}`] },
    { cells: ['heapUsed before → after the load', '', '', '', `${mib(m.before.heapUsedBytes)} → ${mib(m.after.heapUsedBytes)}`] },
    { cells: ['heap / RSS bytes per loaded object', '', '', '', `${int(m.heapBytesPerObject)} / ${int(m.rssBytesPerObject)}`] },
    {
      cells: [
        `load (${m.via === 'api' ? 'API POST' : 'etcd3 put'}, ${m.load.concurrency} in flight)`,
        ...latency(m.load.latencyMs),
        `${int(m.load.throughputPerSec)}/s; cache had all after ${m.load.cacheCaughtUpSeconds.toFixed(1)} s (context)`,
      ],
    },
  ];
}

function hostileRows(rows: HostileRow[], reps: number): TableRow[] {
  const floor = rows[0];
  return [
    {
      section: `(f) hostile bodies, ${reps} POSTs each (dryRun): the server's worst event-loop stall (p50 column: slowest request; p99 column: slowest /readyz probe meanwhile; max: stall). Target: stall ≤ 200 ms`,
    },
    ...rows.map((h) => ({
      cells: [
        `${h.label} → ${h.statuses}`,
        ms(h.requestMs),
        ms(h.probeMaxMs),
        ms(h.stallMs),
        `${mib(h.bodyBytes)} body; RSS +${mib(Math.max(0, h.rssGrowthBytes))}${floor && h !== floor ? `; stall ${ratio(h.stallMs / floor.stallMs)} the plain create's` : ''}${h.stallMs > 200 ? ' — OVER TARGET' : ''}`,
      ],
    })),
  ];
}

function stuckRows(s: StuckWatchersResult): TableRow[] {
  return [
    { section: `(h) stuck watchers: ${s.watchers} HTTP/1.1 watches never read, ${mib(s.bytesPerWatcher)} of events sent to each (server memory after a forced GC, less what remains once the clients left)` },
    { cells: ['server memory per stuck watcher, at the peak', '', '', '', `RSS ${mib(s.peakRssPerWatcherBytes)}, Buffers ${mib(s.peakBuffersPerWatcherBytes)}`] },
    { cells: ['server memory per stuck watcher, after the server gave up', '', '', '', `RSS ${mib(s.afterRssPerWatcherBytes)}, Buffers ${mib(s.afterBuffersPerWatcherBytes)} (clients still connected, not reading)`] },
    { cells: ['server RSS before → stuck → clients gone', '', '', '', `${mib(s.before.rssBytes)} → ${mib(s.after.rssBytes)} → ${mib(s.released.rssBytes)} (${s.seconds.toFixed(0)} s)`] },
  ];
}

function stormRows(s: StormResult): TableRow[] {
  const count = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k}: ${int(v)}`).join(', ') || 'none';
  const resets = Object.values(s.errors).reduce((a, b) => a + b, 0);
  return [
    { section: `(g) connection storm: ${int(s.connections)} new TLS connections at once, one GET each. Target: 0 resets` },
    { cells: ['answers by status', ...latency(s.latencyMs), `${count(s.byStatus)}${s.first5xx ? `; first 5xx: ${s.first5xx.trim()}` : ''}`] },
    { cells: ['connection errors', '', '', '', `${count(s.errors)}${resets > 0 ? ' — OVER TARGET' : ''}`] },
  ];
}

function startupRows(rows: StartupRow[], runs: number): TableRow[] {
  const label = (k: StartupRow['kind']) => (k === 'fresh' ? 'fresh data dir' : 'restart, existing data dir');
  return [
    { section: `(e) start to ready, embedded etcd, ${runs} runs each (spawn of node dist/src/main.js → …)` },
    ...rows.flatMap((s): TableRow[] => [
      { cells: [`${label(s.kind)}: → "platform-apiserver ready:" line`, ...latency(s.readyLineMs), ''] },
      { cells: [`${label(s.kind)}: → /readyz 200`, ...latency(s.readyzMs), ''] },
    ]),
  ];
}

function etcdRows(r: BenchResults): TableRow[] {
  const e = r.etcd;
  if (!e) return [];
  return [
    { section: `etcd alone (etcd ${e.version}, fsync on)` },
    { cells: ['raw etcd3 put, 1 KiB, 1 in flight', ...latency(e.putLatencyMs), `${e.putsPerSecond.toFixed(0)} puts/s`] },
  ];
}
