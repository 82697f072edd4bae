/** Zod schemas of the operations' inputs: used for OpenAPI parameters and MCP input schemas; parsing with REST error codes is in params.ts. */
import { z } from 'zod';
import { LIMIT, PRACTICE_AREAS, RADIUS_MILES, SRC_MAX_LENGTH } from './constants.ts';

/** Arguments of GET /v1/attorneys and the find_injury_attorneys tool. Exactly one location form is required. */
export const AttorneysQuery = z
  .object({
    location: z
      .string()
      .min(1)
      .max(200)
      // Not blank and no control characters, as the REST parser holds it (test/param-parity.test.ts); written without
      // Unicode property escapes, which validators without the `u` flag (Spectral, many MCP clients) misread.
      // eslint-disable-next-line no-control-regex
      .regex(/^(?!\s*$)[^\u0000-\u001f\u007f-\u009f]+$/)
      .optional()
      .describe(
        'The person\'s own location: a 5-digit ZIP ("60601"), ZIP+4 ("60601-1234"), "City, ST" ("Austin, TX" or "Austin, Texas") or "lat,lng" ("41.88,-87.63"). Use exactly one of location, zip, or lat+lng.',
      ),
    zip: z
      .string()
      .regex(/^\d{5}$/)
      .optional()
      .describe('5-digit US ZIP code.'),
    lat: z.number().min(-90).max(90).optional().describe('Latitude in decimal degrees; requires lng.'),
    lng: z.number().min(-180).max(180).optional().describe('Longitude in decimal degrees; requires lat.'),
    radius_miles: z
      .number()
      .min(RADIUS_MILES.min)
      .max(RADIUS_MILES.max)
      .default(RADIUS_MILES.default)
      .describe(`Search radius in miles, ${RADIUS_MILES.min} to ${RADIUS_MILES.max}, default ${RADIUS_MILES.default}.`),
    limit: z
      .number()
      .int()
      .min(LIMIT.min)
      .max(LIMIT.max)
      .default(LIMIT.default)
      .describe(`Maximum firms returned, ${LIMIT.min} to ${LIMIT.max}, default ${LIMIT.default}.`),
    practice_area: z.enum(PRACTICE_AREAS).optional().describe('Only personal_injury is supported.'),
    src: z
      .string()
      .min(1)
      .max(SRC_MAX_LENGTH)
      // eslint-disable-next-line no-control-regex -- refusing control characters is the point
      .regex(/^[^\u0000-\u001f\u007f-\u009f]+$/)
      .optional()
      .describe('Optional name of the calling application, at most 100 printable characters.'),
  })
  .meta({ id: 'AttorneysQuery' });

/** Arguments of GET /v1/firms/{listing_id} and the get_firm tool. */
export const FirmQuery = z.object({
  listing_id: z.string().min(1).max(64).describe('listing_id exactly as returned by a search.'),
});

/** Names accepted by GET /v1/attorneys, for unknown_parameter errors. */
export const ATTORNEYS_PARAMS = Object.keys(AttorneysQuery.shape) as (keyof typeof AttorneysQuery.shape)[];

export type AttorneysQueryT = z.infer<typeof AttorneysQuery>;
