/**
 * metav1.Time / metav1.MicroTime between kube's JSON text and protobuf Timestamp {seconds, nanos}.
 * JSON: Time is RFC3339 in UTC with whole seconds (`2006-01-02T15:04:05Z`), MicroTime adds six
 * fractional digits (`2006-01-02T15:04:05.000000Z`). Go's zero time (year 1) is "no time".
 * Pure arithmetic on the proleptic Gregorian calendar (no Date objects on the hot path).
 */

/** A point in time as protobuf carries it. */
export interface ProtoTimestamp {
  seconds: number;
  nanos: number;
}

/** Unix seconds of Go's zero time.Time (0001-01-01T00:00:00Z), which kube treats as unset. */
export const GO_ZERO_TIME_SECONDS = -62135596800;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DAY = 86400;

/** Days since 1970-01-01 of a civil date (month 1-12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day count since 1970-01-01. */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

const daysInMonth = (y: number, m: number): number =>
  m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;

/**
 * Parses RFC3339 text (as Go's time.Parse(time.RFC3339) accepts it, fraction optional).
 * Returns null for text that is not RFC3339 or names an impossible date or time.
 */
export function parseRfc3339(text: string): ProtoTimestamp | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [frac, sign, oh, om] = [m[7], m[8], Number(m[9] ?? 0), Number(m[10] ?? 0)];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59) {
    return null;
  }
  let seconds = daysFromCivil(y, mo, d) * DAY + h * 3600 + mi * 60 + s;
  if (sign) seconds -= (sign === '-' ? -1 : 1) * (oh * 3600 + om * 60);
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
  if (!Number.isFinite(seconds)) return null;
  const days = Math.floor(seconds / DAY);
  const rest = seconds - days * DAY;
  const [year, month, day] = civilFromDays(days);
  if (year < 0 || year > 9999) return null;
  const base =
    `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}` +
    `T${pad(Math.floor(rest / 3600), 2)}:${pad(Math.floor(rest / 60) % 60, 2)}:${pad(rest % 60, 2)}`;
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}
