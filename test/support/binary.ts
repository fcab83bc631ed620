/** Runs the built server (dist/src/main.js) as a child process, as a user would with `make run`. */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export const mainJs = path.resolve(__dirname, '../../dist/src/main.js');

export interface RunningBinary {
  child: ChildProcess;
  url: string;
  kubeconfig: string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the binary and resolves once it prints its ready line; rejects with its stderr if it exits first. */
export function startBinary(args: string[], timeoutMs = 30_000): Promise<RunningBinary> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mainJs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server not ready within ${timeoutMs} ms:\n${err}`));
    }, timeoutMs);
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /platform-apiserver ready: (\S+) kubeconfig=(\S*)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1] as string,
          kubeconfig: m[2] as string,
          stderr: () => err,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready:\n${err}`));
    });
  });
}

/** Runs the binary to completion (for flag and startup errors). */
export function runBinary(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [mainJs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
