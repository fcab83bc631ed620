/** resourceVersion helpers: decimal strings outside storage, bigints inside. */
import { errors } from './errors';

/** Parses a client-supplied resourceVersion (400 when it is not a revision number). */
export function parseResourceVersion(rv: string): bigint {
  if (!/^[0-9]+$/.test(rv)) throw errors.badRequest(`invalid resource version "${rv}"`);
  return BigInt(rv);
}

/** The last second timestamp() formatted, and its text: every write stamps the time, mostly within the same second. */
let lastSecond = Number.NaN;
let lastText = '';

/** RFC 3339 with seconds precision, as metav1.Time serialises. */
export function timestamp(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second === lastSecond) return lastText;
  const iso = d.toISOString(); // always ends in .sssZ (throws for an invalid date, whose second is NaN)
  lastSecond = second;
  lastText = `${iso.slice(0, -5)}Z`;
  return lastText;
}
