/**
 * metav1.Time / metav1.MicroTime between kube's JSON text and protobuf Timestamp {seconds, nanos}.
 * JSON: Time is RFC3339 in UTC with whole seconds (`2006-01-02T15:04:05Z`), MicroTime adds six
 * fractional digits (`2006-01-02T15:04:05.000000Z`). Go's zero time (year 1) is "no time".
 */

/** A point in time as protobuf carries it. */
export interface ProtoTimestamp {
  seconds: number;
  nanos: number;
}

/** Unix seconds of Go's zero time.Time (0001-01-01T00:00:00Z), which kube treats as unset. */
export const GO_ZERO_TIME_SECONDS = -62135596800;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses RFC3339 text (as Go's time.Parse(time.RFC3339) accepts it, fraction optional).
 * Returns null for text that is not RFC3339.
 */
export function parseRfc3339(text: string): ProtoTimestamp | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, sign, oh, om] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh ?? 0) > 23 || Number(om ?? 0) > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  let seconds = Math.floor(date.getTime() / 1000);
  if (Number.isNaN(seconds) || date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) return null;
  if (sign) seconds -= (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const nanos = frac ? Number(frac.padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

/** True when the timestamp is Go's zero time (kube's JSON `null`). */
export function isZeroTime(t: ProtoTimestamp): boolean {
  return t.seconds === GO_ZERO_TIME_SECONDS && t.nanos === 0;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/**
 * Formats whole seconds as RFC3339 UTC; with `micros` adds `.ffffff` (kube's RFC3339Micro).
 * Returns null when the year is outside [0, 9999], which Go's Time.MarshalJSON refuses.
 */
export function formatRfc3339(seconds: number, micros?: number): string | null {
  const date = new Date(seconds * 1000);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) return null;
  const base =
    `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}`;
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}
