/**
 * A loopback fake of Places API (New) Text Search, written from its public documentation: POST /v1/places:searchText,
 * X-Goog-Api-Key and a required X-Goog-FieldMask, textQuery / pageSize (1-20) / pageToken / locationBias.circle,
 * answers filtered to the field mask (nextPageToken only when asked for), at most 60 places over three pages, and
 * errors as { error: { code, message, status } }. Faults (429 with Retry-After, 5xx, slow answers) are scripted.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlaceRecordT } from '../../generator/inputs/schema.ts';
import { haversineMiles } from '../../shim/search/geo.ts';

/** A place as the fake stores it: every field the API can return, ratings and reviews included. */
export type FakePlace = Record<string, unknown> & { id: string; location: { latitude: number; longitude: number } };

/** What one request gets instead of a normal answer. */
export type Fault = { status: number; retryAfter?: string } | { delayMs: number };

/** One request as the fake saw it. */
export interface SeenRequest {
  headers: IncomingHttpHeaders;
  body: unknown;
  status: number;
}

/** Fake settings. */
export interface FakeOptions {
  apiKey: string;
  places: FakePlace[];
  /** Fault for the n-th request (1-based), or undefined for a normal answer. */
  fault?: (n: number) => Fault | undefined;
  /** Misbehave: return rating, userRatingCount and reviews whatever the field mask says. */
  leakRatings?: boolean;
}

/** A running fake. */
export interface PlacesFake {
  url: string;
  requests: SeenRequest[];
  /** Requests answered 200 (what Google bills). */
  billed(): number;
  close(): Promise<void>;
}

const MAX_RESULTS = 60;
const PLACE_FIELDS = new Set([
  'id',
  'name',
  'displayName',
  'formattedAddress',
  'shortFormattedAddress',
  'addressComponents',
  'location',
  'viewport',
  'types',
  'nationalPhoneNumber',
  'internationalPhoneNumber',
  'websiteUri',
  'regularOpeningHours',
  'currentOpeningHours',
  'primaryType',
  'primaryTypeDisplayName',
  'businessStatus',
  'rating',
  'userRatingCount',
  'reviews',
  'priceLevel',
  'utcOffsetMinutes',
  'googleMapsUri',
]);
const RATING_FIELDS = ['rating', 'userRatingCount', 'reviews'];
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32;
}

