/**
 * EmbeddedEtcd: runs a single-member etcd (3.4) as a child process bound to 127.0.0.1, for when no
 * --etcd-servers are given and for tests. One instance manages at most one child at a time.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createWriteStream, promises as fs, WriteStream } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { arch, endianness } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of EmbeddedEtcd.start. */
export interface EmbeddedEtcdOptions {
  /** etcd's --data-dir (created 0700 if missing). */
  dataDir: string;
  /** Executable name or path (default `etcd`, looked up on PATH). */
  binary?: string;
  /** Client port on 127.0.0.1; 0 or absent → a free port (retried on a bind race). */
  clientPort?: number;
  /** Peer port on 127.0.0.1; 0 or absent → a free port (retried on a bind race). */
  peerPort?: number;
  /** Pass --unsafe-no-fsync (tests only: data may be lost on a crash). */
  unsafeNoFsync?: boolean;
  /** Append etcd's stdout/stderr to this file. */
  logFile?: string;
  /** Member name (default `default`). */
  name?: string;
  /** Overall time to wait for /health (default 30 s). */
  startTimeoutMs?: number;
  /** Start attempts when a picked port turns out taken (default 5). */
  maxAttempts?: number;
  /** etcd's --heartbeat-interval in ms (default 20; see SINGLE_MEMBER_RAFT). */
  heartbeatIntervalMs?: number;
  /** etcd's --election-timeout in ms (default 100, at least 5× the heartbeat; see SINGLE_MEMBER_RAFT). */
  electionTimeoutMs?: number;
}

/** What start() resolves with. */
export interface EmbeddedEtcdEndpoints {
  /** Client URLs, e.g. `http://127.0.0.1:40123`. */
  endpoints: string[];
}

/**
 * Events: 'spawn' (pid) as soon as an etcd child process exists (before it is healthy; again on a
 * port retry), so callers can do other work while it starts; 'exit' (code, signal) when etcd dies
 * without stop() having been called.
 */
interface EmbeddedEtcdEvents {
  spawn: [pid: number];
  exit: [code: number | null, signal: NodeJS.Signals | null];
}

/** Thrown when etcd cannot be started; the message carries the tail of etcd's log. */
export class EtcdStartError extends Error {
  constructor(
    message: string,
    readonly logTail: string,
  ) {
    super(logTail ? `${message}\n--- etcd log (tail) ---\n${logTail}` : message);
    this.name = 'EtcdStartError';
  }
}

const TAIL_BYTES = 8 * 1024;
// /health answers only once etcd serves clients; before that a connect is refused (or waits in the
// listen backlog), so a short interval costs little and ends the wait soon after etcd is ready.
const POLL_INTERVAL_MS = 20;
/**
 * Raft timing of the embedded member (always a cluster of one). etcd's defaults (100 ms heartbeat,
 * 1000 ms election timeout) suit networks between members, yet a lone member too waits out an
 * election timeout (randomized in [timeout, 2×timeout)) before it leads and serves: on a fresh start
 * etcd fast-forwards all but one tick of it (up to 1 s remained); on a restart without a snapshot it
 * fast-forwards nothing, as the membership is unknown until the WAL is replayed (etcd-io/etcd
 * etcdserver/server.go, adjustTicks), so a restart sat 1-2 s leaderless. With no peer to miss a
 * heartbeat, shorter values only shorten that wait (and etcd's internal request timeout, 5 s + 2×
 * the election timeout); they keep etcd's rule that the election timeout be ≥ 5 heartbeats.
 * External etcd (--etcd-servers) is never touched; durability (fsync) is unchanged.
 */
const SINGLE_MEMBER_RAFT = { heartbeatIntervalMs: 20, electionTimeoutMs: 100 } as const;
const HEALTH_REQUEST_TIMEOUT_MS = 1000;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  hasExited: boolean;
  stopping: boolean;
  tail: { text: string };
  log?: WriteStream;
  killOnExit: () => void;
}

/**
 * Manages one etcd child process. `start` resolves once etcd answers /health; `stop` terminates it
 * (SIGTERM, then SIGKILL after a timeout). The child is killed if the Node process exits, and, where
 * util-linux `setpriv` exists, also if Node dies abruptly (parent-death signal).
 */
export class EmbeddedEtcd extends EventEmitter<EmbeddedEtcdEvents> {
  private running: Running | undefined;

