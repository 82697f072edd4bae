/**
 * The compact, model-facing `structuredContent` of each tool: per firm what the person needs (name, full address,
 * distance, phone, website link, hours line, visibility share), the disclosure and caveats once, and the relaying rules
 * and the "say this" line as fields. Several hosts forward `structuredContent` to the model instead of the text
 * block, so it is sized for a model as the text is (docs/MCP.md, "Sizes"). The full REST body stays available with
 * `format: "json"` and over REST.
 */
import { z } from 'zod';
import { MAP_VISIBILITY_WHAT } from '../contract/constants.ts';
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
import {
  MAX_OTHER_OFFICES,
  RELAYING,
  RELAYING_NO_DATA,
  relayingOf,
  moreLine,
  RELAYING_NONE_NEAR,
  hoursDays,
  largerRadius,
  nearestOthers,
} from './answer-text.ts';

/** How results are ordered, in one line. */
export const ORDER_LINE = 'Nearest first by straight-line distance only; nothing else changes the order.';

const hours = z.string().nullable().describe('With the time zone; null: not listed.');
const visibility = z
  .object({ top3_share_pct: z.number(), appears_share_pct: z.number(), grid_samples: z.number().int() })
  .nullable();
const listingId = z.string();

/** One firm of a search, by its nearest office. */
const CompactResult = z.object({
  listing_id: listingId,
  name: z.string(),
  distance_miles: z.number(),
  address: z.string(),
  phone: z.string().nullable(),
  website: z.string().nullable().describe('Give it exactly as returned.'),
  hours,
  map_visibility: visibility,
  sponsored: z.boolean(),
  offices_within_radius: z.number().int(),
});

/** find_injury_attorneys' structuredContent (format "text"). */
export const CompactSearch = z.object({
  query_id: z.string(),
  covered: z.boolean().describe('false: no data for this place, which does not mean there are no lawyers there.'),
  location: z.object({
    input: z.string(),
    lat: z.number(),
    lng: z.number(),
    zip: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    metro: z.string().nullable(),
    approximate: z.boolean(),
    note: z.string().optional(),
  }),
  radius_miles_used: z.number(),
  firms_within_radius: z.number().int(),
  order: z.string(),
  results: z.array(CompactResult),
  say_to_person: z.string().optional().describe('Say this to the person as it is.'),
  map_visibility_note: z.string().optional(),
  disclosure: z.string().describe('Keep it with the results.'),
  relaying: z.string(),
  more: z.string().optional(),
});
/** find_injury_attorneys' compact structuredContent. */
export type CompactSearchT = z.infer<typeof CompactSearch>;

const CompactOffice = z.object({
  listing_id: listingId,
  address: z.string(),
  phone: z.string().nullable(),
  distance_miles: z.number().optional(),
});

/** get_firm's structuredContent (format "text"). */
export const CompactFirm = z.object({
  listing_id: listingId,
  firm: z.object({
    name: z.string(),
    website: z.string().nullable().describe('Give it exactly as returned.'),
    profile_type: z.string(),
    sponsored: z.boolean(),
    map_visibility: z
      .object({
        metro: z.string(),
        top3_share_pct: z.number(),
        appears_share_pct: z.number(),
        offices_measured: z.number().int(),
      })
      .nullable(),
  }),
  office: CompactOffice.extend({ hours, map_visibility: visibility }),
  other_offices: z.array(CompactOffice).describe(`At most ${MAX_OTHER_OFFICES}, nearest first (to lat, lng if given).`),
  other_offices_total: z.number().int(),
  map_visibility_note: z.string(),
  disclosure: z.string().describe('Keep it with the firm.'),
  relaying: z.string(),
  more: z.string().optional(),
});
/** get_firm's compact structuredContent. */
export type CompactFirmT = z.infer<typeof CompactFirm>;

/** get_coverage's structuredContent (format "text"). */
export const CompactCoverage = z.object({
  version: z.string(),
  week_of: z.string(),
  dataset: z.object({ name: z.string(), synthetic: z.boolean() }),
  totals: z.object({ firms: z.number().int(), offices: z.number().int(), metros: z.number().int() }),
  metros: z.array(z.object({ slug: z.string(), name: z.string(), firms: z.number().int(), offices: z.number().int() })),
  not_covered: z.string(),
  disclosure: z.string(),
  attribution: z.string(),
});
/** get_coverage's compact structuredContent. */
export type CompactCoverageT = z.infer<typeof CompactCoverage>;

