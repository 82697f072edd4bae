/** Small statistics and formatting helpers for the benchmarks. Pure. */

/** The q-quantile (0..1) of `values` by nearest rank on a sorted copy; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median (nearest rank, lower middle). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Median with the range of several repeated measurements of one quantity. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number;
}

/** Median, min and max of repeated measurements. */
export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length };
}

/** A number with `digits` significant decimals, trimmed for tables. */
export function fmt(n: number, digits = 2): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(digits);
}

/** "median (min–max)" of a Spread, each through `f`. */
export function fmtSpread(s: Spread, f: (n: number) => string = (n) => fmt(n)): string {
  if (s.runs <= 1) return f(s.median);
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

/** A Markdown table of `head` and `rows`. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** Bytes as B / KiB / MiB / GiB. */
export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (n < 1024) return `${Math.round(n)} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** Milliseconds with a sensible precision. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** Progress line on stderr, prefixed with the elapsed time of the run. */
export function progress(line: string): void {
  const s = (performance.now() / 1000).toFixed(0).padStart(4);
  process.stderr.write(`bench [${s}s] ${line}\n`);
}
