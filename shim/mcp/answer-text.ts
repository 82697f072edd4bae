/**
 * The text block of a tool result, written for the model that reads it and retells it to a person: one short block per
 * firm (name, distance, full address, phone, website link, hours line, visibility share), then the visibility caveat
 * and the disclosure once, and the relaying rules. `structuredContent` carries the full REST body alongside.
 */
import { LIMIT, MAP_VISIBILITY_WHAT, RADIUS_MILES } from '../contract/constants.ts';
import { haversineMiles } from '../search/geo.ts';
import { roundMiles } from '../answer/shape.ts';
import type {
  AttorneysResponseT,
  CoverageResponseT,
  FirmResponseT,
  HoursT,
  OfficeT,
  ResultT,
} from '../contract/schemas.ts';

/** Most other offices get_firm's text lists; the rest are counted. */
export const MAX_OTHER_OFFICES = 10;

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** The rules an answer repeats for the model, once (a field of the compact structuredContent too). */
export const RELAYING =
  'Show the person several firms (not only the first) with distance, address and phone; give each website link exactly as returned; ' +
  'keep the disclosure with them. A listing is not a recommendation, endorsement or referral.';
/** The relaying rule of an answer with one firm: "several firms" sent models after firms that are not there. */
export const RELAYING_ONE =
  'Show the person the firm with distance, address and phone; give its website link exactly as returned; ' +
  'keep the disclosure with it. A listing is not a recommendation, endorsement or referral.';

/** The relaying rule of an answer that lists firms: "several" unless one firm is all the radius holds (not limit=1). */
export function relayingOf(body: AttorneysResponseT): string {
  return body.firms_within_radius === 1 ? RELAYING_ONE : RELAYING;
}

/**
 * How more firms can be had: limit while the radius holds more than shown, else a larger radius; null at 50 miles.
 * At limit 25 with more firms in the radius, neither gives more: "limit up to 25" sent models to repeat the same search.
 */
export function moreFirms(body: AttorneysResponseT): string | null {
  const r = body.radius_miles_used;
  if (body.results.length < body.firms_within_radius) {
    return body.results.length < LIMIT.max
      ? `limit up to ${LIMIT.max}`
      : `the ${LIMIT.max} nearest of ${body.firms_within_radius} firms within ${counted(r, 'mile')} are shown, the most one answer gives (there is no paging)`;
  }
  return r < RADIUS_MILES.max
    ? `every firm within ${counted(r, 'mile')} is shown; a larger radius_miles (up to ${RADIUS_MILES.max}) may find more`
    : null;
}

/** get_firm and format "json", as the "More" line names them after `moreFirms`. */
export function moreLine(body: AttorneysResponseT, json: string): string {
  const firms = moreFirms(body);
  const rest = `get_firm with a listing_id (and lat, lng of the person) lists the firm's other offices, nearest first; format "json" returns ${json}.`;
  return firms === null ? rest : `${firms}; ${rest}`;
}
/** The relaying rule of an answer with no data for the place (covered: false): no firms to show, none to look for. */
export const RELAYING_NO_DATA =
  'Say say_to_person to the person as it is, with nothing left out; do not search another metro or city for them instead.';
/** The relaying rule of a covered answer with no office within its radius. */
export const RELAYING_NONE_NEAR =
  'Tell the person no office is listed within radius_miles_used of this place, with the disclosure; do not search another place for them instead.';

function lowerFirst(s: string): string {
  return `${s.charAt(0).toLowerCase()}${s.slice(1)}`;
}
const RELAY = `Relaying: ${lowerFirst(RELAYING)}`;

/** `n` and the noun, in the singular for exactly one ("1 mile", "2 miles"). */
function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** What a covered answer with no office within `radius` miles may try next; null at the largest radius. */
export function largerRadius(radius: number): string | null {
  return radius < RADIUS_MILES.max ? `A larger radius_miles (up to ${RADIUS_MILES.max}) may find some.` : null;
}

/**
 * Each hours object's days text, made once: a search's results share their hours objects with every other answer that
 * shows the same office (answer-json.ts shapes an office's result once), and the text block and the compact form
 * both write them.
 */
const daysTexts = new WeakMap<HoursT, string>();

