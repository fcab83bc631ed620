/** Closed-loop load: runs task(0..total-1) with at most `concurrency` in flight. */

/** Runs every task, `concurrency` at a time; rejects with the first failure once in-flight tasks settle. */
export async function runPool(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < total) {
      const i = next++;
      try {
        await task(i);
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  if (failure !== undefined) throw failure;
}
