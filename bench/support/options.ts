/** The bench's knobs: `--name=value` flags over defaults sized to finish in about two minutes. */

export interface BenchOptions {
  /** Concurrent watch streams. */
  watchers: number;
  writesPerSecond: number;
  watchSeconds: number;
  /** Secrets loaded for the memory row (half of them, `listObjects`, in the listed namespace). */
  memoryObjects: number;
  /** Secrets in the namespace whose list is timed. */
  listObjects: number;
  listReps: number;
  /** Creates in flight while loading. */
  loadConcurrency: number;
  /** Where etcd keeps its data (a temp dir under it); fsync stays on. */
  tmpDir: string | undefined;
}

export const defaultOptions: BenchOptions = {
  watchers: 1000,
  writesPerSecond: 100,
  watchSeconds: 10,
  memoryObjects: 20_000,
  listObjects: 10_000,
  listReps: 10,
  loadConcurrency: 64,
  tmpDir: undefined,
};

const numeric: Record<string, keyof BenchOptions> = {
  watchers: 'watchers',
  'writes-per-second': 'writesPerSecond',
  'watch-seconds': 'watchSeconds',
  'memory-objects': 'memoryObjects',
  'list-objects': 'listObjects',
  'list-reps': 'listReps',
  'load-concurrency': 'loadConcurrency',
};

/** Parses argv (`--watchers=200`, `--tmp-dir=/var/tmp`); throws Error on an unknown or bad flag. */
export function parseOptions(argv: string[]): BenchOptions {
  const o: BenchOptions = { ...defaultOptions };
  for (const arg of argv) {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!m) throw new Error(`unexpected argument ${arg} (flags are --name=value)`);
    const [, name = '', value = ''] = m;
    if (name === 'tmp-dir') {
      o.tmpDir = value;
      continue;
    }
    const key = numeric[name];
    const n = Number(value);
    if (!key) throw new Error(`unknown flag --${name}; known: ${[...Object.keys(numeric), 'tmp-dir'].join(', ')}`);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${value}`);
    (o as unknown as Record<string, number>)[key] = n;
  }
  if (o.listObjects > o.memoryObjects) throw new Error('--list-objects cannot exceed --memory-objects');
  return o;
}
