/**
 * CEL test helpers: evaluate an expression over kube's `claims` variable, and take the error a
 * compilation or an evaluation must end in (the test fails if there is none, or another kind).
 */
import { CelCompileError, CelEvaluationError, celInput, compileCel, type CelInput } from '../../src/api/cel';

/** The CelCompileError `compile(expression)` throws; by default compiled for `claims`. */
export function compileFailure(expression: string, compile: (expression: string) => unknown = (e) => compileCel(e, 'claims')): CelCompileError {
  try {
    compile(expression);
  } catch (e) {
    expect(e).toBeInstanceOf(CelCompileError);
    return e as CelCompileError;
  }
  throw new Error(`compiled: ${expression}`);
}

/** The message of the CelCompileError `compile(expression)` throws. */
export const compileError = (expression: string, compile?: (expression: string) => unknown): string => compileFailure(expression, compile).message;

/** The message of the CelEvaluationError `evaluate(expression)` throws. */
export function evaluationError(expression: string, evaluate: (expression: string) => unknown): string {
  try {
    evaluate(expression);
  } catch (e) {
    expect(e).toBeInstanceOf(CelEvaluationError);
    return (e as Error).message;
  }
  throw new Error(`evaluated: ${expression}`);
}

/**
 * `run` compiles an expression for `claims` and evaluates it over `claims` (or the input given);
 * `runError` is the message of the evaluation error it must end in.
 */
export function overClaims(claims: unknown) {
  const input = celInput(claims);
  const run = (expression: string, over: CelInput = input): unknown => compileCel(expression, 'claims').evaluate(over);
  const runError = (expression: string, over: CelInput = input): string => evaluationError(expression, (e) => run(e, over));
  return { run, runError };
}
