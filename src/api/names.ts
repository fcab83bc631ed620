/**
 * Object-name rules of k8s.io/apimachinery/pkg/util/validation (IsDNS1123Subdomain, IsDNS1123Label,
 * IsDNS1035Label, IsConfigMapKey), pkg/api/validation (NameIsDNSSubdomain & co., path/name.go) and
 * apiserver pkg/storage/names (generateName). Every check returns kube's messages; empty = valid.
 */
import { randomInt } from 'node:crypto';

/** Byte length as Go's len() sees a string (UTF-8). */
export function byteLength(s: string): number {
  // Fast path: a string of only ASCII has as many bytes as UTF-16 units.
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s, 'utf8');
  }
  return s.length;
}

/** kube's validation.MaxLenError. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** kube's validation.RegexError (note the doubled space between examples, as kube renders it). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) out += ' or ';
    out += `'${ex}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

/** kube's validation.EmptyError. */
export function emptyError(): string {
  return 'must be non-empty';
}

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

/** IsDNS1123Subdomain: lowercase RFC 1123 subdomain, at most 253 bytes. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  }
  return errs;
}

/** IsDNS1123Label: lowercase RFC 1123 label, at most 63 bytes; a dotted subdomain gets `must not contain dots`. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** IsDNS1035Label: like a DNS-1123 label but starting with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) {
    errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  }
  return errs;
}

/** kube's hasChDirPrefix: `.`, `..` and a `..` prefix are refused. */
function chDirPrefixErrors(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

/** IsConfigMapKey: keys of Secret/ConfigMap data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRe.test(value)) {
    errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  errs.push(...chDirPrefixErrors(value));
  return errs;
}

/**
 * path.ValidatePathSegmentName: a name may not be `.`/`..` and may not contain `/` or `%`.
 * With `prefix` (a generateName) only the containment rule applies.
 */
export function validatePathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix) {
    if (name === '.' || name === '..') return [`may not be '${name}'`];
  }
  const errs: string[] = [];
  if (name.includes('/')) errs.push("may not contain '/'");
  if (name.includes('%')) errs.push("may not contain '%'");
  return errs;
}

/** A ValidateNameFunc: (name, prefix) → kube messages. `prefix` is true for a generateName. */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** maskTrailingDash: a generateName may end in '-', so kube swaps its last two bytes for "a" before checking. */
function maskTrailingDash(name: string): string {
  // Mirrors kube's name[:len(name)-2] + "a" (drops the char before the dash too).
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -2)}a`;
  return name;
}

/** NameIsDNSSubdomain / NameIsDNSLabel / NameIsDNS1035Label as one factory. */
export function nameValidatorFor(kind: 'subdomain' | 'label' | 'dns1035'): NameValidator {
  const check = kind === 'subdomain' ? isDNS1123Subdomain : kind === 'label' ? isDNS1123Label : isDNS1035Label;
  return (name, prefix) => check(prefix ? maskTrailingDash(name) : name);
}

/** NameIsDNSSubdomain (Secret, ConfigMap, ResourceQuota, most types). */
export const nameIsDNSSubdomain: NameValidator = nameValidatorFor('subdomain');
/** NameIsDNSLabel (Namespace; also ValidateNamespaceName). */
export const nameIsDNSLabel: NameValidator = nameValidatorFor('label');
/** NameIsDNS1035Label (Service). */
export const nameIsDNS1035Label: NameValidator = nameValidatorFor('dns1035');

const randomAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
/** apiserver names.MaxGeneratedNameLength: 63 - 5. */
export const MAX_GENERATED_NAME_PREFIX_LENGTH = 58;
const randomLength = 5;

/**
 * SimpleNameGenerator.GenerateName: the prefix cut to 58 bytes, then 5 random chars from kube's
 * vowel-free alphabet. Uses crypto.randomInt (uniform).
 */
export function generateName(prefix: string): string {
  let base = prefix;
  if (byteLength(base) > MAX_GENERATED_NAME_PREFIX_LENGTH) {
    base =
      base.length === byteLength(base)
        ? base.slice(0, MAX_GENERATED_NAME_PREFIX_LENGTH)
        : Buffer.from(base, 'utf8').subarray(0, MAX_GENERATED_NAME_PREFIX_LENGTH).toString('utf8');
  }
  let suffix = '';
  for (let i = 0; i < randomLength; i++) suffix += randomAlphabet[randomInt(randomAlphabet.length)];
  return base + suffix;
}
