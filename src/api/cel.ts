/**
 * CEL as kube-apiserver 1.32 uses it (k8s.io/apiserver/pkg/cel and its users): the authentication
 * configuration's claim rules and mappings (`claims`, `user`), the authorization webhooks'
 * matchConditions (`request`, api/authorization-cel.ts) and the admission webhooks'
 * matchConditions (`object`, `oldObject`, `request`, `authorizer`, api/admission-cel.ts). This is
 * the one file that imports a CEL library.
 *
 * The library is @marcbachmann/cel-js, chosen over @bufbuild/cel (used before) because kube
 * type-checks every expression when it is loaded and cel-js has a real checker: variables are
 * declared with kube's types (claims a map(string, any), `user`/`request` object types whose
 * unknown fields are compile errors), the result type is known, so `claims.sub + 1` as a
 * validation rule fails at load as in kube. It parses the optional syntax kube enables
 * (`claims.?x`, `claims[?"x"]`, `.orValue()`, `optional.of()`), which @bufbuild/cel's parser
 * refuses. It is also 3–10× faster per evaluation (100–500 ns for typical claim expressions),
 * has no dependencies, and lets a library be added with typed member functions (the authorizer
 * library below). What neither library has is kube's cost accounting; see "Cost" below.
 * cel-js ships ES modules only: Node ≥ 20.19 loads them with require() (this project compiles to
 * CommonJS), and jest transforms the package (jest.config.js).
 *
 * Messages are kube's (cel-go's): a compile error is `compilation failed: ERROR: <input>:L:C: msg`
 * with the source line and a caret under cel-go's column (an operator's position, a select's dot,
 * a call's parenthesis), with cel-go's wording of undeclared references, undefined fields and
 * overloads that do not match; types are printed as cel-go prints them (`list(string)`,
 * `map(string, any)`). Evaluation errors use cel-go's words too (`no such key: x`). Syntax errors
 * keep cel-js's description (ANTLR's `mismatched input … expecting {…}` lists cannot be rebuilt).
 *
 * kube 1.32's base environment (apiserver pkg/cel/environment/base.go), as kube compiles
 * configuration files and stored expressions (its StoredExpressions environment, every library up
 * to 1.32): the strings extension version 2 (charAt, indexOf, lastIndexOf, join, lowerAscii,
 * upperAscii, replace, split, substring, trim, format, strings.quote), kube's lists library
 * (isSorted, sum, min, max, indexOf, lastIndexOf), the sets extension, regular expressions
 * (`matches`, kube's find/findAll: api/cel-lib-regex.ts) with Go's syntax and linear time (re2js,
 * Go's regexp ported, so a token's claim cannot make a pattern backtrack for ever), kube's URL,
 * IP, CIDR, quantity and format libraries (api/cel-lib-*.ts), two-variable comprehensions
 * (api/cel-lib-comprehensions.ts; refused with `newExpression`, as kube's environment for an
 * expression a write introduces, at its compatibility version 1.31, has none), and the
 * authorizer library. kube's qualified function names (`ip.isCanonical`, `format.named`,
 * `strings.quote`, `net.IP`) are member functions and fields of namespace constants here
 * (CelNamespace), which checkNamespaces keeps to those uses. A literal pattern that does not
 * compile is refused at compile time as kube refuses it (cel-go's regex validator for `matches`,
 * program creation for find/findAll). Not here: optional list/map entries (`[?x]`).
 */
import type * as CelJs from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import { CEL_COST_EXCEEDED, CEL_PER_CALL_LIMIT, charge, chargeOperation, CostExceeded, sizeOf, tick, traversal, traversalCost, withBudget } from './cel-cost';
import { registerTwoVarComprehensions, TWO_VAR_MACROS } from './cel-lib-comprehensions';
import { FORMAT_NAMESPACE, registerFormatLibrary } from './cel-lib-format';
import { CelCIDR, CelIP, IP_NAMESPACE, NET_NAMESPACE, registerNetLibrary } from './cel-lib-net';
import { registerQuantityLibrary } from './cel-lib-quantity';
import { regexCompileError, registerRegexLibrary } from './cel-lib-regex';
import { registerURLLibrary } from './cel-lib-url';
import type { CelNamespace } from './cel-registrar';
import { fieldErrors, type FieldError, type PathLike } from './field-errors';
import { compareGoStrings } from './go-format';

// cel-js is ES modules only: require() of ESM (Node ≥ 20.19), typed through the import above.
const celJs = require('@marcbachmann/cel-js') as typeof CelJs;

type Environment = InstanceType<typeof CelJs.Environment>;
interface CheckedNode {
  readonly op: string;
  readonly args: unknown;
  readonly pos: number;
  readonly start: number;
  readonly end: number;
  readonly checkedType?: { readonly name: string };
}

// ---------------------------------------------------------------------------------------------
// Declared types
// ---------------------------------------------------------------------------------------------

/**
 * A variable's or field's declared type. `any` is kube's AnyType (what the claims map holds): it
 * checks as dyn and prints as `any`.
 */
export type CelDeclType =
  | 'bool'
  | 'int'
  | 'uint'
  | 'double'
  | 'string'
  | 'bytes'
  | 'dyn'
  | 'any'
  | 'timestamp'
  | { readonly list: CelDeclType }
  | { readonly map: readonly [CelDeclType, CelDeclType] }
  | CelObjectType;

/** kube's apiservercel.NewObjectType: a named type with typed fields (unknown fields do not compile). */
export interface CelObjectType {
  readonly object: string;
  readonly fields: Readonly<Record<string, CelDeclType>>;
}

/** cel-go's name of a declared type. */
function celTypeName(t: CelDeclType): string {
  if (typeof t === 'string') return t === 'timestamp' ? 'google.protobuf.Timestamp' : t;
  if ('list' in t) return `list(${celTypeName(t.list)})`;
  if ('map' in t) return `map(${celTypeName(t.map[0])}, ${celTypeName(t.map[1])})`;
  return t.object;
}

function celJsTypeName(t: CelDeclType): string {
  if (typeof t === 'string') return t === 'any' ? 'dyn' : t === 'timestamp' ? 'google.protobuf.Timestamp' : t;
  if ('list' in t) return `list<${celJsTypeName(t.list)}>`;
  if ('map' in t) return `map<${celJsTypeName(t.map[0])}, ${celJsTypeName(t.map[1])}>`;
  return t.object;
}

/** cel-js's printed type → cel-go's: list<x> → list(x), map<k, v> → map(k, v), optional → optional_type. */
function goTypeName(celJsName: string): string {
  return celJsName
    .replace(/\boptional</g, 'optional_type<')
    .replace(/</g, '(')
    .replace(/>/g, ')')
    .replace(/\bnull\b/g, 'null_type');
}

// ---------------------------------------------------------------------------------------------
// Cost
// ---------------------------------------------------------------------------------------------

/**
 * kube runs every expression with cel-go's runtime cost limit (celconfig.PerCallLimit, 1,000,000),
 * failing past it with `operation cancelled: actual cost limit exceeded`. cel-js counts no cost,
 * so it is counted here: every node cel-js evaluates costs one unit (its evaluator's `run`, which
 * every operator, call and comprehension step goes through, is wrapped once for the process).
 * An operation whose work grows with its operands costs what cel-go and kube's library charge for
 * it instead of that unit: `in` a list its size, comparing or concatenating strings and lists a
 * tenth of their size, string functions a tenth of the string, `matches` and find/findAll the
 * string times the pattern, a set comparison its elements, list functions kube's traversal of the
 * list, parsing a URL, IP, CIDR or quantity a tenth of the text, an authorization check kube's
 * 350,000 (OPERATION_COST, charged by the handlers compile() wraps, and the functions of this file
 * and of api/cel-lib-*.ts, through api/cel-cost.ts). So a long claim or list in an object cannot
 * make one step cost much more work than it is charged, and the two limits stop the same runaway
 * nesting at close to the same size.
 */
export { CEL_COST_EXCEEDED, CEL_PER_CALL_LIMIT } from './cel-cost';
/** kube's cost of one authorizer check (library/cost.go: two checks fit in one expression). */
const CEL_AUTHZ_CHECK_COST = 350_000;

const compareCost = (l: unknown, r: unknown): number => traversal(Math.min(sizeOf(l), sizeOf(r)));

