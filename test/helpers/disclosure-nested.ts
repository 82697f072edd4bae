/**
 * A brute-force reader of a research document who also knows the geography: which (metro, ZIP3) pairs hold searches
 * (ZIP3s nested in metros). It tries every table of whole numbers on those pairs (each at least 1) whose sums agree
 * with everything published: shown counts exact, a suppressed cell from 1 to the larger of suppress_below - 1 and the
 * smallest count still shown in its view, a withheld total at least 1. Every sum and difference of published numbers
 * along the nesting (e.g. ZIP3 602 = Chicago - ZIP3 606) is one of these tables' consequences, so a suppressed number
 * with a single value over all of them is one the reader can work out. Only for small weeks (it enumerates).
 */
import type { Cell, ResearchCounts } from '../../generator/research/counts.ts';

type Doc = Pick<ResearchCounts, 'searches' | 'suppress_below' | 'by_metro' | 'by_zip3'>;

/** Bounds of each published number of a view, by key: exact when shown, else at least 1. */
function viewBounds(cells: Cell[]): Map<string, [number, number]> {
  return new Map(cells.map((c) => [c.key, c.searches === null ? [1, Infinity] : [c.searches, c.searches]]));
}

/**
 * The suppressed metros, ZIP3s and withheld total that have a single possible value, as "metro chicago = 3". `pairs`
 * is the geography the reader knows. Throws when the week is too large to enumerate (more than `maxSteps` steps).
 */
export function recoverableNested(doc: Doc, pairs: ReadonlyArray<[string, string]>, maxSteps = 5_000_000): string[] {
  const rows = viewBounds(doc.by_metro);
  const cols = viewBounds(doc.by_zip3);
  const sorted = [...pairs].sort((a, b) => (a[0] + '\u0000' + a[1] < b[0] + '\u0000' + b[1] ? -1 : 1));
  const rowLeft = new Map<string, number>();
  const colLeft = new Map<string, number>();
  for (const [m, z] of sorted) {
    rowLeft.set(m, (rowLeft.get(m) ?? 0) + 1);
    colLeft.set(z, (colLeft.get(z) ?? 0) + 1);
  }
  const total: [number, number] = doc.searches === null ? [1, Infinity] : [doc.searches, doc.searches];
  const rowSum = new Map<string, number>();
  const colSum = new Map<string, number>();
  // Possible values of each suppressed number, stopping early once every one has two.
  const hidden = [
    ...doc.by_metro.filter((c) => c.searches === null).map((c) => `metro ${c.key}`),
    ...doc.by_zip3.filter((c) => c.searches === null).map((c) => `zip3 ${c.key}`),
    ...(doc.searches === null && pairs.length > 0 ? ['total'] : []),
  ];
  const seen = new Map(hidden.map((h) => [h, new Set<number>()]));
  const open = (): boolean => [...seen.values()].some((s) => s.size < 2);
  let steps = 0;
  let tSum = 0;

  const visit = (i: number): void => {
    if (++steps > maxSteps) throw new Error('too large to enumerate');
    if (i === sorted.length) {
      for (const [m] of rows) seen.get(`metro ${m}`)?.add(rowSum.get(m) ?? 0);
      for (const [z] of cols) seen.get(`zip3 ${z}`)?.add(colSum.get(z) ?? 0);
      seen.get('total')?.add(tSum);
      return;
    }
    const [m, z] = sorted[i] as [string, string];
    const [rlo, rhi] = rows.get(m) ?? [1, Infinity];
    const [clo, chi] = cols.get(z) ?? [1, Infinity];
    const rs = rowSum.get(m) ?? 0;
    const cs = colSum.get(z) ?? 0;
    const rl = rowLeft.get(m) as number;
    const cl = colLeft.get(z) as number;
    const tl = sorted.length - i;
    const hi = Math.min(rhi - rs - (rl - 1), chi - cs - (cl - 1), total[1] - tSum - (tl - 1));
    const lo = Math.max(1, rl === 1 ? rlo - rs : 1, cl === 1 ? clo - cs : 1, tl === 1 ? total[0] - tSum : 1);
    if (!Number.isFinite(hi)) throw new Error(`pair ${m} ${z} is unbounded: the reader needs a shown number above it`);
    rowLeft.set(m, rl - 1);
    colLeft.set(z, cl - 1);
    for (let v = lo; v <= hi && open(); v++) {
      rowSum.set(m, rs + v);
      colSum.set(z, cs + v);
      tSum += v;
      visit(i + 1);
      tSum -= v;
    }
    rowSum.set(m, rs);
    colSum.set(z, cs);
    rowLeft.set(m, rl);
    colLeft.set(z, cl);
  };
  visit(0);
  return [...seen].filter(([, s]) => s.size === 1).map(([h, s]) => `${h} = ${[...s][0]}`);
}
