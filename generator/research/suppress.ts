/**
 * Small-cell suppression for the research counts, with complementary suppression across nested views. Pure.
 *
 * The searches form a table: each (metro, ZIP3) pair that occurs holds at least one search. Three views of it are
 * published: the week's total, each metro's row sum and each ZIP3's column sum. A reader is assumed to know more than
 * is published: which pairs occur (ZIP3s lie in metros by geography), that every listed pair holds at least one
 * search, which suppressed cells are under the threshold (1 to below-1) and which were suppressed only to protect
 * them (at least `below`), and whether a withheld total is under the threshold. A cell is exposed when these facts and the published numbers leave it a single possible value, e.g.
 * ZIP3 602 = Chicago 23 - ZIP3 606 20 when 602 and 606 are Chicago's only ZIP3s.
 *
 * Exposure is found three ways, repeated until nothing changes: bounds (every row, column and the total is the sum
 * of its pairs, so each pair's and each sum's bounds narrow the others'), subtraction along the nesting (a known
 * number minus the known numbers inside it is the sum of its other pairs), and linear algebra over the pairs left
 * unpinned (in a connected part of the table the rows and the columns have the same sum, the only relation between
 * them, and the total is the sum of the parts; a cell is determined when that relation and the known cells give it).
 * While any cell is exposed, one more is suppressed: the smallest shown cell of the same view that shares a ZIP3 or
 * metro with it, else the smallest shown neighbour in the other view, else the smallest shown in the same view, else
 * the total, else the smallest shown anywhere; with nothing left to suppress no cell is published.
 */

/** One view's counts after suppression: a count, or null when suppressed. */
export interface SuppressedView {
  key: string;
  searches: number | null;
}

/** The outcome: the total (null when withheld) and the two views (metros, then ZIP3s). */
export interface Suppressed {
  searches: number | null;
  views: SuppressedView[][];
}

/** One pair of the table: the searches with this metro and this ZIP3. */
export interface TablePair {
  metro: string;
  zip3: string;
  searches: number;
}

type State = 'shown' | 'small' | 'complement';

/** A published number: the total (view -1), a metro (view 0) or a ZIP3 (view 1), and the pairs it sums. */
interface Item {
  /** 2: an equation the reader derives (derived()), never published. */
  view: -1 | 0 | 1 | 2;
  key: string;
  value: number;
  pairs: number[];
  state: State;
}

/** The bounds the reader starts from for an item. */
function classBounds(it: Item, below: number): [number, number] {
  if (it.state === 'shown') return [it.value, it.value];
  if (it.state === 'small') return [1, below - 1];
  return [below, Infinity];
}

/** Narrow pair and item bounds against each other until nothing changes (at most 1,000 rounds). */
function propagate(items: readonly Item[], lo: number[], hi: number[], plo: number[], phi: number[]): void {
  for (let changed = true, rounds = 0; changed && rounds < 1000; rounds++) {
    changed = false;
    for (const [i, it] of items.entries()) {
      // Sums of the pairs' bounds, the upper ones as a finite part and a count of unbounded pairs.
      let sLo = 0;
      let sHiFinite = 0;
      let unbounded = 0;
      for (const p of it.pairs) {
        sLo += plo[p] as number;
        const h = phi[p] as number;
        if (h === Infinity) unbounded++;
        else sHiFinite += h;
      }
      const sHi = unbounded > 0 ? Infinity : sHiFinite;
      if (sLo > (lo[i] as number)) {
        lo[i] = sLo;
        changed = true;
      }
      if (sHi < (hi[i] as number)) {
        hi[i] = sHi;
        changed = true;
      }
      for (const p of it.pairs) {
        const h = phi[p] as number;
        const othersHi =
          h === Infinity ? (unbounded > 1 ? Infinity : sHiFinite) : unbounded > 0 ? Infinity : sHiFinite - h;
        const newLo = (lo[i] as number) - othersHi;
        const newHi = (hi[i] as number) - (sLo - (plo[p] as number));
        if (newLo > (plo[p] as number)) {
          plo[p] = newLo;
          changed = true;
        }
        if (newHi < (phi[p] as number)) {
          phi[p] = newHi;
          changed = true;
        }
      }
    }
  }
}

