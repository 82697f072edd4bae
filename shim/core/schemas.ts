/** Zod schemas of the public contract (docs/CONTRACT.md): the shim validates with them and the generator derives openapi.json from them. */
import { z } from 'zod';

const pct = z.number().min(0).max(100).describe('Percent, one decimal place.');
const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/);

/** One opening interval of a day, with schema.org's OpeningHoursSpecification names; "24:00" closes at midnight. */
export const OpeningInterval = z
  .object({
    opens: clockTime.describe('Local opening time, "HH:MM" (24-hour clock).'),
    closes: clockTime.describe('Local closing time, "HH:MM"; "24:00" is the end of the day.'),
  })
  .meta({ id: 'OpeningInterval' });
const dayHours = z.array(OpeningInterval).describe('Opening intervals of the day, earliest first; empty when closed.');

/** Opening hours by day name; a closed day is an empty list. */
export const Hours = z
  .object({
    timezone: z.string().describe('IANA time zone of the office, e.g. America/Chicago.'),
    weekly: z.object({ mon: dayHours, tue: dayHours, wed: dayHours, thu: dayHours, fri: dayHours, sat: dayHours, sun: dayHours }),
    text: z.array(z.string()).length(7).describe('One readable line per day, Monday first.'),
  })
  .meta({ id: 'Hours' });

/** Table 2.3: the service's own weekly map-visibility measurement of one office. */
export const MapVisibility = z
  .object({
    metro: z.string().describe('Slug of the metro whose grid measured this office.'),
    week_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe('Monday of the measured ISO week.'),
    top3_share_pct: pct.describe('Share of the metro\'s grid samples in which the office ranked 1-3, in percent.'),
    appears_share_pct: pct.describe('Share of the metro\'s grid samples in which the office appeared at any rank, in percent.'),
    grid_samples: z.number().int().min(0).describe('Grid points x injury searches in the metro this week: the denominator of both shares.'),
    what_this_is: z.string().describe('What the measurement is: visibility on a web map, not lawyer quality or case results.'),
    grid_points: z.number().int().min(0).describe('Grid points sampled in the metro this week.'),
    queries: z.number().int().min(0).describe('Injury searches per grid point.'),
  })
  .meta({ id: 'MapVisibility' });

/** Firm-level view of the same measurement in one metro. */
export const BrandIndex = z
  .object({
    metro: z.string(),
    week_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    top3_share_pct: pct,
    appears_share_pct: pct,
    offices_measured: z.number().int().min(0),
    what_this_is: z.string(),
  })
  .meta({ id: 'BrandIndex' });

export const ProfileType = z.enum(['standard', 'enhanced']);

/** The resolved location of a query. */
export const Location = z
  .object({
    input: z.string().describe('The location as sent.'),
    kind: z.enum(['zip', 'city', 'point']),
    lat: z.number(),
    lng: z.number(),
    zip: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    metro: z.string().nullable().describe('Slug of the measured metro containing the point, or null.'),
    source: z.string().describe('Where the coordinates came from, e.g. census_zcta, geonames_postal, geonames_place, input.'),
    approximate: z.boolean().describe('True when the point stands for an area (ZIP or city), false for coordinates as sent.'),
    note: z.string().optional().describe('Set when a choice was made, e.g. the most populous of several same-named places.'),
  })
  .meta({ id: 'Location' });

/** Table 2.2: one firm, shown by its nearest office within the radius. */
export const Result = z
  .object({
    listing_id: z.string(),
    name: z.string(),
    address: z.string(),
    zip: z.string().nullable(),
    distance_miles: z.number().describe('Great-circle distance in miles, 2 decimals.'),
    phone: z.string().nullable(),
    website: z.string().nullable().describe('Link on this service (/r/{listing_id}) that redirects to the firm\'s site; open it as returned.'),
    website_domain: z.string().nullable(),
    primary_category: z.string().nullable(),
    google_listing_claimed: z.boolean().describe('Whether the business has claimed its listing on the web map.'),
    hours: Hours.nullable(),
    map_visibility: MapVisibility.nullable(),
    brand_index: BrandIndex.nullable(),
    profile_type: ProfileType,
    sponsored: z.boolean(),
    offices_within_radius: z.number().int().min(1),
  })
  .meta({ id: 'Result' });

