/**
 * resource.Quantity after k8s.io/apimachinery/pkg/api/resource (quantity.go, amount.go, suffix.go,
 * math.go): exact decimal values (bigint mantissa × 10^exponent), kube's parser including its
 * fast-path rule for keeping the input string verbatim, and kube's canonical serialisation.
 */

/** How a Quantity remembers to print itself. '' is Go's zero Format (prints as DecimalExponent). */
export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI' | '';

const splitREString = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** kube's ErrFormatWrong text. */
export const QUANTITY_FORMAT_WRONG = `quantities must match the regular expression '${splitREString}'`;
/** kube's ErrNumeric text. */
export const QUANTITY_NUMERIC = 'unable to parse numeric part of quantity';
/** kube's ErrSuffix text. */
export const QUANTITY_SUFFIX = "unable to parse quantity's suffix";

/** Thrown by parseQuantity; `message` is one of kube's three parse errors. */
export class QuantityParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

/**
 * Decimal exponents beyond this are refused (as a numeric error). kube accepts any int32 exponent,
 * but arithmetic on such values is unbounded work; no real quantity comes near this.
 */
const MAX_EXPONENT = 10000;

const INT64_MAX = (1n << 63n) - 1n;
const NANO = -9;

const decimalSuffixes: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const decimalSuffixByExponent: ReadonlyMap<number, string> = new Map(
  [...decimalSuffixes].map(([s, e]) => [e, s] as [number, string]),
);
const binarySuffixes: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);
const binarySuffixByPower = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const suffixChars = 'eEinumkKMGTP';
const int64TextRe = /^[+-]?[0-9]+$/;

const POW10: readonly bigint[] = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i));
const pow10 = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const abs = (v: bigint): bigint => (v < 0n ? -v : v);

/** ceil(|a| / b) with the sign of a (rounding away from zero); b > 0. */
function divAwayFromZero(a: bigint, b: bigint): bigint {
  const q = a / b;
  if (q * b === a) return q;
  return a < 0n ? q - 1n : q + 1n;
}

/** Go's int64 representation of a value that took kube's int64Amount fast path. */
interface GoInt64Amount {
  value: bigint;
  scale: number;
}

/**
 * An exact decimal amount with a print format. Immutable: arithmetic returns new values.
 * Invariant: value = mantissa × 10^exponent.
 */
export class Quantity {
  private canonical: string | undefined;

  private constructor(
    private readonly mantissa: bigint,
    private readonly exponent: number,
    readonly format: QuantityFormat,
    /** The input string when kube would keep it verbatim (its `s` field). */
    private readonly verbatim?: string,
    private readonly goInt?: GoInt64Amount,
  ) {
    this.canonical = verbatim;
  }

  /** A zero quantity of the given format (Go's `Quantity{Format: f}`). */
  static zero(format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(0n, 0, format, undefined, { value: 0n, scale: 0 });
  }

  /** A quantity of `value` × 10^`exponent` (like NewScaledQuantity / NewQuantity). */
  static of(value: bigint | number, format: QuantityFormat = 'DecimalSI', exponent = 0): Quantity {
    const v = typeof value === 'bigint' ? value : BigInt(value);
    return new Quantity(v, exponent, format, undefined, { value: v, scale: exponent });
  }

  /** The value in milli-units (`MilliValue`) as an exact bigint, rounded away from zero. */
  static fromMilli(milli: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return Quantity.of(milli, format, -3);
  }

  /**
   * Decodes a JSON value the way Quantity.UnmarshalJSON does: null → zero, strings trimmed,
   * numbers via their JS text. Throws QuantityParseError.
   */
  static fromJSON(v: unknown): Quantity {
    if (v === null || v === undefined) return Quantity.zero('');
    if (typeof v === 'string') return parseQuantity(v.trim());
    if (typeof v === 'number') return parseQuantity(v);
    throw new QuantityParseError(QUANTITY_FORMAT_WRONG);
  }

  /** -1, 0 or 1. */
  sign(): number {
    return this.mantissa === 0n ? 0 : this.mantissa < 0n ? -1 : 1;
  }

  isZero(): boolean {
    return this.mantissa === 0n;
  }

