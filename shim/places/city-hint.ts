/**
 * Where a "City, ST" query (or a name alone) probably is, before its city document is read: the state's entry (the
 * most populous) in the names document of the name, whose key follows from the name alone, so a cold request reads it beside meta.json (the city
 * document's key needs meta.json's bucket starts). The search may start from that point beside the city document; its
 * answer is used only when the city document resolves the query to exactly that point (service-impl.ts), so the hint
 * changes when a search's reads start, never an answer.
 */
import type { ParsedLocation } from './location.ts';
import type { SiteReader } from '../search/reader.ts';
import { keys, namePrefix, NameGazetteer, normaliseCityName } from '../format/site-format.ts';
import { clearReading, nearNameEntries } from './spelling.ts';

/** The normalised name a city query's (or a name's alone) hint is looked up by, or null when the query takes no hint. */
function hintName(parsed: ParsedLocation): string | null {
  const name =
    parsed.kind === 'name' ? parsed.name : parsed.kind === 'city' && parsed.inside === undefined ? parsed.city : '';
  const key = normaliseCityName(name);
  return key === '' ? null : key;
}

/** The keys of `version` the hint of `parsed` reads (none but for a plain "City, ST" or a name alone), read beside meta.json. */
export function cityHintKeys(parsed: ParsedLocation, version: string): string[] {
  const key = hintName(parsed);
  return key === null ? [] : [keys.names(version, namePrefix(key))];
}

/**
 * The point of the state's place of the name in the names document (for a name alone, its most populous place), or
 * null when there is none (or the document cannot be read: the hint is not needed for the answer, so a failure only
 * means the search starts later).
 */
export async function cityHint(
  reader: SiteReader,
  parsed: ParsedLocation,
): Promise<{ lat: number; lng: number } | null> {
  const key = hintName(parsed);
  if (key === null || (parsed.kind !== 'city' && parsed.kind !== 'name')) return null;
  const prefix = namePrefix(key);
  if (reader.meta.gazetteer.names?.includes(prefix) !== true) return null;
  try {
    const doc = await reader.json(keys.names(reader.version, prefix), NameGazetteer);
    // A misspelling the resolver will read as one name ("Pheonix"): hint that name's point, so its search still starts
    // beside the city document (resolve-name.ts, resolve-city.ts take the same clear reading).
    const names = doc?.names;
    const entries =
      names?.[key] ?? (names === undefined ? undefined : clearReading(key, nearNameEntries(key, names))?.value);
    const entry = parsed.kind === 'city' ? entries?.find((e) => e[0] === parsed.state) : entries?.[0];
    return entry === undefined ? null : { lat: entry[2], lng: entry[3] };
  } catch {
    return null;
  }
}
