/** The Service over a source of site versions: parse -> resolve -> search -> shape, one version per call. */
import { z } from 'zod';
import { ORDER_TEXT } from '../contract/constants.ts';
import { disclosureFor, searchDisclosure } from './disclosure.ts';
import { ApiError, StoreError } from '../contract/errors.ts';
import { PAGE_NAME_RE, PageDoc, pageKey } from '../format/page-format.ts';
import { readRequired, type EarlyKeys, type SiteReader } from '../search/reader.ts';
import { queryId } from './query-id.ts';
import { locationKeys, metroAt, resolveLocation, zipPoint } from '../places/resolve.ts';
import { stateOfPoint } from '../places/resolve-point.ts';
import { FIRM_POINT_REFUSAL } from './firm-params.ts';
import { firmNearPoint } from './firm-near.ts';
import type { AttorneysResponseT } from '../contract/schemas.ts';
import { prepareCellSearch } from '../search/cell-search.ts';
import { cityHint, cityHintKeys } from '../places/city-hint.ts';
import { search as cellTreeSearch, type SearchFn } from '../search/search.ts';
import { isSearchRequest, parseSearch, validSearch, type SearchRequest } from './search-request.ts';
import type { RawArgs } from './params.ts';
import type { CallContext, Service } from './service.ts';
import { shapeResultWithText } from './answer-json.ts';
import { runWithTally } from '../store/read-tally.ts';
import { readVersionObject } from '../search/version-object.ts';
import { shapeCoverage, shapeFirm, shapeLocation, withUtmSource } from './shape.ts';
import {
  ChangesDoc,
  CoverageDoc,
  firmPackPrefix,
  firmPackSha256,
  FirmPack,
  keys,
  LISTING_ID_RE,
  ListingBucket,
  listingPrefix,
  type FirmDocT,
} from '../format/site-format.ts';

/** A firm's id, as a firm answer gives it (`firm.firm_id`). */
const FIRM_ID_RE = /^f_[a-z2-7]{16}$/;

/** Why `listingId` names no listing, and the id meant when a copy slip can be undone: a model retells a bare "no listing" as "no longer listed". */
function notFoundDetail(listingId: string): string {
  const sent = JSON.stringify(listingId.slice(0, 80));
  const exactly = 'Use a listing_id exactly as a search returned it.';
  if (LISTING_ID_RE.test(listingId)) return `No listing with id ${sent}. ${exactly}`;
  if (FIRM_ID_RE.test(listingId))
    return `${sent} is a firm_id, not a listing_id: send the listing_id of one of its offices: a search result's listing_id, or office.listing_id of the firm answer.`;
  // Upper case, or a space or full stop copied with it.
  const meant = listingId
    .trim()
    .replace(/[.,;:]+$/, '')
    .toLowerCase();
  if (LISTING_ID_RE.test(meant)) return `No listing with id ${sent}. Did you mean ${JSON.stringify(meant)}? ${exactly}`;
  return `${sent} is not a listing_id: a listing_id is "l_" and 16 lower-case letters and digits. ${exactly}`;
}

function notFound(listingId: string): ApiError {
  return new ApiError('not_found', notFoundDetail(listingId), { parameter: 'listing_id' });
}

/**
 * The firm document of a listing, from its firm pack. Whether the listing exists is read from its listings bucket, so
 * a firm document the version should hold but the store lacks is a StoreError (503), never a false 404.
 */
