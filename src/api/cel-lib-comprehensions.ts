/**
 * cel-go's two-variable comprehensions (ext.TwoVarComprehensions), which kube 1.32's base
 * environment enables from 1.32: in the environment kube compiles stored and configured
 * expressions with (the authentication and authorization configuration, admission webhooks'
 * matchConditions when they run), not in the one it checks a newly written API object against
 * (its compatibility version, 1.31; api/cel.ts refuses them there on request).
 *
 *   <list>.all(i, v, p)   <map>.all(k, v, p)        every entry satisfies p
 *   .exists(i, v, p)  .existsOne(i, v, p)  .exists_one(i, v, p)
 *   .transformList(i, v, [filter,] t)                a list of t
 *   .transformMap(i, v, [filter,] t)                 a map from i (index or key) to t
 *   .transformMapEntry(i, v, [filter,] entry)        the union of the single-entry maps `entry`
 *
 * For a list the first variable is the index and the second the element; for a map, the key and
 * the value. As in cel-go: all and exists absorb errors when the result is decided by another
 * entry (false for all, true for exists); existsOne and the transforms fail on the first error;
 * transformMapEntry fails on a key already inserted (`insert failed: key x already exists`).
 *
 * These are cel-js macros: the checker declares both variables for the other arguments, the
 * evaluator sets them per entry (each evaluated node is charged as any other, api/cel-cost.ts).
 */
import type { CelRegistrar } from './cel-registrar';

/** The macros, by name and number of arguments (cel-go's receiver macros). */
export const TWO_VAR_MACROS: ReadonlyMap<string, readonly number[]> = new Map([
  ['all', [3]],
  ['exists', [3]],
  ['existsOne', [3]],
  ['exists_one', [3]],
  ['transformList', [3, 4]],
  ['transformMap', [3, 4]],
  ['transformMapEntry', [3, 4]],
]);

// cel-js's checker, evaluator, types and contexts, as far as a macro uses them.
interface Node {
  readonly op: string;
  readonly args: unknown;
}
interface Type {
  readonly kind: string;
  readonly name: string;
  readonly keyType?: Type;
  readonly valueType?: Type;
}
interface Ctx {
  forkWithVariable(name: string, type: Type): Ctx;
  reuse(parent: Ctx): Ctx;
  setIterValue(v: unknown, ev: Evaluator): Ctx;
}
interface Checker {
  check(node: Node, ctx: Ctx): Type;
  getType(name: string): Type;
  readonly registry: { getListType(t: Type): Type; getMapType(k: Type, v: Type): Type };
  createError(code: string, message: string, node: Node): Error;
  formatType(t: Type): string;
}
interface Evaluator {
  run(node: Node, ctx: Ctx): unknown;
  tryEval(node: Node, ctx: Ctx): unknown;
}

interface Macro {
  readonly name: string;
  readonly call: Node;
  readonly receiver: Node;
  readonly var1: string;
  readonly var2: string;
  readonly filter?: Node;
  readonly body: Node;
  /** The contexts declaring the first variable, and the second over it (made when checked). */
  keyCtx?: Ctx;
  valueCtx?: Ctx;
}

/** cel-go's type names (list(int), map(string, dyn)) of cel-js's. */
const goName = (c: Checker, t: Type): string => c.formatType(t).replace(/</g, '(').replace(/>/g, ')');

function expand(name: string, argCount: number) {
  return ({ args, receiver, ast }: { args: Node[]; receiver: Node; ast: Node }): unknown => {
    // cel-go's macro errors, at the argument (cel-js reports them as syntax errors).
    const fail = (n: Node, message: string): Error => Object.assign(new Error(message), { range: { start: (n as { start?: number }).start ?? 0, end: 0 } });
    const ident = (n: Node): string => {
      if (n.op !== 'id' || typeof n.args !== 'string') throw fail(n, 'argument must be a simple name');
      return n.args;
    };
    const var1 = ident(args[0] as Node);
    const var2 = ident(args[1] as Node);
    if (var1 === var2) throw fail(args[1] as Node, `duplicate variable name: ${var1}`);
    const macro: Macro = {
      name,
      call: ast,
      receiver,
      var1,
      var2,
      ...(argCount === 4 ? { filter: args[2] as Node } : {}),
      body: args[argCount - 1] as Node,
    };
    return { macro, typeCheck, evaluate, async: false };
  };
}

const BOOL_RESULT = new Set(['all', 'exists', 'existsOne', 'exists_one']);

