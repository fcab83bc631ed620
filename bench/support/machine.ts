/** What the bench ran on, for the header and the JSON: CPUs, memory, Node, etcd, kernel. */
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memoryTotalBytes: number;
  node: string;
  etcd: string;
  kernel: string;
  platform: string;
}

/** Describes this machine; `etcdBinary` is asked for its version (`unknown` if that fails). */
export async function describeMachine(etcdBinary = 'etcd'): Promise<MachineInfo> {
  let etcd = 'unknown';
  try {
    const { stdout } = await promisify(execFile)(etcdBinary, ['--version']);
    etcd = /etcd Version:\s*(\S+)/.exec(stdout)?.[1] ?? etcd;
  } catch {
    // leave unknown
  }
  return {
    nproc: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryTotalBytes: os.totalmem(),
    node: process.version,
    etcd,
    kernel: os.release(),
    platform: `${os.platform()}/${os.arch()}`,
  };
}
