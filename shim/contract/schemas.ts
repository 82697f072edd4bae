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
  .meta({ id: 'OpeningInterval', description: 'One opening interval of a day.' });
const dayHours = z.array(OpeningInterval).describe('Opening intervals of the day, earliest first; empty when closed.');

/** Opening hours by day name; a closed day is an empty list. */
export const Hours = z
  .object({
    timezone: z.string().describe('IANA time zone of the office, e.g. America/Chicago.'),
    weekly: z
      .object({
        mon: dayHours,
        tue: dayHours,
        wed: dayHours,
        thu: dayHours,
        fri: dayHours,
        sat: dayHours,
        sun: dayHours,
      })
      .describe('Opening intervals by day name, mon to sun.'),
    text: z.array(z.string()).length(7).describe('One readable line per day, Monday first.'),
  })
  .meta({ id: 'Hours', description: "Opening hours by day in the office's time zone." });

/** Table 2.3: the service's own weekly map-visibility measurement of one office. */
export const MapVisibility = z
  .object({
    metro: z.string().describe('Slug of the metro whose grid measured this office.'),
    week_of: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .describe('Monday of the measured ISO week.'),
    top3_share_pct: pct.describe("Share of the metro's grid samples in which the office ranked 1-3, in percent."),
    appears_share_pct: pct.describe(
      "Share of the metro's grid samples in which the office appeared at any rank, in percent.",
    ),
    grid_samples: z
      .number()
      .int()
      .min(0)
      .describe('Grid points x injury searches in the metro this week: the denominator of both shares.'),
    what_this_is: z
      .string()
      .describe('What the measurement is: visibility on a web map, not lawyer quality or case results.'),
    grid_points: z.number().int().min(0).describe('Grid points sampled in the metro this week.'),
    queries: z.number().int().min(0).describe('Injury searches per grid point.'),
  })
  .meta({
    id: 'MapVisibility',
    description: "This service's weekly measurement of how often the office showed on a web map. Not a quality rating.",
  });

/** Firm-level view of the same measurement in one metro. */
export const BrandIndex = z
  .object({
    metro: z.string().describe('Slug of the measured metro.'),
    week_of: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .describe('Monday of the measured ISO week.'),
    top3_share_pct: pct.describe(
      "Share of the metro's grid samples in which any office of the firm ranked 1-3, in percent.",
    ),
    appears_share_pct: pct.describe(
      "Share of the metro's grid samples in which any office of the firm appeared, in percent.",
    ),
    offices_measured: z.number().int().min(0).describe("The firm's offices measured in the metro."),
    what_this_is: z
      .string()
      .describe('What the measurement is: visibility on a web map, not lawyer quality or case results.'),
  })
  .meta({
    id: 'BrandIndex',
    description: "The firm's map visibility across its offices in one metro, this week. Not a quality rating.",
  });

export const ProfileType = z
  .enum(['standard', 'enhanced'])
  .describe(
    'Set by the directory operator: "enhanced" is a firm with an upgraded profile, "standard" every other. Shown for transparency; never affects order.',
  );
/** `sponsored` of a firm. */
const sponsored = z
  .boolean()
  .describe('True when the firm sponsors the directory operator. Shown for transparency; never affects order.');
/** A listing id. */
const listingId = z
  .string()
  .describe('Stable id of an office listing: "l_" and 16 base32 characters. Use it with /v1/firms/{listing_id}.');
const nullablePhone = z.string().nullable().describe('Phone number as listed, or null.');
const primaryCategory = z
  .string()
  .nullable()
  .describe('Business category on the web map, e.g. "Personal injury attorney", or null.');
const claimed = z.boolean().describe('Whether the business has claimed its listing on the web map.');
const officeHours = Hours.nullable().describe("Opening hours in the office's time zone, or null when none are listed.");
const officeVisibility = MapVisibility.nullable().describe(
  "This office's map visibility this week, or null when no measured metro sampled it.",
);
const firmVisibility = BrandIndex.nullable().describe(
  "The firm's map visibility in the metro this week, or null when not measured.",
);
const websiteDomain = z
  .string()
  .nullable()
  .describe("Domain of the firm's own site, or null; offices sharing a domain are one firm.");