  /** True if the value has no fractional part. */
  isInteger(): boolean {
    return this.exponent >= 0 || this.mantissa % pow10(-this.exponent) === 0n;
  }

  /** Numeric comparison: -1, 0 or 1. */
  cmp(other: Quantity): number {
    const s = this.sign();
    const t = other.sign();
    if (s !== t) return s < t ? -1 : 1;
    if (s === 0) return 0;
    const e = Math.min(this.exponent, other.exponent);
    const a = this.mantissa * pow10(this.exponent - e);
    const b = other.mantissa * pow10(other.exponent - e);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** this + y; a zero receiver takes y's format (kube's Add). */
  add(y: Quantity): Quantity {
    return this.combine(y, 1n);
  }

  /** this − y; a zero receiver takes y's format (kube's Sub). */
  sub(y: Quantity): Quantity {
    return this.combine(y, -1n);
  }

  /** −this, same format. */
  neg(): Quantity {
    return new Quantity(-this.mantissa, this.exponent, this.format);
  }

  private combine(y: Quantity, sign: bigint): Quantity {
    const format = this.isZero() ? y.format : this.format;
    const e = Math.min(this.exponent, y.exponent);
    const m = this.mantissa * pow10(this.exponent - e) + sign * y.mantissa * pow10(y.exponent - e);
    return new Quantity(m, e, format);
  }

  /** The value scaled to 10^scale units, rounded away from zero (ScaledValue, as an exact bigint). */
  scaledValue(scale: number): bigint {
    const d = this.exponent - scale;
    return d >= 0 ? this.mantissa * pow10(d) : divAwayFromZero(this.mantissa, pow10(-d));
  }

  /** Value(): whole units, rounded away from zero. */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** MilliValue(): thousandths, rounded away from zero. */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /** kube's canonical String() (the verbatim input where kube keeps it). */
  toString(): string {
    this.canonical ??= canonicalize(this.mantissa, this.exponent, this.format);
    return this.canonical;
  }

  /** JSON form: the canonical string. */
  toJSON(): string {
    return this.toString();
  }

  /**
   * Go's `%#v` of the Quantity as it sits in a decoded object (field errors print it), e.g.
   * `resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}`.
   * For values kube holds as inf.Dec the pointer is rendered as a fixed placeholder.
   */
  goStructString(): string {
    const i = this.goInt ?? { value: 0n, scale: 0 };
    const dec = this.goInt ? '(*inf.Dec)(nil)' : '(*inf.Dec)(0xc000000000)';
    const s = JSON.stringify(this.verbatim ?? '');
    return `resource.Quantity{i:resource.int64Amount{value:${i.value}, scale:${i.scale}}, d:resource.infDecAmount{Dec:${dec}}, s:${s}, Format:"${this.format}"}`;
  }

  /** @internal constructor for the parser. */
  static build(m: bigint, e: number, f: QuantityFormat, verbatim?: string, goInt?: GoInt64Amount): Quantity {
    return new Quantity(m, e, f, verbatim, goInt);
  }
}

/** CanonicalizeBytes + suffix construction. */
function canonicalize(mantissa: bigint, exponent: number, format: QuantityFormat): string {
  if (mantissa === 0n) return '0';
  let f = format;
  if (f === 'BinarySI') {
    const isInt = exponent >= 0 || mantissa % pow10(-exponent) === 0n;
    // |v| < 1024 (exponent < 0 means a fraction or a multiple of a fraction; compare exactly).
    const small = exponent >= 0 ? abs(mantissa) * pow10(exponent) < 1024n : abs(mantissa) < 1024n * pow10(-exponent);
    if (small || !isInt) f = 'DecimalSI';
  } else if (f === '') {
    f = 'DecimalExponent';
  }
  if (f === 'BinarySI') {
    let v = exponent >= 0 ? mantissa * pow10(exponent) : mantissa / pow10(-exponent);
    let times = 0;
    while (v % 1024n === 0n) {
      v /= 1024n;
      times++;
    }
    // kube has no suffix beyond Ei and silently prints none.
    return `${v}${binarySuffixByPower[times] ?? ''}`;
  }
  let m = mantissa;
  let e = exponent;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  const r = ((e % 3) + 3) % 3;
  if (r) {
    m *= pow10(r);
    e -= r;
  }
  if (f === 'DecimalSI') return `${m}${decimalSuffixByExponent.get(e) ?? ''}`; // no suffix past E: kube prints none
  return e === 0 ? `${m}` : `${m}e${e}`;
}

