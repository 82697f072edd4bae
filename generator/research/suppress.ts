/**
 * Small-cell suppression for the research counts, with complementary suppression: the week's total and the metro and
 * ZIP3 rows are three views of the same searches, so a suppressed cell must not be recoverable from the numbers that
 * are shown (the total minus the shown rows of one view, or the bounds every count obeys). Pure.
 *
 * The reader is assumed to know more than is published: which suppressed cells are under the threshold (1 to
 * below-1 searches) and which were suppressed only to protect them (at least `below`, at most the smallest count still
 * shown in that view), and whether a withheld total is under the threshold. A cell is exposed when those bounds and
 * the published numbers leave it a single possible value. While any cell is exposed, the smallest count still shown in
 * its view is suppressed too; with nothing left to suppress in that view the total is withheld, and then the smallest
 * count of the other view goes; if even that is not enough (a week of a handful of searches) no cell is published.
 */

/** One view's counts after suppression: a count, or null when suppressed. */
export interface SuppressedView {
  key: string;
  searches: number | null;
}

/** The outcome: the total (null when withheld) and the two views. */
export interface Suppressed {
  searches: number | null;
  views: SuppressedView[][];
}

type State = 'shown' | 'small' | 'complement';

interface View {
  keys: string[];
  counts: number[];
  state: State[];
}

/** Sum of `bounds` leaving out index `skip`, with Infinity handled (Infinity - Infinity would be NaN). */
function sumExcept(bounds: readonly number[], skip: number): number {
  let s = 0;
  for (let j = 0; j < bounds.length; j++) if (j !== skip) s += bounds[j] as number;
  return s;
}

/** The smallest count still shown in a view, or Infinity. */
function smallestShown(v: View): number {
  let m = Infinity;
  for (let i = 0; i < v.counts.length; i++) if (v.state[i] === 'shown') m = Math.min(m, v.counts[i] as number);
  return m;
}

/** Bounds the reader can put on each suppressed cell of a view, in the order of its suppressed cells. */
function cellBounds(v: View, below: number): { index: number[]; lo: number[]; hi: number[]; shown: number } {
  const index: number[] = [];
  const lo: number[] = [];
  const hi: number[] = [];
  let shown = 0;
  const cap = smallestShown(v);
  for (let i = 0; i < v.counts.length; i++) {
    const state = v.state[i];
    if (state === 'shown') shown += v.counts[i] as number;
    else {
      index.push(i);
      lo.push(state === 'small' ? 1 : below);
      hi.push(state === 'small' ? below - 1 : cap);
    }
  }
  return { index, lo, hi, shown };
}

/**
 * The first exposed thing, if any: a view holding a cell with a single possible value (its index in `views`), or
 * 'total' when the withheld total itself has a single possible value.
 */
function exposed(views: readonly View[], total: number, totalShown: boolean, below: number): number | 'total' | null {
  const all = views.map((v) => cellBounds(v, below));
  // What the total can be: published, or bounded by its class and by what each view allows.
  let tLo = totalShown ? total : total < below ? 1 : below;
  let tHi = totalShown ? total : total < below ? below - 1 : Infinity;
  for (const b of all) {
    tLo = Math.max(tLo, b.shown + sumExcept(b.lo, -1));
    tHi = Math.min(tHi, b.shown + sumExcept(b.hi, -1));
  }
  for (const [d, b] of all.entries()) {
    for (let k = 0; k < b.index.length; k++) {
      const lo = Math.max(b.lo[k] as number, tLo - b.shown - sumExcept(b.hi, k));
      const hi = Math.min(b.hi[k] as number, tHi - b.shown - sumExcept(b.lo, k));
      if (lo >= hi) return d;
    }
  }
  return !totalShown && tLo >= tHi ? 'total' : null;
}

/** Suppress cells under `below` in each view, then complementary cells until no suppressed count can be worked out. */
export function suppress(total: number, views: ReadonlyArray<ReadonlyMap<string, number>>, below: number): Suppressed {
  const vs: View[] = views.map((m) => {
    const keys = [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const counts = keys.map((k) => m.get(k) as number);
    return { keys, counts, state: counts.map((n): State => (n < below ? 'small' : 'shown')) };
  });
  let totalShown = total >= below;
  for (;;) {
    const at = exposed(vs, total, totalShown, below);
    if (at === null) break;
    // Suppress in the view that gave a cell away; else withhold the total; else suppress in another view.
    const own = at === 'total' ? [] : [vs[at] as View];
    const others = vs.filter((v) => !own.includes(v));
    const candidates = totalShown ? own : [...own, ...others];
    const view = candidates.find((v) => smallestShown(v) < Infinity);
    if (view !== undefined) {
      const cap = smallestShown(view);
      view.state[view.state.findIndex((s, i) => s === 'shown' && view.counts[i] === cap)] = 'complement';
    } else if (totalShown) totalShown = false;
    else return { searches: null, views: vs.map(() => []) };
  }
  return {
    searches: totalShown ? total : null,
    views: vs.map((v) =>
      v.keys.map((key, i) => ({ key, searches: v.state[i] === 'shown' ? (v.counts[i] as number) : null })),
    ),
  };
}
