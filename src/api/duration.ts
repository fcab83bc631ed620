/**
 * Human-readable ages as k8s.io/apimachinery/pkg/util/duration HumanDuration prints them, and the
 * table printers' Age cell (k/k printers translateTimestampSince).
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Go's zero time.Time, 0001-01-01T00:00:00Z. */
const ZERO_TIME_MS = Date.parse('0001-01-01T00:00:00Z');

/**
 * HumanDuration of a duration in milliseconds: `Ns` below 2m, `NmSs` below 10m, `Nm` below 3h,
 * `NhMm` below 8h, `Nh` below 48h, `NdHh` below 8d, `Nd` below 2y, `NyDd` below 8y, else `Ny`;
 * below -1s `<invalid>`, (-2s, 0) `0s`. Units are truncated, not rounded.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/**
 * The Age cell: `<unknown>` for a missing/zero/unparseable creationTimestamp, else
 * humanDuration(now − creationTimestamp) (which yields `<invalid>` for times > 1s in the future).
 */
export function ageString(creationTimestamp: string | null | undefined, now: Date): string {
  if (!creationTimestamp) return '<unknown>';
  const t = Date.parse(creationTimestamp);
  // Go's zero time (0001-01-01T00:00:00Z) counts as unset.
  if (Number.isNaN(t) || t === ZERO_TIME_MS) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

/** `value` / 10^digits as Go prints it: trailing zeros of the fraction dropped. */
function fractionString(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const whole = value / scale;
  const frac = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}

/** Go's Duration.String for a number of milliseconds: 60000 → "1m0s", 1500 → "1.5s", 0 → "0s". */
export function formatGoDuration(ms: number): string {
  return formatGoDurationNanos(BigInt(Math.round(ms * 1e6)));
}

/** Go's Duration.String of an exact number of nanoseconds (an int64 time.Duration). */
export function formatGoDurationNanos(nanos: bigint): string {
  let ns = nanos;
  const neg = ns < 0n;
  if (neg) ns = -ns;
  let out: string;
  if (ns === 0n) return '0s';
  if (ns < 1_000n) out = `${ns}ns`;
  else if (ns < 1_000_000n) out = `${fractionString(ns, 3)}\u00b5s`;
  else if (ns < 1_000_000_000n) out = `${fractionString(ns, 6)}ms`;
  else {
    const h = ns / 3_600_000_000_000n;
    const m = (ns / 60_000_000_000n) % 60n;
    const secs = fractionString(ns % 60_000_000_000n, 9);
    out = h > 0n ? `${h}h${m}m${secs}s` : m > 0n ? `${m}m${secs}s` : `${secs}s`;
  }
  return neg ? `-${out}` : out;
}
