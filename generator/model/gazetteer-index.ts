/**
 * The two gazetteer indexes across states (docs/CONTRACT.md, Location): place names by their first two characters,
 * for a name sent without a state, and ZIP points by 4-degree tile, for whether a point is in the US and in which
 * state. Deterministic: keys and lists sorted.
 */
import {
  namePrefix,
  pointTile,
  type CityEntryT,
  type NameEntryT,
  type NameGazetteerT,
  type PointGazetteerT,
  type ZipGazetteerT,
} from '../../shim/core/site-format.ts';

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most populous first (unknown population last), then by state. */
function byPopulation(a: NameEntryT, b: NameEntryT): number {
  return (b[4] ?? -1) - (a[4] ?? -1) || byString(a[0], b[0]);
}

/** Names documents keyed by prefix: each normalised name -> every state's entry for it, most populous first. */
export function buildNameIndex(
  states: ReadonlyMap<string, ReadonlyMap<string, CityEntryT>>,
): Map<string, NameGazetteerT> {
  const byKey = new Map<string, NameEntryT[]>();
  for (const [state, cities] of states) {
    for (const [key, e] of cities) {
      const list = byKey.get(key) ?? [];
      list.push([state, e.name, e.lat, e.lng, e.population]);
      byKey.set(key, list);
    }
  }
  const docs = new Map<string, NameGazetteerT>();
  for (const key of [...byKey.keys()].sort(byString)) {
    const prefix = namePrefix(key);
    const doc = docs.get(prefix) ?? { schema_version: 1, prefix, names: {} };
    doc.names[key] = (byKey.get(key) ?? []).sort(byPopulation);
    docs.set(prefix, doc);
  }
  return new Map([...docs].sort((a, b) => byString(a[0], b[0])));
}

/** Points documents keyed by tile: every ZIP's point with its state, sorted by position. */
export function buildPointTiles(zips: ReadonlyMap<string, ZipGazetteerT>): Map<string, PointGazetteerT> {
  const docs = new Map<string, PointGazetteerT>();
  for (const doc of zips.values()) {
    for (const [lat, lng, , state] of Object.values(doc.zips)) {
      const tile = pointTile(lat, lng);
      const d = docs.get(tile) ?? { schema_version: 1, tile, points: [] };
      d.points.push([lat, lng, state]);
      docs.set(tile, d);
    }
  }
  for (const d of docs.values()) {
    const seen = new Set<string>();
    d.points = d.points
      .sort((a, b) => a[0] - b[0] || a[1] - b[1] || byString(a[2], b[2]))
      .filter((p) => {
        const k = p.join(',');
        return !seen.has(k) && seen.add(k) !== undefined;
      });
  }
  return new Map([...docs].sort((a, b) => byString(a[0], b[0])));
}