/**
 * The cost of cel-js's operators and functions whose work grows with their operands (cel-go's
 * runtimecost.go, kube's library/cost.go), from their operands (`args`: a function's receiver
 * first, as cel-go passes it) and result. cel-go charges `+` of lists one unit (its lists
 * concatenate lazily); cel-js copies them, so they are charged as strings are. The functions this
 * file registers charge themselves.
 */
const OPERATION_COST: Readonly<Record<string, (args: readonly unknown[], result: unknown) => number>> = {
  in: ([, r]) => (Array.isArray(r) ? r.length : 1),
  '==': ([l, r]) => compareCost(l, r),
  '!=': ([l, r]) => compareCost(l, r),
  '<': ([l, r]) => compareCost(l, r),
  '<=': ([l, r]) => compareCost(l, r),
  '>': ([l, r]) => compareCost(l, r),
  '>=': ([l, r]) => compareCost(l, r),
  '+': ([l, r]) => traversal(sizeOf(l) + sizeOf(r)),
  contains: ([s, sub]) => traversal(sizeOf(s)) * traversal(sizeOf(sub)),
  startsWith: ([s]) => traversal(sizeOf(s)),
  endsWith: ([s]) => traversal(sizeOf(s)),
  trim: ([s]) => traversal(sizeOf(s)),
  split: ([s]) => traversal(2 * sizeOf(s)),
  join: (_args, result) => traversal(2 * sizeOf(result)),
};

type Handle = (a: unknown, b: unknown, c: unknown, d: unknown) => unknown;

/**
 * Makes the operators and calls of a checked expression charge OPERATION_COST: cel-js's checker
 * leaves each its handler on the node (`handle`: an operator's gets both operands, a call's the
 * array of receiver and arguments), which is wrapped once here, at compile time.
 */
function chargeOperations(root: CheckedNode): void {
  const wrapped = new Set<object>();
  walk(root, (n) => {
    const node = n as CheckedNode & { handle?: Handle };
    const handle = node.handle;
    if (typeof handle !== 'function' || wrapped.has(node)) return;
    const isCall = n.op === 'call' || n.op === 'rcall';
    const key = isCall ? String((n.args as unknown[])[0]) : n.op;
    if (!Object.hasOwn(OPERATION_COST, key)) return;
    const cost = OPERATION_COST[key] as (typeof OPERATION_COST)[string];
    wrapped.add(node);
    node.handle = isCall
      ? (args, b, c, d) => {
          const result = handle(args, b, c, d);
          chargeOperation(cost(args as unknown[], result));
          return result;
        }
      : (l, r, c, d) => (chargeOperation(cost([l, r], undefined)), handle(l, r, c, d));
  });
}

/** Wraps cel-js's evaluator's `run` (its class is not exported: reached through a probe macro). */
function installCostCounting(): void {
  let evaluator: object | undefined;
  const probe = new celJs.Environment().registerFunction('costProbe(ast): dyn', () => ({
    typeCheck: (checker: { getType(n: string): unknown }) => checker.getType('dyn'),
    evaluate: (ev: object) => {
      evaluator = ev;
      return null;
    },
  }));
  probe.evaluate('costProbe(1)');
  if (!evaluator) throw new Error('cel-js: the evaluator could not be reached to count cost');
  type Run = (ast: unknown, ctx: unknown) => unknown;
  const proto = Object.getPrototypeOf(evaluator) as { run: Run; tryEval: Run; costCounted?: boolean };
  if (proto.costCounted) return;
  const run = proto.run;
  proto.run = function (this: unknown, ast: unknown, ctx: unknown) {
    tick();
    return run.call(this, ast, ctx);
  };
  // `||`, `&&` and the quantifiers evaluate an operand with tryEval, which hands an error back as a
  // value they may absorb; running out of budget cancels the evaluation instead, as in cel-go (else
  // a loop over a long list would go on to its end, every step failing).
  const tryEval = proto.tryEval;
  proto.tryEval = function (this: unknown, ast: unknown, ctx: unknown) {
    const result = tryEval.call(this, ast, ctx);
    if (result instanceof CostExceeded) throw result;
    return result;
  };
  proto.costCounted = true;
}
installCostCounting();

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

declare const celInputBrand: unique symbol;
/** A value converted for CEL once (celInput), then handed to every expression that reads it. */
export type CelInput = { readonly [celInputBrand]: true };

/**
 * Converts a JSON value (claims, an object, a request) for CEL: objects as Maps (no prototype
 * keys can be reached), integral numbers as int (kube decodes JSON with util/json, which gives
 * int64 for integral numbers that fit one), other numbers as double.
 */
export function celInput(value: unknown): CelInput {
  return toCelInput(value) as CelInput;
}

const INT64_LIMIT = 2 ** 63;

function toCelInput(root: unknown): unknown {
  // Iterative: a deeply nested object is not a reason to overflow the stack.
  const convert = (v: unknown): unknown => {
    if (typeof v === 'number' && Number.isInteger(v) && v >= -INT64_LIMIT && v < INT64_LIMIT) return BigInt(v);
    return v;
  };
  if (root === null || typeof root !== 'object') return convert(root);
  const out: unknown = Array.isArray(root) ? new Array(root.length) : new Map();
  const stack: Array<{ from: object; to: unknown }> = [{ from: root, to: out }];
  while (stack.length) {
    const { from, to } = stack.pop()!;
    const entries: Array<[string | number, unknown]> = Array.isArray(from) ? from.map((x, i) => [i, x]) : Object.entries(from);
    for (const [k, x] of entries) {
      let y: unknown;
      if (x !== null && typeof x === 'object') {
        y = Array.isArray(x) ? new Array(x.length) : new Map();
        stack.push({ from: x, to: y });
      } else y = convert(x);
      if (Array.isArray(to)) to[k as number] = y;
      else (to as Map<string, unknown>).set(k as string, y);
    }
  }
  return out;
}

/** A CEL result as plain JS: string, boolean, number/bigint, null, arrays and Maps. */
export type CelResultValue = string | boolean | number | bigint | null | CelResultValue[] | Map<string, CelResultValue> | { celType: string };

