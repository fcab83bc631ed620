/**
 * The runtime cost of a CEL evaluation, counted as kube counts it (cel-go's cost tracker with
 * kube's library/cost.go). api/cel.ts opens a budget per evaluation and charges one unit per
 * evaluated node; the functions of kube's libraries (api/cel.ts and api/cel-lib-*.ts) charge what
 * their work costs beside. Evaluations are synchronous, so one budget is active at a time.
 */

/** kube's runtime cost limit of one evaluation (celconfig.PerCallLimit). */
export const CEL_PER_CALL_LIMIT = 1_000_000;
/** cel-go's message when an evaluation runs out of budget. */
export const CEL_COST_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** Thrown when the budget is spent; the evaluation ends with CEL_COST_EXCEEDED. */
export class CostExceeded extends Error {
  constructor() {
    super(CEL_COST_EXCEEDED);
  }
}

export interface CostBudget {
  spent: number;
  readonly limit: number;
}

let budget: CostBudget | undefined;

/** Runs `fn` with `b` as the active budget (the one before is restored after). */
export function withBudget<T>(b: CostBudget, fn: () => T): T {
  const outer = budget;
  budget = b;
  try {
    return fn();
  } finally {
    budget = outer;
  }
}

/** One evaluated node. */
export function tick(): void {
  if (budget && ++budget.spent > budget.limit) throw new CostExceeded();
}

/** Charges `units` to the active budget (none: nothing to charge). */
export function charge(units: number): void {
  if (budget && (budget.spent += units) > budget.limit) throw new CostExceeded();
}

/** Charges an operation's cost, of which its node has paid one unit already. */
export function chargeOperation(units: number): void {
  if (units > 1) charge(units - 1);
}

/** cel-go's actualSize: the length of a string, list or bytes, the size of a map, else 1. */
export function sizeOf(v: unknown): number {
  if (typeof v === 'string' || Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  return 1;
}

/** cel-go's StringTraversalCostFactor: a tenth of a unit per character or element, rounded up. */
export const traversal = (size: number): number => Math.ceil(size * 0.1);

/** cel-go's RegexStringLengthCostFactor: a quarter unit per pattern character, rounded up. */
export const regexCost = (patternLength: number): number => Math.ceil(patternLength * 0.25);

/** cel-go's cost of a regular expression over `s` (`matches`, kube's find/findAll and format validate). */
export const matchCost = (s: string, patternLength: number): number => traversal(1 + s.length) * regexCost(patternLength);

/**
 * kube's traversalCost (library/cost.go): a tenth of a unit per character of a string (rounded
 * down), the sum over a list's elements or a map's keys and values, 1 for anything else.
 * Iterative: a value may nest deeply.
 */
export function traversalCost(root: unknown): number {
  let cost = 0;
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string' || v instanceof Uint8Array) cost += Math.floor(v.length * 0.1);
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
    else cost += 1;
  }
  return cost;
}
