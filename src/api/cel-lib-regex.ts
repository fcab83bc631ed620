/**
 * Regular expressions in kube's CEL environment: `matches` (CEL's standard library) and kube's
 * regex library (k8s.io/apiserver pkg/cel/library/regex.go): `<string>.find(<string>) <string>`,
 * `<string>.findAll(<string>) <list<string>>` and `<string>.findAll(<string>, <int>)`.
 *
 * Patterns are RE2 as Go's regexp reads them, compiled by @bufbuild/re2 (Go's syntax, its
 * `error parsing regexp: …` texts). That package only answers whether a pattern matches, so the
 * positions find/findAll need come from a Pike VM below that runs @bufbuild/re2's compiled
 * program the way Go's regexp runs it (leftmost-first, threads in priority order): time linear
 * in the input times the program, whatever the input holds. Its work is charged: kube's cost of
 * find/findAll (the string's traversal times a quarter unit per pattern character) for the
 * first pass over the string, and the same rate for every further position a findAll search
 * has to rescan (Go's FindAll restarts after each match, which some patterns make quadratic).
 */
import { RE2JS } from '@bufbuild/re2';
import { charge, chargeOperation, matchCost, regexCost, traversal } from './cel-cost';
import type { CelRegistrar } from './cel-registrar';

/**
 * Compiled patterns, for those short enough to be an expression's own (a pattern taken from the
 * input may be long; it is compiled each time, and charged for by the function using it).
 */
const cache = new Map<string, RE2JS>();
const CACHED_PATTERN_LENGTH = 1024;

/** A pattern compiled as Go's regexp (RE2); throws Error with Go's `error parsing regexp: …`. */
export function re2(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (!re) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw new Error(message.startsWith('error parsing regexp: ') ? message : `error parsing regexp: ${message}`);
    }
    if (pattern.length > CACHED_PATTERN_LENGTH) return re;
    if (cache.size >= 256) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

