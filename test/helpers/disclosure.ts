/**
 * What a reader can work out from a published research document by brute force, without the generator's reasoning:
 * every shown count is exact, a suppressed cell is at least 1 (its key is listed) and at most the total (`uncapped`
 * when the total is withheld), and both views add up to the same total. The ZIP3s' nesting in metros is not used here:
 * test/helpers/disclosure-nested.ts is the reader who knows it.
 */
import type { Cell, ResearchCounts } from '../../generator/research/counts.ts';

/** Every sum of one value from each set. */
function sums(sets: readonly number[][]): Set<number> {
  let acc = new Set([0]);
  for (const values of sets) {
    const next = new Set<number>();
    for (const a of acc) for (const v of values) next.add(a + v);
    acc = next;
  }
  return acc;
}

const range = (lo: number, hi: number): number[] => Array.from({ length: Math.max(0, hi - lo + 1) }, (_, i) => lo + i);

/** The suppressed cells (and a withheld total) that have a single possible value, as "view key = value". */
export function recoverable(
  doc: Pick<ResearchCounts, 'searches' | 'suppress_below' | 'by_metro' | 'by_zip3'>,
  uncapped = 60,
): string[] {
  const views: Array<[string, Cell[]]> = [
    ['metro', doc.by_metro],
    ['zip3', doc.by_zip3],
  ];
  const parts = views.map(([name, cells]) => {
    const shownCounts = cells.flatMap((c) => (c.searches === null ? [] : [c.searches]));
    const cap = doc.searches ?? uncapped;
    const hidden = cells.filter((c) => c.searches === null).map((c) => c.key);
    return { name, shown: shownCounts.reduce((a, b) => a + b, 0), hidden, values: hidden.map(() => range(1, cap)) };
  });
  let totals: Set<number>;
  if (doc.searches !== null) totals = new Set([doc.searches]);
  else {
    const each = parts
      .filter((p) => p.hidden.length > 0 || p.shown > 0)
      .map((p) => new Set([...sums(p.values)].map((s) => s + p.shown)));
    totals = each.reduce((a, b) => new Set([...a].filter((t) => b.has(t))), each[0] ?? new Set<number>());
  }
  const out: string[] = [];
  for (const p of parts) {
    for (const [i, key] of p.hidden.entries()) {
      const rest = sums(p.values.filter((_, j) => j !== i));
      const possible = (p.values[i] ?? []).filter((v) => [...rest].some((s) => totals.has(p.shown + v + s)));
      if (possible.length === 1) out.push(`${p.name} ${key} = ${possible[0]}`);
    }
  }
  if (doc.searches === null && totals.size === 1 && (doc.by_metro.length > 0 || doc.by_zip3.length > 0))
    out.push(`total = ${[...totals][0]}`);
  return out;
}
