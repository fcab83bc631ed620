/**
 * kube's etcd health and readiness checks: the flag's timeout (0 → 2 s) handed to each read, one
 * read per half timeout, and a limited call answered with the newest completed read's result.
 */
import { etcdCheckTimeoutMs, rateLimitedEtcdCheck } from '../../../src/storage/etcd/health-check';

describe('etcd health checks', () => {
  it('0 means the 2 s default; anything else is used as given', () => {
    expect(etcdCheckTimeoutMs(0)).toBe(2000);
    expect(etcdCheckTimeoutMs(500)).toBe(500);
  });

  it('reads etcd at most once per half timeout; calls in between get the newest completed result', async () => {
    let clock = 0;
    const reads: number[] = [];
    let answer = true;
    const check = rateLimitedEtcdCheck(
      async (ms) => {
        reads.push(ms);
        return answer;
      },
      1000,
      () => clock,
    );
    expect(await check()).toBe(true);
    answer = false;
    clock = 499;
    expect(await check()).toBe(true); // limited: the last read's answer
    expect(reads).toEqual([1000]);
    clock = 500;
    expect(await check()).toBe(false); // a new read
    clock = 700;
    expect(await check()).toBe(false);
    expect(reads).toEqual([1000, 1000]);
  });

  it('a call limited before any read has completed fails, as kube answers "not yet established"', async () => {
    let release: (ok: boolean) => void = () => undefined;
    const check = rateLimitedEtcdCheck(() => new Promise<boolean>((r) => (release = r)), 2000, () => 0);
    const first = check();
    expect(await check()).toBe(false);
    release(true);
    expect(await first).toBe(true);
    expect(await check()).toBe(true);
  });

  it('a slow read that started earlier does not replace a newer result', async () => {
    let clock = 0;
    const pending: Array<(ok: boolean) => void> = [];
    const check = rateLimitedEtcdCheck(() => new Promise<boolean>((r) => pending.push(r)), 1000, () => clock);
    const slow = check(); // started at 0
    clock = 600;
    const fresh = check(); // started at 600
    pending[1]?.(true);
    await fresh;
    pending[0]?.(false);
    await slow;
    clock = 700;
    expect(await check()).toBe(true);
  });
});
