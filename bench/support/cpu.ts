/** CPU time of processes on this machine (Linux /proc), to say who was busy during a phase. */
import { readFile } from 'node:fs/promises';

/** utime + stime of `pid` in seconds (NaN when /proc is unreadable). Assumes USER_HZ = 100. */
export async function cpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU use of several processes over a phase, as % of one core. */
export async function cpuMeter(pids: Record<string, number>): Promise<() => Promise<Record<string, number>>> {
  const start = process.hrtime.bigint();
  const before = Object.fromEntries(await Promise.all(Object.entries(pids).map(async ([k, pid]) => [k, await cpuSeconds(pid)] as const)));
  return async () => {
    const wall = Number(process.hrtime.bigint() - start) / 1e9;
    const out: Record<string, number> = {};
    for (const [k, pid] of Object.entries(pids)) out[k] = (((await cpuSeconds(pid)) - (before[k] ?? Number.NaN)) / wall) * 100;
    return out;
  };
}