function fromCel(root: unknown): CelResultValue {
  const one = (v: unknown): CelResultValue | undefined => {
    if (v === null || v === undefined) return null;
    if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint') return v;
    return undefined;
  };
  const scalar = one(root);
  if (scalar !== undefined) return scalar;
  const make = (v: unknown): CelResultValue => {
    const s = one(v);
    if (s !== undefined) return s;
    if (Array.isArray(v)) return new Array(v.length) as CelResultValue[];
    if (v instanceof Map || (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)) return new Map<string, CelResultValue>();
    if (v instanceof Uint8Array) return { celType: 'bytes' };
    if (v instanceof celJs.Optional) return { celType: 'optional_type' };
    return { celType: (v as object).constructor?.name ?? 'object' };
  };
  const out = make(root);
  const stack: Array<{ from: unknown; to: CelResultValue }> = [{ from: root, to: out }];
  while (stack.length) {
    const { from, to } = stack.pop()!;
    if (!(Array.isArray(to) || to instanceof Map)) continue;
    const entries: Array<[unknown, unknown]> = Array.isArray(from)
      ? from.map((x, i) => [i, x])
      : from instanceof Map
        ? [...from.entries()]
        : Object.entries(from as object);
    for (const [k, x] of entries) {
      const y = make(x);
      if (Array.isArray(to)) to[k as number] = y;
      else to.set(String(k), y);
      if (Array.isArray(y) || y instanceof Map) stack.push({ from: x, to: y });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** A compile error as kube's apiserver cel.Error: `Invalid` with its detail. */
export class CelCompileError extends Error {
  override readonly name = 'CelCompileError';
  constructor(
    message: string,
    /**
     * kube's cel.Error type: `Invalid` (the field's Invalid error) for what the checker refuses,
     * `InternalError` for a program cel-go cannot make (`program instantiation failed: …`, a
     * find/findAll pattern that does not compile), which kube reports as the field's InternalError.
     */
    readonly type: 'Invalid' | 'InternalError' = 'Invalid',
  ) {
    super(message);
  }

  /**
   * The field error kube's validators make of it (convertCELErrorToValidationError): `Invalid
   * value: "<expression>": <message>`, or `Internal error: <message>`.
   */
  fieldError(path: PathLike, expression: string): FieldError {
    return this.type === 'InternalError' ? fieldErrors.internal(path, this.message) : fieldErrors.invalid(path, expression, this.message);
  }
}

/** An evaluation error with cel-go's wording (what kube puts after `resulted in error: `). */
export class CelEvaluationError extends Error {
  override readonly name = 'CelEvaluationError';
  constructor(
    message: string,
    /** The cost the evaluation had spent when it failed. */
    readonly cost: number,
  ) {
    super(message);
  }
}

interface CelJsError extends Error {
  readonly code?: string;
  readonly summary?: string;
  readonly range?: { start: number; end: number };
  readonly node?: CheckedNode;
}

/**
 * cel-go's issue text: `ERROR: <input>:L:C: msg`, then (lines up to 16,384 characters) the source
 * line and dots up to a caret, wide ones under characters of more than one UTF-8 byte.
 */
function issueText(expression: string, offset: number, message: string): string {
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const chars = [...expression.slice(lineStart, offset)];
  const head = `ERROR: <input>:${line}:${chars.length + 1}: ${message}`;
  const source = (expression.split('\n')[line - 1] ?? '').replace(/\t/g, ' ');
  if (Buffer.byteLength(source) > 16384) return head;
  const wide = (ch: string | undefined): boolean => ch !== undefined && Buffer.byteLength(ch) > 1;
  const dots = chars.map((ch) => (wide(ch) ? '\uff0e' : '.')).join('');
  const at = [...expression.slice(offset)][0];
  return `${head}\n | ${source}\n | ${dots}${wide(at) ? '\uff3e' : '^'}`;
}

/** Skips spaces and `//` comments from `i`. */
function skipSpace(src: string, i: number): number {
  for (;;) {
    while (i < src.length && /\s/.test(src[i] as string)) i++;
    if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    return i;
  }
}

const BINARY = new Set(['+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', 'in', '&&', '||']);
const GO_OPERATOR: Record<string, string> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
  '&&': '_&&_',
  '||': '_||_',
  '!_': '!_',
  '-_': '-_',
  '[]': '_[_]',
  '?:': '_?_:_',
};

/** Where cel-go puts a node's id: an operator's token, a select's dot, a call's `(`, else its start. */
function goOffset(src: string, node: CheckedNode): number {
  const args = node.args as unknown[];
  const after = (child: CheckedNode | undefined): number => (child ? skipSpace(src, child.end) : node.start);
  if (BINARY.has(node.op) || node.op === '?:' || node.op === '.' || node.op === '.?' || node.op === '[]' || node.op === '[?]') {
    return after(args[0] as CheckedNode);
  }
  if (node.op === 'rcall') {
    let i = skipSpace(src, after(args[1] as CheckedNode) + 1); // past the dot
    i = skipSpace(src, i + String(args[0]).length);
    return i;
  }
  if (node.op === 'call') return skipSpace(src, node.start + String(args[0]).length);
  return node.start;
}

function findNode(root: CheckedNode, range: { start: number; end: number } | undefined): CheckedNode | undefined {
  if (!range) return undefined;
  let found: CheckedNode | undefined;
  walk(root, (n) => {
    if (!found && n.start === range.start && n.end === range.end) found = n;
  });
  return found;
}

/** Every node of an expression, parents first (explicit stack: the parser bounds depth, we do not rely on it). */
function walk(root: CheckedNode, visit: (n: CheckedNode) => void): void {
  const stack: unknown[] = [root];
  const isNode = (x: unknown): x is CheckedNode => !!x && typeof x === 'object' && typeof (x as CheckedNode).op === 'string' && 'args' in (x as object);
  while (stack.length) {
    const x = stack.pop();
    if (isNode(x)) {
      visit(x);
      stack.push(x.args);
    } else if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i]);
    } else if (x && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype) {
      // A comprehension's argument record.
      for (const v of Object.values(x)) stack.push(v);
    }
  }
}

/** Functions this file implements in place of cel-js's (renamed in the parsed expression). */
const OVERRIDES: Record<string, string> = {
  matches: 'k8sMatches',
  lowerAscii: 'k8sLowerAscii',
  upperAscii: 'k8sUpperAscii',
  substring: 'k8sSubstring',
  indexOf: 'k8sIndexOf',
  lastIndexOf: 'k8sLastIndexOf',
};
const OVERRIDDEN = new Map(Object.entries(OVERRIDES).map(([k, v]) => [v, k]));
const publicName = (fn: string): string => OVERRIDDEN.get(fn) ?? fn;

/**
 * cel-go's name of a checked node's type. A field of a map whose values are kube's `any` (the
 * claims) is `any` there; cel-js, which has no such type, says dyn.
 */
function typeOf(n: unknown, aliases: ReadonlyMap<string, string>): string {
  const node = n as CheckedNode | undefined;
  const name = node?.checkedType?.name;
  if (!name) return 'dyn';
  if (node && (node.op === '.' || node.op === '[]' || node.op === '.?' || node.op === '[?]')) {
    const on = typeOf((node.args as unknown[])[0], aliases);
    if (/^map\(.*, any\)$/.test(on) && (name === 'dyn' || name === 'optional<dyn>')) return node.op.endsWith('?') || node.op === '[?]' ? 'optional_type(any)' : 'any';
  }
  const go = goTypeName(name);
  return aliases.get(go) ?? go;
}

/** A cel-go type name as a tree: `map(string, list(int))` → map [string, list [int]]. */
function parseTypeName(name: string): { name: string; params: ReturnType<typeof parseTypeName>[] } {
  const open = name.indexOf('(');
  if (open < 0 || !name.endsWith(')')) return { name, params: [] };
  const params: string[] = [];
  let depth = 0;
  let from = open + 1;
  for (let i = from; i < name.length - 1; i++) {
    const ch = name[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      params.push(name.slice(from, i).trim());
      from = i + 1;
    }
  }
  params.push(name.slice(from, name.length - 1).trim());
  return { name: name.slice(0, open), params: params.map(parseTypeName) };
}

/** cel-go's isAssignable, as far as literals need it: equal, or dyn/any on either side, parameter by parameter. */
function assignable(a: ReturnType<typeof parseTypeName>, b: ReturnType<typeof parseTypeName>): boolean {
  const loose = (t: { name: string }): boolean => t.name === 'dyn' || t.name === 'any';
  if (loose(a) || loose(b)) return true;
  if (a.name !== b.name || a.params.length !== b.params.length) return false;
  return a.params.every((p, i) => assignable(p, b.params[i] as ReturnType<typeof parseTypeName>));
}

/** kube's HomogeneousAggregateLiterals: the elements of a list (keys, values of a map) join to one type. */
function checkHomogeneous(root: CheckedNode, aliases: ReadonlyMap<string, string>): { at: CheckedNode; message: string } | undefined {
  let found: { at: CheckedNode; message: string } | undefined;
  const join = (items: CheckedNode[]): void => {
    let prev: string | undefined;
    for (const item of items) {
      const t = typeOf(item, aliases);
      if (prev === undefined || assignable(parseTypeName(prev), parseTypeName(t))) {
        if (prev === undefined || (prev !== 'dyn' && prev !== 'any')) prev = t === 'dyn' || t === 'any' ? t : (prev ?? t);
        continue;
      }
      found ??= { at: item, message: `expected type '${prev}' but found '${t}'` };
      return;
    }
  };
  walk(root, (n) => {
    if (found) return;
    if (n.op === 'list') join(n.args as CheckedNode[]);
    if (n.op === 'map') {
      const entries = n.args as Array<[CheckedNode, CheckedNode]>;
      join(entries.map((e) => e[0]));
      join(entries.map((e) => e[1]));
    }
  });
  return found;
}

/** The macros that declare a variable for their other arguments (`list.all(x, p)`, `cel.bind(x, v, e)`). */
const BINDING_MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/**
 * kube's qualified names (`ip.isCanonical`, `format.named`, `net.IP`, `strings.quote`) are, here,
 * member functions and fields of a namespace constant (see CelNamespace). cel-go knows no such
 * identifier: the namespace's name alone, or with a function or field it does not have, is an
 * undeclared reference (with the unknown function's own, as cel-go reports both). A
 * comprehension's or cel.bind's variable of the same name hides the namespace.
 */