/** "Mon–Fri 8:00 AM – 6:00 PM; Sat–Sun Closed": consecutive days with the same hours as one range. */
export function hoursDays(hours: HoursT): string {
  let text = daysTexts.get(hours);
  if (text === undefined) {
    text = daysOf(hours);
    daysTexts.set(hours, text);
  }
  return text;
}

function daysOf(hours: HoursT): string {
  const values = hours.text.map((line) => line.slice(line.indexOf(': ') + 2));
  if (values.length !== DAYS.length) return hours.text.join('; ');
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= values.length; i++) {
    if (i < values.length && values[i] === values[start]) continue;
    const days = i - 1 === start ? DAYS[start] : `${DAYS[start]}–${DAYS[i - 1]}`;
    parts.push(`${days} ${values[start]}`);
    start = i;
  }
  return parts.join('; ');
}

/** "Hours (America/Chicago): Mon–Fri 8:00 AM – 6:00 PM; Sat–Sun Closed", or that none are listed. */
export function hoursLine(hours: HoursT | null): string {
  return hours === null ? 'Hours: not listed' : `Hours (${hours.timezone}): ${hoursDays(hours)}`;
}

function visibility(v: ResultT['map_visibility']): string {
  if (v === null) return 'Map visibility: not measured (office outside the measured metros)';
  return `Map visibility: top 3 in ${v.top3_share_pct}%, shown in ${v.appears_share_pct}% of ${v.grid_samples} map searches`;
}

function contact(phone: string | null, website: string | null): string {
  return [phone ?? 'no phone listed', website ?? 'no website listed'].join(' · ');
}

function resultBlock(r: ResultT, index: number, radius: number): string {
  const flags = [r.sponsored ? 'sponsored' : null, r.profile_type === 'enhanced' ? 'enhanced profile' : null].filter(
    (f) => f !== null,
  );
  const more = r.offices_within_radius > 1 ? ` · ${r.offices_within_radius} offices within ${radius} mi` : '';
  return [
    `${index + 1}. ${r.name} · ${r.distance_miles} mi${flags.length > 0 ? ` (${flags.join(', ')})` : ''}${more}`,
    `   ${r.address} · ${contact(r.phone, r.website)}`,
    `   ${hoursLine(r.hours)}`,
    `   ${visibility(r.map_visibility)} · listing_id ${r.listing_id}`,
  ].join('\n');
}

function placeOf(body: AttorneysResponseT): string {
  const l = body.location;
  const name =
    l.city !== null && l.state !== null
      ? `${l.city}, ${l.state}`
      : l.kind === 'zip' && l.zip !== null
        ? `ZIP ${l.zip}`
        : l.input;
  const zip = l.kind !== 'zip' && l.zip !== null ? `, ZIP ${l.zip}` : '';
  return `${name} (${l.lat},${l.lng}${zip}${l.metro === null ? '' : `, ${l.metro} metro`})`;
}

/** The text of a find_injury_attorneys result. */
export function searchText(body: AttorneysResponseT): string {
  const lines: string[] = [];
  const note = body.location.note === undefined ? [] : [`Location note: ${body.location.note}`];
  if (!body.covered) {
    // The disclosure names the place and says what no data means; say it rather than "no lawyers within N miles".
    lines.push(
      `covered: false: no data and no results for ${placeOf(body)}.`,
      ...note,
      `Say this to the person: ${body.disclosure}`,
    );
    return lines.join('\n');
  }
  const r = body.radius_miles_used;
  if (body.results.length === 0) {
    const next = largerRadius(r);
    lines.push(
      `No office is listed within ${counted(r, 'mile')} of ${placeOf(body)} (covered: true).${next === null ? '' : ` ${next}`}`,
      ...note,
    );
    lines.push(`Disclosure: ${body.disclosure}`);
    return lines.join('\n');
  }
  lines.push(
    `${body.results.length} of ${counted(body.firms_within_radius, 'firm')} with an office within ${counted(r, 'mile')} of ${placeOf(body)}, nearest first (straight-line distance only; nothing else changes the order).`,
    ...note,
    '',
    ...body.results.map((res, i) => resultBlock(res, i, r)),
    '',
    `Map visibility: ${MAP_VISIBILITY_WHAT}`,
    `Disclosure: ${body.disclosure}`,
    `Relaying: ${lowerFirst(relayingOf(body))}`,
    `More: ${moreLine(body, 'the full answer as JSON text')}`,
  );
  return lines.join('\n');
}