  /** The etcd child's pid while it runs. */
  get pid(): number | undefined {
    return this.running && !this.running.hasExited ? this.running.child.pid : undefined;
  }

  /**
   * Starts etcd and waits until it is healthy. Throws EtcdStartError (with the log tail) if the binary
   * is missing, etcd exits, or it is not healthy within startTimeoutMs; the child is then gone.
   * Throws Error if this instance already runs an etcd.
   */
  async start(opts: EmbeddedEtcdOptions): Promise<EmbeddedEtcdEndpoints> {
    if (this.running && !this.running.hasExited) throw new Error('embedded etcd is already running');
    await fs.mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
    const binary = await resolveBinary(opts.binary ?? 'etcd');
    const attempts = Math.max(1, opts.maxAttempts ?? 5);
    for (let attempt = 1; ; attempt++) {
      const [clientPort, peerPort] = await choosePorts(opts.clientPort ?? 0, opts.peerPort ?? 0);
      try {
        await this.startOnce(opts, binary, clientPort, peerPort);
        return { endpoints: [`http://127.0.0.1:${clientPort}`] };
      } catch (e) {
        // Retry only when a port we picked was grabbed by someone else in the meantime.
        const taken = e instanceof EtcdStartError ? portInUse(e.logTail) : undefined;
        const picked = (taken === clientPort && !opts.clientPort) || (taken === peerPort && !opts.peerPort);
        if (!picked || attempt >= attempts) throw e;
      }
    }
  }

  /** Stops etcd: SIGTERM, SIGKILL after timeoutMs; resolves once it has exited. No-op if not running. */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    const r = this.running;
    if (!r) return;
    r.stopping = true;
    if (!r.hasExited) {
      r.child.kill('SIGTERM');
      const timer = setTimeout(() => r.child.kill('SIGKILL'), timeoutMs);
      try {
        await r.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    await closeLog(r.log);
    if (this.running === r) this.running = undefined;
  }

  private async startOnce(opts: EmbeddedEtcdOptions, binary: string, clientPort: number, peerPort: number): Promise<void> {
    const name = opts.name ?? 'default';
    const clientUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const args = [
      `--name=${name}`,
      `--data-dir=${path.resolve(opts.dataDir)}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${name}=${peerUrl}`,
      '--initial-cluster-state=new',
      `--heartbeat-interval=${opts.heartbeatIntervalMs ?? SINGLE_MEMBER_RAFT.heartbeatIntervalMs}`,
      `--election-timeout=${opts.electionTimeoutMs ?? SINGLE_MEMBER_RAFT.electionTimeoutMs}`,
      '--logger=zap',
      '--log-outputs=stderr',
    ];
    // Accepted by etcd 3.4.23 (verified by starting it) although its `--help` does not list it.
    if (opts.unsafeNoFsync) args.push('--unsafe-no-fsync');
    const setpriv = process.platform === 'linux' ? await findOnPath('setpriv') : undefined;
    const [cmd, cmdArgs] = setpriv ? [setpriv, ['--pdeathsig', 'KILL', '--', binary, ...args]] : [binary, args];

    const log = opts.logFile ? await openLog(opts.logFile) : undefined;
    const tail = { text: '' };
    const child = spawn(cmd, cmdArgs, { env: etcdEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const r: Running = {
      child,
      hasExited: false,
      stopping: false,
      tail,
      log,
      exited: Promise.resolve(),
      killOnExit: () => child.kill('SIGKILL'),
    };
    let spawnError: Error | undefined;
    r.exited = new Promise<void>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (r.hasExited) return;
        r.hasExited = true;
        process.removeListener('exit', r.killOnExit);
        resolve();
        void closeLog(log);
        if (!r.stopping && this.running === r) this.emit('exit', code, signal);
      };
      child.on('error', (err) => {
        spawnError ??= err;
        if (child.pid === undefined) finish(null, null); // never started; no 'close' may follow
      });
      // 'close' comes after 'exit' once stdout/stderr are drained, so the log tail is complete.
      child.once('close', (code, signal) => finish(code, signal));
    });
    const onData = (chunk: Buffer) => {
      tail.text = (tail.text + chunk.toString('utf8')).slice(-TAIL_BYTES);
      log?.write(chunk);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    process.on('exit', r.killOnExit);
    this.running = r;
    if (child.pid !== undefined) this.emit('spawn', child.pid);

    try {
      await waitHealthy(clientUrl, r, opts.startTimeoutMs ?? 30_000);
    } catch (e) {
      r.stopping = true;
      if (!r.hasExited) {
        child.kill('SIGKILL');
        await r.exited;
      }
      await closeLog(log);
      if (this.running === r) this.running = undefined;
      const why = spawnError
        ? `cannot run ${binary}: ${spawnError.message}`
        : e instanceof Error
          ? e.message
          : String(e);
      throw new EtcdStartError(`embedded etcd failed to start: ${why}`, tail.text.trim());
    }
  }
}

/** The port of etcd's `listen tcp 127.0.0.1:<port>: bind: address already in use`, if logged. */
function portInUse(logTail: string): number | undefined {
  const m = /listen tcp [^\s"]*:(\d+): bind: address already in use/.exec(logTail);
  return m ? Number(m[1]) : undefined;
}

/** The executable to run: a path as given (must be executable) or a name found on PATH. */
async function resolveBinary(binary: string): Promise<string> {
  if (binary.includes('/')) {
    try {
      await fs.access(binary, fs.constants.X_OK);
      return binary;
    } catch (e) {
      throw new EtcdStartError(`embedded etcd failed to start: cannot run ${binary}: ${(e as Error).message}`, '');
    }
  }
  const found = await findOnPath(binary);
  if (!found) throw new EtcdStartError(`embedded etcd failed to start: ${binary} not found on PATH`, '');
  return found;
}

/** Polls `<clientUrl>/health` until `{"health":"true"}`, the child exits, or the deadline passes. */
async function waitHealthy(clientUrl: string, r: Running, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (!r.hasExited) {
    try {
      const body = await httpGet(`${clientUrl}/health`);
      if ((JSON.parse(body) as { health?: unknown }).health === 'true') return;
      last = `unhealthy: ${body.trim()}`;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() >= deadline) throw new Error(`not healthy after ${timeoutMs} ms (${last})`);
    await sleep(POLL_INTERVAL_MS);
  }
  const { exitCode, signalCode } = r.child;
  throw new Error(signalCode ? `etcd was killed by ${signalCode}` : `etcd exited with code ${exitCode ?? 'unknown'}`);
}

function httpGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: HEALTH_REQUEST_TIMEOUT_MS, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('health check timed out')));
    req.on('error', reject);
  });
}

