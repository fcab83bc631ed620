/** The bench's results (also the JSON written per run) and their rendering as one table. */
import type { EtcdBaseline } from './etcd-baseline';
import type { ListRow } from './list-latency';
import type { MemoryResult } from './memory-per-object';
import type { MachineInfo } from './support/machine';
import type { BenchOptions } from './support/options';
import { int, mib, ms, ratio, renderTable, type TableRow } from './support/table';
import type { WatchResult } from './watch-latency';

export interface BenchResults {
  startedAt: string;
  durationSeconds: number;
  machine: MachineInfo;
  options: BenchOptions;
  /** os.loadavg() at the start and the end: other work on the machine skews every row. */
  loadAverage: { start: number[]; end: number[] };
  etcd: { version: string; fsync: boolean } & EtcdBaseline;
  /** cpuPercent: % of one core used by each process during the watch phase (connect included). */
  watch: WatchResult & { cpuPercent: Record<string, number> };
  memory: MemoryResult;
  list: ListRow[];
}

/** The table printed at the end of a run. */
export function renderReport(r: BenchResults): string {
  const w = r.watch;
  const m = r.memory;
  const rows: TableRow[] = [
    { section: `watch: ${int(w.watchers)} watchers, ${r.options.writesPerSecond} writes/s for ${r.options.watchSeconds} s (1 KiB secrets)` },
    { cells: ['write sent → event received', ms(w.fromSendMs.p50), ms(w.fromSendMs.p99), ms(w.fromSendMs.max), `n=${int(w.fromSendMs.count)}`] },
    { cells: ['write response → event received', ms(w.fromAckMs.p50), ms(w.fromAckMs.p99), ms(w.fromAckMs.max), 'negative = event first'] },
    {
      cells: [
        'write round trip (POST/PUT, fsync)',
        ms(w.writeMs.p50),
        ms(w.writeMs.p99),
        ms(w.writeMs.max),
        `sent at ${w.issuedWritesPerSecond.toFixed(0)}/s, all done in ${w.writesSeconds.toFixed(1)} s`,
      ],
    },
    { cells: ['events delivered / expected', '', '', '', `${int(w.eventsDelivered)} / ${int(w.eventsExpected)} (drain ${w.drainSeconds.toFixed(1)} s)`] },
    {
      cells: [
        'missing / duplicated / out of order',
        '',
        '',
        '',
        `${int(w.missing)} / ${int(w.duplicated)} / ${int(w.outOfOrder)}`,
      ],
    },
    { cells: ['unexpected events / streams ended early', '', '', '', `${int(w.unexpected)} / ${int(w.streamsEndedEarly)}`] },
    { cells: ['write errors', '', '', '', int(w.writeErrors)] },
    { cells: ['bench process event-loop delay', ms(w.clientLoopDelayMs.p50), ms(w.clientLoopDelayMs.p99), ms(w.clientLoopDelayMs.max), 'client-side skew'] },
    {
      cells: [
        'CPU during watch phase (% of a core)',
        '',
        '',
        '',
        Object.entries(w.cpuPercent)
          .map(([k, v]) => `${k} ${Number.isFinite(v) ? v.toFixed(0) : '-'}%`)
          .join(', '),
      ],
    },
    { section: `memory: ${int(m.objects)} secrets in the watch cache (${int(m.objectJsonBytes)} B of JSON each)` },
    { cells: ['heapUsed before → after', '', '', '', `${mib(m.before.heapUsedBytes)} → ${mib(m.after.heapUsedBytes)}`] },
    { cells: ['RSS before → after', '', '', '', `${mib(m.before.rssBytes)} → ${mib(m.after.rssBytes)}`] },
    { cells: ['heap bytes per object', '', '', '', int(m.heapBytesPerObject)] },
    { cells: ['RSS bytes per object', '', '', '', int(m.rssBytesPerObject)] },
    {
      cells: [
        `create (POST, ${m.create.concurrency} in flight)`,
        ms(m.create.latencyMs.p50),
        ms(m.create.latencyMs.p99),
        ms(m.create.latencyMs.max),
        `${m.create.throughputPerSec.toFixed(0)} creates/s`,
      ],
    },
    ...listRows(r),
    { section: 'etcd alone (same etcd, fsync on)' },
    {
      cells: [
        'raw etcd3 put, 1 KiB, 1 in flight',
        ms(r.etcd.putLatencyMs.p50),
        ms(r.etcd.putLatencyMs.p99),
        ms(r.etcd.putLatencyMs.max),
        `${r.etcd.putsPerSecond.toFixed(0)} puts/s`,
      ],
    },
  ];
  return renderTable(['row', 'p50', 'p99', 'max', 'notes'], rows);
}

function listRows(r: BenchResults): TableRow[] {
  const etcdViaApi = r.list.find((l) => l.id === 'no-cache')?.latencyMs.p50 ?? Number.NaN;
  const raw = r.list.find((l) => l.source === 'raw-etcd')?.latencyMs.p50 ?? Number.NaN;
  return [
    { section: `list: ${int(r.options.listObjects)} secrets, ${r.options.listReps} rounds (ratios of p50s)` },
    ...r.list.map((l) => ({
      cells: [
        l.label,
        ms(l.latencyMs.p50),
        ms(l.latencyMs.p99),
        ms(l.latencyMs.max),
        l.source === 'raw-etcd'
          ? 'the floor'
          : `${ratio(l.latencyMs.p50 / etcdViaApi)} of API-from-etcd, ${ratio(l.latencyMs.p50 / raw)} of raw`,
      ],
    })),
  ];
}
