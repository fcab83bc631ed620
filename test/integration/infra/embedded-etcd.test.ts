import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Etcd3 } from 'etcd3';
import * as ts from 'typescript';
import { EmbeddedEtcd, EtcdStartError } from '../../../src/server/embedded-etcd';
import { startTestEtcd } from '../../support/etcd';
import { until } from '../../support/until';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether process `pid` is gone within `ms`. */
function waitGone(pid: number, ms = 10_000): Promise<boolean> {
  return until(`process ${pid} to exit`, () => !alive(pid), { timeoutMs: ms }).then(
    () => true,
    () => false,
  );
}

async function putGet(endpoints: string[], key: string, value: string): Promise<string | null> {
  const client = new Etcd3({ hosts: endpoints });
  try {
    await client.put(key).value(value);
    return await client.get(key).string();
  } finally {
    client.close();
  }
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'embedded-etcd-test-'));
  try {
    return await fn(dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('EmbeddedEtcd', () => {
  it('starts, answers an etcd3 put/get, and stops cleanly', async () => {
    const t = await startTestEtcd();
    const pid = t.etcd.pid;
    expect(pid).toBeDefined();
    try {
      expect(t.endpoints).toHaveLength(1);
      expect(t.endpoints[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await putGet(t.endpoints, '/registry/test/a', 'hello')).toBe('hello');
    } finally {
      await t.stop();
    }
    expect(t.etcd.pid).toBeUndefined();
    expect(alive(pid as number)).toBe(false);
    await expect(fs.access(t.dataDir)).rejects.toThrow();
    await t.stop(); // idempotent
  });

  it('runs two instances in parallel on different ports', async () => {
    const [a, b] = await Promise.all([startTestEtcd(), startTestEtcd()]);
    try {
      expect(a.endpoints[0]).not.toBe(b.endpoints[0]);
      await putGet(a.endpoints, 'k', 'from-a');
      await putGet(b.endpoints, 'k', 'from-b');
      const ca = new Etcd3({ hosts: a.endpoints });
      try {
        expect(await ca.get('k').string()).toBe('from-a');
      } finally {
        ca.close();
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('keeps its data across a restart on new ports', async () => {
    await withTempDir(async (dir) => {
      const etcd = new EmbeddedEtcd();
      const first = await etcd.start({ dataDir: path.join(dir, 'data'), unsafeNoFsync: true });
      await putGet(first.endpoints, 'persisted', 'yes');
      await etcd.stop();
      const second = await etcd.start({ dataDir: path.join(dir, 'data'), unsafeNoFsync: true });
      try {
        const c = new Etcd3({ hosts: second.endpoints });
        try {
          expect(await c.get('persisted').string()).toBe('yes');
        } finally {
          c.close();
        }
      } finally {
        await etcd.stop();
      }
    });
  });

  it("emits 'exit' when etcd dies unexpectedly, but not on stop()", async () => {
    const t = await startTestEtcd();
    try {
      const exited = new Promise<[number | null, string | null]>((resolve) =>
        t.etcd.once('exit', (code, signal) => resolve([code, signal])),
      );
      process.kill(t.etcd.pid as number, 'SIGKILL');
      expect(await exited).toEqual([null, 'SIGKILL']);
      expect(t.etcd.pid).toBeUndefined();
    } finally {
      await t.stop();
    }
    const t2 = await startTestEtcd();
    const onExit = jest.fn();
    t2.etcd.on('exit', onExit);
    await t2.stop();
    expect(onExit).not.toHaveBeenCalled();
  });

  it('refuses a second start while running', async () => {
    const t = await startTestEtcd();
    try {
      await expect(t.etcd.start({ dataDir: t.dataDir })).rejects.toThrow('embedded etcd is already running');
    } finally {
      await t.stop();
    }
  });

  it('fails clearly when the binary does not exist', async () => {
    await withTempDir(async (dir) => {
      const etcd = new EmbeddedEtcd();
      const err = await etcd
        .start({ dataDir: path.join(dir, 'data'), binary: path.join(dir, 'no-such-etcd'), startTimeoutMs: 5000 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EtcdStartError);
      expect((err as Error).message).toMatch(/embedded etcd failed to start/);
      expect((err as Error).message).toMatch(/cannot run .*no-such-etcd: ENOENT/);
      expect(etcd.pid).toBeUndefined();
    });
  });

  it('reports a missing binary on PATH', async () => {
    await withTempDir(async (dir) => {
      const err = await new EmbeddedEtcd()
        .start({ dataDir: path.join(dir, 'data'), binary: 'no-such-etcd-binary' })
        .catch((e: unknown) => e);
      expect((err as Error).message).toBe('embedded etcd failed to start: no-such-etcd-binary not found on PATH');
    });
  });

  it('fails with the log tail when a fixed port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      await withTempDir(async (dir) => {
        const etcd = new EmbeddedEtcd();
        const err = await etcd
          .start({ dataDir: path.join(dir, 'data'), clientPort: taken })
          .catch((e: unknown) => e);
        // clientPort fixed, peerPort free: the taken port cannot be retried away.
        expect(err).toBeInstanceOf(EtcdStartError);
        expect((err as EtcdStartError).logTail).toMatch(/address already in use/);
        expect((err as Error).message).toMatch(/etcd log \(tail\)/);
        expect(etcd.pid).toBeUndefined();
      });
    } finally {
      blocker.close();
    }
  });

  it('leaves no etcd behind when the Node process exits or is killed', async () => {
    await withTempDir(async (dir) => {
      // Run the module in a separate Node process (it imports only node builtins).
      const source = await fs.readFile(path.join(__dirname, '../../../src/server/embedded-etcd.ts'), 'utf8');
      const js = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      await fs.writeFile(path.join(dir, 'embedded-etcd.js'), js);
      const script = (mode: string) => `
        const { EmbeddedEtcd } = require(${JSON.stringify(path.join(dir, 'embedded-etcd.js'))});
        const e = new EmbeddedEtcd();
        e.start({ dataDir: ${JSON.stringify(path.join(dir, 'data-'))} + ${JSON.stringify(mode)}, unsafeNoFsync: true })
          .then(() => { console.log('PID ' + e.pid); ${mode === 'exit' ? 'process.exit(0);' : 'setInterval(() => {}, 1000);'} })
          .catch((err) => { console.error(err); process.exit(3); });`;
      for (const mode of ['exit', 'sigkill']) {
        const child = spawn(process.execPath, ['-e', script(mode)], { stdio: ['ignore', 'pipe', 'inherit'] });
        const pid = await new Promise<number>((resolve, reject) => {
          let out = '';
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            const m = /PID (\d+)/.exec(out);
            if (m) resolve(Number(m[1]));
          });
          child.once('exit', (code) => reject(new Error(`helper exited early with ${code}`)));
        });
        if (mode === 'sigkill') child.kill('SIGKILL');
        expect(await waitGone(pid)).toBe(true);
      }
    });
  });
});