function checkNamespaces(root: CheckedNode): Array<{ at: CheckedNode; message: string }> {
  const issues: Array<{ at: CheckedNode; message: string }> = [];
  const allowed = new Set<CheckedNode>();
  const stack: Array<{ x: unknown; bound: ReadonlySet<string> }> = [{ x: root, bound: new Set() }];
  const isNode = (x: unknown): x is CheckedNode => !!x && typeof x === 'object' && typeof (x as CheckedNode).op === 'string' && 'args' in (x as object);
  const namespaceOf = (x: unknown, bound: ReadonlySet<string>): CelNamespace | undefined =>
    isNode(x) && x.op === 'id' && typeof x.args === 'string' && !bound.has(x.args) ? NAMESPACES.get(x.args) : undefined;
  while (stack.length) {
    const { x, bound } = stack.pop()!;
    if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) stack.push({ x: x[i], bound });
      continue;
    }
    if (!isNode(x)) {
      if (x && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype) for (const v of Object.values(x)) stack.push({ x: v, bound });
      continue;
    }
    const args = x.args as unknown[];
    if (x.op === 'id') {
      if (namespaceOf(x, bound) && !allowed.has(x)) issues.push({ at: x, message: undeclaredReference(x.args as string) });
      continue;
    }
    if (x.op === '.') {
      const ns = namespaceOf(args[0], bound);
      if (ns?.fields?.includes(String(args[1]))) allowed.add(args[0] as CheckedNode);
    }
    if (x.op === 'rcall') {
      const [fn, receiver, callArgs] = args as [string, CheckedNode, CheckedNode[]];
      const ns = namespaceOf(receiver, bound);
      if (ns) {
        if (ns.functions.includes(fn)) allowed.add(receiver);
        else {
          issues.push({ at: receiver, message: undeclaredReference(ns.name) }, { at: x, message: undeclaredReference(fn) });
          continue;
        }
      }
      const isBind = fn === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && callArgs.length === 3;
      const declared = isTwoVarMacro(fn, callArgs.length) ? 2 : isBind || (BINDING_MACROS.has(fn) && callArgs.length >= 2) ? 1 : 0;
      const names = callArgs.slice(0, declared).map((a) => (a.op === 'id' && typeof a.args === 'string' ? a.args : undefined));
      if (declared && names.every((n) => n !== undefined)) {
        // The variables are declared by the first arguments: the others see them (cel.bind's value does not).
        const inner = new Set([...bound, ...(names as string[])]);
        if (isBind) stack.push({ x: callArgs[2], bound: inner }, { x: callArgs[1], bound });
        else stack.push({ x: callArgs.slice(declared), bound: inner });
        stack.push({ x: receiver, bound });
        continue;
      }
    }
    stack.push({ x: args, bound });
  }
  return issues;
}

/**
 * What cel-go says of two-variable comprehensions in an environment without them (kube's
 * NewExpressions at 1.31): the call is an ordinary one, so its variables and the function are
 * undeclared references (cel-go lists them in source order).
 */
function twoVarComprehensionsAt131(expression: string, root: CheckedNode): Array<{ at: CheckedNode; message: string }> {
  const issues: Array<{ at: CheckedNode; message: string }> = [];
  walk(root, (n) => {
    if (n.op !== 'rcall') return;
    const [fn, , callArgs] = n.args as [string, CheckedNode, CheckedNode[]];
    if (!isTwoVarMacro(fn, callArgs.length)) return;
    const names = new Set(callArgs.slice(0, 2).flatMap((a) => (a.op === 'id' && typeof a.args === 'string' ? [a.args] : [])));
    issues.push({ at: n, message: undeclaredReference(fn) });
    walk({ op: 'list', args: callArgs, pos: 0, start: 0, end: 0 }, (a) => {
      if (a.op === 'id' && names.has(a.args as string)) issues.push({ at: a, message: undeclaredReference(a.args as string) });
    });
  });
  return issues.sort((a, b) => goOffset(expression, a.at) - goOffset(expression, b.at));
}

const isTwoVarMacro = (fn: string, argCount: number): boolean => TWO_VAR_MACROS.get(fn)?.includes(argCount) ?? false;

const undeclaredReference = (name: string): string => `undeclared reference to '${name}' (in container '')`;

/** A string literal of the node's arguments, by position. */
function stringLiteral(n: CheckedNode | undefined): string | undefined {
  return n && n.op === 'value' && typeof n.args === 'string' ? n.args : undefined;
}

/**
 * cel-go's ValidateRegexLiterals (kube enables it): a literal first argument of `matches` that
 * does not compile is a compile error (`invalid matches argument`). The first argument, as
 * cel-go counts them: the pattern of `s.matches(p)`, but the string of `matches(s, p)`.
 */
function invalidRegexLiteral(root: CheckedNode): CheckedNode | undefined {
  let found: CheckedNode | undefined;
  walk(root, (n) => {
    const args = n.args as unknown[];
    if (found || (n.op !== 'rcall' && n.op !== 'call') || args[0] !== OVERRIDES.matches) return;
    const literal = ((n.op === 'rcall' ? args[2] : args[1]) as CheckedNode[])[0];
    const pattern = stringLiteral(literal);
    if (pattern !== undefined && regexCompileError(pattern)) found = literal;
  });
  return found;
}

/**
 * cel-go compiles a literal pattern when the program is made (kube's FindRegexOptimization and
 * FindAllRegexOptimization, cel-go's own for `matches` under OptOptimize): the pattern of
 * `s.find(p)`, `s.findAll(p)`, `s.matches(p)` and `matches(s, p)`. One that does not compile
 * fails there, with Go's error.
 */
function literalPatternError(root: CheckedNode): string | undefined {
  let found: string | undefined;
  walk(root, (n) => {
    const args = n.args as unknown[];
    if (found || (n.op !== 'rcall' && n.op !== 'call')) return;
    const fn = args[0];
    let pattern: string | undefined;
    if (n.op === 'rcall' && (fn === 'find' || fn === 'findAll' || fn === OVERRIDES.matches)) pattern = stringLiteral((args[2] as CheckedNode[])[0]);
    if (n.op === 'call' && fn === OVERRIDES.matches) pattern = stringLiteral((args[1] as CheckedNode[])[1]);
    if (pattern !== undefined) found = regexCompileError(pattern);
  });
  return found;
}

/** cel-go's wording of a cel-js type error at `node`. */
function goCheckMessage(e: CelJsError, node: CheckedNode | undefined, aliases: ReadonlyMap<string, string>, declared: ReadonlySet<string>): string {
  const summary = e.summary ?? e.message;
  const args = node?.args as unknown[] | undefined;
  // A function of no overload at all is one cel-go's checker does not know (a namespace's are known).
  const onNamespace = node?.op === 'rcall' && args && (args[1] as CheckedNode).op === 'id' && NAMESPACES.has(String((args[1] as CheckedNode).args));
  if ((node?.op === 'call' || node?.op === 'rcall') && args && !onNamespace && !declared.has(String(args[0]))) return undeclaredFunction(String(args[0]));
  switch (e.code) {
    case 'unknown_variable':
      return `undeclared reference to '${/Unknown variable: (.*)/.exec(summary)?.[1] ?? ''}' (in container '')`;
    case 'no_such_key':
      return `undefined field '${/No such key: (.*)/.exec(summary)?.[1] ?? ''}'`;
    case 'no_such_overload':
    case 'no_matching_overload': {
      if (!node || !args) break;
      if (node.op === 'rcall') {
        const callArgs = (args[2] as unknown[]).map((a) => typeOf(a, aliases)).join(', ');
        const receiver = args[1] as CheckedNode;
        const ns = receiver.op === 'id' ? NAMESPACES.get(String(receiver.args)) : undefined;
        if (ns) return `found no matching overload for '${ns.name}.${String(args[0])}' applied to '(${callArgs})'`;
        return `found no matching overload for '${publicName(String(args[0]))}' applied to '${typeOf(args[1], aliases)}.(${callArgs})'`;
      }
      if (node.op === 'call') {
        const callArgs = (args[1] as unknown[]).map((a) => typeOf(a, aliases)).join(', ');
        return `found no matching overload for '${publicName(String(args[0]))}' applied to '(${callArgs})'`;
      }
      const operands = Array.isArray(args) ? args : [args];
      const fn = GO_OPERATOR[node.op] ?? node.op;
      return `found no matching overload for '${fn}' applied to '(${operands.map((a) => typeOf(a, aliases)).join(', ')})'`;
    }
    default: {
      const mismatch = /expected type '(.*)' but found '(.*)'/.exec(summary);
      if (mismatch) return `expected type '${goTypeName(mismatch[1] as string)}' but found '${goTypeName(mismatch[2] as string)}'`;
      break;
    }
  }
  return summary;
}

const undeclaredFunction = (fn: string): string => `undeclared reference to '${publicName(fn)}' (in container '')`;

