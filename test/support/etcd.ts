/**
 * A throwaway etcd for integration tests: temp data dir, free ports, --unsafe-no-fsync.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EmbeddedEtcd } from '../../src/server/embedded-etcd';

/** A running test etcd. */
export interface TestEtcd {
  /** Client URLs, e.g. `http://127.0.0.1:40123`. */
  endpoints: string[];
  /** The data dir (inside a temp dir removed by stop). */
  dataDir: string;
  /** The managed process (for tests that kill or inspect it). */
  etcd: EmbeddedEtcd;
  /** SIGKILLs the etcd process and waits until it has exited (an outage, or a crash). */
  kill(): Promise<void>;
  /** Starts etcd again on the same data dir and client port (after kill). */
  restart(): Promise<void>;
  /** Stops etcd and removes its temp dir; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts etcd in a fresh temp dir on free 127.0.0.1 ports. Throws EtcdStartError (with etcd's log
 * tail) if it cannot start; the temp dir is removed in that case too.
 */
export async function startTestEtcd(): Promise<TestEtcd> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'platform-apiserver-etcd-'));
  const dataDir = path.join(dir, 'data');
  const etcd = new EmbeddedEtcd();
  try {
    const { endpoints } = await etcd.start({
      dataDir,
      unsafeNoFsync: true,
      logFile: path.join(dir, 'etcd.log'),
    });
    let stopped: Promise<void> | undefined;
    return {
      endpoints,
      dataDir,
      etcd,
      async kill() {
        const pid = etcd.pid;
        if (pid === undefined) throw new Error('etcd is not running');
        const exited = new Promise<void>((r) => etcd.once('exit', () => r()));
        process.kill(pid, 'SIGKILL');
        await exited;
      },
      async restart() {
        await etcd.start({ dataDir, clientPort: Number(new URL(endpoints[0] as string).port), unsafeNoFsync: true });
      },
      stop: () =>
        (stopped ??= (async () => {
          await etcd.stop();
          await fs.rm(dir, { recursive: true, force: true });
        })()),
    };
  } catch (e) {
    await etcd.stop();
    await fs.rm(dir, { recursive: true, force: true });
    throw e;
  }
}
