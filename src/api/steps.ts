/**
 * A long computation written as a generator whose bare `yield`s mark the points between its
 * stages. A synchronous caller runs it straight through; an async caller (a request handler) may
 * give the event loop a turn at each point (api/turns.ts), so one huge write does not hold the
 * loop for the sum of its stages.
 */
export type Steps<T> = Generator<void, T, undefined>;

/** Runs every stage at once. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs the stages, awaiting `pause` between them when it returns a promise (nothing: go straight
 * on). Synchronous until a pause is needed, so a small request pays no promise for it.
 */
export function runStepsAsync<T>(steps: Steps<T>, pause: () => Promise<void> | undefined): T | Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    const p = pause();
    if (p) return p.then(() => runStepsAsync(steps, pause));
  }
}