async function firmDoc(reader: SiteReader, listingId: string): Promise<FirmDocT> {
  if (!LISTING_ID_RE.test(listingId)) throw notFound(listingId);
  const length = reader.meta.listing_prefix_length;
  const bucket = await readRequired(
    reader,
    keys.listings(reader.version, listingPrefix(listingId, length)),
    ListingBucket,
  );
  if (sortedIndexOf(bucket.listing_ids, listingId) < 0) throw notFound(listingId);
  const prefix = firmPackPrefix(listingId, length);
  const key = keys.firmPack(reader.version, prefix);
  const sha256 = firmPackSha256(bucket, prefix);
  if (sha256 === undefined)
    throw new StoreError(`${keys.listings(reader.version, bucket.prefix)} has no sha256 for ${key}`, key);
  const pack = await readRequired(reader, key, FirmPack, undefined, sha256);
  const doc = pack.documents.find((d) => d.listing_id === listingId);
  if (doc === undefined)
    throw new StoreError(`${key} has no document for ${listingId}, which its listings bucket lists`, key);
  return doc;
}

/** Binary search in a sorted list of strings: the position of `value`, or -1. */
function sortedIndexOf(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] as string;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** What createService can be given besides its source. */
export interface ServiceOptions {
  /** The radius search behind findAttorneys (default: the cell tree's, search.ts); the benchmark's peers supply theirs. */
  search?: SearchFn;
}

/**
 * The Service; `source.current()` is called once per operation, so one answer never mixes two versions. Everything but
 * the radius search is the same code whatever `search` is.
 */
