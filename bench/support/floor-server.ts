/** Forks a floor server (support/floor-server-process.js): see that file. */
import { fork } from 'node:child_process';
import path from 'node:path';
import type { ApiTarget } from './api-client';

/** A running floor server. */
export interface FloorHandle extends ApiTarget {
  pid: number;
  stop(): Promise<void>;
}

/** With `etcd`, the create floor: POSTs are written to etcd under `prefix` (else the watch floor). */
export interface FloorEtcdOptions {
  endpoints: string[];
  prefix: string;
}

/** Starts a floor server with its certificates under `dir`; resolves once it listens. */
export function forkFloorServer(dir: string, etcd?: FloorEtcdOptions): Promise<FloorHandle> {
  const etcdEnv = etcd ? { BENCH_FLOOR_ETCD: etcd.endpoints.join(','), BENCH_FLOOR_PREFIX: etcd.prefix } : {};
  const child = fork(path.join(__dirname, 'floor-server-process.js'), [], {
    env: { ...process.env, BENCH_FLOOR_DIR: dir, ...etcdEnv },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`floor server exited with code ${code} before it was ready`));
    child.once('exit', onExit);
    child.on('message', (msg: { type: string; url?: string; caCert?: string; message?: string }) => {
      if (msg.type === 'failed') reject(new Error(`floor server failed: ${msg.message}`));
      if (msg.type !== 'ready') return;
      child.off('exit', onExit);
      resolve({
        url: msg.url ?? '',
        caCert: msg.caCert ?? '',
        token: 'floor',
        pid: child.pid as number,
        stop: async () => {
          child.send('stop');
          await exited;
        },
      });
    });
  });
}
