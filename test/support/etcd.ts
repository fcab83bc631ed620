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
