/**
 * EmbeddedEtcd against a stand-in etcd binary (a Node script that records its arguments and answers
 * /health): the single-member raft timing it passes, and its 'spawn' event coming before start()
 * resolves. The real etcd is exercised by test/integration/infra/embedded-etcd.test.ts.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedEtcd, EmbeddedEtcdOptions } from '../../../src/server/embedded-etcd';

let dir: string;
let fake: string;
let argsFile: string;

// Answers /health once `delayMs` have passed (as etcd does once it has a leader), until killed.
const FAKE_ETCD = `#!${process.execPath}
const fs = require('node:fs');
const http = require('node:http');
const args = process.argv.slice(2);
fs.writeFileSync(process.env.FAKE_ETCD_ARGS, JSON.stringify(args));
const url = new URL(args.find((a) => a.startsWith('--listen-client-urls=')).split('=')[1]);
const delayMs = Number(process.env.FAKE_ETCD_DELAY_MS || 0);
setTimeout(() => {
  http.createServer((req, res) => res.end(JSON.stringify({ health: 'true' }))).listen(Number(url.port), url.hostname);
}, delayMs);
process.on('SIGTERM', () => process.exit(0));
`;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'embedded-etcd-unit-'));
  fake = path.join(dir, 'fake-etcd');
  argsFile = path.join(dir, 'args.json');
  await writeFile(fake, FAKE_ETCD);
  await chmod(fake, 0o755);
  process.env.FAKE_ETCD_ARGS = argsFile;
});
afterEach(async () => {
  delete process.env.FAKE_ETCD_ARGS;
  delete process.env.FAKE_ETCD_DELAY_MS;
  await rm(dir, { recursive: true, force: true });
});

async function argsOf(opts: Partial<EmbeddedEtcdOptions> = {}): Promise<string[]> {
  const etcd = new EmbeddedEtcd();
  await etcd.start({ dataDir: path.join(dir, 'data'), binary: fake, ...opts });
  try {
    return JSON.parse(await readFile(argsFile, 'utf8')) as string[];
  } finally {
    await etcd.stop();
  }
}

describe('EmbeddedEtcd raft timing', () => {
  it.each([
    ['defaults: a 20 ms heartbeat and a 100 ms election timeout', {}, ['--heartbeat-interval=20', '--election-timeout=100']],
    ['explicit values', { heartbeatIntervalMs: 100, electionTimeoutMs: 1000 }, ['--heartbeat-interval=100', '--election-timeout=1000']],
  ])('passes %s', async (_name, opts, expected) => {
    const args = await argsOf(opts);
    expect(args).toEqual(expect.arrayContaining(expected));
    expect(args.filter((a) => a.startsWith('--heartbeat-interval=') || a.startsWith('--election-timeout='))).toHaveLength(2);
  });

  it('keeps fsync on unless asked (durability is not traded for start-up time)', async () => {
    expect(await argsOf()).not.toContain('--unsafe-no-fsync');
    expect(await argsOf({ unsafeNoFsync: true })).toContain('--unsafe-no-fsync');
  });
});

describe("EmbeddedEtcd 'spawn' event", () => {
  it('fires with the pid once the process exists, before start() resolves on health', async () => {
    process.env.FAKE_ETCD_DELAY_MS = '300';
    const etcd = new EmbeddedEtcd();
    const order: string[] = [];
    let spawnedPid: number | undefined;
    etcd.on('spawn', (pid) => {
      spawnedPid = pid;
      order.push(`spawn pid=${etcd.pid === pid}`);
    });
    try {
      await etcd.start({ dataDir: path.join(dir, 'data'), binary: fake }).then(() => order.push('started'));
      expect(order).toEqual(['spawn pid=true', 'started']);
      expect(spawnedPid).toBe(etcd.pid);
    } finally {
      await etcd.stop();
    }
  });

  it('does not fire when the binary cannot be run', async () => {
    const etcd = new EmbeddedEtcd();
    const spawned = jest.fn();
    etcd.on('spawn', spawned);
    await expect(etcd.start({ dataDir: path.join(dir, 'data'), binary: path.join(dir, 'missing') })).rejects.toThrow(/cannot run/);
    expect(spawned).not.toHaveBeenCalled();
  });
});
