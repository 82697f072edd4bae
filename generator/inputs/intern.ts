/** Sharing of repeated parts of place records, so a million rows hold one copy of each distinct value. */
import type { FlagRecordT, PlaceRecordT } from './schema.ts';

type OpeningHoursT = NonNullable<PlaceRecordT['opening_hours']>;

// Offices mostly share a handful of opening-hours layouts and a few thousand cities; every parsed row would otherwise
// carry its own copies (about 1 KB of period objects per row), which at a million offices is gigabytes. Nothing mutates
// input records (corrections make new objects), so equal values can be one object.

/** A function returning one shared instance for each distinct string. */
export function stringInterner(): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    const known = seen.get(s);
    if (known !== undefined) return known;
    seen.set(s, s);
    return s;
  };
}

/** A `prepare` for places.jsonl: equal opening hours become one object; low-variety strings are shared. */
export function placeInterner(): (p: PlaceRecordT) => PlaceRecordT {
  const hours = new Map<string, OpeningHoursT>();
  const str = stringInterner();
  return (p) => {
    if (p.opening_hours !== null) {
      const key = JSON.stringify(p.opening_hours);
      const known = hours.get(key);
      if (known !== undefined) p.opening_hours = known;
      else hours.set(key, p.opening_hours);
    }
    p.city = str(p.city);
    p.state = str(p.state);
    if (p.zip !== null) p.zip = str(p.zip);
    if (p.primary_category !== null) p.primary_category = str(p.primary_category);
    if (p.timezone !== undefined) p.timezone = str(p.timezone);
    return p;
  };
}

/** A `prepare` for flags.jsonl: the profile type strings are shared. */
export function flagInterner(): (f: FlagRecordT) => FlagRecordT {
  const str = stringInterner();
  return (f) => {
    f.profile_type = str(f.profile_type) as FlagRecordT['profile_type'];
    return f;
  };
}