/** Functions of cel-js's kube has none of (on bytes): refused as cel-go refuses an unknown name. */
const CEL_JS_ONLY_FUNCTIONS = new Set(['json', 'hex', 'base64', 'at']);

/** cel-go's wording of an evaluation error (what follows kube's `resulted in error: `). */
function goEvalMessage(e: unknown): string {
  if (e instanceof CostExceeded) return CEL_COST_EXCEEDED;
  const err = e as CelJsError;
  const summary = err?.summary ?? (e instanceof Error ? e.message : String(e));
  switch (err?.code) {
    case 'no_such_key': {
      const idx = /index out of bounds, index (-?\d+) >= size (\d+)/.exec(summary);
      if (idx) return `index '${idx[1]}' out of range in list size '${idx[2]}'`;
      return `no such key: ${/No such key: (.*)/s.exec(summary)?.[1] ?? ''}`;
    }
    case 'index_out_of_bounds': {
      const idx = /index (-?\d+) >= size (\d+)/.exec(summary);
      return idx ? `index '${idx[1]}' out of range in list size '${idx[2]}'` : summary;
    }
    case 'division_by_zero':
      return 'division by zero';
    case 'modulo_by_zero':
      return 'modulus by zero';
    case 'numeric_overflow':
      return /unsigned/i.test(summary) ? 'unsigned integer overflow' : 'integer overflow';
    case 'no_such_overload':
    case 'no_matching_overload':
      return 'no such overload';
    case 'optional_value_missing':
      return 'optional.none() dereference';
    default:
      return summary;
  }
}

// ---------------------------------------------------------------------------------------------
// kube's libraries
// ---------------------------------------------------------------------------------------------

/** CEL's heterogeneous equality for the values functions here compare (sets, lists). */
function celEquals(a: unknown, b: unknown): boolean {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return typeof a === typeof b ? a === b : Number(a) === Number(b) && (typeof a === 'bigint' ? BigInt(Math.trunc(b as number)) === a : BigInt(Math.trunc(a as number)) === b);
  }
  if (typeof a !== typeof b) return false;
  if (a === null || typeof a !== 'object') return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  const entries = (m: object): Array<[unknown, unknown]> => (m instanceof Map ? [...m.entries()] : Object.entries(m));
  const ea = entries(a);
  const mb = new Map(entries(b as object));
  return ea.length === mb.size && ea.every(([k, v]) => mb.has(k) && celEquals(v, mb.get(k)));
}

function compareScalars(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return compareGoStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  const x = typeof a === 'bigint' ? a : Number(a);
  const y = typeof b === 'bigint' ? b : Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * cel-go's strings.quote: in double quotes, with backslash escapes for the quote, the backslash and
 * \a \b \f \n \r \t \v only (not Go's strconv.Quote: other control characters stay as they are),
 * a lone surrogate (invalid UTF-8 in Go) replaced by U+FFFD.
 */
function celQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = CEL_QUOTE_ESCAPES[ch];
    if (esc) out += esc;
    else if (ch.length === 1 && ch >= '\ud800' && ch <= '\udfff') out += '\ufffd';
    else out += ch;
  }
  return out + '"';
}
const CEL_QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/**
 * cel-go's replace (Go's strings.Replace): at most `n` replacements, all when `n` is negative; an
 * empty `a` matches before every code point and at the end. The string it would make is charged
 * before it is made (a long `b` for each of many matches).
 */
function replace(s: string, a: string, b: string, n: bigint): string {
  chargeOperation(traversal(2 * s.length));
  const parts = a === '' ? ['', ...s, ''] : s.split(a);
  const matches = parts.length - 1;
  const k = n < 0n || n >= BigInt(matches) ? matches : Number(n);
  charge(traversal(s.length + k * (b.length - a.length)));
  return k === matches ? parts.join(b) : parts.slice(0, k + 1).join(b) + a + parts.slice(k + 1).join(a);
}

/** cel-go's substring: code points, and its errors for a range outside the string. */
function substring(s: string, start: bigint, end?: bigint): string {
  chargeOperation(traversal(s.length));
  const chars = [...s];
  const size = BigInt(chars.length);
  if (end !== undefined && start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > size) throw new Error(`index out of range: ${start}`);
  if (end !== undefined && (end < 0n || end > size)) throw new Error(`index out of range: ${end}`);
  return chars.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

/** The code point index of code unit `at` of `s`. */
const codePointIndex = (s: string, at: number): bigint => BigInt([...s.slice(0, at)].length);

/** cel-go's indexOf: code points; an offset past the end finds nothing, a negative one is an error. */
function indexOfString(s: string, sub: string, offset: bigint): bigint {
  chargeOperation(traversal(s.length));
  if (sub === '') return offset;
  if (offset < 0n) throw new Error(`index out of range: ${offset}`);
  const chars = [...s];
  if (offset >= BigInt(chars.length)) return -1n;
  const at = s.indexOf(sub, chars.slice(0, Number(offset)).join('').length);
  return at < 0 ? -1n : codePointIndex(s, at);
}

/** cel-go's lastIndexOf: the last match starting at or before `offset` (default the last code point). */
function lastIndexOfString(s: string, sub: string, offset?: bigint): bigint {
  chargeOperation(traversal(s.length));
  const chars = [...s];
  if (offset === undefined) {
    if (sub === '') return BigInt(chars.length);
    offset = BigInt(chars.length - 1);
  }
  if (sub === '') return offset;
  if (offset < 0n) throw new Error(`index out of range: ${offset}`);
  if (offset >= BigInt(chars.length)) return -1n;
  const at = s.lastIndexOf(sub, chars.slice(0, Number(offset)).join('').length);
  return at < 0 ? -1n : codePointIndex(s, at);
}

/** cel-go's string.format (strings extension v1+): %s %d %f %e %x %X %o %b %%, with precision. */
function celFormat(template: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch !== '%') {
      out += ch;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    const m = /^(?:\.(\d+))?([sdfexXob])/.exec(template.slice(i + 1));
    if (!m) throw new Error(`could not parse formatting clause: unrecognized formatting clause "${template[i + 1] ?? ''}"`);
    i += m[0].length;
    if (next >= args.length) throw new Error(`index ${next} out of range`);
    const v = args[next++];
    const precision = m[1] === undefined ? undefined : Number(m[1]);
    switch (m[2]) {
      case 's':
        out += formatString(v);
        break;
      case 'd':
        if (typeof v !== 'bigint') throw new Error(`error during formatting: decimal clause can only be used on integers, was given ${celRuntimeType(v)}`);
        out += v.toString();
        break;
      case 'f':
        out += Number(v).toFixed(precision ?? 6);
        break;
      case 'e':
        out += Number(v).toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
        break;
      case 'x':
      case 'X': {
        const hex = typeof v === 'string' ? Buffer.from(v).toString('hex') : BigInt(v as bigint).toString(16);
        out += m[2] === 'X' ? hex.toUpperCase() : hex;
        break;
      }
      case 'o':
        out += BigInt(v as bigint).toString(8);
        break;
      case 'b':
        out += typeof v === 'boolean' ? String(v) : BigInt(v as bigint).toString(2);
        break;
    }
  }
  return out;
}

