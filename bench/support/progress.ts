/** Progress lines while the bench runs (stderr, so stdout stays the header and the table). */

/** Prints one progress line, prefixed with the phase and the elapsed run time. */
export type Progress = (phase: string, message: string) => void;

/** A Progress that prints `[  12.3s] phase: message` to stderr. */
export function progressPrinter(startNs: bigint = process.hrtime.bigint()): Progress {
  return (phase, message) => {
    const s = (Number(process.hrtime.bigint() - startNs) / 1e9).toFixed(1).padStart(6);
    process.stderr.write(`[${s}s] ${phase}: ${message}\n`);
  };
}

/** Runs `fn` every `ms` until the returned stop function is called. */
export function every(ms: number, fn: () => void): () => void {
  const t = setInterval(fn, ms);
  return () => clearInterval(t);
}
