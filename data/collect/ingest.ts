/** Turns the provider's places into the generator's place records (data/README.md); pure. */
import { PlaceRecord, type PlaceRecordT } from '../../generator/inputs/schema.ts';
import type { ApiPlaceT } from './places-api.ts';

/** Primary types of a law office. Other places keep their rank in a sample but get no place record. */
export const LAW_OFFICE_TYPES: ReadonlySet<string> = new Set(['lawyer', 'legal_services', 'law_firm']);

type Components = NonNullable<ApiPlaceT['addressComponents']>;

function component(components: Components, type: string, short = false): string | undefined {
  const c = components.find((x) => x.types.includes(type));
  return (short ? c?.shortText : c?.longText) ?? c?.longText ?? c?.shortText;
}

/** Street line: the formatted address before the city ("123 Main St Suite 4, Austin, TX 78701, USA" -> "123 Main St Suite 4"). */
function streetOf(place: ApiPlaceT, city: string): string | undefined {
  const parts = (place.formattedAddress ?? '').split(',').map((s) => s.trim());
  const at = parts.findIndex((p, i) => i > 0 && p === city);
  if (at > 0) return parts.slice(0, at).join(', ');
  const number = component(place.addressComponents ?? [], 'street_number');
  const route = component(place.addressComponents ?? [], 'route');
  const sub = component(place.addressComponents ?? [], 'subpremise');
  if (route === undefined) return undefined;
  return [number, route, sub === undefined ? undefined : `Suite ${sub}`].filter((s) => s !== undefined).join(' ');
}

const pad = (n: number): string => String(n).padStart(2, '0');
const hhmm = (p: { hour: number; minute: number }): string => `${pad(p.hour === 24 ? 0 : p.hour)}${pad(p.minute)}`;

/** Opening hours in the generator's form (day 0 = Sunday, "HHMM"); null when the provider has none. */
export function openingHoursOf(place: ApiPlaceT): PlaceRecordT['opening_hours'] {
  const periods = place.regularOpeningHours?.periods;
  if (periods === undefined || periods.length === 0) return null;
  return {
    periods: periods.map((p) =>
      p.close === undefined
        ? { open: { day: p.open.day, time: hhmm(p.open) } }
        : { open: { day: p.open.day, time: hhmm(p.open) }, close: { day: p.close.day, time: hhmm(p.close) } },
    ),
  };
}

/** Why a place got no record, for the run summary. */
export type Skip = 'not-a-law-office' | 'closed' | 'outside-us' | 'incomplete';

/** The place record of a law office, or why there is none. `claimed` comes from the operator: Places API (New) does not report it. */
export function placeRecordOf(place: ApiPlaceT, claimed: boolean): PlaceRecordT | Skip {
  if (place.primaryType === undefined || !LAW_OFFICE_TYPES.has(place.primaryType)) return 'not-a-law-office';
  if (place.businessStatus !== undefined && place.businessStatus !== 'OPERATIONAL') return 'closed';
  const components = place.addressComponents ?? [];
  if (component(components, 'country', true) !== 'US') return 'outside-us';
  const city =
    component(components, 'locality') ??
    component(components, 'postal_town') ??
    component(components, 'sublocality') ??
    component(components, 'neighborhood');
  const state = component(components, 'administrative_area_level_1', true);
  const zip = component(components, 'postal_code');
  const name = place.displayName?.text;
  if (city === undefined || state === undefined || name === undefined || place.location === undefined)
    return 'incomplete';
  const street = streetOf(place, city);
  if (street === undefined || street === '') return 'incomplete';
  const website =
    place.websiteUri !== undefined && /^https?:\/\//i.test(place.websiteUri) && URL.canParse(place.websiteUri)
      ? place.websiteUri
      : null;
  const record = {
    place_id: place.id,
    name,
    street_address: street,
    city,
    state,
    zip: zip !== undefined && /^\d{5}$/.test(zip) ? zip : null,
    lat: place.location.latitude,
    lng: place.location.longitude,
    phone: place.nationalPhoneNumber ?? null,
    website,
    primary_category: place.primaryTypeDisplayName?.text ?? null,
    claimed,
    opening_hours: openingHoursOf(place),
  };
  const parsed = PlaceRecord.safeParse(record);
  return parsed.success ? parsed.data : 'incomplete';
}