/** The resolved location of a query. */
export const Location = z
  .object({
    input: z.string().describe('The location as sent.'),
    kind: z.enum(['zip', 'city', 'point']).describe('How it was read: a ZIP, a city or a point (coordinates).'),
    lat: z.number().describe('Latitude of the point searched from, decimal degrees.'),
    lng: z.number().describe('Longitude of the point searched from, decimal degrees.'),
    zip: z.string().nullable().describe('The 5-digit ZIP, for a ZIP location; else null.'),
    city: z.string().nullable().describe('The city, for a city location; else null.'),
    state: z.string().nullable().describe('Two-letter USPS state code, when known; else null.'),
    metro: z.string().nullable().describe('Slug of the measured metro containing the point, or null.'),
    source: z
      .string()
      .describe('Where the coordinates came from, e.g. census_zcta, geonames_postal, geonames_place, input.'),
    approximate: z
      .boolean()
      .describe('True when the point stands for an area (ZIP or city), false for coordinates as sent.'),
    note: z
      .string()
      .optional()
      .describe('Set when a choice was made, e.g. the most populous of several same-named places.'),
  })
  .meta({
    id: 'Location',
    description: 'Where the search was made from, as the service understood the location sent.',
  });

/** Table 2.2: one firm, shown by its nearest office within the radius. */
export const Result = z
  .object({
    listing_id: listingId,
    name: z.string().describe("The firm's name as listed."),
    address: z.string().describe('Full street address of the nearest office.'),
    zip: z.string().nullable().describe("The office's 5-digit ZIP, or null."),
    distance_miles: z.number().describe('Great-circle distance in miles, 2 decimals.'),
    phone: nullablePhone,
    website: z
      .string()
      .nullable()
      .describe("Link on this service (/r/{listing_id}) that redirects to the firm's site; open it as returned."),
    website_domain: websiteDomain,
    primary_category: primaryCategory,
    google_listing_claimed: claimed,
    hours: officeHours,
    map_visibility: officeVisibility,
    brand_index: firmVisibility,
    profile_type: ProfileType,
    sponsored,
    offices_within_radius: z
      .number()
      .int()
      .min(1)
      .describe("How many of the firm's offices are within the radius (at least this one)."),
  })
  .meta({ id: 'Result', description: 'One firm, shown by its office nearest the location.' });

/** Table 2.1: body of GET /v1/attorneys. */
export const AttorneysResponse = z
  .object({
    query_id: z
      .uuid({ version: 'v8' })
      .describe(
        'Names the normalised query on the served version: the same query on the same version always has the same id (RFC 9562 UUID version 8 from a SHA-256)',
      ),
    covered: z
      .boolean()
      .describe(
        'True when the location lies in a measured metro. False: the service has no data there (results empty), which does not mean there are no lawyers.',
      ),
    location: Location,
    radius_miles_used: z.number().describe('The search radius applied, in miles.'),
    firms_within_radius: z
      .number()
      .int()
      .min(0)
      .describe('Distinct firms with an office within the radius, before limit.'),
    order: z.string().describe('How results are ordered: by distance alone.'),
    disclosure: z.string().describe('Text to keep with the results when relaying them.'),
    results: z.array(Result).describe('Firms nearest first, at most limit.'),
  })
  .meta({ id: 'AttorneysResponse' });

/** One office as shown by GET /v1/firms/{listing_id}. */
export const Office = z
  .object({
    listing_id: listingId,
    address: z.string().describe('Full street address.'),
    city: z.string().describe('City of the office.'),
    state: z.string().describe('Two-letter USPS state code.'),
    zip: z.string().nullable().describe('5-digit ZIP, or null.'),
    lat: z.number().describe('Latitude, decimal degrees.'),
    lng: z.number().describe('Longitude, decimal degrees.'),
    phone: nullablePhone,
    hours: officeHours,
    primary_category: primaryCategory,
    google_listing_claimed: claimed,
    map_visibility: officeVisibility,
    distance_miles: z
      .number()
      .optional()
      .describe('Only when lat and lng are sent: great-circle miles from that point, 2 decimals.'),
  })
  .meta({ id: 'Office', description: 'One office of a firm.' });