export function createService(
  source: { current(early?: EarlyKeys): Promise<SiteReader> },
  options: ServiceOptions = {},
): Service {
  const search = options.search ?? cellTreeSearch;
  const prepare = options.search === undefined ? prepareCellSearch : (): void => undefined;
  async function current(ctx: CallContext | undefined, early?: EarlyKeys): Promise<SiteReader> {
    const reader = await source.current(early);
    if (ctx?.read !== undefined) ctx.read.version = reader.version;
    return reader;
  }

  /** The answer to one search (findAttorneys runs it inside the search's tally). */
  async function findAttorneys(request: SearchRequest | RawArgs, ctx: CallContext): Promise<AttorneysResponseT> {
    const { args: q, location: parsed } = validSearch(isSearchRequest(request) ? request : parseSearch(request));
    // A cold request reads the location's first objects beside meta.json (site-reader.ts), which carries the cell index.
    const reader = await current(ctx, (v) => [...locationKeys(parsed, v), ...cityHintKeys(parsed, v)]);
    // The reads every search needs (the cell index) start beside the location's own, not after them.
    prepare(reader);
    // The resolved location's metro, declared before any search can start (a search started from a point before the
    // location is resolved is told it once known).
    let metroOf: (m: Promise<string | null>) => void = () => undefined;
    const metro = new Promise<string | null>((resolve) => (metroOf = resolve));
    metro.catch(() => undefined);
    // Searches started from a point before the location is resolved, by point: the answer's is kept, the others dropped.
    const started = new Map<string, ReturnType<SearchFn>>();
    const searchFrom = (p: { lat: number; lng: number }): ReturnType<SearchFn> => {
      const at = `${p.lat},${p.lng}`;
      let found = started.get(at);
      if (found === undefined) {
        found = search(reader, { lat: p.lat, lng: p.lng, metro }, q.radiusMiles, q.limit);
        found.catch(() => undefined);
        started.set(at, found);
      }
      return found;
    };
    // A place name's point is known before its metro (the city document, then its coverage piece): its search starts
    // from it at once (resolve-city.ts tells it).
    const located = resolveLocation(parsed, reader, searchFrom);
    metroOf(located.then((l) => l.metro));
    // A point is known before its metro: its search runs beside the location's reads (search.ts). The location's
    // error (a 400, or its own 503) comes first, as when the two ran one after the other.
    if (parsed.kind === 'point') searchFrom(parsed);
    // A place's probable point (city-hint.ts): its search, and the read of its coverage piece, start beside the city
    // document, the search kept only if the document resolves the query to that very point. A ZIP's point is its own
    // (its metro follows from its coverage piece).
    const hinted = (parsed.kind === 'zip' ? zipPoint(parsed, reader) : cityHint(reader, parsed)).then((p) => {
      if (p === null) return;
      if (parsed.kind !== 'zip') metroAt(reader, p.lat, p.lng).catch(() => undefined);
      searchFrom(p);
    });
    const location = await located;
    await hinted;
    const found = await searchFrom(location);
    return {
      query_id: queryId({
        version: reader.version,
        locationInput: location.input,
        radiusMiles: q.radiusMiles,
        limit: q.limit,
        practiceArea: q.practiceArea,
      }),
      covered: found.covered,
      location: shapeLocation(location, found.covered),
      radius_miles_used: q.radiusMiles,
      firms_within_radius: found.firmsWithinRadius,
      order: ORDER_TEXT,
      disclosure: searchDisclosure(found.covered, location, reader.meta),
      // Registered with their offices' text, so answerJson (answer-json.ts) serialises them without escaping it again.
      results: found.hits.map((h) =>
        shapeResultWithText(h.office, reader.meta, h.distanceMiles, h.officesWithinRadius, ctx.publicBaseUrl),
      ),
    };
  }

  return {
    findAttorneys(request: SearchRequest | RawArgs, ctx: CallContext): Promise<AttorneysResponseT> {
      // One tally of store reads for the whole search (read-tally.ts): a round of pack ranges that would take it over
      // the cold target joins more of them (block-packs.ts fitRuns).
      return runWithTally(() => findAttorneys(request, ctx));
    },

    async getFirm(listingId, ctx, near) {
      const reader = await current(ctx);
      const doc = firmDoc(reader, listingId);
      if (near !== undefined && near !== null) {
        // The point is the caller's argument: a point outside the US is refused whatever the id (read beside it).
        doc.catch(() => undefined);
        await stateOfPoint(reader, { ...near, parameter: 'lat' }, FIRM_POINT_REFUSAL);
      }
      const body = shapeFirm(await doc, reader.meta, ctx.publicBaseUrl, disclosureFor(reader.meta.dataset));
      return near === undefined || near === null ? body : firmNearPoint(body, near);
    },

    async getCoverage(ctx) {
      const reader = await current(ctx);
      return shapeCoverage(await readRequired(reader, keys.coverage(reader.version), CoverageDoc), reader.version);
    },

    async getChanges(ctx) {
      const reader = await current(ctx);
      return readRequired(reader, keys.changes(reader.version), ChangesDoc);
    },

    async redirectTarget(listingId, ctx) {
      const reader = await current(ctx);
      const doc = await firmDoc(reader, listingId);
      const site = doc.office.website_url ?? doc.firm.website_url;
      const target = site === null ? null : withUtmSource(site);
      // No website (or one that is not an http(s) URL): nothing to redirect to, so the link does not exist.
      if (target === null) {
        throw new ApiError('not_found', `Listing ${listingId} has no website to redirect to.`, {
          parameter: 'listing_id',
        });
      }
      return target;
    },

    async openapi(ctx) {
      const reader = await current(ctx);
      return readRequired(reader, keys.openapi(reader.version), z.unknown());
    },

    async dataset() {
      const meta = (await source.current()).meta;
      return { name: meta.dataset.name, synthetic: meta.dataset.synthetic, metros: meta.totals.metros };
    },

    async currentVersion() {
      return (await source.current()).version;
    },

    async versionObject(version, rel, ctx) {
      const reader = await current(ctx);
      const get = reader.storedBytes;
      if (version !== reader.version || get === undefined) return null;
      return readVersionObject({ reader, metaSha256: reader.metaSha256, get }, rel);
    },

    async pointer(ctx) {
      const reader = await current(ctx);
      const { version, week } = reader.meta;
      return {
        schema_version: 1,
        version,
        week,
        ...(reader.metaSha256 !== undefined ? { meta_sha256: reader.metaSha256 } : {}),
      };
    },

    async page(name) {
      if (!PAGE_NAME_RE.test(name)) return null;
      const reader = await source.current();
      return reader.json(pageKey(reader.version, name), PageDoc);
    },
  };
}
