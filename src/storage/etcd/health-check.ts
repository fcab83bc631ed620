/**
 * kube's etcd health and readiness checks (storagebackend/factory newETCD3Check): each is a read
 * bounded by its own timeout (--etcd-healthcheck-timeout, --etcd-readycheck-timeout; 0 means the
 * 2 s default), and is rate-limited to one read per half timeout. A check asked for within that
 * interval is answered with the result of the most recently started read that has completed, so a
 * flood of /livez or /readyz requests costs etcd at most two reads per timeout.
 */

/** kube's DefaultHealthcheckTimeout and DefaultReadinessTimeout. */
export const defaultEtcdCheckTimeoutMs = 2000;

/** The timeout a check uses: the flag's, or the default for 0. */
export function etcdCheckTimeoutMs(flagMs: number): number {
  return flagMs === 0 ? defaultEtcdCheckTimeoutMs : flagMs;
}

/**
 * A rate-limited check over `probe` (which reads etcd within the given timeout). Before the first
 * read completes, a limited call fails, as kube's does ("etcd client connection not yet established").
 */
export function rateLimitedEtcdCheck(probe: (timeoutMs: number) => Promise<boolean>, timeoutMs: number, now: () => number = () => performance.now()): () => Promise<boolean> {
  const intervalMs = timeoutMs / 2;
  let lastAllowedAt = -Infinity;
  let last = { ok: false, startedAt: -Infinity };
  return async () => {
    const startedAt = now();
    // A token bucket of one token refilled every half timeout: a read at most that often.
    if (startedAt - lastAllowedAt < intervalMs) return last.ok;
    lastAllowedAt = startedAt;
    const ok = await probe(timeoutMs);
    // Only a read started after the one on record replaces it (a slow old read does not win).
    if (startedAt > last.startedAt) last = { ok, startedAt };
    return ok;
  };
}
