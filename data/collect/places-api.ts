/** The Places API (New) Text Search wire format this collector speaks: field mask, request body, zod schemas of answers. */
import { z } from 'zod';

/** Path of Text Search (New) under the provider's base URL. */
export const SEARCH_TEXT_PATH = '/v1/places:searchText';
/** Results per page: the API's maximum. */
export const PAGE_SIZE = 20;
/** Text Search never returns more than three pages (60 places) for one query. */
export const MAX_PAGES = 3;
/**
 * locationBias circle radius in metres: about a resolution-6 cell's circumradius, so the grid point acts like a
 * searcher standing in that cell. A bias, not a restriction: the provider may still rank farther places.
 */
export const BIAS_RADIUS_METERS = 4000;

/**
 * Only what the directory uses: id, name, address, location, phone, website, opening hours, primary type and its
 * display name, business status. Never rating, userRatingCount or reviews. `nextPageToken` must be named to be returned.
 * Phone, website and opening hours put every request in the Text Search Enterprise SKU (see pricing.ts).
 */
export const FIELD_MASK = [
  'places.id',
  'places.displayName',
  'places.formattedAddress',
  'places.addressComponents',
  'places.location',
  'places.nationalPhoneNumber',
  'places.websiteUri',
  'places.regularOpeningHours',
  'places.primaryType',
  'places.primaryTypeDisplayName',
  'places.businessStatus',
  'nextPageToken',
].join(',');

/** The JSON body of one Text Search request. */
export interface SearchTextBody {
  textQuery: string;
  pageSize: number;
  languageCode: 'en';
  regionCode: 'US';
  locationBias: { circle: { center: { latitude: number; longitude: number }; radius: number } };
  pageToken?: string;
}

/** Body of the request for `query` at (lat, lng), page `pageToken` (absent on the first page). */
export function searchTextBody(query: string, lat: number, lng: number, pageToken?: string): SearchTextBody {
  const body: SearchTextBody = {
    textQuery: query,
    pageSize: PAGE_SIZE,
    languageCode: 'en',
    regionCode: 'US',
    locationBias: { circle: { center: { latitude: lat, longitude: lng }, radius: BIAS_RADIUS_METERS } },
  };
  if (pageToken !== undefined) body.pageToken = pageToken;
  return body;
}

const localizedText = z.object({ text: z.string(), languageCode: z.string().optional() });
const point = z.object({
  day: z.number().int().min(0).max(6),
  hour: z.number().int().min(0).max(24),
  minute: z.number().int().min(0).max(59),
});

/** One place of an answer, as far as the collector reads it; anything else the provider adds is dropped (zod strips). */
export const ApiPlace = z.object({
  id: z.string().min(1).max(256),
  displayName: localizedText.optional(),
  formattedAddress: z.string().optional(),
  addressComponents: z
    .array(
      z.object({
        longText: z.string().optional(),
        shortText: z.string().optional(),
        types: z.array(z.string()).default([]),
      }),
    )
    .optional(),
  location: z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).optional(),
  nationalPhoneNumber: z.string().optional(),
  websiteUri: z.string().optional(),
  regularOpeningHours: z
    .object({ periods: z.array(z.object({ open: point, close: point.optional() })).optional() })
    .optional(),
  primaryType: z.string().optional(),
  primaryTypeDisplayName: localizedText.optional(),
  businessStatus: z.string().optional(),
});

/** A successful Text Search answer: `places` is absent when nothing matched. */
export const SearchTextResponse = z.object({
  places: z.array(ApiPlace).default([]),
  nextPageToken: z.string().optional(),
});

/** Google's error body: `{ "error": { "code", "message", "status" } }`. */
export const ErrorBody = z.object({
  error: z.object({ code: z.number(), message: z.string(), status: z.string().optional() }),
});

export type ApiPlaceT = z.infer<typeof ApiPlace>;
export type SearchTextResponseT = z.infer<typeof SearchTextResponse>;
