/**
 * Stalling a test etcd (SIGSTOP) for a while, as a loaded disk or a hung process would. A stop
 * signal is not synchronous: each of etcd's threads stops when it next runs, and on a loaded
 * machine one may still answer a request sent just after kill() returned. So the stop is awaited:
 * every thread of the process reported stopped (Linux /proc) before `fn` runs.
 */
import { readFileSync, readdirSync } from 'node:fs';
import type { TestEtcd } from './etcd';
import { until } from './until';

/** Whether every thread of `pid` is stopped (state T). */
function allThreadsStopped(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).every((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
  });
}

/** Runs `fn` with etcd stopped (SIGSTOP, every thread), always continuing it afterwards. */
export async function withEtcdPaused<T>(etcd: TestEtcd, fn: () => Promise<T>): Promise<T> {
  const pid = etcd.etcd.pid;
  if (pid === undefined) throw new Error('etcd is not running');
  process.kill(pid, 'SIGSTOP');
  try {
    await until(`etcd (pid ${pid}) stopped`, () => allThreadsStopped(pid));
    return await fn();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}
