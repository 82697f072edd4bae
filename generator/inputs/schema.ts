/** Zod schemas of the generator's inputs (documented in data/README.md). A real operator's files use the same formats. */
import { isPublicWebUrl } from '../../shim/lib/public-host.ts';
import { z } from 'zod';
import { isSharedHost, normaliseFlagKey } from './ids.ts';

const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

/** `data/metros.json`: the measured metros. */
export const MetrosFile = z.object({
  schema_version: z.literal(1),
  metros: z
    .array(
      z.object({
        slug: z.string().regex(/^[a-z0-9-]+$/),
        name: z.string(),
        center: z.object({ lat: latitude, lng: longitude }),
        radius_miles: z
          .number()
          .positive()
          .max(150)
          .describe("The metro's own radius: the measured area is the populated land within it"),
        principal_cities: z.array(z.string()).min(1).describe('"City, ST" of the principal cities'),
      }),
    )
    .min(1),
});

/** `data/weeks/<week>/dataset.json`: what this week's inputs are. */
export const DatasetFile = z.object({
  schema_version: z.literal(1),
  name: z.string(),
  synthetic: z.boolean(),
  week: z.string().regex(/^\d{4}-W\d{2}$/),
  collected_at: z.iso.datetime(),
});

const hhmm = z.string().regex(/^([01]\d|2[0-3])[0-5]\d$/);
/** Google-style opening hours: day 0 = Sunday, time "HHMM"; a period without close is open 24 hours. */
export const OpeningHours = z.object({
  periods: z.array(
    z.object({
      open: z.object({ day: z.number().int().min(0).max(6), time: hhmm }),
      close: z.object({ day: z.number().int().min(0).max(6), time: hhmm }).optional(),
    }),
  ),
});

/** One line of `places.jsonl`: a place record as a web map returns it. */
export const PlaceRecord = z.object({
  place_id: z.string().min(1).max(256),
  name: z.string().min(1),
  street_address: z.string().min(1),
  city: z.string().min(1),
  state: z.string().regex(/^[A-Z]{2}$/),
  zip: z
    .string()
    .regex(/^\d{5}$/)
    .nullable(),
  lat: latitude,
  lng: longitude,
  phone: z.string().nullable(),
  website: z
    .url({ protocol: /^https?$/ })
    .refine(isPublicWebUrl, {
      message:
        'host is not on the public internet (localhost, a loopback, private or link-local address, or a local-only name); /r/ would send visitors there',
    })
    .nullable(),
  primary_category: z.string().nullable(),
  claimed: z
    .boolean()
    .describe('Whether the business has claimed its listing; required (a row without it is a bad row)'),
  opening_hours: OpeningHours.nullable(),
  timezone: z.string().optional().describe('IANA zone; when absent the generator derives it from the state'),
});

/** One line of `samples.jsonl`: the ranked place ids for one query at one grid point of one metro. */
export const SampleRecord = z.object({
  metro: z.string(),
  point_id: z.string(),
  lat: latitude,
  lng: longitude,
  query: z.string(),
  ranked: z.array(z.string()).describe('Place ids in rank order, rank 1 first; may be empty'),
});

/** One line of `flags.jsonl`: operator flags for one firm (by website domain, or `place:<place_id>` for a firm without a website). */
export const FlagRecord = z.object({
  firm: z.string().min(1),
  profile_type: z.enum(['standard', 'enhanced']),
  sponsored: z.boolean(),
});

/** An optional note for the public changes document; `reason` (which may name who asked) is never published. */
const publicNote = z
  .string()
  .min(1)
  .max(300)
  .optional()
  .describe('Published in the changes document; `reason` never is');

/** One line of `data/corrections.jsonl`: an operator correction applied on top of every week's data. */
export const CorrectionRecord = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('remove'),
    place_id: z.string(),
    reason: z.string(),
    date: z.iso.date(),
    public_note: publicNote,
  }),
  z.object({
    action: z.literal('update'),
    place_id: z.string(),
    reason: z.string(),
    date: z.iso.date(),
    public_note: publicNote,
    set: PlaceRecord.omit({ place_id: true }).partial(),
  }),
]);

/**
 * One line of `data/removals.jsonl`: a standing removal of one listing (by place_id or public listing_id) or a whole firm
 * (by firm_id or website domain), applied to every week until `lifted` is set.
 */
export const RemovalRecord = z
  .object({
    place_id: z.string().min(1).optional(),
    listing_id: z
      .string()
      .regex(/^l_[a-z2-7]{16}$/)
      .optional(),
    firm_id: z
      .string()
      .regex(/^f_[a-z2-7]{16}$/)
      .optional(),
    domain: z.string().min(1).optional(),
    date: z.iso.date(),
    reason: z.string().min(1),
    public_note: publicNote,
    lifted: z.iso
      .date()
      .nullable()
      .optional()
      .describe('Set to the date the removal was lifted; the listing comes back from the next release'),
  })
  .strict()
  .refine((r) => [r.place_id, r.listing_id, r.firm_id, r.domain].filter((x) => x !== undefined).length === 1, {
    message: 'name exactly one of place_id, listing_id, firm_id, domain',
  })
  .refine((r) => r.domain === undefined || !isSharedHost(normaliseFlagKey(r.domain)), {
    message:
      'domain names a shared host (a social network or directory), where each office is a firm of its own: remove each office by listing_id or place_id',
  });

export type RemovalRecordT = z.infer<typeof RemovalRecord>;
export type MetrosFileT = z.infer<typeof MetrosFile>;
export type MetroT = MetrosFileT['metros'][number];
export type DatasetFileT = z.infer<typeof DatasetFile>;
export type PlaceRecordT = z.infer<typeof PlaceRecord>;
export type SampleRecordT = z.infer<typeof SampleRecord>;
export type FlagRecordT = z.infer<typeof FlagRecord>;
export type CorrectionRecordT = z.infer<typeof CorrectionRecord>;

/** File names inside `data/weeks/<week>/`. */
export const WEEK_FILES = {
  dataset: 'dataset.json',
  places: 'places.jsonl',
  samples: 'samples.jsonl',
  flags: 'flags.jsonl',
} as const;
