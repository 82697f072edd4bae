/**
 * Stored objects -> public response bodies, with every object built in its schema's field order (docs/CONTRACT.md).
 * Stored records are compact (site-format.ts): hours.text, map_visibility and brand_index are rebuilt here from the
 * record, meta.json and the `what_this_is` constants.
 */
import { isPublicWebHost } from '../lib/public-host.ts';
import { BRAND_INDEX_WHAT, DISCLOSURE, MAP_VISIBILITY_WHAT, SERVICE_NAME } from '../contract/constants.ts';
import { attribution } from '../contract/attribution.ts';
import { disclosureFor } from './disclosure.ts';
import { hoursText } from './hours.ts';
import type {
  BrandIndexT,
  CoverageResponseT,
  FirmResponseT,
  HoursT,
  LocationT,
  MapVisibilityT,
  OfficeT,
  ResultT,
} from '../contract/schemas.ts';
import {
  keys,
  type CoverageDocT,
  type FirmDocT,
  type MetaT,
  type StoredBrandT,
  type StoredHoursT,
  type StoredOfficeT,
} from '../format/site-format.ts';
import { StoreError } from '../contract/errors.ts';

/** The service's own link for a listing, which redirects to the firm's site (GET /r/{listing_id}). */
export function websiteLink(publicBaseUrl: string, listingId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/r/${listingId}`;
}

/** Distance in miles rounded to 2 decimals. */
export function roundMiles(miles: number): number {
  return Math.round(miles * 100) / 100;
}

/** One-line postal address: "street, City, ST 12345" (Result has no separate city and state). */
export function fullAddress(office: Pick<StoredOfficeT, 'address' | 'city' | 'state' | 'zip'>): string {
  return `${office.address}, ${office.city}, ${office.state}${office.zip === null ? '' : ` ${office.zip}`}`;
}

/** What shaping reads from meta.json: the week and every metro's sampling (the denominators of the shares). */
export type ShapeMeta = Pick<MetaT, 'version' | 'week_of' | 'metros'>;

// Rendered hours lines per parsed record: a cached record chunk answers many queries, and rendering is a visible share of one.
const textOf = new WeakMap<StoredHoursT['weekly'], string[]>();

function hours(h: StoredHoursT | null): HoursT | null {
  if (h === null) return null;
  const w = h.weekly;
  let text = textOf.get(w);
  if (text === undefined) textOf.set(w, (text = hoursText(w)));
  return {
    timezone: h.timezone,
    weekly: { mon: w.mon, tue: w.tue, wed: w.wed, thu: w.thu, fri: w.fri, sat: w.sat, sun: w.sun },
    text: [...text],
  };
}

function mapVisibility(office: StoredOfficeT, meta: ShapeMeta): MapVisibilityT | null {
  if (office.visibility === null || office.metro === null) return null;
  const sampling = meta.metros[office.metro];
  // A record naming a metro that meta.json does not know is a broken version, not a null measurement.
  if (sampling === undefined)
    throw new StoreError(
      `meta.json of ${meta.version} has no metro ${JSON.stringify(office.metro)}`,
      keys.meta(meta.version),
    );
  return {
    metro: office.metro,
    week_of: meta.week_of,
    top3_share_pct: office.visibility.top3_share_pct,
    appears_share_pct: office.visibility.appears_share_pct,
    grid_samples: sampling.grid_samples,
    what_this_is: MAP_VISIBILITY_WHAT,
    grid_points: sampling.grid_points,
    queries: sampling.queries,
  };
}

function brandIndex(metro: string | null, b: StoredBrandT | null, meta: ShapeMeta): BrandIndexT | null {
  if (metro === null || b === null) return null;
  return {
    metro,
    week_of: meta.week_of,
    top3_share_pct: b.top3_share_pct,
    appears_share_pct: b.appears_share_pct,
    offices_measured: b.offices_measured,
    what_this_is: BRAND_INDEX_WHAT,
  };
}

/** One search result: a firm shown by its nearest office within the radius (table 2.2). distanceMiles exact, in miles. */
export function shapeResult(
  office: StoredOfficeT,
  meta: ShapeMeta,
  distanceMiles: number,
  officesWithinRadius: number,
  publicBaseUrl: string,
): ResultT {
  return {
    listing_id: office.listing_id,
    name: office.name,
    address: fullAddress(office),
    zip: office.zip,
    distance_miles: roundMiles(distanceMiles),
    phone: office.phone,
    website: office.website_url === null ? null : websiteLink(publicBaseUrl, office.listing_id),
    website_domain: office.website_domain,
    primary_category: office.primary_category,
    google_listing_claimed: office.google_listing_claimed,
    hours: hours(office.hours),
    map_visibility: mapVisibility(office, meta),
    brand_index: brandIndex(office.metro, office.brand, meta),
    profile_type: office.profile_type,
    sponsored: office.sponsored,
    offices_within_radius: officesWithinRadius,
  };
}

/** One office as GET /v1/firms shows it. */
export function shapeOffice(office: StoredOfficeT, meta: ShapeMeta): OfficeT {
  return {
    listing_id: office.listing_id,
    address: office.address,
    city: office.city,
    state: office.state,
    zip: office.zip,
    lat: office.lat,
    lng: office.lng,
    phone: office.phone,
    hours: hours(office.hours),
    primary_category: office.primary_category,
    google_listing_claimed: office.google_listing_claimed,
    map_visibility: mapVisibility(office, meta),
  };
}

/** Body of GET /v1/firms/{listing_id}; `disclosure` is the served dataset's (disclosure.ts), the plain one by default. */
export function shapeFirm(
  doc: FirmDocT,
  meta: ShapeMeta,
  publicBaseUrl: string,
  disclosure: string = DISCLOSURE,
): FirmResponseT {
  const f = doc.firm;
  return {
    listing_id: doc.listing_id,
    firm: {
      firm_id: f.firm_id,
      name: f.name,
      website: f.website_url === null ? null : websiteLink(publicBaseUrl, doc.listing_id),
      website_domain: f.website_domain,
      profile_type: f.profile_type,
      sponsored: f.sponsored,
      brand_index: f.brand === null ? null : brandIndex(f.brand.metro, f.brand, meta),
    },
    office: shapeOffice(doc.office, meta),
    other_offices: doc.other_offices.map((o) => shapeOffice(o, meta)),
    disclosure,
  };
}

/**
 * Body of GET /v1/coverage: the stored document without schema_version, with the served version first. The disclosure
 * is rebuilt from the document's dataset, so a version stored before the synthetic note still says so.
 */
export function shapeCoverage(doc: CoverageDocT, version: string): CoverageResponseT {
  const body: Complete<CoverageResponseT> = {
    version,
    week_of: doc.week_of,
    generated_at: doc.generated_at,
    dataset: { name: doc.dataset.name, synthetic: doc.dataset.synthetic },
    totals: { firms: doc.totals.firms, offices: doc.totals.offices, metros: doc.totals.metros },
    metros: doc.metros.map((m): Complete<CoverageMetroT> => ({
      slug: m.slug,
      name: m.name,
      center: { lat: m.center.lat, lng: m.center.lng },
      firms: m.firms,
      offices: m.offices,
      grid_points: m.grid_points,
      grid_samples: m.grid_samples,
      queries: m.queries,
      week_of: m.week_of,
    })),
    disclosure: disclosureFor(doc.dataset),
    attribution: doc.attribution ?? attribution(),
  };
  return body;
}

/** A metro of the coverage answer. */
type CoverageMetroT = CoverageResponseT['metros'][number];

/**
 * Every field of T, optional ones included: a shaping function that builds a `Complete<T>` fails to type-check when a
 * field is added to T and not copied, instead of dropping it silently (an optional field may be given as undefined).
 */
export type Complete<T> = { [K in keyof Required<T>]: T[K] };

/** The resolved location in the Location schema's order. */
export function shapeLocation(loc: LocationT, covered = true): LocationT {
  const note = loc.note === undefined || covered ? loc.note : withoutDistances(loc.note);
  return {
    input: loc.input,
    kind: loc.kind,
    lat: loc.lat,
    lng: loc.lng,
    zip: loc.zip,
    city: loc.city,
    state: loc.state,
    metro: loc.metro,
    source: loc.source,
    approximate: loc.approximate,
    ...(note !== undefined ? { note } : {}),
  };
}

/**
 * A location note without what it says of where distances are measured from and how to get a closer point: an answer
 * with no data for the place (covered: false) has no distances, and "Distances are from the centre point of Muncie,
 * IN" beside no results read as if some had been measured. How the place was read is kept. Undefined when nothing is left.
 */
export function withoutDistances(note: string): string | undefined {
  const left = note
    // "Read "downtown X" as X: distances are measured from its point, ...", "...; distances are measured from there, ...".
    .replace(/[:;] distances are measured from [^.]*?(?:; for distances from there, [^.]*?)?(?=\.(?: |$))/g, '')
    .replace(
      /Distances are from the centre point of .*?, not from a street address; a ZIP code gives a closer point\./g,
      '',
    )
    .replace(/For exact distances, send [^.]*?"lat,lng"\./g, '')
    .replace(/The person's ZIP code gives a closer point\./g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return left === '' ? undefined : left;
}

/** Splits off a query piece's decoded name, for matching `utm_source` however it was encoded. */
function paramName(piece: string): string {
  const name = piece.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * `url` with `utm_source=<SERVICE_NAME>`: an existing utm_source is replaced, every other query parameter kept byte for
 * byte. Null when the url is not an absolute http(s) URL without credentials on a public host (such a link is never
 * followed: a redirect into the visitor's own network would be one, public-host.ts).
 */
export function withUtmSource(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (
    (u.protocol !== 'http:' && u.protocol !== 'https:') ||
    u.username !== '' ||
    u.password !== '' ||
    !isPublicWebHost(u.hostname)
  )
    return null;
  const kept = u.search
    .slice(1)
    .split('&')
    .filter((piece) => piece !== '' && paramName(piece) !== 'utm_source');
  kept.push(`utm_source=${encodeURIComponent(SERVICE_NAME)}`);
  u.search = `?${kept.join('&')}`;
  return u.href;
}