function typeCheck(checker: Checker, m: { macro: Macro }, ctx: Ctx): Type {
  const macro = m.macro;
  const range = checker.check(macro.receiver, ctx);
  const dyn = checker.getType('dyn');
  let keyType: Type;
  let valueType: Type;
  if (range.kind === 'list') [keyType, valueType] = [checker.getType('int'), range.valueType ?? dyn];
  else if (range.kind === 'map') [keyType, valueType] = [range.keyType ?? dyn, range.valueType ?? dyn];
  else if (range.kind === 'dyn') [keyType, valueType] = [dyn, dyn];
  else throw checker.createError('invalid_range', `expression of type '${goName(checker, range)}' cannot be range of a comprehension (must be list, map, or dynamic)`, macro.receiver);
  macro.keyCtx = ctx.forkWithVariable(macro.var1, keyType);
  macro.valueCtx = macro.keyCtx.forkWithVariable(macro.var2, valueType);
  const inner = macro.valueCtx;
  const isBool = (t: Type): boolean => t.kind === 'dyn' || t.name === 'bool';
  if (macro.filter) {
    const f = checker.check(macro.filter, inner);
    if (!isBool(f)) throw checker.createError('macro_argument', `found no matching overload for '_?_:_' applied to '(${goName(checker, f)}, dyn, dyn)'`, macro.call);
  }
  const body = checker.check(macro.body, inner);
  if (BOOL_RESULT.has(macro.name)) {
    if (!isBool(body)) {
      const op = macro.name === 'all' ? "'_&&_' applied to '(bool, " : macro.name === 'exists' ? "'_||_' applied to '(bool, " : "'_?_:_' applied to '(";
      const rest = macro.name === 'all' || macro.name === 'exists' ? ')' : ', int, int)';
      throw checker.createError('macro_argument', `found no matching overload for ${op}${goName(checker, body)}${rest}'`, macro.call);
    }
    return checker.getType('bool');
  }
  if (macro.name === 'transformList') return checker.registry.getListType(body);
  if (macro.name === 'transformMap') return checker.registry.getMapType(keyType, body);
  // transformMapEntry: the entry must be a map, whose types the result takes.
  if (body.kind === 'map') return body;
  if (body.kind === 'dyn') return checker.registry.getMapType(dyn, dyn);
  throw checker.createError('macro_argument', `found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), ${goName(checker, body)})'`, macro.call);
}

/** The entries of a list (index, element) or a map (key, value). */
function entries(range: unknown): Iterable<[unknown, unknown]> {
  if (Array.isArray(range)) return range.map((v, i) => [BigInt(i), v] as [unknown, unknown]);
  if (range instanceof Map) return range.entries();
  if (range !== null && typeof range === 'object' && Object.getPrototypeOf(range) === Object.prototype) return Object.entries(range);
  throw new Error('no such overload');
}

/** Go's %v of a map key in cel-go's insert error. */
const keyText = (k: unknown): string => (typeof k === 'string' ? k : String(k));

function mapEntries(v: unknown): Array<[unknown, unknown]> {
  if (v instanceof Map) return [...v.entries()];
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.entries(v);
  throw new Error('no such overload');
}

function evaluate(ev: Evaluator, m: { macro: Macro }, ctx: Ctx): unknown {
  const macro = m.macro;
  const range = ev.run(macro.receiver, ctx);
  // The contexts made at check time, over this evaluation's (cel.bind does the same).
  const keyCtx = (macro.keyCtx as Ctx).reuse(ctx);
  const valueCtx = macro.valueCtx as Ctx;
  const set = (k: unknown, v: unknown): Ctx => (keyCtx.setIterValue(k, ev), valueCtx.setIterValue(v, ev));
  const truth = (x: unknown): boolean | Error => (x instanceof Error || typeof x === 'boolean' ? x : new Error('no such overload'));
  switch (macro.name) {
    case 'all':
    case 'exists': {
      const decisive = macro.name === 'exists';
      let error: Error | undefined;
      for (const [k, v] of entries(range)) {
        const r = truth(ev.tryEval(macro.body, set(k, v)));
        if (r === decisive) return decisive;
        if (r instanceof Error) error ??= r;
      }
      if (error) throw error;
      return !decisive;
    }
    case 'existsOne':
    case 'exists_one': {
      let count = 0;
      for (const [k, v] of entries(range)) {
        const r = truth(ev.run(macro.body, set(k, v)));
        if (r instanceof Error) throw r;
        if (r) count++;
      }
      return count === 1;
    }
    default: {
      const list: unknown[] = [];
      const map = new Map<unknown, unknown>();
      for (const [k, v] of entries(range)) {
        const c = set(k, v);
        if (macro.filter) {
          const f = truth(ev.run(macro.filter, c));
          if (f instanceof Error) throw f;
          if (!f) continue;
        }
        const t = ev.run(macro.body, c);
        if (macro.name === 'transformList') list.push(t);
        else if (macro.name === 'transformMap') map.set(k, t);
        else {
          for (const [ek, ev2] of mapEntries(t)) {
            if (map.has(ek)) throw new Error(`insert failed: key ${keyText(ek)} already exists`);
            map.set(ek, ev2);
          }
        }
      }
      return macro.name === 'transformList' ? list : map;
    }
  }
}

/** Declares the two-variable comprehensions as cel-js macros. */
export function registerTwoVarComprehensions(env: CelRegistrar): void {
  for (const [name, counts] of TWO_VAR_MACROS) {
    for (const n of counts) env.registerFunction(`list.${name}(${Array(n).fill('ast').join(', ')}): dyn`, expand(name, n));
  }
}