interface Parts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString: sign, digits (leading zeros dropped), fraction, suffix. */
function splitQuantity(str: string): Parts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') {
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  let num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && suffixChars.includes(str[i] as string)) i++;
  if (i < end && (str[i] === '-' || str[i] === '+')) i++;
  while (i < end && isDigit(str[i])) i++;
  if (i < end) throw new QuantityParseError(QUANTITY_FORMAT_WRONG);
  num = num || '0';
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** suffixer.interpret: base, exponent and format of a suffix. */
function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  const d = decimalSuffixes.get(s);
  if (d !== undefined) return { base: 10, exponent: d, format: 'DecimalSI' };
  const b = binarySuffixes.get(s);
  if (b !== undefined) return { base: 2, exponent: b, format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) {
    const rest = s.slice(1);
    if (int64TextRe.test(rest)) {
      const n = BigInt(rest);
      if (n >= -(1n << 63n) && n <= INT64_MAX) {
        if (n > BigInt(MAX_EXPONENT) || n < BigInt(-MAX_EXPONENT)) throw new QuantityParseError(QUANTITY_NUMERIC);
        return { base: 10, exponent: Number(n), format: 'DecimalExponent' };
      }
    }
  }
  throw new QuantityParseError(QUANTITY_SUFFIX);
}

/** JS text of a JSON number (kube would see the original JSON text; JSON.parse has lost it). */
function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new QuantityParseError(QUANTITY_FORMAT_WRONG);
  return String(n);
}

/**
 * resource.ParseQuantity. Throws QuantityParseError with kube's message
 * (QUANTITY_FORMAT_WRONG, QUANTITY_NUMERIC or QUANTITY_SUFFIX). Does not trim whitespace.
 */
export function parseQuantity(input: string | number): Quantity {
  const str = typeof input === 'number' ? numberText(input) : input;
  if (str.length === 0) throw new QuantityParseError(QUANTITY_FORMAT_WRONG);
  if (str === '0') return Quantity.build(0n, 0, 'DecimalSI', '0', { value: 0n, scale: 0 });

  const { positive, value, num, denom, suffix } = splitQuantity(str);
  const { base, exponent, format } = interpretSuffix(suffix);

  // kube's int64 fast path (its precision arithmetic decides which inputs stay verbatim).
  let precision: number;
  let scale = 0;
  if (format === 'BinarySI') {
    precision = denom.length === 0 ? 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 : -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      const magnitude = format === 'BinarySI' ? v << BigInt(exponent) : v;
      if (magnitude <= INT64_MAX) {
        const result = positive ? magnitude : -magnitude;
        const keep =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (v & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        const goInt = { value: result, scale };
        return Quantity.build(result, scale, format, keep ? str : undefined, goInt);
      }
    }
  }

  // inf.Dec path: exact value, rounded up to nano, BinarySI capped at 2^63-1.
  if (!/[0-9]/.test(value)) throw new QuantityParseError(QUANTITY_NUMERIC);
  let m = BigInt(num + denom);
  let e = -denom.length;
  if (base === 10) e += exponent;
  else m <<= BigInt(exponent);
  if (m !== 0n && e < NANO) {
    const k = NANO - e;
    m = String(m).length <= k ? 1n : divAwayFromZero(m, pow10(k));
    e = NANO;
  }
  let f = format;
  if (f === 'BinarySI') {
    const big = e >= 0 ? m * pow10(e) > INT64_MAX : m > INT64_MAX * pow10(-e);
    if (big) {
      m = INT64_MAX;
      e = 0;
    }
    // BinarySI values in (0, 1) switch to DecimalSI.
    if (m !== 0n && e < 0 && m < pow10(-e)) f = 'DecimalSI';
  }
  return Quantity.build(positive ? m : -m, e, f);
}
