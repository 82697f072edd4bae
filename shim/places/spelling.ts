/**
 * Close spellings of a place name (docs/CONTRACT.md, Location): the edit distance with adjacent transpositions
 * (optimal string alignment, the restricted Damerau-Levenshtein distance: "pheonix" is one edit from "phoenix"), and
 * the rule for when one reading is clearly the one meant. Pure.
 */
import type { NameEntryT } from '../format/site-format.ts';

/** Optimal string alignment distance of `a` and `b`, stopping early (returning max + 1) once it must exceed `max`. */
export function osaDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, (prev2[j - 2] as number) + 1);
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return Math.min(prev[n] as number, max + 1);
}

/** Most edits a name of `length` characters may be from a suggestion: one up to six letters, two from seven. */
export function maxEdits(length: number): number {
  return length >= 7 ? 2 : 1;
}

/** One known name near the one sent: its edit distance, population (null: unknown) and what it stands for. */
export interface Near<T> {
  distance: number;
  population: number | null;
  value: T;
}

/** The known names within maxEdits of `key`, nearest first, then most populous. */
export function nearNames<T>(
  key: string,
  entries: Iterable<[string, T]>,
  population: (e: T) => number | null,
): Near<T>[] {
  const max = maxEdits(key.length);
  const found: Near<T>[] = [];
  for (const [k, e] of entries) {
    const d = osaDistance(key, k, max);
    if (d <= max) found.push({ distance: d, population: population(e), value: e });
  }
  return found.sort((a, b) => a.distance - b.distance || (b.population ?? -1) - (a.population ?? -1));
}

/**
 * The names of a names document (gazetteer/names/) within maxEdits of `key`, nearest first, then by the population of
 * each name's most populous place (its first entry).
 */
export function nearNameEntries(key: string, names: Record<string, NameEntryT[]>): Near<NameEntryT[]>[] {
  return nearNames(key, Object.entries(names), (es) => es[0]?.[4] ?? null);
}

/** A reading is taken without asking when it has at least this many people... */
export const CLEAR_MIN_POPULATION = 50_000;
/** ...and this many times as many as any other name as near or one edit further. */
export const CLEAR_DOMINANCE = 10;

/**
 * The one reading clearly meant, or null: the nearest name (a name of five letters or more sent), populous, and far
 * more populous than every other name within one more edit ("Pheonix" -> Phoenix, not Phenix City).
 */
export function clearReading<T>(key: string, near: readonly Near<T>[]): Near<T> | null {
  const best = near[0];
  if (best === undefined || key.length < 5 || (best.population ?? 0) < CLEAR_MIN_POPULATION) return null;
  for (const other of near.slice(1)) {
    if (other.distance > best.distance + 1) continue;
    if ((best.population ?? 0) < CLEAR_DOMINANCE * (other.population ?? 0)) return null;
  }
  return best;
}
