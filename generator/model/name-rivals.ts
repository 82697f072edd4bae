/**
 * Near spellings of the names documents (gazetteer/names/<prefix>.json, docs/CONTRACT.md, Location): a far larger
 * place one edit away is recorded beside the name, for the resolver to ask about it rather than answer the small place
 * (shim/places/resolve-name.ts decides when). Found here over every document, since a reader holds only the document
 * of the name sent ("Huston" and Houston, TX differ in their second letter, so their prefixes).
 */
import { CLEAR_MIN_POPULATION, osaDistance } from '../../shim/places/spelling.ts';
import type { NameEntryT } from '../../shim/format/site-format.ts';

/** `s` with each one character left out. */
function deletions(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) out.push(s.slice(0, i) + s.slice(i + 1));
  return out;
}

/**
 * For each name of five characters or more, the most populous place of a name one edit away (insertion, deletion,
 * substitution or a swap of neighbours), when it has CLEAR_MIN_POPULATION people or more and more than every place of
 * the name. Found through shared deletions (two names one edit apart share a string with at most
 * one character deleted from each), so only the few populous names are compared.
 */
export function nameRivals(byKey: ReadonlyMap<string, readonly NameEntryT[]>): Map<string, NameEntryT> {
  const large = new Map<string, string[]>();
  for (const [key, entries] of byKey) {
    if ((entries[0]?.[4] ?? 0) < CLEAR_MIN_POPULATION) continue;
    for (const d of [key, ...deletions(key)]) {
      const list = large.get(d) ?? [];
      list.push(key);
      large.set(d, list);
    }
  }
  const rivals = new Map<string, NameEntryT>();
  for (const [key, entries] of byKey) {
    if (key.length < 5) continue;
    const largest = Math.max(0, ...entries.map((e) => e[4] ?? 0));
    let best: NameEntryT | null = null;
    for (const d of [key, ...deletions(key)]) {
      for (const other of large.get(d) ?? []) {
        const top = byKey.get(other)?.[0];
        if (top === undefined || osaDistance(key, other, 1) !== 1) continue;
        const people = top[4] ?? 0;
        if (people > largest && (best === null || people > (best[4] ?? 0))) best = top;
      }
    }
    if (best !== null) rivals.set(key, best);
  }
  return rivals;
}