/** The other offices of a firm answer, nearest to `near` (else to the office asked about) first, ties by listing_id. */
export function nearestOthers(
  body: FirmResponseT,
  near: { lat: number; lng: number } | null,
): { office: OfficeT; miles: number }[] {
  const from = near ?? { lat: body.office.lat, lng: body.office.lng };
  return body.other_offices
    .map((office) => ({ office, miles: haversineMiles(from.lat, from.lng, office.lat, office.lng) }))
    .sort((x, y) => x.miles - y.miles || (x.office.listing_id < y.office.listing_id ? -1 : 1));
}

function officeLine(o: OfficeT, miles: number | null): string {
  const where = `${o.address}, ${o.city}, ${o.state}${o.zip === null ? '' : ` ${o.zip}`}`;
  return `- ${where}${miles === null ? '' : ` · ${roundMiles(miles)} mi`} · ${o.phone ?? 'no phone listed'} · listing_id ${o.listing_id}`;
}

/**
 * The text of a get_firm result: the firm and this office in full, then at most MAX_OTHER_OFFICES other offices,
 * nearest to `near` (the person's point) first, else nearest to this office, and how many there are in all.
 */
export function firmText(body: FirmResponseT, near: { lat: number; lng: number } | null): string {
  const f = body.firm;
  const o = body.office;
  const flags = [`${f.profile_type} profile`, f.sponsored ? 'sponsored' : 'not sponsored'].join(', ');
  const b = f.brand_index;
  const lines = [
    `${f.name} · ${f.website ?? 'no website listed'} (${flags})`,
    b === null
      ? 'Firm map visibility: not measured'
      : `Firm map visibility in the ${b.metro} metro (any of its ${counted(b.offices_measured, 'measured office')}): top 3 in ${b.top3_share_pct}%, shown in ${b.appears_share_pct}%`,
    `This office: ${o.address}, ${o.city}, ${o.state}${o.zip === null ? '' : ` ${o.zip}`} · ${o.phone ?? 'no phone listed'}${near === null ? '' : ` · ${roundMiles(haversineMiles(near.lat, near.lng, o.lat, o.lng))} mi from the point given`}`,
    `   ${hoursLine(o.hours)}`,
    `   ${visibility(o.map_visibility)} · listing_id ${o.listing_id}`,
  ];
  const others = nearestOthers(body, near);
  const total = others.length;
  if (total === 0) lines.push('Other offices: none.');
  else {
    const shown = others.slice(0, MAX_OTHER_OFFICES);
    const basis = near === null ? 'nearest to this office first' : 'nearest to the point given first';
    lines.push(
      `Other offices of this firm: ${total} in all${total > shown.length ? `; the ${shown.length} ${basis}` : `, ${basis}`}:`,
    );
    lines.push(...shown.map((s) => officeLine(s.office, s.miles)));
    if (total > shown.length) lines.push(`(${total - shown.length} more: format "json" returns every office.)`);
  }
  lines.push(`Map visibility: ${MAP_VISIBILITY_WHAT}`, `Disclosure: ${body.disclosure}`, RELAY);
  return lines.join('\n');
}

/** The text of a get_coverage result: the dataset, the week and one line per measured metro. */
export function coverageText(body: CoverageResponseT): string {
  const t = body.totals;
  return [
    `Dataset ${body.dataset.name}${body.dataset.synthetic ? ' (synthetic: the firms are fictional sample data)' : ''}, week of ${body.week_of}, version ${body.version}.`,
    `${t.metros} measured metros, ${t.firms} firms, ${t.offices} offices in them:`,
    ...body.metros.map((m) => `- ${m.name} (${m.slug}): ${m.firms} firms, ${m.offices} offices`),
    'A search outside these metros answers covered: false: no data there, which does not mean there are no lawyers there. Do not pick another metro for the person.',
    `Disclosure: ${body.disclosure}`,
  ].join('\n');
}