/** "Mon–Fri 9:00 AM – 5:00 PM; Sat–Sun Closed (America/Chicago)", or null when no hours are listed. */
function hoursOf(h: HoursT | null): string | null {
  return h === null ? null : `${hoursDays(h)} (${h.timezone})`;
}

function visibilityOf(v: ResultT['map_visibility']): z.infer<typeof visibility> {
  return v === null
    ? null
    : { top3_share_pct: v.top3_share_pct, appears_share_pct: v.appears_share_pct, grid_samples: v.grid_samples };
}

/** The compact form of a search answer. */
export function compactSearch(body: AttorneysResponseT): CompactSearchT {
  const l = body.location;
  const listed = body.covered && body.results.length > 0;
  // An answer without firms says what the text block says instead: the line to say, or that a larger radius may help.
  const relaying = listed ? relayingOf(body) : body.covered ? RELAYING_NONE_NEAR : RELAYING_NO_DATA;
  const more = listed ? moreLine(body, 'the full answer') : body.covered ? largerRadius(body.radius_miles_used) : null;
  return {
    query_id: body.query_id,
    covered: body.covered,
    location: {
      input: l.input,
      lat: l.lat,
      lng: l.lng,
      zip: l.zip,
      city: l.city,
      state: l.state,
      metro: l.metro,
      approximate: l.approximate,
      ...(l.note === undefined ? {} : { note: l.note }),
    },
    radius_miles_used: body.radius_miles_used,
    firms_within_radius: body.firms_within_radius,
    order: ORDER_LINE,
    results: body.results.map((r) => ({
      listing_id: r.listing_id,
      name: r.name,
      distance_miles: r.distance_miles,
      address: r.address,
      phone: r.phone,
      website: r.website,
      hours: hoursOf(r.hours),
      map_visibility: visibilityOf(r.map_visibility),
      sponsored: r.sponsored,
      offices_within_radius: r.offices_within_radius,
    })),
    // An uncovered answer's disclosure names the place and what no data means: the line to say as it is.
    ...(body.covered ? {} : { say_to_person: body.disclosure }),
    ...(listed ? { map_visibility_note: MAP_VISIBILITY_WHAT } : {}),
    disclosure: body.disclosure,
    relaying,
    ...(more === null ? {} : { more }),
  };
}

function fullAddress(o: OfficeT): string {
  return `${o.address}, ${o.city}, ${o.state}${o.zip === null ? '' : ` ${o.zip}`}`;
}

/** The compact form of a firm answer: at most MAX_OTHER_OFFICES other offices, nearest first, and their total. */
export function compactFirm(body: FirmResponseT, near: { lat: number; lng: number } | null): CompactFirmT {
  const f = body.firm;
  const o = body.office;
  const b = f.brand_index;
  const others = nearestOthers(body, near);
  const shown = others.slice(0, MAX_OTHER_OFFICES);
  return {
    listing_id: body.listing_id,
    firm: {
      name: f.name,
      website: f.website,
      profile_type: f.profile_type,
      sponsored: f.sponsored,
      map_visibility:
        b === null
          ? null
          : {
              metro: b.metro,
              top3_share_pct: b.top3_share_pct,
              appears_share_pct: b.appears_share_pct,
              offices_measured: b.offices_measured,
            },
    },
    office: {
      listing_id: o.listing_id,
      address: fullAddress(o),
      phone: o.phone,
      ...(near === null ? {} : { distance_miles: roundMiles(haversineMiles(near.lat, near.lng, o.lat, o.lng)) }),
      hours: hoursOf(o.hours),
      map_visibility: visibilityOf(o.map_visibility),
    },
    other_offices: shown.map((s) => ({
      listing_id: s.office.listing_id,
      address: fullAddress(s.office),
      phone: s.office.phone,
      distance_miles: roundMiles(s.miles),
    })),
    other_offices_total: others.length,
    map_visibility_note: MAP_VISIBILITY_WHAT,
    disclosure: body.disclosure,
    relaying: RELAYING,
    ...(others.length > shown.length
      ? { more: `${others.length - shown.length} more other offices: format "json" returns every office.` }
      : {}),
  };
}

/** The compact form of the coverage answer. */
export function compactCoverage(body: CoverageResponseT): CompactCoverageT {
  return {
    version: body.version,
    week_of: body.week_of,
    dataset: body.dataset,
    totals: body.totals,
    metros: body.metros.map((m) => ({ slug: m.slug, name: m.name, firms: m.firms, offices: m.offices })),
    not_covered:
      'A search outside these metros answers covered: false: no data there, which does not mean there are no lawyers there. Do not pick another metro for the person.',
    disclosure: body.disclosure,
    attribution: body.attribution.notice,
  };
}
