/**
 * Cooperative time slicing for writes (issue 25): when the event loop has been held for a slice
 * (20 ms) since this turn began, a request at a checkpoint gives the loop a turn (nextTurn), so
 * other requests are served in between; the longest stall is then about one stage of one
 * request, not the sum of its stages, however many large writes are in flight.
 *
 * What is measured is how long the loop has been busy without a break — not how long the request
 * has existed: a request that waited on etcd while others ran has not held the loop, and yielding
 * it then would only split the batching of small requests under load (a yield per create cost the
 * create row about 5% in an A/B run). One setImmediate per loop turn marks where a turn ends; a
 * checkpoint costs a clock read.
 */

/** How long the loop may be held before a checkpoint yields, ms. */
const sliceMs = 20;

/** Requests in flight whose body is large enough to hold the loop (see beginHeavy). */
let heavy = 0;

/**
 * Marks a request whose body is large (the handlers call it past 64 KiB) until the returned
 * function is called: checkpoints are live only while such a request is in flight, so while none
 * is, a checkpoint is one comparison — no clock read, no marker on the loop.
 */
export function beginHeavy(): () => void {
  heavy++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    heavy--;
  };
}

/** When the current run of the loop began (its first checkpoint, or a request resuming). */
let turnStart = 0;
/** The current turn's number; 0 once the loop has moved on (its end was noted). */
let turn = 0;
let turns = 0;

/**
 * Starts a turn's clock and notes its end at the loop's next timers phase or check phase,
 * whichever comes first: a turn begun in a check phase (a resumed request) must not still be
 * running when the next poll phase reads I/O. A turn's end never ends a later turn.
 */
function startTurn(now: number): void {
  const id = ++turns;
  turn = id;
  turnStart = now;
  const end = (): void => {
    if (turn === id) turn = 0;
  };
  setImmediate(end);
  setTimeout(end, 0);
}

/**
 * Whether the loop has been held for at least a slice without a break: a checkpoint is
 * `if (loopHeld()) await nextTurn();` — synchronous when there is no need to yield, so the hot
 * path of a small request pays no microtask.
 */
export function loopHeld(): boolean {
  if (heavy === 0) return false;
  const now = performance.now();
  if (turn === 0) {
    // The first checkpoint since the loop last turned: the clock starts here.
    startTurn(now);
    return false;
  }
  return now - turnStart >= sliceMs;
}

/** Requests waiting for a turn of their own, first come first served (see nextTurn). */
const waiting: Array<() => void> = [];
let pumping = false;

/**
 * Resolves on a later turn of the loop, after the I/O and timers waiting now, one waiting request
 * at a time (one per one or two loop iterations): several large writes take turns rather than each
 * running a stage back to back in one iteration. Each turn is two immediates: one queued from an I/O callback
 * runs in the same iteration, right after the poll phase, before any other I/O is read; the
 * second runs an iteration later, after the timers and the poll. The resumed request starts the
 * turn's clock, so what it does before its next checkpoint counts.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!pumping) pump();
  });
}

function pump(): void {
  pumping = true;
  setImmediate(() =>
    setImmediate(() => {
      const next = waiting.shift();
      if (waiting.length) pump();
      else pumping = false;
      if (next) {
        // A resumed request begins a turn of its own.
        if (heavy > 0) startTurn(performance.now());
        next();
      }
    }),
  );
}

/** A pause between stages for runStepsAsync: a promise of the next turn when the loop is held, else nothing. */
export function yieldIfBusy(): Promise<void> | undefined {
  return loopHeld() ? nextTurn() : undefined;
}
