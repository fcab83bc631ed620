/** Renders rows of cells as a plain-text table with aligned columns. */

/** A table row, or a section title spanning the table. */
export type TableRow = { cells: string[] } | { section: string };

/** Left-aligns the first column, right-aligns the others; sections become a title line. */
export function renderTable(header: string[], rows: TableRow[]): string {
  const widths = header.map((h) => h.length);
  for (const r of rows) {
    if ('cells' in r) r.cells.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  }
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const total = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  const out = [line(header), '-'.repeat(total)];
  for (const r of rows) out.push('cells' in r ? line(r.cells) : `-- ${r.section} `.padEnd(total, '-'));
  return out.join('\n');
}

/** A latency in ms with sensible precision. */
export function ms(v: number): string {
  if (!Number.isFinite(v)) return '-';
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} ms`;
}

/** An integer with thousands separators. */
export function int(v: number): string {
  return Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '-';
}

/** Bytes as MiB. */
export function mib(v: number): string {
  return `${(v / 1024 / 1024).toFixed(1)} MiB`;
}

/** A ratio such as 0.25×. */
export function ratio(v: number): string {
  return Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)}×` : '-';
}
