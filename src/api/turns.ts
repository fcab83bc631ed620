/**
 * Cooperative time slicing for writes (issue 25): a request that has run for a while since its last
 * checkpoint gives the event loop a turn (setImmediate) so other requests are served in between;
 * the longest stall is then about one stage of one request, not the sum of its stages. A small
 * request never reaches the slice, so its checkpoints cost a clock read.
 */

/** Time a request may run between checkpoints before it yields, ms. */
const sliceMs = 20;

const marks = new WeakMap<object, number>();

/** Starts the request's clock (at the handler's entry). */
export function startTurns(ctx: object): void {
  marks.set(ctx, performance.now());
}

/** Yields a turn when the request has run at least a slice since its clock started or it last yielded. */
export async function yieldIfBusy(ctx: object): Promise<void> {
  const now = performance.now();
  const last = marks.get(ctx);
  if (last === undefined) return void marks.set(ctx, now);
  if (now - last < sliceMs) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  marks.set(ctx, performance.now());
}
