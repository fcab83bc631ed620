/**
 * kube's format library (k8s.io/apiserver pkg/cel/library/format.go, in kube's base environment
 * since 1.31): `format.named(string) optional(kubernetes.NamedFormat)`, a constant function per
 * format (`format.dns1123Label()`), and `<kubernetes.NamedFormat>.validate(string)`, which is
 * `optional.none()` for a valid string, else an optional list of kube's messages.
 *
 * The formats are kube's: the object-name rules (NameIsDNSLabel & co., with kube's masking of a
 * trailing dash for the *Prefix ones), IsQualifiedName, IsValidLabelValue, and the CRD formats
 * kube-openapi's strfmt checks: `uri` (Go's url.ParseRequestURI, its error as the message),
 * `uuid`, `byte` (govalidator's base64 pattern), `date` (Go's time.Parse of 2006-01-02) and
 * `datetime` (strfmt's IsDateTime). validate costs what kube charges: the string's traversal
 * times a quarter unit per character of the format's (estimated) regular expression.
 */
import { chargeOperation, matchCost } from './cel-cost';
import { re2 } from './cel-lib-regex';
import type { CelNamespace, CelOptionals, CelRegistrar } from './cel-registrar';
import { parseRequestURI } from './go-net-url';
import { isQualifiedName, isValidLabelValue } from './labels';
import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain } from './names';

/** A `kubernetes.NamedFormat` value. */
export class CelFormat {
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    /** The length of the format's regular expression, or kube's estimate of it (for cost). */
    readonly maxRegexSize: number,
  ) {}
}

const UUID_PATTERN = '(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$';
const BASE64_PATTERN = '^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$';
const DATE_TIME_PATTERN = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$';
/** The length of govalidator's URL pattern (kube's cost estimate of `uri`). */
const GOVALIDATOR_URL_LENGTH = 1103;

/** Go's time.Parse("2006-01-02", s) succeeds: four-digit year, two-digit month and day of that month. */
function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return day <= days;
}

/** strfmt's IsDateTime: a date, then after the first `t` (case-insensitive) a time of day with a zone. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] as string)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/u.exec(parts[1] as string);
  return !!m && (m[1] as string) <= '23' && (m[2] as string) <= '59' && (m[3] as string) <= '59';
}

const check = (ok: (s: string) => boolean, message: string) => (s: string) => (ok(s) ? [] : [message]);

/** kube's ConstantFormats, by the name format.named() takes. */
const FORMATS: ReadonlyMap<string, CelFormat> = new Map([
  ['dns1123Label', new CelFormat('DNS1123Label', (s) => nameIsDNSLabel(s, false), 30)],
  ['dns1123Subdomain', new CelFormat('DNS1123Subdomain', (s) => nameIsDNSSubdomain(s, false), 60)],
  ['dns1035Label', new CelFormat('DNS1035Label', (s) => nameIsDNS1035Label(s, false), 30)],
  ['qualifiedName', new CelFormat('QualifiedName', isQualifiedName, 60)],
  ['dns1123LabelPrefix', new CelFormat('DNS1123LabelPrefix', (s) => nameIsDNSLabel(s, true), 30)],
  ['dns1123SubdomainPrefix', new CelFormat('DNS1123SubdomainPrefix', (s) => nameIsDNSSubdomain(s, true), 60)],
  ['dns1035LabelPrefix', new CelFormat('DNS1035LabelPrefix', (s) => nameIsDNS1035Label(s, true), 30)],
  ['labelValue', new CelFormat('LabelValue', isValidLabelValue, 40)],
  [
    'uri',
    new CelFormat(
      'URI',
      (s) => {
        try {
          parseRequestURI(s);
          return [];
        } catch (e) {
          return [(e as Error).message];
        }
      },
      GOVALIDATOR_URL_LENGTH,
    ),
  ],
  ['uuid', new CelFormat('uuid', check((s) => re2(UUID_PATTERN).test(s), 'does not match the UUID format'), UUID_PATTERN.length)],
  ['byte', new CelFormat('byte', check((s) => re2(BASE64_PATTERN).test(s), 'invalid base64'), BASE64_PATTERN.length)],
  ['date', new CelFormat('date', check(isDate, 'invalid date'), DATE_TIME_PATTERN.length)],
  ['datetime', new CelFormat('datetime', check(isDateTime, 'invalid datetime'), DATE_TIME_PATTERN.length)],
]);

class FormatNamespace {}

export const FORMAT_NAMESPACE: CelNamespace = { name: 'format', typeName: 'kubernetes.FormatNamespace', functions: ['named', ...FORMATS.keys()] };

/** Declares kube's format library. */
export function registerFormatLibrary(env: CelRegistrar, optional: CelOptionals): void {
  const F = 'kubernetes.NamedFormat';
  const NS = FORMAT_NAMESPACE.typeName;
  env.registerType(F, { ctor: CelFormat, fields: {} });
  env.registerType(NS, { ctor: FormatNamespace, fields: {} });
  env.registerConstant(FORMAT_NAMESPACE.name, NS, new FormatNamespace());
  env.registerFunction(`${NS}.named(string): optional<${F}>`, (_: unknown, name: string) => {
    const f = FORMATS.get(name);
    return f ? optional.of(f) : optional.none();
  });
  for (const [name, f] of FORMATS) env.registerFunction(`${NS}.${name}(): ${F}`, () => f);
  env.registerFunction(`${F}.validate(string): optional<list<string>>`, (f: CelFormat, s: string) => {
    chargeOperation(matchCost(s, f.maxRegexSize));
    const errs = f.validate(s);
    return errs.length === 0 ? optional.none() : optional.of(errs);
  });
  env.registerOperator(`${F} == ${F}`, (a: CelFormat, b: CelFormat) => a.name === b.name);
}