/** The places a search returns, best first: distance from the bias centre plus a stable per-(place, query) handicap. */
export function fakeRanking(places: readonly FakePlace[], query: string, lat: number, lng: number): FakePlace[] {
  return places
    .map((p) => ({
      p,
      score: haversineMiles(lat, lng, p.location.latitude, p.location.longitude) + 6 * hash(`${p.id}|${query}`),
    }))
    .sort((a, b) => a.score - b.score || (a.p.id < b.p.id ? -1 : 1))
    .slice(0, MAX_RESULTS)
    .map((x) => x.p);
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startPlacesFake(options: FakeOptions): Promise<PlacesFake> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const seen: SeenRequest = { headers: req.headers, body, status: 0 };
      requests.push(seen);
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
        seen.status = status;
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
        res.end(JSON.stringify(payload));
      };
      const error = (code: number, message: string, headers: Record<string, string> = {}): void =>
        send(code, { error: { code, message, status: STATUS[code] ?? 'UNKNOWN' } }, headers);
      const answer = (): void => {
        if (req.method !== 'POST' || req.url !== '/v1/places:searchText')
          return error(404, `Method not found: ${req.method} ${req.url}`);
        const key = req.headers['x-goog-api-key'];
        if (key === undefined) return error(403, 'The request is missing a valid API key.');
        if (key !== options.apiKey) return error(400, 'API key not valid. Please pass a valid API key.');
        const maskHeader = req.headers['x-goog-fieldmask'];
        if (typeof maskHeader !== 'string' || maskHeader.trim() === '')
          return error(
            400,
            'FieldMask is a required parameter. See https://cloud.google.com/apis/docs/system-parameters on how to provide it.',
          );
        const mask = maskHeader.split(',').map((f) => f.trim());
        for (const f of mask) {
          const field = f.startsWith('places.') ? f.slice('places.'.length).split('.')[0] : f;
          if (!(
            f === '*' ||
            f === 'places' ||
            f === 'places.*' ||
            f === 'nextPageToken' ||
            (f.startsWith('places.') && field !== undefined && PLACE_FIELDS.has(field))
          )) {
            return error(400, `Invalid field mask: unknown field '${f}'.`);
          }
        }
        const b = body as
          | {
              textQuery?: unknown;
              pageSize?: unknown;
              pageToken?: unknown;
              locationBias?: { circle?: { center?: { latitude?: unknown; longitude?: unknown }; radius?: unknown } };
            }
          | undefined;
        if (b === undefined || typeof b.textQuery !== 'string' || b.textQuery === '')
          return error(400, 'Invalid request: textQuery is required.');
        const size = b.pageSize === undefined ? 20 : Number(b.pageSize);
        if (!Number.isInteger(size) || size < 0) return error(400, 'Invalid pageSize.');
        const pageSize = size === 0 ? 20 : Math.min(20, size);
        const circle = b.locationBias?.circle;
        const lat = circle?.center?.latitude;
        const lng = circle?.center?.longitude;
        const radius = circle?.radius;
        if (typeof lat !== 'number' || typeof lng !== 'number')
          return error(400, 'locationBias.circle.center is required by this fake.');
        if (typeof radius !== 'number' || radius < 0 || radius > 50000)
          return error(400, 'Invalid locationBias circle radius: must be in [0, 50000].');
        let offset = 0;
        if (b.pageToken !== undefined) {
          let token: { q?: unknown; o?: unknown };
          try {
            token = JSON.parse(Buffer.from(String(b.pageToken), 'base64url').toString('utf8')) as {
              q?: unknown;
              o?: unknown;
            };
          } catch {
            return error(400, 'Invalid page token.');
          }
          if (token.q !== b.textQuery || typeof token.o !== 'number')
            return error(400, 'The page token does not match the request: all other parameters must stay the same.');
          offset = token.o;
        }
        const all = fakeRanking(options.places, b.textQuery, lat, lng);
        const page = all.slice(offset, offset + pageSize);
        const whole = mask.includes('*') || mask.includes('places') || mask.includes('places.*');
        const fields = new Set(
          mask.filter((f) => f.startsWith('places.')).map((f) => f.slice('places.'.length).split('.')[0]),
        );
        const out: Record<string, unknown> = {};
        if (page.length > 0) {
          out.places = page.map((p) => {
            const o: Record<string, unknown> = {};
            for (const [k, v] of Object.entries(p))
              if (whole || fields.has(k) || (options.leakRatings && RATING_FIELDS.includes(k))) o[k] = v;
            return o;
          });
        }
        if ((whole || mask.includes('nextPageToken') || mask.includes('*')) && offset + pageSize < all.length) {
          out.nextPageToken = Buffer.from(JSON.stringify({ q: b.textQuery, o: offset + pageSize })).toString(
            'base64url',
          );
        }
        send(200, out);
      };
      const fault = options.fault?.(requests.length);
      if (fault === undefined) return answer();
      if ('delayMs' in fault) {
        setTimeout(() => {
          if (!res.destroyed) answer();
        }, fault.delayMs).unref();
        return;
      }
      error(
        fault.status,
        fault.status === 429 ? 'Resource has been exhausted (e.g. check quota).' : 'Internal error encountered.',
        fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    billed: () => requests.filter((r) => r.status === 200).length,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A law office of the synthetic sample in the API's shape, with a made-up rating and reviews the collector must drop. */
export function fakePlaceFromRecord(r: PlaceRecordT): FakePlace {
  const m = /^(\d+)\s+(.*)$/.exec(r.street_address);
  const components = [
    ...(m
      ? [
          { longText: m[1], shortText: m[1], types: ['street_number'], languageCode: 'en' },
          { longText: m[2], shortText: m[2], types: ['route'], languageCode: 'en' },
        ]
      : []),
    { longText: r.city, shortText: r.city, types: ['locality', 'political'], languageCode: 'en' },
    { longText: r.state, shortText: r.state, types: ['administrative_area_level_1', 'political'], languageCode: 'en' },
    { longText: 'United States', shortText: 'US', types: ['country', 'political'], languageCode: 'en' },
    ...(r.zip === null ? [] : [{ longText: r.zip, shortText: r.zip, types: ['postal_code'], languageCode: 'en' }]),
  ];
  const hm = (t: string): { hour: number; minute: number } => ({
    hour: Number(t.slice(0, 2)),
    minute: Number(t.slice(2)),
  });
  const place: FakePlace = {
    id: r.place_id,
    displayName: { text: r.name, languageCode: 'en' },
    formattedAddress: `${r.street_address}, ${r.city}, ${r.state}${r.zip === null ? '' : ` ${r.zip}`}, USA`,
    addressComponents: components,
    location: { latitude: r.lat, longitude: r.lng },
    primaryType: 'lawyer',
    primaryTypeDisplayName: { text: r.primary_category ?? 'Lawyer', languageCode: 'en-US' },
    types: ['lawyer', 'point_of_interest', 'establishment'],
    businessStatus: 'OPERATIONAL',
    rating: 4 + hash(r.place_id),
    userRatingCount: Math.floor(500 * hash(`${r.place_id}#`)),
    reviews: [{ rating: 5, text: { text: 'Great lawyer', languageCode: 'en' } }],
  };
  if (r.phone !== null) place.nationalPhoneNumber = r.phone;
  if (r.website !== null) place.websiteUri = r.website;
  if (r.opening_hours !== null) {
    place.regularOpeningHours = {
      openNow: false,
      periods: r.opening_hours.periods.map((p) =>
        p.close === undefined
          ? { open: { day: p.open.day, ...hm(p.open.time) } }
          : { open: { day: p.open.day, ...hm(p.open.time) }, close: { day: p.close.day, ...hm(p.close.time) } },
      ),
      weekdayDescriptions: [],
    };
  }
  return place;
}

/** A place that is not a law office (it keeps its rank in samples but gets no place record). */
export function fakeOtherBusiness(id: string, lat: number, lng: number): FakePlace {
  return {
    id,
    displayName: { text: `Corner Cafe ${id.slice(-4)}`, languageCode: 'en' },
    formattedAddress: '1 Main St, Springfield, NY 10001, USA',
    addressComponents: [
      { longText: 'Springfield', shortText: 'Springfield', types: ['locality'] },
      { longText: 'New York', shortText: 'NY', types: ['administrative_area_level_1'] },
      { longText: 'United States', shortText: 'US', types: ['country'] },
    ],
    location: { latitude: lat, longitude: lng },
    primaryType: 'cafe',
    primaryTypeDisplayName: { text: 'Cafe', languageCode: 'en-US' },
    businessStatus: 'OPERATIONAL',
    rating: 4.2,
    userRatingCount: 12,
  };
}
