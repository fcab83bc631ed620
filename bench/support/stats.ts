/** Latency samples → percentiles, for the bench's rows. No I/O. */

/** p50/p99/max (and count) of a set of samples, in the samples' unit. */
export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile (p in 0..100) of ascending-sorted samples; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** Summarises samples (does not mutate the input). */
export function summarize(samples: readonly number[]): Summary {
  const sorted = Float64Array.from(samples).sort();
  const arr = Array.from(sorted);
  const sum = arr.reduce((a, b) => a + b, 0);
  return {
    count: arr.length,
    p50: percentile(arr, 50),
    p99: percentile(arr, 99),
    max: arr.length ? (arr[arr.length - 1] as number) : Number.NaN,
    mean: arr.length ? sum / arr.length : Number.NaN,
  };
}

/** Milliseconds elapsed since a process.hrtime.bigint() reading. */
export function msSince(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e6;
}
