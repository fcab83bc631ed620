/** Small checks several pod validators share (apimachinery's util/validation with field paths). */
import { FieldError, FieldPath, fieldErrors, isDNS1123Label, isDNS1123Subdomain } from '../../../api';

/** Whether a decoded optional field is set (Go: a non-nil pointer or a non-empty value). */
export const hasValue = (v: unknown): boolean => v !== undefined && v !== null;

/** ValidateDNS1123Label: one Invalid per message. */
export function validateDNS1123Label(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((m) => fieldErrors.invalid(path, value, m));
}

/** ValidateDNS1123Subdomain: one Invalid per message. */
export function validateDNS1123Subdomain(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Subdomain(value).map((m) => fieldErrors.invalid(path, value, m));
}

/** IsValidPortName: an IANA service name. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** netutils.ParseIPSloppy: IPv4 (leading zeros allowed) or IPv6. */
export function isIP(value: string): boolean {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(value)) return value.split('.').every((p) => Number(p) <= 255);
  if (!value.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(value)) return false;
  // An embedded IPv4 tail counts as two groups.
  let v = value;
  const lastColon = v.lastIndexOf(':');
  const tail = v.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIP(tail) || tail.includes(':')) return false;
    v = `${v.slice(0, lastColon + 1)}0:0`;
  }
  const double = v.split('::');
  if (double.length > 2) return false;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(double[0] ?? '');
  const rest = double.length === 2 ? groups(double[1] ?? '') : [];
  const all = [...head, ...rest];
  if (!all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  return double.length === 2 ? all.length < 8 : all.length === 8;
}

const ipError = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** IsValidIP with a field path. */
export function validateIP(value: string, path: FieldPath): FieldError[] {
  return isIP(value) ? [] : [fieldErrors.invalid(path, value, ipError)];
}

/** IP family of a valid address. */
export const ipFamily = (value: string): 4 | 6 => (value.includes(':') ? 6 : 4);