/** Table 2.1: body of GET /v1/attorneys. */
export const AttorneysResponse = z
  .object({
    query_id: z
      .uuid({ version: 'v8' })
      .describe('Names the normalised query on the served version: the same query on the same version always has the same id (RFC 9562 UUID version 8 from a SHA-256)'),
    covered: z.boolean(),
    location: Location,
    radius_miles_used: z.number(),
    firms_within_radius: z.number().int().min(0),
    order: z.string(),
    disclosure: z.string(),
    results: z.array(Result),
  })
  .meta({ id: 'AttorneysResponse' });

/** One office as shown by GET /v1/firms/{listing_id}. */
export const Office = z
  .object({
    listing_id: z.string(),
    address: z.string(),
    city: z.string(),
    state: z.string(),
    zip: z.string().nullable(),
    lat: z.number(),
    lng: z.number(),
    phone: z.string().nullable(),
    hours: Hours.nullable(),
    primary_category: z.string().nullable(),
    google_listing_claimed: z.boolean().describe('Whether the business has claimed its listing on the web map.'),
    map_visibility: MapVisibility.nullable(),
  })
  .meta({ id: 'Office' });

/** Body of GET /v1/firms/{listing_id}. */
export const FirmResponse = z
  .object({
    listing_id: z.string(),
    firm: z.object({
      firm_id: z.string(),
      name: z.string(),
      website: z.string().nullable(),
      website_domain: z.string().nullable(),
      profile_type: ProfileType,
      sponsored: z.boolean(),
      brand_index: BrandIndex.nullable(),
    }),
    office: Office,
    other_offices: z.array(Office),
    disclosure: z.string(),
  })
  .meta({ id: 'FirmResponse' });

export const LatLng = z.object({ lat: z.number(), lng: z.number() });

/** Body of GET /v1/coverage. */
export const CoverageResponse = z
  .object({
    version: z.string().describe('The published version this answer came from (also in the Directory-Version header of every answer).'),
    week_of: z.string(),
    generated_at: z.string(),
    dataset: z.object({ name: z.string(), synthetic: z.boolean() }),
    totals: z.object({ firms: z.number().int().min(0), offices: z.number().int().min(0), metros: z.number().int().min(0) }),
    metros: z.array(
      z.object({
        slug: z.string(),
        name: z.string(),
        center: LatLng,
        firms: z.number().int().min(0),
        offices: z.number().int().min(0),
        grid_points: z.number().int().min(0),
        grid_samples: z.number().int().min(0),
        queries: z.number().int().min(0),
        week_of: z.string(),
      }),
    ),
    disclosure: z.string(),
  })
  .meta({ id: 'CoverageResponse' });

export const ProblemCode = z.enum([
  'location_required',
  'location_not_understood',
  'ambiguous_location',
  'invalid_parameter',
  'unknown_parameter',
  'practice_area_unsupported',
  'not_found',
  'rate_limited',
  'service_unavailable',
  'method_not_allowed',
  'origin_not_allowed',
  'payload_too_large',
  'bad_request',
  'request_timeout',
  'header_fields_too_large',
  'not_implemented',
  'internal_error',
]);

/** RFC 9457 problem details with a machine-readable `code`. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: ProblemCode,
    parameter: z.string().optional().describe('The offending parameter, when there is one.'),
    accepted: z.array(z.string()).optional().describe('Accepted parameter names or values, when useful.'),
    candidates: z
      .array(
        z.object({
          city: z.string().describe('The place\'s name.'),
          state: z.string().describe('Its USPS state code.'),
          covered: z.boolean().describe('Whether a measured metro contains it (the directory has data there).'),
        }),
      )
      .optional()
      .describe('With ambiguous_location: the places of that name, most populous first; covered is whether a measured metro contains it. Ask the person which one.'),
  })
  .meta({ id: 'Problem' });

export type HoursT = z.infer<typeof Hours>;
export type OpeningIntervalT = z.infer<typeof OpeningInterval>;
export type MapVisibilityT = z.infer<typeof MapVisibility>;
export type BrandIndexT = z.infer<typeof BrandIndex>;
export type LocationT = z.infer<typeof Location>;
export type ResultT = z.infer<typeof Result>;
export type AttorneysResponseT = z.infer<typeof AttorneysResponse>;
export type OfficeT = z.infer<typeof Office>;
export type FirmResponseT = z.infer<typeof FirmResponse>;
export type CoverageResponseT = z.infer<typeof CoverageResponse>;
export type ProblemT = z.infer<typeof Problem>;
export type ProblemCodeT = z.infer<typeof ProblemCode>;