/**
 * The items the known ones determine by linear algebra over the unpinned pairs: within a connected part of the table,
 * rows and columns have the same sum (known when every row or every column of it is known, or from the total when
 * every other part's is); a row (column) is determined when its part's sum and every other row (column) are known.
 */
function determined(
  items: readonly Item[],
  known: readonly boolean[],
  pinnedPair: readonly boolean[],
  nPairs: number,
): boolean[] {
  // Union-find over items (rows and columns) joined by the unpinned pairs they share.
  const parent = items.map((_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x] as number] as number;
    return x;
  };
  const owners: number[][] = Array.from({ length: nPairs }, () => []);
  for (const [i, it] of items.entries())
    if (it.view !== -1) for (const p of it.pairs) if (!pinnedPair[p]) owners[p]?.push(i);
  for (const o of owners) if (o.length === 2) parent[find(o[0] as number)] = find(o[1] as number);
  const parts = new Map<number, { rowsKnown: boolean; colsKnown: boolean; members: number[] }>();
  for (const [i, it] of items.entries()) {
    if (it.view === -1 || it.view === 2 || it.pairs.every((p) => pinnedPair[p])) continue;
    const r = find(i);
    const part = parts.get(r) ?? { rowsKnown: true, colsKnown: true, members: [] };
    part.members.push(i);
    if (!known[i]) {
      if (it.view === 0) part.rowsKnown = false;
      else part.colsKnown = false;
    }
    parts.set(r, part);
  }
  const sumKnown = new Map([...parts].map(([r, p]) => [r, p.rowsKnown || p.colsKnown]));
  const totalIndex = items.findIndex((it) => it.view === -1);
  const unknownParts = [...sumKnown].filter(([, k]) => !k);
  if (totalIndex >= 0 && known[totalIndex] && unknownParts.length === 1)
    sumKnown.set((unknownParts[0] as [number, boolean])[0], true);
  const out = items.map((it, i) => known[i] || (it.view !== -1 && it.pairs.every((p) => pinnedPair[p])));
  for (const [r, part] of parts) {
    if (!sumKnown.get(r)) continue;
    for (const view of [0, 1] as const) {
      const unknown = part.members.filter((i) => items[i]?.view === view && !known[i]);
      if (unknown.length === 1) out[unknown[0] as number] = true;
    }
  }
  if (totalIndex >= 0 && !known[totalIndex] && [...sumKnown.values()].every(Boolean)) out[totalIndex] = true;
  return out;
}

/**
 * Equations the reader derives by subtraction along the nesting: for each known number A (the total, a metro or a
 * ZIP3) and each view, A minus the known numbers of that view lying wholly inside A is the sum of A's other pairs
 * (Chicago 23 - ZIP3 606 20 = the pairs of Chicago's other ZIP3s).
 */
function derived(items: readonly Item[], known: readonly boolean[], value: readonly number[]): Item[] {
  const out: Item[] = [];
  for (const [a, A] of items.entries()) {
    if (!known[a]) continue;
    const inA = new Set(A.pairs);
    for (const view of [0, 1] as const) {
      if (view === A.view) continue;
      let rest = value[a] as number;
      const left = new Set(A.pairs);
      for (const [b, B] of items.entries()) {
        if (B.view !== view || !known[b] || !B.pairs.every((p) => inA.has(p))) continue;
        rest -= value[b] as number;
        for (const p of B.pairs) left.delete(p);
      }
      if (left.size < A.pairs.length && left.size > 0)
        out.push({ view: 2, key: '', value: rest, pairs: [...left], state: 'shown' });
    }
  }
  return out;
}

