/**
 * kube's quantity library (k8s.io/apiserver pkg/cel/library/quantity.go, in kube's base
 * environment since 1.28): `quantity(string) kubernetes.Quantity`, `isQuantity(string) bool`,
 * `sign(kubernetes.Quantity) int` (a global function in 1.32, not a member), and the members
 * isInteger, asInteger, asApproximateFloat, add and sub (of a quantity or an int), compareTo,
 * isGreaterThan, isLessThan; `==` compares values.
 *
 * Parsing is resource.ParseQuantity (api/quantity.ts), with its errors as kube wraps them (the
 * error's own text). What Go's Quantity answers depends on how it holds the value, which this
 * file follows: an int64 amount (value × 10^scale) when parsing or int64 arithmetic allows,
 * otherwise an inf.Dec (unscaled × 10^-scale, at nano scale after parsing). `isInteger` is true
 * only for an int64 amount whose scale is not negative and whose value fits int64 once scaled
 * (so `quantity("1.0").isInteger()` is false, as in kube), `asInteger` fails otherwise with
 * kube's `cannot convert value to integer`, and `asApproximateFloat` multiplies the float of
 * the held number by a power of ten as Go does. All functions cost one unit, parsing a tenth
 * of a unit per character (kube's library/cost.go).
 */
import { chargeOperation, traversal } from './cel-cost';
import type { CelRegistrar } from './cel-registrar';
import { parseQuantity, type Quantity } from './quantity';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const fitsInt64 = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;

/**
 * How Go holds a quantity: an int64 amount or an inf.Dec (`int64`), its value `value × 10^scale`
 * either way (an inf.Dec's scale counts the other way: this `scale` is minus its Scale()).
 */
interface Held {
  readonly int64: boolean;
  readonly value: bigint;
  readonly scale: number;
}

/** A `kubernetes.Quantity` value. */
export class CelQuantity {
  constructor(readonly held: Held) {}
}

