/** Turns offices and firms into the input records of generator/inputs/schema.ts (places.jsonl and flags.jsonl lines). */
import type { FlagRecordT, PlaceRecordT } from '../../generator/inputs/schema.ts';
import { METRO_INFO } from './regions.ts';
import { slugify } from './names.ts';
import { CATEGORIES, type Firm, type Office } from './offices.ts';
import type { World } from './world.ts';

type Periods = NonNullable<PlaceRecordT['opening_hours']>['periods'];

function days(from: number, to: number, open: string, close: string): Periods {
  const out: Periods = [];
  for (let d = from; d <= to; d++) out.push({ open: { day: d, time: open }, close: { day: d, time: close } });
  return out;
}

/** Google `opening_hours.periods` templates (day 0 = Sunday); index = Office.hours. */
export const HOURS_TEMPLATES: readonly Periods[] = [
  days(1, 5, '0900', '1700'),
  days(1, 5, '0830', '1730'),
  days(1, 5, '0800', '1800'),
  [...days(1, 5, '0900', '1700'), ...days(6, 6, '1000', '1400')],
  days(1, 6, '0800', '2000'),
  days(0, 6, '0800', '2000'),
  // Open 24/7: one period opening Sunday 00:00 without a close.
  [{ open: { day: 0, time: '0000' } }],
  [...days(1, 5, '0900', '1800'), ...days(6, 6, '0900', '1300')],
  [...days(1, 4, '0900', '1700'), ...days(5, 5, '0900', '1500')],
  [...days(1, 5, '0700', '2200'), ...days(6, 6, '0900', '1700'), ...days(0, 0, '0900', '1700')],
  // Closed for lunch: two periods on the same day.
  [...days(1, 5, '0900', '1230'), ...days(1, 5, '1330', '1700')].sort((a, b) => a.open.day - b.open.day),
  // Until midnight every day: each period closes at 00:00 of the next day.
  Array.from({ length: 7 }, (_, d) => ({ open: { day: d, time: '0600' }, close: { day: (d + 1) % 7, time: '0000' } })),
];

const HOURS_JSON = HOURS_TEMPLATES.map((periods) => JSON.stringify({ periods }));

/** The places.jsonl line of an office: JSON.stringify of placeRecord, with the hours spliced in from a cache (speed at 1M offices). */
export function placeLine(office: Office, firm: Firm, multiOffice: boolean, world: World): string {
  const record = placeRecord(office, firm, multiOffice, world);
  const hours = office.hours >= 0 ? HOURS_JSON[office.hours] : undefined;
  if (!hours) return JSON.stringify(record);
  record.opening_hours = null;
  // Other string values are escaped, so the only unescaped `"opening_hours":null` is the key itself.
  return JSON.stringify(record).replace('"opening_hours":null', `"opening_hours":${hours}`);
}

/** Firm key of flags.jsonl: the website domain, or `place:<place_id>` for an office without a website. */
export function firmKey(firm: Firm, office: Office): string {
  return firm.domain ?? `place:${office.placeId}`;
}

function website(firm: Firm, office: Office, city: string): string | null {
  if (!firm.domain) return null;
  const base = `https://${firm.www ? 'www.' : ''}${firm.domain}/`;
  if (firm.urlStyle === 1) return `${base}locations/${slugify(city)}/`;
  if (firm.urlStyle === 2)
    return `${base}?utm_source=gmb&utm_medium=organic&utm_campaign=${office.uid % 2 === 0 ? 'local' : 'maps'}`;
  return base;
}

/** The places.jsonl record of an office, fields in schema order. */
export function placeRecord(office: Office, firm: Firm, multiOffice: boolean, world: World): PlaceRecordT {
  const z = world.zips[office.zip]!;
  const metro = world.zipMetro[office.zip]!;
  const hours = office.hours >= 0 ? HOURS_TEMPLATES[office.hours] : undefined;
  const record: PlaceRecordT = {
    place_id: office.placeId,
    name: multiOffice && firm.cityInName ? `${firm.name} - ${z.city}` : firm.name,
    street_address: office.street,
    city: z.city,
    state: z.state,
    zip: z.zip,
    lat: office.lat,
    lng: office.lng,
    phone: office.phone,
    website: website(firm, office, z.city),
    primary_category: CATEGORIES[office.category] ?? null,
    claimed: office.claimed,
    opening_hours: hours ? { periods: hours } : null,
  };
  // Outside the metros (nationwide runs) the zone is left to the generator's per-state default.
  if (metro >= 0) record.timezone = METRO_INFO[world.metros[metro]!.slug]!.timezone;
  return record;
}

/** The flags.jsonl record of a firm. */
export function flagRecord(key: string, firm: Firm): FlagRecordT {
  return { firm: key, profile_type: firm.enhanced ? 'enhanced' : 'standard', sponsored: firm.sponsored };
}