/** The first suppressed item with a single possible value, or null. */
function firstExposed(items: readonly Item[], nPairs: number, below: number): number | null {
  let extra: Item[] = [];
  for (let round = 0; round < 4; round++) {
    const all = [...items, ...extra];
    const lo: number[] = [];
    const hi: number[] = [];
    for (const it of all) {
      const [l, h] = it.view === 2 ? [it.value, it.value] : classBounds(it, below);
      lo.push(l);
      hi.push(h);
    }
    const plo = Array<number>(nPairs).fill(1);
    const phi = Array<number>(nPairs).fill(Infinity);
    propagate(all, lo, hi, plo, phi);
    for (const [i, it] of items.entries()) if (it.state !== 'shown' && (lo[i] as number) >= (hi[i] as number)) return i;
    const pinned = plo.map((l, p) => l >= (phi[p] as number));
    const known = items.map((it, i) => it.state === 'shown' || (lo[i] as number) >= (hi[i] as number));
    const det = determined(items, known, pinned, nPairs);
    const at = items.findIndex((it, i) => it.state !== 'shown' && det[i]);
    if (at >= 0) return at;
    const next = derived(items, known, lo);
    if (next.length === extra.length) break;
    extra = next;
  }
  return null;
}

/** The shown item to suppress next to protect `exposed`, or null when nothing is left. */
function complementFor(items: readonly Item[], exposed: Item): Item | null {
  const shown = (it: Item): boolean => it.state === 'shown';
  const shares = (a: Item, b: Item): boolean => a.pairs.some((p) => b.pairs.includes(p));
  const byCount = (list: Item[]): Item | null =>
    list.sort((a, b) => a.value - b.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))[0] ?? null;
  const other = exposed.view === 0 ? 1 : 0;
  const neighbours = items.filter((it) => it.view === other && shares(it, exposed));
  const sameView = exposed.view === -1 ? [] : items.filter((it) => it.view === exposed.view && it !== exposed);
  const siblings = sameView.filter((it) => shown(it) && neighbours.some((n) => shares(n, it)));
  return (
    byCount(siblings) ??
    byCount(neighbours.filter(shown)) ??
    byCount(sameView.filter(shown)) ??
    items.find((it) => it.view === -1 && shown(it)) ??
    byCount(items.filter((it) => it.view !== -1 && shown(it)))
  );
}

/** Suppress cells under `below`, then complementary cells until no suppressed count can be worked out. */
export function suppress(table: readonly TablePair[], below: number): Suppressed {
  const pairs = [...table].filter((p) => p.searches > 0);
  const total = pairs.reduce((a, p) => a + p.searches, 0);
  const items: Item[] = [];
  const stateOf = (n: number): State => (n < below ? 'small' : 'shown');
  if (pairs.length > 0)
    items.push({ view: -1, key: '', value: total, pairs: pairs.map((_, i) => i), state: stateOf(total) });
  for (const view of [0, 1] as const) {
    const keys = [...new Set(pairs.map((p) => (view === 0 ? p.metro : p.zip3)))].sort((a, b) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    for (const key of keys) {
      const mine = pairs.flatMap((p, i) => ((view === 0 ? p.metro : p.zip3) === key ? [i] : []));
      const value = mine.reduce((a, i) => a + (pairs[i] as TablePair).searches, 0);
      items.push({ view, key, value, pairs: mine, state: stateOf(value) });
    }
  }
  for (;;) {
    const at = firstExposed(items, pairs.length, below);
    if (at === null) break;
    const next = complementFor(items, items[at] as Item);
    if (next === null) return { searches: null, views: [[], []] };
    next.state = 'complement';
  }
  const totalItem = items.find((it) => it.view === -1);
  return {
    searches: totalItem?.state === 'shown' ? totalItem.value : null,
    views: [0, 1].map((view) =>
      items
        .filter((it) => it.view === view)
        .map((it) => ({ key: it.key, searches: it.state === 'shown' ? it.value : null })),
    ),
  };
}