/** The int64 amount kube's parser produced, read from the quantity's Go rendering. */
const INT64_AMOUNT = /^resource\.Quantity\{i:resource\.int64Amount\{value:(-?\d+), scale:(-?\d+)\}, d:resource\.infDecAmount\{Dec:\(\*inf\.Dec\)\(nil\)\}/;

/** How kube holds a parsed quantity. */
function heldOf(q: Quantity): Held {
  const m = INT64_AMOUNT.exec(q.goStructString());
  if (m) return { int64: true, value: BigInt(m[1] as string), scale: Number(m[2]) };
  // The inf.Dec path rounds to nano scale (BinarySI values past int64 are capped at scale 0).
  if (q.format === 'BinarySI' && q.cmp(parseQuantity('9223372036854775807')) === 0) return { int64: false, value: INT64_MAX, scale: 0 };
  return { int64: false, value: q.scaledValue(-9), scale: -9 };
}

function parse(s: string): CelQuantity {
  return new CelQuantity(heldOf(parseQuantity(s)));
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** The exact comparison of two held values. */
function cmp(a: Held, b: Held): number {
  const e = Math.min(a.scale, b.scale);
  const x = a.value * pow10(a.scale - e);
  const y = b.value * pow10(b.scale - e);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Go's positiveScaleInt64: value × 10^scale, or undefined past int64. */
function scaleUp(value: bigint, scale: number): bigint | undefined {
  if (scale > 19 && value !== 0n) return undefined;
  const v = value * pow10(scale);
  return fitsInt64(v) ? v : undefined;
}

/** Go's int64Amount.Add: the sum as an int64 amount, or undefined when it does not fit. */
function addInt64(a: Held, b: Held): Held | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return { int64: true, value: b.value, scale: b.scale };
  let x = a.value;
  let y = b.value;
  let scale = a.scale;
  if (a.scale > b.scale) {
    const s = scaleUp(a.value, a.scale - b.scale);
    if (s === undefined) return undefined;
    [x, scale] = [s, b.scale];
  } else if (a.scale < b.scale) {
    const s = scaleUp(b.value, b.scale - a.scale);
    if (s === undefined) return undefined;
    y = s;
  }
  const sum = x + y;
  return fitsInt64(sum) ? { int64: true, value: sum, scale } : undefined;
}

/** Go's Quantity.Add/Sub: int64 arithmetic when both are int64 amounts and it fits, else inf.Dec (exact). */
function add(a: Held, b: Held, sign: 1n | -1n): Held {
  const y: Held = { ...b, value: sign * b.value };
  if (a.int64 && b.int64 && fitsInt64(y.value)) {
    const sum = addInt64(a, y);
    if (sum) return sum;
  }
  // inf.Dec: the result has the larger of the two decimal scales (the smaller power of ten).
  const e = Math.min(a.scale, b.scale);
  return { int64: false, value: a.value * pow10(a.scale - e) + y.value * pow10(y.scale - e), scale: e };
}

/** Go's Quantity.AsInt64. */
function asInt64(h: Held): bigint | undefined {
  if (!h.int64 || h.scale < 0) return undefined;
  return scaleUp(h.value, h.scale);
}

/** Go's math.Pow10: exact for the powers a float64 holds, 0 or +Inf beyond. */
function goPow10(n: number): number {
  if (n > 308) return Infinity;
  if (n < -323) return 0;
  return n >= 0 ? Number(`1e${n}`) : 1 / Number(`1e${-n}`);
}

/** Go's Quantity.AsApproximateFloat64. */
function asApproximateFloat(h: Held): number {
  const base = Number(h.value);
  return h.scale === 0 ? base : base * goPow10(h.scale);
}

/** Declares kube's quantity library. */
export function registerQuantityLibrary(env: CelRegistrar): void {
  const Q = 'kubernetes.Quantity';
  env.registerType(Q, { ctor: CelQuantity, fields: {} });
  env.registerFunction(`quantity(string): ${Q}`, (s: string) => (chargeOperation(traversal(s.length)), parse(s)));
  env.registerFunction('isQuantity(string): bool', (s: string) => {
    chargeOperation(traversal(s.length));
    try {
      parseQuantity(s);
      return true;
    } catch {
      return false;
    }
  });
  env.registerFunction(`sign(${Q}): int`, (q: CelQuantity) => BigInt(q.held.value === 0n ? 0 : q.held.value < 0n ? -1 : 1));
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: CelQuantity, b: CelQuantity) => cmp(a.held, b.held) === 1);
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: CelQuantity, b: CelQuantity) => cmp(a.held, b.held) === -1);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: CelQuantity, b: CelQuantity) => BigInt(cmp(a.held, b.held)));
  env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: CelQuantity) => asApproximateFloat(q.held));
  env.registerFunction(`${Q}.isInteger(): bool`, (q: CelQuantity) => asInt64(q.held) !== undefined);
  env.registerFunction(`${Q}.asInteger(): int`, (q: CelQuantity) => {
    const v = asInt64(q.held);
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  });
  const intAmount = (n: bigint): Held => ({ int64: true, value: n, scale: 0 });
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: CelQuantity, b: CelQuantity) => new CelQuantity(add(a.held, b.held, 1n)));
  env.registerFunction(`${Q}.add(int): ${Q}`, (a: CelQuantity, n: bigint) => new CelQuantity(add(a.held, intAmount(n), 1n)));
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: CelQuantity, b: CelQuantity) => new CelQuantity(add(a.held, b.held, -1n)));
  env.registerFunction(`${Q}.sub(int): ${Q}`, (a: CelQuantity, n: bigint) => new CelQuantity(add(a.held, intAmount(n), -1n)));
  env.registerOperator(`${Q} == ${Q}`, (a: CelQuantity, b: CelQuantity) => cmp(a.held, b.held) === 0);
}