function formatString(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map(formatString).join(', ')}]`;
  if (v instanceof Map) return `{${[...v.entries()].map(([k, x]) => `${formatString(k)}:${formatString(x)}`).join(', ')}}`;
  if (v instanceof CelIP) return v.addr.toString();
  if (v instanceof CelCIDR) return v.prefix.toString();
  return String(v);
}

function celRuntimeType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return 'dyn';
}

const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (x) => x.toLowerCase());
const asciiUpper = (s: string): string => s.replace(/[a-z]+/g, (x) => x.toUpperCase());

class StringsNamespace {}
class SetsNamespace {}
const STRINGS_NAMESPACE: CelNamespace = { name: 'strings', typeName: 'kubernetes.StringsNamespace', functions: ['quote'] };
const SETS_NAMESPACE: CelNamespace = { name: 'sets', typeName: 'kubernetes.SetsNamespace', functions: ['contains', 'equivalent', 'intersects'] };
/** The namespaces of kube's qualified function names, by name. */
const NAMESPACES: ReadonlyMap<string, CelNamespace> = new Map([STRINGS_NAMESPACE, SETS_NAMESPACE, IP_NAMESPACE, NET_NAMESPACE, FORMAT_NAMESPACE].map((n) => [n.name, n]));

/** kube's comparableTypes (lists library): the element types isSorted, min and max take. */
const COMPARABLE_TYPES = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];

function registerBaseLibrary(env: Environment): void {
  // Overrides of cel-js's own (see OVERRIDES): RE2, ASCII-only case mapping as cel-go's, and
  // substring and indexOf over code points with cel-go's range errors.
  registerRegexLibrary(env, 'k8sMatches');
  env.registerFunction('string.k8sLowerAscii(): string', (s: string) => (chargeOperation(traversal(s.length)), asciiLower(s)));
  env.registerFunction('string.k8sUpperAscii(): string', (s: string) => (chargeOperation(traversal(s.length)), asciiUpper(s)));
  env.registerFunction('string.k8sSubstring(int): string', (s: string, start: bigint) => substring(s, start));
  env.registerFunction('string.k8sSubstring(int, int): string', substring);
  env.registerFunction('string.k8sIndexOf(string): int', (s: string, sub: string) => indexOfString(s, sub, 0n));
  env.registerFunction('string.k8sIndexOf(string, int): int', indexOfString);
  env.registerFunction('string.k8sLastIndexOf(string): int', (s: string, sub: string) => lastIndexOfString(s, sub));
  env.registerFunction('string.k8sLastIndexOf(string, int): int', lastIndexOfString);
  // The strings extension (version 2) beyond what cel-js has.
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n));
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerFunction('string.format(list): string', (s: string, args: unknown[]) => {
    // cel-go charges the template; the text of a long list argument is charged too.
    const out = celFormat(s, args);
    chargeOperation(traversal(s.length + out.length));
    return out;
  });
  env.registerType(STRINGS_NAMESPACE.typeName, StringsNamespace).registerConstant(STRINGS_NAMESPACE.name, STRINGS_NAMESPACE.typeName, new StringsNamespace());
  env.registerFunction(`${STRINGS_NAMESPACE.typeName}.quote(string): string`, (_: unknown, s: string) => (chargeOperation(traversal(s.length)), celQuote(s)));
  // kube's lists library: isSorted, min and max of lists of comparable types, sum of numbers and
  // durations, indexOf and lastIndexOf of any list; each costs kube's traversal of the list.
  for (const t of COMPARABLE_TYPES) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => {
      chargeOperation(traversalCost(l));
      for (let i = 1; i < l.length; i++) if (compareScalars(l[i - 1], l[i]) > 0) return false;
      return true;
    });
    for (const fn of ['min', 'max'] as const) {
      env.registerFunction(`list<${t}>.${fn}(): ${t}`, (l: unknown[]) => {
        chargeOperation(traversalCost(l));
        if (l.length === 0) throw new Error(`${fn} called on empty list`);
        return l.reduce((a, b) => ((fn === 'min' ? compareScalars(b, a) < 0 : compareScalars(b, a) > 0) ? b : a));
      });
    }
  }
  const zeroDuration = env.evaluate('duration("0s")') as { addDuration(d: unknown): unknown };
  for (const t of ['int', 'uint', 'double', 'google.protobuf.Duration']) {
    env.registerFunction(`list<${t}>.sum(): ${t}`, (l: unknown[]) => {
      chargeOperation(traversalCost(l));
      if (t === 'google.protobuf.Duration') return l.reduce((a, b) => (a as typeof zeroDuration).addDuration(b), zeroDuration);
      if (t === 'int') {
        const sum = (l as bigint[]).reduce((a, b) => a + b, 0n);
        if (sum >= 2n ** 63n || sum < -(2n ** 63n)) throw new Error('integer overflow');
        return sum;
      }
      return l.reduce<number>((a, b) => a + Number(b), 0);
    });
  }
  env.registerFunction('list<A>.k8sIndexOf(A): int', (l: unknown[], x: unknown) => (chargeOperation(traversalCost(l)), BigInt(l.findIndex((y) => celEquals(x, y)))));
  env.registerFunction('list<A>.k8sLastIndexOf(A): int', (l: unknown[], x: unknown) => {
    chargeOperation(traversalCost(l));
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(x, l[i])) return BigInt(i);
    return -1n;
  });
  // The sets extension: both lists of one element type, a unit per pair of elements compared.
  env.registerType(SETS_NAMESPACE.typeName, SetsNamespace).registerConstant(SETS_NAMESPACE.name, SETS_NAMESPACE.typeName, new SetsNamespace());
  const contains = (a: unknown[], b: unknown[]): boolean => (charge(a.length * b.length), b.every((x) => a.some((y) => celEquals(x, y))));
  const S = SETS_NAMESPACE.typeName;
  env.registerFunction(`${S}.contains(list<A>, list<A>): bool`, (_: unknown, a: unknown[], b: unknown[]) => contains(a, b));
  env.registerFunction(`${S}.equivalent(list<A>, list<A>): bool`, (_: unknown, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a));
  env.registerFunction(`${S}.intersects(list<A>, list<A>): bool`, (_: unknown, a: unknown[], b: unknown[]) => (charge(a.length * b.length), a.some((x) => b.some((y) => celEquals(x, y)))));
  // kube's other libraries.
  registerURLLibrary(env);
  registerNetLibrary(env);
  registerQuantityLibrary(env);
  registerFormatLibrary(env, { of: (v) => celJs.Optional.of(v), none: () => celJs.Optional.none() });
  registerTwoVarComprehensions(env);
}

// ---------------------------------------------------------------------------------------------
// The authorizer library (kube's library/authz.go)
// ---------------------------------------------------------------------------------------------

/** One authorization check an expression makes (the attributes kube's library builds). */
export interface CelAuthorizerCheck {
  /** A non-resource check (authorizer.path(p).check(verb)); the rest is then empty. */
  path?: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  verb: string;
  fieldSelector?: string;
  labelSelector?: string;
  /** authorizer.serviceAccount(ns, name): the check is made for that service account's user. */
  serviceAccount?: { namespace: string; name: string };
}

export interface CelAuthorizerDecision {
  decision: 'allow' | 'deny' | 'no-opinion';
  reason?: string;
  /** The authorizer failed (decision.errored() is true, error() this text). */
  error?: string;
}

/** A stable key of a check (its answers are looked up by it). */
function celAuthorizerCheckKey(c: CelAuthorizerCheck): string {
  return JSON.stringify([c.path ?? null, c.group, c.resource, c.subresource, c.namespace, c.name, c.verb, c.fieldSelector ?? '', c.labelSelector ?? '', c.serviceAccount ?? null]);
}

class AuthorizerVal {
  constructor(
    readonly serviceAccount: { namespace: string; name: string } | undefined,
    readonly requestResource: ResourceCheckVal | undefined,
  ) {}
}
class PathCheckVal {
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly path: string,
  ) {}
}
class GroupCheckVal {
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly group: string,
  ) {}
}
class ResourceCheckVal {
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
    readonly fieldSelector = '',
    readonly labelSelector = '',
  ) {}
  with(change: Partial<Pick<ResourceCheckVal, 'subresource' | 'namespace' | 'name' | 'fieldSelector' | 'labelSelector'>>): ResourceCheckVal {
    const x = { ...this, ...change };
    return new ResourceCheckVal(x.authorizer, x.group, x.resource, x.subresource, x.namespace, x.name, x.fieldSelector, x.labelSelector);
  }
}
class DecisionVal {
  constructor(readonly d: CelAuthorizerDecision) {}
}

/** The answers of the evaluation running now, and the checks it asked that have none yet. */
let authorizerSession: { answers: ReadonlyMap<string, CelAuthorizerDecision>; pending: Map<string, CelAuthorizerCheck> } | undefined;

class AuthorizerPending extends Error {}

function decide(check: CelAuthorizerCheck): DecisionVal {
  charge(CEL_AUTHZ_CHECK_COST);
  const key = celAuthorizerCheckKey(check);
  const answer = authorizerSession?.answers.get(key);
  if (answer) return new DecisionVal(answer);
  authorizerSession?.pending.set(key, check);
  throw new AuthorizerPending('authorizer check pending');
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function registerAuthorizerLibrary(env: Environment): void {
  const A = 'kubernetes.authorization.Authorizer';
  const P = 'kubernetes.authorization.PathCheck';
  const G = 'kubernetes.authorization.GroupCheck';
  const R = 'kubernetes.authorization.ResourceCheck';
  const D = 'kubernetes.authorization.Decision';
  env.registerType(P, { ctor: PathCheckVal, fields: {} });
  env.registerType(G, { ctor: GroupCheckVal, fields: {} });
  env.registerType(R, { ctor: ResourceCheckVal, fields: {} });
  env.registerType(D, { ctor: DecisionVal, fields: {} });
  // `authorizer.requestResource` is one variable in cel-go; here a field of the authorizer.
  env.registerType(A, { ctor: AuthorizerVal, fields: { requestResource: R } });
  const nominal = (): void => charge(1);
  env.registerFunction(`${A}.path(string): ${P}`, (a: AuthorizerVal, p: string) => {
    nominal();
    if (p.trim() === '') throw new Error('path must not be empty');
    return new PathCheckVal(a, p);
  });
  env.registerFunction(`${A}.group(string): ${G}`, (a: AuthorizerVal, g: string) => (nominal(), new GroupCheckVal(a, g)));
  env.registerFunction(`${A}.serviceAccount(string, string): ${A}`, (_a: AuthorizerVal, ns: string, name: string) => {
    nominal();
    if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) throw new Error('Invalid service account name');
    if (ns.length > 63 || !DNS1123_LABEL.test(ns)) throw new Error('Invalid service account namespace');
    return new AuthorizerVal({ namespace: ns, name }, undefined);
  });
  env.registerFunction(`${G}.resource(string): ${R}`, (g: GroupCheckVal, r: string) => {
    nominal();
    if (r.trim() === '') throw new Error('resource must not be empty');
    return new ResourceCheckVal(g.authorizer, g.group, r);
  });
  for (const field of ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const) {
    env.registerFunction(`${R}.${field}(string): ${R}`, (r: ResourceCheckVal, v: string) => (nominal(), r.with({ [field]: v })));
  }
  const sa = (a: AuthorizerVal): Pick<CelAuthorizerCheck, 'serviceAccount'> => (a.serviceAccount ? { serviceAccount: a.serviceAccount } : {});
  env.registerFunction(`${P}.check(string): ${D}`, (p: PathCheckVal, verb: string) =>
    decide({ path: p.path, group: '', resource: '', subresource: '', namespace: '', name: '', verb, ...sa(p.authorizer) }),
  );
  env.registerFunction(`${R}.check(string): ${D}`, (r: ResourceCheckVal, verb: string) =>
    decide({
      group: r.group,
      resource: r.resource,
      subresource: r.subresource,
      namespace: r.namespace,
      name: r.name,
      verb,
      ...(r.fieldSelector ? { fieldSelector: r.fieldSelector } : {}),
      ...(r.labelSelector ? { labelSelector: r.labelSelector } : {}),
      ...sa(r.authorizer),
    }),
  );
  env.registerFunction(`${D}.allowed(): bool`, (d: DecisionVal) => (nominal(), d.d.decision === 'allow' && d.d.error === undefined));
  env.registerFunction(`${D}.reason(): string`, (d: DecisionVal) => (nominal(), d.d.reason ?? ''));
  env.registerFunction(`${D}.errored(): bool`, (d: DecisionVal) => (nominal(), d.d.error !== undefined));
  env.registerFunction(`${D}.error(): string`, (d: DecisionVal) => (nominal(), d.d.error ?? ''));
}

/** What the request resource is, for `authorizer.requestResource`. */
export interface CelRequestResource {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

declare const celAuthorizerBrand: unique symbol;
/** The value of an `authorizer` variable (celAuthorizer). */
export type CelAuthorizerValue = { readonly [celAuthorizerBrand]: true };

/** The `authorizer` variable for a request (its user is the requester, so checks carry no user). */
export function celAuthorizer(requestResource: CelRequestResource): CelAuthorizerValue {
  const a = new AuthorizerVal(undefined, undefined);
  const r = new ResourceCheckVal(a, requestResource.group, requestResource.resource, requestResource.subresource, requestResource.namespace, requestResource.name);
  return new AuthorizerVal(undefined, r) as unknown as CelAuthorizerValue;
}

// ---------------------------------------------------------------------------------------------
// Environments and programs
// ---------------------------------------------------------------------------------------------

export interface CelEnvironmentSpec {
  /** The declared variables and their kube types. */
  readonly variables: Readonly<Record<string, CelDeclType>>;
  /** Declares `authorizer` (and `authorizer.requestResource`) with kube's authorizer library. */
  readonly authorizer?: boolean;
}

export interface CelCompileOptions {
  /**
   * The result types kube accepts (cel-go names: 'bool', 'string', 'list(string)'); undefined:
   * any. A result of another type is refused: kube's authentication compiler says `must
   * evaluate to bool`, the admission and authorization ones add ` but got <type>` (`withActual`).
   */
  readonly resultTypes?: readonly string[];
  readonly withActual?: boolean;
  /**
   * Check as kube checks an expression a write introduces (its NewExpressions environment, at
   * its compatibility version 1.31): without what 1.32 added, the two-variable comprehensions.
   * kube compiles configuration files, and expressions already stored, with everything (its
   * StoredExpressions environment): the default.
   */
  readonly newExpression?: boolean;
}

export interface CelEvaluateOptions {
  /** The cost limit of this evaluation (default kube's per-call limit). */
  readonly costLimit?: number;
  /** Answers to authorizer checks; a check without one is recorded in `pending`. */
  readonly authorizerAnswers?: ReadonlyMap<string, CelAuthorizerDecision>;
  readonly pending?: Map<string, CelAuthorizerCheck>;
}

export interface CelEvaluation {
  readonly value: CelResultValue;
  readonly cost: number;
}

/** A compiled expression. */
export class CelProgram {
  /** @internal */
  constructor(
    readonly expression: string,
    /** cel-go's name of the checked result type. */
    readonly outputType: string,
    private readonly run: (vars: Record<string, unknown>) => unknown,
    private readonly selections: ReadonlySet<string>,
    private readonly variables: readonly string[],
  ) {}

  /** Whether the expression reads `<variable>.<field>` (kube's hasSelectExp). */
  selects(variable: string, field: string): boolean {
    return this.selections.has(`${variable}.${field}`);
  }

  /**
   * Runs the expression; `vars` holds each declared variable's value (celInput, celAuthorizer,
   * or null; a missing one is null). Throws CelEvaluationError with cel-go's message; an
   * authorizer check without an answer throws too, after recording it in `opts.pending`.
   */
  evaluate(vars: Readonly<Record<string, CelInput | CelAuthorizerValue | null | undefined>>, opts: CelEvaluateOptions = {}): CelEvaluation {
    const context: Record<string, unknown> = {};
    for (const v of this.variables) context[v] = vars[v] ?? null;
    const mine = { spent: 0, limit: opts.costLimit ?? CEL_PER_CALL_LIMIT };
    const outerSession = authorizerSession;
    authorizerSession = { answers: opts.authorizerAnswers ?? new Map(), pending: opts.pending ?? new Map() };
    try {
      const r = withBudget(mine, () => this.run(context));
      return { value: fromCel(r), cost: mine.spent };
    } catch (e) {
      throw new CelEvaluationError(goEvalMessage(e), mine.spent);
    } finally {
      authorizerSession = outerSession;
    }
  }
}

/** A CEL environment: kube's base library plus declared variables. Build once, compile many. */
export class CelEnvironment {
  private readonly env: Environment;
  /** cel-go names printed for this environment's `any` types (`map(string, dyn)` → `map(string, any)`). */
  private readonly aliases = new Map<string, string>();
  private readonly variables: string[];
  /** The names of the functions and macros declared (cel-go's checker knows no others). */
  private readonly functions: ReadonlySet<string>;

  constructor(readonly spec: CelEnvironmentSpec) {
    // Literals are checked for kube's HomogeneousAggregateLiterals here (checkHomogeneous): cel-js's
    // own check refuses `["a", claims.sub]`, which cel-go accepts (dyn joins any type).
    const env = new celJs.Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    registerBaseLibrary(env);
    if (spec.authorizer) {
      registerAuthorizerLibrary(env);
      env.registerVariable('authorizer', 'kubernetes.authorization.Authorizer');
    }
    const registered = new Set<string>();
    const register = (t: CelDeclType): void => {
      if (typeof t === 'string') return;
      if ('list' in t) return register(t.list);
      if ('map' in t) return (register(t.map[0]), register(t.map[1]));
      if (registered.has(t.object)) return;
      registered.add(t.object);
      for (const f of Object.values(t.fields)) register(f);
      env.registerType(t.object, { fields: Object.fromEntries(Object.entries(t.fields).map(([k, f]) => [k, celJsTypeName(f)])) });
      // cel-go lets an object be compared with null (legacy nullable); `!=` comes with it.
      env.registerOperator(`${t.object} == null`, (a: unknown) => a === null || a === undefined);
    };
    const noteAliases = (t: CelDeclType): void => {
      if (typeof t === 'string') return;
      if ('list' in t) return noteAliases(t.list);
      if ('map' in t) return (noteAliases(t.map[0]), noteAliases(t.map[1]), this.alias(t));
      for (const f of Object.values(t.fields)) noteAliases(f);
    };
    for (const [name, t] of Object.entries(spec.variables)) {
      register(t);
      noteAliases(t);
      env.registerVariable(name, celJsTypeName(t));
    }
    this.variables = [...Object.keys(spec.variables), ...(spec.authorizer ? ['authorizer'] : [])];
    // A function declared only on a namespace is cel-go's qualified name: no function of its own.
    const namespaceTypes = new Set([...NAMESPACES.values()].map((n) => n.typeName));
    this.functions = new Set(
      env
        .getDefinitions()
        .functions.filter((f) => !namespaceTypes.has(String((f as { receiverType?: unknown }).receiverType ?? '')))
        .map((f) => f.name)
        .filter((n) => !CEL_JS_ONLY_FUNCTIONS.has(n)),
    );
    this.env = env;
  }

  private alias(t: CelDeclType): void {
    const go = celTypeName(t);
    const asChecked = goTypeName(celJsTypeName(t));
    if (go !== asChecked) this.aliases.set(asChecked, go);
  }

  /** Parses and type-checks `expression`; throws CelCompileError with kube's detail. */
  compile(expression: string, opts: CelCompileOptions = {}): CelProgram {
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = this.env.parse(expression);
    } catch (e) {
      const err = e as CelJsError;
      const offset = err.range?.start ?? 0;
      const summary = err.summary ?? err.message;
      throw new CelCompileError(`compilation failed: ${issueText(expression, Math.min(offset, expression.length), `Syntax error: ${summary.charAt(0).toLowerCase()}${summary.slice(1)}`)}`);
    }
    const root = parsed.ast as unknown as CheckedNode;
    const selections = new Set<string>();
    let undeclared: CheckedNode | undefined;
    walk(root, (n) => {
      const args = n.args as unknown[];
      const fn = n.op === 'rcall' || n.op === 'call' ? args[0] : undefined;
      if (typeof fn === 'string') {
        // A function this file implements in place of cel-js's (see OVERRIDES).
        if (Object.hasOwn(OVERRIDES, fn)) args[0] = OVERRIDES[fn];
        if (CEL_JS_ONLY_FUNCTIONS.has(fn)) undeclared ??= n;
      }
      if (n.op === '.' && (args[0] as CheckedNode).op === 'id') selections.add(`${(args[0] as CheckedNode).args as string}.${String(args[1])}`);
    });
    if (undeclared) {
      const message = undeclaredFunction(String((undeclared.args as unknown[])[0]));
      throw new CelCompileError(`compilation failed: ${issueText(expression, goOffset(expression, undeclared), message)}`);
    }
    const misplaced = [...checkNamespaces(root), ...(opts.newExpression ? twoVarComprehensionsAt131(expression, root) : [])];
    if (misplaced.length) {
      throw new CelCompileError(`compilation failed: ${misplaced.map((i) => issueText(expression, goOffset(expression, i.at), i.message)).join('\n')}`);
    }
    const checked = parsed.check();
    if (!checked.valid) {
      const err = checked.error as unknown as CelJsError;
      const node = err.node ?? findNode(root, err.range);
      const offset = node ? goOffset(expression, node) : (err.range?.start ?? 0);
      throw new CelCompileError(`compilation failed: ${issueText(expression, offset, goCheckMessage(err, node, this.aliases, this.functions))}`);
    }
    const badRegex = invalidRegexLiteral(root);
    if (badRegex) throw new CelCompileError(`compilation failed: ${issueText(expression, goOffset(expression, badRegex), 'invalid matches argument')}`);
    const mismatch = checkHomogeneous(root, this.aliases);
    if (mismatch) throw new CelCompileError(`compilation failed: ${issueText(expression, goOffset(expression, mismatch.at), mismatch.message)}`);
    chargeOperations(root);
    const outputType = typeOf(root, this.aliases);
    const wanted = opts.resultTypes;
    if (wanted && !wanted.includes(outputType)) {
      const expected = wanted.length === 1 ? `must evaluate to ${wanted[0]}` : `must evaluate to one of [${wanted.join(' ')}]`;
      throw new CelCompileError(opts.withActual ? `${expected} but got ${outputType}` : expected);
    }
    const programError = literalPatternError(root);
    if (programError) throw new CelCompileError(`program instantiation failed: ${programError}`, 'InternalError');
    return new CelProgram(expression, outputType, (vars) => parsed(vars), selections, this.variables);
  }
}

// ---------------------------------------------------------------------------------------------
// The authentication configuration's and authorization webhooks' variables (the API before
// CelEnvironment, kept for its users)
// ---------------------------------------------------------------------------------------------

export type CelVariable = 'claims' | 'user' | 'request';

/** kube's authentication `user` (buildUserType). */
const USER_INFO_TYPE: CelObjectType = {
  object: 'kubernetes.UserInfo',
  fields: { username: 'string', uid: 'string', groups: { list: 'string' }, extra: { map: ['string', { list: 'string' }] } },
};

const selectorRequirement: CelObjectType = { object: 'kubernetes.SelectorRequirement', fields: { key: 'string', operator: 'string', values: { list: 'string' } } };
const selectorAttributes = (name: string): CelObjectType => ({ object: name, fields: { rawSelector: 'string', requirements: { list: selectorRequirement } } });

/** kube's authorization `request` (buildRequestType; the selectors with AuthorizeWithSelectors, on in 1.32). */
const SUBJECT_ACCESS_REVIEW_SPEC_TYPE: CelObjectType = {
  object: 'kubernetes.SubjectAccessReviewSpec',
  fields: {
    resourceAttributes: {
      object: 'kubernetes.ResourceAttributes',
      fields: {
        namespace: 'string',
        verb: 'string',
        group: 'string',
        version: 'string',
        resource: 'string',
        subresource: 'string',
        name: 'string',
        fieldSelector: selectorAttributes('kubernetes.FieldSelectorAttributes'),
        labelSelector: selectorAttributes('kubernetes.LabelSelectorAttributes'),
      },
    },
    nonResourceAttributes: { object: 'kubernetes.NonResourceAttributes', fields: { path: 'string', verb: 'string' } },
    user: 'string',
    groups: { list: 'string' },
    extra: { map: ['string', { list: 'string' }] },
    uid: 'string',
  },
};

const VARIABLE_TYPES: Record<CelVariable, CelDeclType> = {
  claims: { map: ['string', 'any'] },
  user: USER_INFO_TYPE,
  request: SUBJECT_ACCESS_REVIEW_SPEC_TYPE,
};

const variableEnvs = new Map<CelVariable, CelEnvironment>();
/** The environment of one of the single-variable expressions (built once). */
export function celEnvironmentFor(variable: CelVariable): CelEnvironment {
  let env = variableEnvs.get(variable);
  if (!env) variableEnvs.set(variable, (env = new CelEnvironment({ variables: { [variable]: VARIABLE_TYPES[variable] } })));
  return env;
}

export interface CompiledCel {
  readonly expression: string;
  /** cel-go's name of the checked result type. */
  readonly outputType: string;
  /** Whether the expression reads `<variable>.<field>` (kube's hasSelectExp, for the email rules). */
  selects(field: string): boolean;
  /** Runs the expression over `input` (see celInput); throws Error with cel-go's message. */
  evaluate(input: CelInput): CelResultValue;
}

/**
 * Compiles an expression over `variable`; throws CelCompileError with kube's detail. `resultTypes`
 * as CelCompileOptions (kube's authentication compiler: a validation rule must be a bool).
 */
export function compileCel(expression: string, variable: CelVariable, opts: CelCompileOptions = {}): CompiledCel {
  const program = celEnvironmentFor(variable).compile(expression, opts);
  return {
    expression,
    outputType: program.outputType,
    selects: (field) => program.selects(variable, field),
    evaluate: (input) => program.evaluate({ [variable]: input }).value,
  };
}
