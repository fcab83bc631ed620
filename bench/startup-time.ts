/**
 * Server start to ready with the embedded etcd: spawns the real binary (`node dist/src/main.js
 * --data-dir=<dir> --secure-port=0 --bind-address=127.0.0.1`) and times, from the spawn, its
 * `platform-apiserver ready:` stdout line and the first /readyz answering 200. Each run starts on a
 * fresh data dir, is stopped (SIGTERM), then started again on the same dir (etcd's data and the
 * certificates exist) and stopped again.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import type { Progress } from './support/progress';
import { msSince, summarize, type Summary } from './support/stats';

export interface StartupRow {
  /** fresh = empty data dir; restart = the dir of the previous start. */
  kind: 'fresh' | 'restart';
  /** Spawn → the ready line on stdout, ms. */
  readyLineMs: Summary;
  /** Spawn → first 200 from /readyz, ms. */
  readyzMs: Summary;
}

/** One start: both times, after which the server is stopped and has exited. */
interface StartTimes {
  readyLineMs: number;
  readyzMs: number;
}

const READY_LINE = /^platform-apiserver ready: (https:\/\/\S+)/m;

/** Runs `runs` fresh starts, each followed by a restart on its data dir; dirs go under `tmpDir`. */
export async function measureStartup(mainJs: string, runs: number, tmpDir: string, progress: Progress): Promise<StartupRow[]> {
  const fresh: StartTimes[] = [];
  const restart: StartTimes[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = await mkdtemp(path.join(tmpDir, 'papi-bench-start-'));
    try {
      fresh.push(await startOnce(mainJs, dir));
      restart.push(await startOnce(mainJs, dir));
      progress(
        'startup',
        `run ${i + 1}/${runs}: fresh ready line ${fresh[i]?.readyLineMs.toFixed(0)} ms, /readyz ${fresh[i]?.readyzMs.toFixed(0)} ms; ` +
          `restart ${restart[i]?.readyLineMs.toFixed(0)} ms, /readyz ${restart[i]?.readyzMs.toFixed(0)} ms`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const row = (kind: StartupRow['kind'], t: StartTimes[]): StartupRow => ({
    kind,
    readyLineMs: summarize(t.map((s) => s.readyLineMs)),
    readyzMs: summarize(t.map((s) => s.readyzMs)),
  });
  return [row('fresh', fresh), row('restart', restart)];
}

/** Spawns the server on `dir`, waits for the ready line and /readyz 200, then stops it (SIGTERM). */
async function startOnce(mainJs: string, dir: string): Promise<StartTimes> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [mainJs, `--data-dir=${dir}`, '--secure-port=0', '--bind-address=127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  try {
    const { url, ms: readyLineMs } = await new Promise<{ url: string; ms: number }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        const m = READY_LINE.exec(out);
        if (m?.[1]) resolve({ url: m[1], ms: msSince(t0) });
      });
      child.once('exit', (code) => reject(new Error(`server exited with ${code} before its ready line:\n${stderr}`)));
    });
    const readyzMs = await pollReadyz(url, t0);
    return { readyLineMs, readyzMs };
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** GETs /readyz (keep-alive, certificate not checked: only timing matters) until 200; ms since t0. */
async function pollReadyz(url: string, t0: bigint): Promise<number> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await new Promise<number>((resolve) => {
        https
          .get(`${url}/readyz`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', () => resolve(0));
      });
      if (status === 200) return msSince(t0);
      if (Date.now() > deadline) throw new Error(`${url}/readyz did not answer 200 within 30 s (last ${status})`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    agent.destroy();
  }
}

