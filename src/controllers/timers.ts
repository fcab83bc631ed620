/** Delayed retries a controller can cancel all at once when it stops (no callback runs after stop). */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private stopped = false;

  /** Runs `fn` after `ms` unless stopped first. */
  later(fn: () => void, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.pending.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.pending.add(t);
  }

  /** Cancels every pending callback; later() does nothing until start(). */
  stop(): void {
    this.stopped = true;
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }

  start(): void {
    this.stopped = false;
  }
}
