/** resourceVersion helpers: decimal strings outside storage, bigints inside. */
import { errors } from './errors';

/** Parses a client-supplied resourceVersion (400 when it is not a revision number). */
export function parseResourceVersion(rv: string): bigint {
  if (!/^[0-9]+$/.test(rv)) throw errors.badRequest(`invalid resource version "${rv}"`);
  return BigInt(rv);
}

/** RFC 3339 with seconds precision, as metav1.Time serialises. */
export function timestamp(d: Date): string {
  const iso = d.toISOString(); // always ends in .sssZ
  return `${iso.slice(0, -5)}Z`;
}
