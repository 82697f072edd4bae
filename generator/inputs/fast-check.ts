/**
 * Hand-written checks of the two big input files' rows (a million places, most of a million flags): zod's parse of them
 * was about 25 s of a national run and a copy of every row in intermediate objects. Each check returns the value
 * `PlaceRecord.parse` / `FlagRecord.parse` (inputs/schema.ts, which stay the reference) would return, or undefined when
 * it is not sure; the caller then asks zod, which decides and words the reason of a bad row. So a check may be stricter
 * than zod, never looser; test/input-fast-check.test.ts holds them to that against zod on valid and broken rows.
 */
import { isPublicWebHost } from '../../shim/lib/public-host.ts';
import type { FlagRecordT, PlaceRecordT } from './schema.ts';

type Json = Record<string, unknown>;
type Period = NonNullable<PlaceRecordT['opening_hours']>['periods'][number];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str1 = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const inRange = (v: unknown, lo: number, hi: number): v is number => typeof v === 'number' && v >= lo && v <= hi;
const STATE = /^[A-Z]{2}$/;
const ZIP = /^\d{5}$/;
const HHMM = /^([01]\d|2[0-3])[0-5]\d$/;
const HTTP = /^https?:\/\//i;
const TAB_OR_NEWLINE = /[\t\n\r]/;

/** zod's `z.url({ protocol: /^https?$/ })` on a string without surrounding white space (else not sure). */
function isHttpUrl(w: string): boolean {
  if (w !== w.trim() || TAB_OR_NEWLINE.test(w) || !HTTP.test(w)) return false;
  const url = URL.parse(w);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && isPublicWebHost(url.hostname);
}

/** One `{ day, time }` of a period, or undefined. */
function dayTime(v: unknown): { day: number; time: string } | undefined {
  if (!isObject(v)) return undefined;
  const { day, time } = v;
  if (typeof day !== 'number' || !Number.isInteger(day) || day < 0 || day > 6) return undefined;
  if (typeof time !== 'string' || !HHMM.test(time)) return undefined;
  return { day, time };
}

/** `opening_hours` as PlaceRecord parses it (null stays null), or undefined when not sure. */
function openingHours(v: unknown): PlaceRecordT['opening_hours'] | undefined {
  if (v === null) return null;
  if (!isObject(v) || !Array.isArray(v.periods)) return undefined;
  const periods: Period[] = [];
  for (const p of v.periods as unknown[]) {
    if (!isObject(p)) return undefined;
    const open = dayTime(p.open);
    if (open === undefined) return undefined;
    if (p.close === undefined) {
      // An own `close` key holding undefined cannot come from JSON; leave anything odd to zod.
      if ('close' in p) return undefined;
      periods.push({ open });
      continue;
    }
    const close = dayTime(p.close);
    if (close === undefined) return undefined;
    periods.push({ open, close });
  }
  return { periods };
}

/** The checked keys of a place row, in schema order (`opening_hours` and `timezone` follow: one rebuilt, one optional). */
type PlainKey = Exclude<keyof PlaceRecordT, 'opening_hours' | 'timezone'>;

/** Each plain key's check, in schema order: one list for what is checked and what is copied out. */
const PLACE_CHECKS: { [K in PlainKey]: (v: unknown) => v is PlaceRecordT[K] } = {
  place_id: (v): v is string => str1(v) && v.length <= 256,
  name: str1,
  street_address: str1,
  city: str1,
  state: (v): v is string => typeof v === 'string' && STATE.test(v),
  zip: (v): v is string | null => v === null || (typeof v === 'string' && ZIP.test(v)),
  lat: (v): v is number => inRange(v, -90, 90),
  lng: (v): v is number => inRange(v, -180, 180),
  phone: strOrNull,
  website: (v): v is string | null => v === null || (typeof v === 'string' && isHttpUrl(v)),
  primary_category: strOrNull,
  claimed: (v): v is boolean => typeof v === 'boolean',
};
const PLACE_KEYS = Object.keys(PLACE_CHECKS) as PlainKey[];

/** A places.jsonl row as `PlaceRecord.parse(json)` returns it (unknown keys dropped, schema key order), or undefined. */
export function checkPlace(json: unknown): PlaceRecordT | undefined {
  if (!isObject(json)) return undefined;
  const out: Json = {};
  for (const key of PLACE_KEYS) {
    const v = json[key];
    if (!PLACE_CHECKS[key](v)) return undefined;
    out[key] = v;
  }
  const hours = openingHours(json.opening_hours);
  if (hours === undefined) return undefined;
  out.opening_hours = hours;
  const { timezone } = json;
  if (timezone === undefined) return 'timezone' in json ? undefined : (out as PlaceRecordT);
  if (typeof timezone !== 'string') return undefined;
  out.timezone = timezone;
  return out as PlaceRecordT;
}

/** A flags.jsonl row as `FlagRecord.parse(json)` returns it, or undefined. */
export function checkFlag(json: unknown): FlagRecordT | undefined {
  if (!isObject(json)) return undefined;
  const { firm, profile_type, sponsored } = json;
  if (!str1(firm) || (profile_type !== 'standard' && profile_type !== 'enhanced') || typeof sponsored !== 'boolean')
    return undefined;
  return { firm, profile_type, sponsored };
}