/** Go's regexp.Compile error for `pattern`, or undefined when it compiles. */
export function regexCompileError(pattern: string): string | undefined {
  try {
    re2(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

// ---------------------------------------------------------------------------------------------
// The Pike VM over @bufbuild/re2's program (Go's regexp/exec.go machine, captures 0 and 1 only)
// ---------------------------------------------------------------------------------------------

interface Inst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  matchRune(r: number): boolean;
}
interface Prog {
  readonly inst: readonly Inst[];
  readonly start: number;
}
interface CompiledRe2 {
  readonly prog: Prog;
  readonly cond: number;
}

/** The instruction codes, read from @bufbuild/re2's Inst class (not exported by name). */
interface Ops {
  ALT: number;
  ALT_MATCH: number;
  CAPTURE: number;
  EMPTY_WIDTH: number;
  FAIL: number;
  MATCH: number;
  NOP: number;
  RUNE: number;
  RUNE1: number;
  RUNE_ANY: number;
  RUNE_ANY_NOT_NL: number;
}
let ops: Ops | undefined;
function opsOf(prog: Prog): Ops {
  if (!ops) {
    const Inst = Object.getPrototypeOf(prog.inst[0]).constructor as Partial<Ops>;
    const names = ['ALT', 'ALT_MATCH', 'CAPTURE', 'EMPTY_WIDTH', 'FAIL', 'MATCH', 'NOP', 'RUNE', 'RUNE1', 'RUNE_ANY', 'RUNE_ANY_NOT_NL'] as const;
    for (const k of names) if (typeof Inst[k] !== 'number') throw new Error(`@bufbuild/re2: instruction ${k} not found`);
    ops = Object.fromEntries(names.map((k) => [k, Inst[k]])) as unknown as Ops;
  }
  return ops;
}

// RE2's empty-width assertions (syntax.EmptyOp), as @bufbuild/re2 encodes them.
const EMPTY_BEGIN_LINE = 0x01;
const EMPTY_END_LINE = 0x02;
const EMPTY_BEGIN_TEXT = 0x04;
const EMPTY_END_TEXT = 0x08;
const EMPTY_WORD_BOUNDARY = 0x10;
const EMPTY_NO_WORD_BOUNDARY = 0x20;

const isWordRune = (r: number): boolean => (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a) || (r >= 0x30 && r <= 0x39) || r === 0x5f;

/** The assertions true between rune r1 and rune r2 (-1: the beginning or end of the text). */
function emptyContext(r1: number, r2: number): number {
  let op = 0;
  if (r1 < 0) op |= EMPTY_BEGIN_TEXT | EMPTY_BEGIN_LINE;
  if (r1 === 0x0a) op |= EMPTY_BEGIN_LINE;
  if (r2 < 0) op |= EMPTY_END_TEXT | EMPTY_END_LINE;
  if (r2 === 0x0a) op |= EMPTY_END_LINE;
  op |= isWordRune(r1) !== isWordRune(r2) ? EMPTY_WORD_BOUNDARY : EMPTY_NO_WORD_BOUNDARY;
  return op;
}

/** The code point at `pos` and its width in UTF-16 units; [-1, 0] at the end. */
function step(s: string, pos: number): [number, number] {
  if (pos >= s.length) return [-1, 0];
  const r = s.codePointAt(pos) as number;
  return [r, r > 0xffff ? 2 : 1];
}

/** A queue of threads (Go's queue): the instructions reached at one position, in priority order. */
class Queue {
  /** The generation in which each instruction was last added (Go's sparse set). */
  readonly seen: Int32Array;
  generation = 0;
  /** Threads on rune and match instructions: their instruction and where their match started. */
  readonly pcs: number[] = [];
  readonly starts: number[] = [];
  constructor(size: number) {
    this.seen = new Int32Array(size).fill(-1);
  }
  clear(): void {
    this.generation++;
    this.pcs.length = 0;
    this.starts.length = 0;
  }
}

/**
 * Go's machine.add: follows the empty transitions from `pc` (the preferred branch of an
 * alternation first), queueing the rune and match instructions reached.
 */
function add(prog: Prog, o: Ops, q: Queue, pc0: number, start: number, cond: number, stack: number[]): void {
  stack.length = 0;
  stack.push(pc0);
  while (stack.length) {
    const pc = stack.pop() as number;
    if (q.seen[pc] === q.generation) continue;
    q.seen[pc] = q.generation;
    const inst = prog.inst[pc] as Inst;
    switch (inst.op) {
      case o.FAIL:
        break;
      case o.ALT:
      case o.ALT_MATCH:
        stack.push(inst.arg, inst.out);
        break;
      case o.EMPTY_WIDTH:
        if ((inst.arg & ~cond) === 0) stack.push(inst.out);
        break;
      case o.NOP:
      case o.CAPTURE:
        stack.push(inst.out);
        break;
      default:
        q.pcs.push(pc);
        q.starts.push(start);
    }
  }
}

/** The rune before `pos` (-1 at the start of the text). */
function runeBefore(s: string, pos: number): number {
  if (pos <= 0) return -1;
  const c = s.charCodeAt(pos - 1);
  if (c >= 0xdc00 && c <= 0xdfff && pos >= 2) {
    const h = s.charCodeAt(pos - 2);
    if (h >= 0xd800 && h <= 0xdbff) return s.codePointAt(pos - 2) as number;
  }
  return c;
}

/** Go's regexp machine for one compiled pattern, reused across the searches of one call. */
class Machine {
  private readonly prog: Prog;
  private readonly ops: Ops;
  private readonly anchored: boolean;
  private runq: Queue;
  private nextq: Queue;
  private readonly stack: number[] = [];

  constructor(re: RE2JS) {
    const compiled = re.re2() as unknown as CompiledRe2;
    this.prog = compiled.prog;
    this.ops = opsOf(this.prog);
    this.anchored = (compiled.cond & EMPTY_BEGIN_TEXT) !== 0;
    this.runq = new Queue(this.prog.inst.length);
    this.nextq = new Queue(this.prog.inst.length);
  }

  /**
   * The leftmost-first match in `s` at or after `pos` (Go's machine.match): its [start, end] in
   * UTF-16 units, or undefined. `onScan` is told how many positions the search went through.
   */
  match(s: string, pos: number, onScan: (positions: number) => void): [number, number] | undefined {
    const { prog, ops: o, anchored, stack } = this;
    let runq = this.runq;
    let nextq = this.nextq;
    const startPos = pos;
    let matched: [number, number] | undefined;
    let [r, width] = step(s, pos);
    let [r1, width1] = r < 0 ? [-1, 0] : step(s, pos + width);
    let flag = emptyContext(runeBefore(s, pos), r);
    runq.clear();
    for (;;) {
      if (runq.pcs.length === 0 && ((anchored && pos !== 0) || matched)) break;
      if (!matched && (pos === 0 || !anchored)) add(prog, o, runq, prog.start, pos, flag, stack);
      flag = emptyContext(r, r1);
      nextq.clear();
      for (let j = 0; j < runq.pcs.length; j++) {
        const inst = prog.inst[runq.pcs[j] as number] as Inst;
        const start = runq.starts[j] as number;
        let ok = false;
        switch (inst.op) {
          case o.MATCH:
            matched = [start, pos];
            j = runq.pcs.length; // the first match: the threads after this one have lower priority
            continue;
          case o.RUNE:
          case o.RUNE1:
            ok = r >= 0 && inst.matchRune(r);
            break;
          case o.RUNE_ANY:
            ok = r >= 0;
            break;
          case o.RUNE_ANY_NOT_NL:
            ok = r >= 0 && r !== 0x0a;
            break;
        }
        if (ok) add(prog, o, nextq, inst.out, start, flag, stack);
      }
      if (width === 0) break;
      pos += width;
      [r, width] = [r1, width1];
      [r1, width1] = r < 0 ? [-1, 0] : step(s, pos + width);
      [runq, nextq] = [nextq, runq];
    }
    this.runq = runq;
    this.nextq = nextq;
    onScan(pos - startPos + 1);
    return matched;
  }
}

/**
 * Go's FindAllString(s, n) (n < 0: all): the successive leftmost-first matches, an empty match
 * right after the previous match skipped. `onScan` is told the positions each search scanned.
 */
export function findAllStrings(re: RE2JS, s: string, n: number, onScan: (positions: number) => void = () => undefined): string[] {
  const machine = new Machine(re);
  const out: string[] = [];
  const limit = n < 0 ? s.length + 1 : n;
  let pos = 0;
  let prevMatchEnd = -1;
  while (out.length < limit && pos <= s.length) {
    const m = machine.match(s, pos, onScan);
    if (!m) break;
    let accept = true;
    if (m[1] === pos) {
      // An empty match: not right after the previous match; move on by one code point.
      if (m[0] === prevMatchEnd) accept = false;
      const [, width] = step(s, pos);
      pos += width > 0 ? width : 1;
    } else {
      pos = m[1];
    }
    prevMatchEnd = m[1];
    if (accept) out.push(s.slice(m[0], m[1]));
  }
  return out;
}

/** Go's FindString: the leftmost-first match, or '' when there is none. */
export function findString(re: RE2JS, s: string, onScan: (positions: number) => void = () => undefined): string {
  const m = new Machine(re).match(s, 0, onScan);
  return m ? s.slice(m[0], m[1]) : '';
}

// ---------------------------------------------------------------------------------------------
// The CEL functions
// ---------------------------------------------------------------------------------------------

/**
 * Charges kube's cost of find/findAll over `s` (its node has paid one unit) and returns the
 * scan callback charging the positions searched beyond the first pass, at the same rate.
 */
function chargeFind(s: string, pattern: string): (positions: number) => void {
  chargeOperation(matchCost(s, pattern.length));
  const perPosition = regexCost(pattern.length) * 0.1;
  let free = s.length + 1;
  let owed = 0;
  return (positions) => {
    const paid = Math.min(free, positions);
    free -= paid;
    owed += (positions - paid) * perPosition;
    if (owed >= 1) {
      const units = Math.floor(owed);
      owed -= units;
      charge(units);
    }
  };
}

/** kube's find/findAll error for a pattern that does not compile (a pattern read at run time). */
function findPattern(pattern: string): RE2JS {
  try {
    return re2(pattern);
  } catch (e) {
    throw new Error(`Illegal regex: ${(e as Error).message}`);
  }
}

/** Declares `matches` (under the name cel.ts renames it to) and kube's find/findAll. */
export function registerRegexLibrary(env: CelRegistrar, matchesName: string): void {
  const matches = (s: string, p: string): boolean => (chargeOperation(traversal(1 + s.length) * regexCost(p.length)), re2(p).test(s));
  env.registerFunction(`string.${matchesName}(string): bool`, matches);
  env.registerFunction(`${matchesName}(string, string): bool`, matches);
  env.registerFunction('string.find(string): string', (s: string, p: string) => {
    const onScan = chargeFind(s, p);
    return findString(findPattern(p), s, onScan);
  });
  const findAll = (s: string, p: string, n: bigint): string[] => {
    const onScan = chargeFind(s, p);
    // Go's int(n): any negative limit is "all"; a limit past the string's length finds them all.
    const limit = n < 0n ? -1 : n > BigInt(s.length + 1) ? s.length + 1 : Number(n);
    return findAllStrings(findPattern(p), s, limit, onScan);
  };
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
}