/** Ports to use: the requested ones, with 0 replaced by distinct free ports on 127.0.0.1. */
async function choosePorts(client: number, peer: number): Promise<[number, number]> {
  const servers: net.Server[] = [];
  try {
    const grab = async (): Promise<number> => {
      const srv = net.createServer();
      servers.push(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', resolve);
      });
      return (srv.address() as net.AddressInfo).port;
    };
    // Hold both listeners open while picking, so the two ports differ.
    const c = client || (await grab());
    const p = peer || (await grab());
    return [c, p];
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** Go's GOARCH for this machine. */
function goArch(): string {
  const a = arch();
  const map: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', s390x: 's390x' };
  if (a === 'ppc64') return endianness() === 'LE' ? 'ppc64le' : 'ppc64';
  return map[a] ?? a;
}

/**
 * The child's environment: ETCD_* variables removed (etcd 3.4 refuses env vars shadowed by flags), and
 * ETCD_UNSUPPORTED_ARCH set where 3.4 needs it (anything but amd64 and ppc64le, e.g. arm64).
 */
function etcdEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('ETCD_') || k === 'ETCD_UNSUPPORTED_ARCH') env[k] = v;
  }
  const ga = goArch();
  if (ga !== 'amd64' && ga !== 'ppc64le' && env.ETCD_UNSUPPORTED_ARCH === undefined) env.ETCD_UNSUPPORTED_ARCH = ga;
  return env;
}

async function findOnPath(cmd: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    try {
      await fs.access(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

async function openLog(file: string): Promise<WriteStream> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const stream = createWriteStream(file, { flags: 'a' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  return stream;
}

/** Ends the log stream (idempotent); resolves once the file is closed. */
function closeLog(log: WriteStream | undefined): Promise<void> {
  if (!log || log.closed) return Promise.resolve();
  return new Promise((resolve) => {
    log.once('close', () => resolve());
    if (!log.writableEnded) log.end();
  });
}