/** Body of GET /v1/firms/{listing_id}. */
export const FirmResponse = z
  .object({
    listing_id: listingId,
    firm: z
      .object({
        firm_id: z.string().describe('Stable id of the firm.'),
        name: z.string().describe("The firm's name as listed."),
        website: z
          .string()
          .nullable()
          .describe("Link on this service that redirects to the firm's site, or null; open it as returned."),
        website_domain: websiteDomain,
        profile_type: ProfileType,
        sponsored,
        brand_index: firmVisibility,
      })
      .describe('The firm the listing belongs to.'),
    office: Office,
    other_offices: z
      .array(Office)
      .describe("The firm's other offices, by listing_id; with lat and lng, nearest to that point first."),
    disclosure: z.string().describe('Text to keep with the firm when relaying it.'),
  })
  .meta({ id: 'FirmResponse' });

export const LatLng = z.object({
  lat: z.number().describe('Latitude, decimal degrees.'),
  lng: z.number().describe('Longitude, decimal degrees.'),
});

/** Credit and licence of the published place data (GeoNames CC BY 4.0, U.S. Census public domain). */
export const Attribution = z.object({
  notice: z
    .string()
    .describe('The attribution in one sentence: who the place data comes from, its licence, and that it was changed.'),
  sources: z
    .array(
      z.object({
        name: z.string().describe('Name of the data source.'),
        used_for: z.string().describe('What the service takes from it.'),
        licence: z.string().describe('e.g. "CC BY 4.0" or "Public domain"'),
        licence_url: z.string().nullable().describe('Where the licence is published; null for public-domain data.'),
        url: z.string().describe('Where the source publishes its data.'),
      }),
    )
    .describe('Each source of published place data, with its licence.'),
});

/** Body of GET /v1/coverage. */
export const CoverageResponse = z
  .object({
    version: z
      .string()
      .describe('The published version this answer came from (also in the Directory-Version header of every answer).'),
    week_of: z.string().describe('Monday of the ISO week the served data measures.'),
    generated_at: z.string().describe('When the served version was generated (ISO 8601, UTC).'),
    dataset: z
      .object({
        name: z.string().describe('Name of the dataset.'),
        synthetic: z.boolean().describe('True when the firms are fictional sample data, not real law offices.'),
      })
      .describe('The dataset behind the answers.'),
    totals: z
      .object({
        firms: z.number().int().min(0).describe('Firms in the directory.'),
        offices: z.number().int().min(0).describe('Offices in the directory.'),
        metros: z.number().int().min(0).describe('Measured metros.'),
      })
      .describe('Counts over the whole directory.'),
    metros: z
      .array(
        z.object({
          slug: z.string().describe('Id of the metro, as in location.metro and map_visibility.metro.'),
          name: z.string().describe('Name of the metro.'),
          center: LatLng.describe('Centre of the metro.'),
          firms: z.number().int().min(0).describe('Firms with an office in the metro.'),
          offices: z.number().int().min(0).describe('Offices in the metro.'),
          grid_points: z.number().int().min(0).describe('Grid points sampled on the web map this week.'),
          grid_samples: z
            .number()
            .int()
            .min(0)
            .describe('Grid points x searches: the denominator of visibility shares.'),
          queries: z.number().int().min(0).describe('Injury searches per grid point.'),
          week_of: z.string().describe('Monday of the week this metro was measured.'),
        }),
      )
      .describe('The measured metros; a location outside all of them is not covered.'),
    disclosure: z.string().describe('Text to keep with the data when relaying it.'),
    attribution: Attribution.describe('Credit and licence of the published place data (GeoNames, U.S. Census).'),
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
  'expectation_failed',
  'not_implemented',
  'internal_error',
]);

/** RFC 9457 problem details with a machine-readable `code`. */
export const Problem = z
  .object({
    type: z.string().describe('URI of a page explaining the code.'),
    title: z.string().describe('Short summary of the problem type.'),
    status: z.number().int().describe('The HTTP status code.'),
    detail: z.string().describe('What went wrong with this request and how to fix it.'),
    code: ProblemCode.describe('Machine-readable problem code.'),
    parameter: z.string().optional().describe('The offending parameter, when there is one.'),
    accepted: z.array(z.string()).optional().describe('Accepted parameter names or values, when useful.'),
    candidates: z
      .array(
        z.object({
          city: z.string().describe("The place's name."),
          state: z.string().describe('Its USPS state code.'),
          covered: z.boolean().describe('Whether a measured metro contains it (the directory has data there).'),
        }),
      )
      .optional()
      .describe(
        'With ambiguous_location: the places of that name, most populous first; covered is whether a measured metro contains it. Ask the person which one.',
      ),
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
