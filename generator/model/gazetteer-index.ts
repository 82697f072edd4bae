/**
 * The two gazetteer indexes across states (docs/CONTRACT.md, Location): place names by their first two characters,
 * for a name sent without a state, and ZIP points by 4-degree tile, for whether a point is in the US and in which
 * state. Deterministic: keys and lists sorted.
 */
import {
  normaliseCityName,
  namePrefix,
  pointTile,
  type CityEntryT,
  type NameEntryT,
  type NameGazetteerT,
  type PointGazetteerT,
  type ZipGazetteerT,
} from '../../shim/format/site-format.ts';

import { nameRivals } from './name-rivals.ts';
import type { CityPart } from './neighbourhoods.ts';

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most populous first (unknown population last), then by state. */
function byPopulation(a: NameEntryT, b: NameEntryT): number {
  return (b[4] ?? -1) - (a[4] ?? -1) || byString(a[0], b[0]);
}

/** A place abroad is named when it has at least this many people (GeoNames population). */
export const ABROAD_MIN_POPULATION = 100_000;
/** ...and at least this many times the population of the most populous US place of its name (none: 0). */
export const ABROAD_DOMINANCE = 2;

/** One place abroad, as gazetteer-sources.ts reads it. */
export interface AbroadPlace {
  id: number;
  name: string;
  country: string;
  population: number;
}

/**
 * Names documents keyed by prefix: each normalised name -> every state's entry for it, most populous first; and in
 * `abroad` the names whose most populous holder is a place abroad of ABROAD_MIN_POPULATION or more, ABROAD_DOMINANCE
 * times as populous as any US place of that name (Toronto, London, Vancouver; not San Jose or Richmond); in `rivals`
 * the far larger place one edit away (name-rivals.ts); in `parts` the names of `cityParts` (neighbourhoods.ts), each as
 * the entries of the cities it is part of. A city part whose city the gazetteer lacks is an error.
 */
export function buildNameIndex(
  states: ReadonlyMap<string, ReadonlyMap<string, CityEntryT>>,
  abroadPlaces: readonly AbroadPlace[] = [],
  cityParts: readonly CityPart[] = [],
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
  // The document of a name's prefix, made on first use (a prefix may have one for `abroad` or `parts` names alone).
  const docOf = (key: string): NameGazetteerT => {
    const prefix = namePrefix(key);
    let doc = docs.get(prefix);
    if (doc === undefined) docs.set(prefix, (doc = { schema_version: 1, prefix, names: {} }));
    return doc;
  };
  for (const key of [...byKey.keys()].sort(byString)) docOf(key).names[key] = (byKey.get(key) ?? []).sort(byPopulation);
  for (const [key, rival] of [...nameRivals(byKey)].sort((a, b) => byString(a[0], b[0]))) {
    const doc = docs.get(namePrefix(key)) as NameGazetteerT;
    doc.rivals = { ...doc.rivals, [key]: rival };
  }
  const abroad = new Map<string, AbroadPlace>();
  for (const p of abroadPlaces) {
    const key = normaliseCityName(p.name);
    const held = abroad.get(key);
    if (
      key !== '' &&
      (held === undefined || p.population > held.population || (p.population === held.population && p.id < held.id))
    )
      abroad.set(key, p);
  }
  for (const key of [...abroad.keys()].sort(byString)) {
    const p = abroad.get(key) as AbroadPlace;
    const us = byKey.get(key)?.[0]?.[4] ?? 0;
    if (p.population < ABROAD_MIN_POPULATION || p.population < ABROAD_DOMINANCE * (us ?? 0)) continue;
    const doc = docOf(key);
    doc.abroad = { ...doc.abroad, [key]: [p.name, p.country, p.population] };
  }
  const parts = new Map<string, NameEntryT[]>();
  for (const [name, city, state] of cityParts) {
    const e = states.get(state)?.get(normaliseCityName(city));
    if (e === undefined) throw new Error(`city part ${name}: ${city}, ${state} is not in the gazetteer`);
    const key = normaliseCityName(name);
    parts.set(key, [...(parts.get(key) ?? []), [state, e.name, e.lat, e.lng, e.population]]);
  }
  for (const key of [...parts.keys()].sort(byString)) {
    const doc = docOf(key);
    doc.parts = { ...doc.parts, [key]: (parts.get(key) ?? []).sort(byPopulation) };
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
